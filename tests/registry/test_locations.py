"""Where a Feast data source's data lives: its URI, and the dataset other producers name."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from feast_lineage.registry.locations import Identity, location_identity, location_uri


def sources() -> SimpleNamespace:
    import warnings

    from feast import BigQuerySource, FileSource, KafkaSource, RedshiftSource, SnowflakeSource
    from feast.data_format import JsonFormat, ParquetFormat

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return SimpleNamespace(
            bigquery=BigQuerySource(name="b", table="proj.ds.trips", timestamp_field="ts"),
            bigquery_legacy=BigQuerySource(name="bl", table="proj:ds.trips", timestamp_field="ts"),
            bigquery_query=BigQuerySource(name="bq", query="SELECT 1", timestamp_field="ts"),
            snowflake=SnowflakeSource(
                name="s", database="FEAST", schema="PUBLIC", table="TRIPS", timestamp_field="ts"
            ),
            redshift=RedshiftSource(
                name="r", table="trips", schema="ml", database="dev", timestamp_field="ts"
            ),
            local=FileSource(
                name="f",
                path="data/trips.parquet",
                file_format=ParquetFormat(),
                timestamp_field="ts",
            ),
            s3=FileSource(name="s3", path="s3://bucket/trips/2026.parquet", timestamp_field="ts"),
            kafka=KafkaSource(
                name="k",
                kafka_bootstrap_servers="broker-1:9092,broker-2:9092",
                topic="trips",
                timestamp_field="ts",
                message_format=JsonFormat(schema_json="id integer"),
                batch_source=FileSource(
                    name="kb", path="s3://bucket/k.parquet", timestamp_field="ts"
                ),
            ),
        )


# The warehouses' offline store settings, as feature_store.yaml gives them; their
# Feast config classes need the snowflake and redshift extras, not installed here.
SNOWFLAKE = SimpleNamespace(type="snowflake.offline", account="XY12345.eu-west-1")
REDSHIFT = SimpleNamespace(type="redshift", cluster_id="ml-cluster", region="us-west-2")


def test_each_source_names_the_dataset_of_the_openlineage_naming_conventions(
    tmp_path: Path,
) -> None:
    s = sources()
    assert location_identity(s.bigquery, tmp_path) == Identity("bigquery", "proj.ds.trips", "TABLE")
    assert location_identity(s.bigquery_legacy, tmp_path) == Identity(
        "bigquery", "proj.ds.trips", "TABLE"
    )
    assert location_identity(s.snowflake, tmp_path, SNOWFLAKE) == Identity(
        "snowflake://xy12345.eu-west-1", "FEAST.PUBLIC.TRIPS", "TABLE"
    )
    assert location_identity(s.redshift, tmp_path, REDSHIFT) == Identity(
        "redshift://ml-cluster.us-west-2:5439", "dev.ml.trips", "TABLE"
    )
    local = (tmp_path / "data" / "trips.parquet").resolve()
    assert location_identity(s.local, tmp_path) == Identity("file", str(local), "FILE")
    assert location_identity(s.s3, tmp_path) == Identity(
        "s3://bucket", "trips/2026.parquet", "FILE"
    )
    assert location_identity(s.kafka, tmp_path) == Identity(
        "kafka://broker-1:9092", "trips", "TOPIC"
    )


@pytest.mark.parametrize("name", ["bigquery_query", "snowflake", "redshift"])
def test_no_identity_without_a_table_or_the_warehouse_settings(tmp_path: Path, name: str) -> None:
    # A query names no table; a Snowflake or Redshift table needs its account or cluster.
    assert location_identity(getattr(sources(), name), tmp_path) is None


def test_the_uri_of_files_and_topics_only(tmp_path: Path) -> None:
    s = sources()
    assert location_uri(s.s3, tmp_path) == "s3://bucket/trips/2026.parquet"
    assert location_uri(s.kafka, tmp_path) == "kafka://broker-1:9092/trips"
    assert location_uri(s.bigquery, tmp_path) is None
