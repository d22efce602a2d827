"""Credentials in names, namespaces and dataSource URIs never reach the store."""

from __future__ import annotations

import orjson
import pytest

from feast_lineage.consumer.intake.body import parse_events
from feast_lineage.consumer.store.write.rows import RowBatch
from feast_lineage.identity import dataset_id
from tests.factories import dataset, dataset_event, facet, run_event
from tests.store_helpers import event_payload

SECRETS = ("SECRETB4", "SECRETB5", "SECRETA6", "AKIA")


def derived(event: dict[str, object]) -> RowBatch:
    (result,) = parse_events(orjson.dumps(event), 0, max_events=10).results
    assert isinstance(result, RowBatch)
    return result


def assert_no_secret(result: RowBatch) -> None:
    stored = orjson.dumps(event_payload(only(result.events))).decode()
    rows = str([result.datasets, result.jobs, result.symlinks, result.blobs])
    for secret in SECRETS:
        assert secret not in stored
        assert secret not in rows


def only(rows: list[dict[str, object]]) -> dict[str, object]:
    (row,) = rows
    return row


def test_the_probe_event_is_stored_clean() -> None:
    ds = dataset(
        "jdbc:oracle:thin:u/SECRETB4@h:1521:orcl",
        "f?X-Amz-Signature=SECRETA6&X-Amz-Credential=AKIA",
        dataSource=facet(
            name="db", uri="postgres://h:5432/db?sslmode=require&sslpassword=SECRETB5"
        ),
        symlinks=facet(
            identifiers=[
                {"namespace": "jdbc:oracle:thin:u/pw@//host:1521/svc", "name": "t", "type": "T"}
            ]
        ),
    )
    result = derived(run_event(inputs=[ds], outputs=[]))
    assert_no_secret(result)
    (row,) = result.datasets.values()
    assert row["namespace"] == "jdbc:oracle:thin:@h:1521:orcl"
    assert row["name"] == "f"
    assert row["id"] == dataset_id("jdbc:oracle:thin:@h:1521:orcl", "f")
    assert row["datasource_uri"] == "postgres://h:5432/db?sslmode=require"
    (link,) = result.symlinks.values()
    assert link["alias_namespace"] == "jdbc:oracle:thin:@//host:1521/svc"
    payload = event_payload(only(result.events))
    assert payload["inputs"][0]["namespace"] == "jdbc:oracle:thin:@h:1521:orcl"
    assert payload["inputs"][0]["name"] == "f"


@pytest.mark.parametrize(
    ("namespace", "name"),
    [
        ("jdbc:oracle:thin:u/SECRETB4@h:1521:orcl", "t"),
        ("s3://b", "f?X-Amz-Signature=SECRETA6&X-Amz-Credential=AKIA"),
        ("postgres://h:5432/db?sslmode=require&sslpassword=SECRETB5", "public.t"),
    ],
)
def test_each_case_alone_is_cleaned(namespace: str, name: str) -> None:
    # Alone, so that no other credential in the event triggers the scrub.
    assert_no_secret(derived(dataset_event(namespace, name)))


def test_a_job_named_with_a_presigned_query_is_cleaned() -> None:
    result = derived(run_event(job=("airflow://prod", "export?sig=SECRETA6&sv=2022-11-02")))
    assert_no_secret(result)
    (job,) = result.jobs.values()
    assert job["name"] == "export?sv=2022-11-02"
