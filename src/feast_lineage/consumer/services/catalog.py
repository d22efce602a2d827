"""The catalog: namespaces, jobs and datasets, in Feast's shapes (:mod:`..feast_shape`)."""

from __future__ import annotations

import orjson
from sqlalchemy import Connection, Table

from feast_lineage.consumer import redaction
from feast_lineage.consumer.errors import LineageError
from feast_lineage.consumer.feast_objects import feast_object
from feast_lineage.consumer.feast_shape import dataset_fields, facets_json, job_fields, ms
from feast_lineage.consumer.schemas import (
    DatasetItem,
    DatasetPage,
    JobItem,
    JobPage,
    LatestRun,
    NamespaceItem,
    NamespaceList,
)
from feast_lineage.consumer.services.columns import has_column_lineage
from feast_lineage.consumer.services.graph import node_key
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.services.when import When, answerable
from feast_lineage.consumer.store.read import as_of as at_reads
from feast_lineage.consumer.store.read import catalog_as_of
from feast_lineage.consumer.store.read import common as read_common
from feast_lineage.consumer.store.read import namespaces as namespace_reads
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.common import JsonObject
from feast_lineage.consumer.store.read.datasets import DatasetRecord, dataset_rows
from feast_lineage.consumer.store.read.jobs import JobRecord, job_rows
from feast_lineage.consumer.store.read.jobs import LatestRun as LatestRunRecord
from feast_lineage.consumer.store.read.sorting import Sort
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import to_iso

BY_NAMESPACE = Sort("namespace")


def namespace_list(read: StoreReader) -> NamespaceList:
    with read.engine.connect() as conn:
        found = namespace_reads.namespaces(conn, read.scope.ns_ids)
    counts = [NamespaceItem(namespace=n.namespace, jobs=n.jobs, datasets=n.datasets) for n in found]
    return NamespaceList(
        namespaces=[item.namespace for item in counts], counts=counts, total=len(counts)
    )


def _facets(
    conn: Connection,
    table: Table,
    owners: list[int],
    read: StoreReader,
    at: Instant | None = None,
) -> dict[int, dict[str, JsonObject]]:
    """Each owner's latest facets (by ``at``), as the caller may see them."""
    if at is None:
        stored = read_common.facets_of(conn, table, owners)
    else:
        stored = _parsed(catalog_as_of.facets_at(conn, table, owners, at))
    return _shown(stored, read, datasets=table is t.dataset_facets)


def _parsed(texts: dict[int, dict[str, str]]) -> dict[int, dict[str, JsonObject]]:
    return {o: {k: orjson.loads(v) for k, v in f.items()} for o, f in texts.items()}


def _shown(
    stored: dict[int, dict[str, JsonObject]], read: StoreReader, *, datasets: bool
) -> dict[int, dict[str, JsonObject]]:
    """Facets as the caller may see them (a dataset's: :func:`.redaction.dataset_facets`)."""
    if read.scope.is_everything:
        return stored
    redact = redaction.dataset_facets if datasets else redaction.facets
    shown: dict[int, dict[str, JsonObject]] = {
        owner: redact(facets, read.scope) for owner, facets in stored.items()
    }
    return shown


def job_page(
    read: StoreReader,
    *,
    namespace: str | None,
    search: str | None,
    limit: int,
    offset: int,
    sort: Sort = BY_NAMESPACE,
    at: When = None,
) -> JobPage:
    """A page of jobs, each with its latest run, in ``sort`` order (as of ``at``)."""
    instant = _instant(at)
    ns_ids = read.scope.narrow(namespace).ns_ids
    with read.engine.connect() as conn:
        if instant is None:
            total, rows = job_rows(conn, ns_ids, search, sort, offset, limit)
        else:
            answerable(conn, instant)  # a 400 before the retention horizon
            total, rows = catalog_as_of.job_rows_at(
                conn, ns_ids, search, sort, offset, limit, instant
            )
        facets = _facets(conn, t.job_facets, [r.id for r in rows], read, instant)
    items = [_job_item(r, facets.get(r.id, {})) for r in rows]
    return JobPage(jobs=items, total=total, limit=limit, offset=offset)


def _instant(at: When) -> Instant | None:
    """The instant a list is asked at (None: now); a window is a 400."""
    if at is None:
        return None
    if not isinstance(at, Instant):
        raise LineageError(
            "the catalog answers as of an instant: pass as_of (since/until are taken by the "
            "graph and column lineage)",
            code="invalid_parameter",
        )
    return at


def _job_item(r: JobRecord, own: dict[str, JsonObject]) -> JobItem:
    kind, description = job_fields(own)
    return JobItem(
        job_namespace=r.namespace,
        job_name=r.name,
        job_type=kind,
        producer=r.producer,
        description=description,
        facets_json=facets_json(own),
        latest_run_id=r.latest_run.run_id if r.latest_run else None,
        updated_at=ms(r.updated_us),
        id=node_key("job", r.namespace, r.name),
        created_at=ms(r.created_us),
        created_at_iso=to_iso(r.created_us) or "",
        updated_at_iso=to_iso(r.updated_us) if r.updated_us else None,
        latest_run=_latest_run(r.latest_run),
    )


def _latest_run(run: LatestRunRecord | None) -> LatestRun | None:
    if run is None:
        return None
    started, ended = run.started_us, run.ended_us
    return LatestRun(
        run_id=run.run_id,
        state=run.state,
        started_at=ms(started) or 0,
        ended_at=ms(ended),
        duration_ms=None if ended is None else max(0, (ended - started) // 1000),
        started_at_iso=to_iso(started) or "",
        ended_at_iso=to_iso(ended),
    )


def dataset_page(
    read: StoreReader,
    *,
    namespace: str | None,
    search: str | None,
    limit: int,
    offset: int,
    sort: Sort = BY_NAMESPACE,
    at: When = None,
) -> DatasetPage:
    """A page of datasets in ``sort`` order (as of ``at``, with the version current then)."""
    instant = _instant(at)
    ns_ids = read.scope.narrow(namespace).ns_ids
    with read.engine.connect() as conn:
        if instant is None:
            total, rows = dataset_rows(
                conn, ns_ids, search, sort, offset, limit, visible=read.scope.ns_ids
            )
            facets = _facets(conn, t.dataset_facets, [r.id for r in rows], read)
        else:
            answerable(conn, instant)  # a 400 before the retention horizon
            total, rows = catalog_as_of.dataset_rows_at(
                conn, ns_ids, search, sort, offset, limit, instant
            )
            then = catalog_as_of.dataset_facets_then(
                conn, [r.id for r in rows], instant, exact=False
            )
            then_facets = _with_schemas_then(conn, _parsed(then.facets), rows, instant)
            facets = _shown(then_facets, read, datasets=True)
        with_columns = has_column_lineage(conn, (r.id for r in rows), read.scope, instant)
    items = [_dataset_item(r, facets.get(r.id, {}), r.id in with_columns, read) for r in rows]
    if instant is not None:
        for item, r in zip(items, rows, strict=True):
            item.datasource_uri = then.uris.get(r.id)  # its facet's by then, else none
    return DatasetPage(datasets=items, total=total, limit=limit, offset=offset)


def _with_schemas_then(
    conn: Connection,
    facets: dict[int, dict[str, JsonObject]],
    rows: list[DatasetRecord],
    at: Instant,
) -> dict[int, dict[str, JsonObject]]:
    """``facets`` with each dataset's schema then where its facet was stated again since:
    the version current then holds it (as on the graph's nodes)."""
    versions = at_reads.dataset_versions_at(conn, (r.id for r in rows), at)
    schemas = at_reads.schema_texts(conn, versions)
    for owner, version in versions.items():
        schema = schemas.get(version.schema_id or "")
        if schema is not None and "schema" not in facets.get(owner, {}):
            facets.setdefault(owner, {})["schema"] = orjson.loads(schema)
    return facets


def _dataset_item(
    r: DatasetRecord, own: dict[str, JsonObject], with_columns: bool, read: StoreReader
) -> DatasetItem:
    feast = feast_object("dataset", r.namespace, r.name, r.feast_type, own, read.namespace_mapping)
    fields = dataset_fields(own)
    return DatasetItem(
        dataset_namespace=r.namespace,
        dataset_name=r.name,
        source_type=fields.source_type,
        producer=r.producer,
        description=fields.description,
        schema_text=fields.schema_json,
        facets_json=facets_json(own),
        feast_object_type=feast["type"] if feast else None,
        feast_object_name=feast["name"] if feast else None,
        feast_project=feast["project"] if feast else None,
        owner_name=fields.owner_name,
        owner_type=fields.owner_type,
        lifecycle_state=fields.lifecycle_state,
        current_version=None,
        updated_at=ms(r.updated_us),
        id=node_key("dataset", r.namespace, r.name),
        created_at=ms(r.created_us),
        created_at_iso=to_iso(r.created_us) or "",
        updated_at_iso=None if r.updated_us is None else to_iso(r.updated_us) or "",
        datasource_uri=r.datasource_uri,
        feast=feast,
        has_column_lineage=with_columns,
    )
