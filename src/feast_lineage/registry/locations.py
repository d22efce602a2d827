"""Where a data source's data lives, when the source says so.

:func:`location_uri` gives the URI of a file or topic (the ``dataSource``
facet's). :func:`location_identity` gives the dataset other producers name
for the same data, by the OpenLineage naming conventions: ``s3://bucket`` +
``path``, ``file`` + ``/abs/path``, ``kafka://broker:port`` + topic,
``bigquery`` + ``project.dataset.table``, ``snowflake://account`` +
``DATABASE.SCHEMA.TABLE``, ``redshift://cluster.region:5439`` +
``database.schema.table``. The producer lists it in a ``symlinks`` facet, so
a Spark job, a dbt model or an Airflow task that reads or writes the same
table meets the Feast data source in the graph. Only sources that name one
table, file or topic get either; a query, a push or a request source names
no location and gets None. Credentials never reach them (see
:mod:`feast_lineage.uris`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from feast_lineage.uris import strip_credentials


def location_uri(source: Any, repo_path: Path | None) -> str | None:
    """The URI of the data behind ``source``, or None when it names no location."""
    kind = type(source).__name__
    if kind == "FileSource":
        return _path_uri(str(getattr(source, "path", "") or ""), repo_path)
    if kind == "SparkSource":
        path = getattr(source, "path", None)
        return _path_uri(str(path), repo_path) if path else None
    if kind == "KafkaSource":
        options = getattr(source, "kafka_options", None)
        servers = getattr(options, "kafka_bootstrap_servers", None)
        topic = getattr(options, "topic", None)
        if servers and topic:
            first = str(servers).split(",")[0].strip()
            return strip_credentials(f"kafka://{first}/{topic}")
    return None


class Identity(NamedTuple):
    """An OpenLineage dataset identifier: namespace, name and what it is."""

    namespace: str
    name: str
    type: str  # TABLE, FILE or TOPIC


def location_identity(
    source: Any, repo_path: Path | None, offline_store: Any = None
) -> Identity | None:
    """The OpenLineage dataset of the data behind ``source``, if it names one.

    ``offline_store``: the feature store's offline store settings, which
    hold the warehouse's account or cluster (Snowflake, Redshift).
    """
    kind = type(source).__name__
    if kind == "BigQuerySource":
        bq_table = str(getattr(source, "table", "") or "")
        # Feast also takes the legacy "project:dataset.table".
        return Identity("bigquery", bq_table.replace(":", ".", 1), "TABLE") if bq_table else None
    if kind == "SnowflakeSource":
        account = str(getattr(offline_store, "account", "") or "")
        parts = [getattr(source, a, None) for a in ("database", "schema", "table")]
        if account and all(parts):
            name = ".".join(str(p) for p in parts)
            return Identity(f"snowflake://{account.lower()}", name, "TABLE")
        return None
    if kind == "RedshiftSource":
        cluster = getattr(offline_store, "cluster_id", None)
        region = getattr(offline_store, "region", None)
        database = getattr(source, "database", None) or getattr(offline_store, "database", None)
        schema = getattr(source, "schema", None) or "public"
        table = getattr(source, "table", None)
        if cluster and region and database and table:
            name = f"{database}.{schema}.{table}"
            return Identity(f"redshift://{cluster}.{region}:5439", name, "TABLE")
        return None
    uri = location_uri(source, repo_path)
    if uri is None:
        return None
    return _split_uri(uri, "TOPIC" if kind == "KafkaSource" else "FILE")


def _split_uri(uri: str, kind: str) -> Identity | None:
    """``s3://bucket/a/b`` -> (``s3://bucket``, ``a/b``); ``file:///x`` -> (``file``, ``/x``)."""
    scheme, sep, rest = uri.partition("://")
    if not sep:
        return None
    if scheme == "file":
        return Identity("file", "/" + rest.lstrip("/"), kind)
    authority, slash, path = rest.partition("/")
    if not slash or not path or not authority:
        return None
    return Identity(f"{scheme}://{authority}", path, kind)


def _path_uri(path: str, repo_path: Path | None) -> str | None:
    if not path:
        return None
    if "://" in path:
        return strip_credentials(path)
    local = Path(path)
    if not local.is_absolute():
        if repo_path is None:
            return None
        local = repo_path / local
    return local.resolve().as_uri()
