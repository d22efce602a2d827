"""Dataset versions over HTTP: what mints one, Feast's shape, the schema diff, paging, access."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from feast_lineage.consumer.schemas import DatasetVersionDetail, DatasetVersionPage
from feast_lineage.consumer.store.admin.prune import prune
from feast_lineage.event_time import parse_us
from tests.conftest import AppFactory
from tests.consumer.lineage import API, ingest
from tests.factories import at, dataset, dataset_event, facet, iso, run_event
from tests.store_helpers import Store

# Routes on SQLite: the store tests run the same rules on the three databases
# (tests/consumer/store/write/test_dataset_versions.py, store/read/test_dataset_versions.py,
# store/read/test_dataset_version_page.py and store/admin/test_dataset_versions.py).
pytestmark = pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)

NS, NAME = "warehouse", "public.driver_stats"


def schema(*fields: tuple[str, str] | tuple[str, str, str], nested: Any = None) -> dict[str, Any]:
    out = [
        {"name": f[0], "type": f[1], **({"description": f[2]} if len(f) > 2 else {})}
        for f in fields
    ]
    if nested is not None:
        out.append({"name": "address", "type": "STRUCT", "fields": nested})
    return facet(fields=out)


def stats(rows: int, size: int, files: int) -> dict[str, Any]:
    return {"outputStatistics": facet(rowCount=rows, size=size, fileCount=files)}


def write(
    event_type: str,
    t: float,
    ds_schema: dict[str, Any] | None = None,
    *,
    run_id: str | None = None,
    output_stats: dict[str, Any] | None = None,
    name: str = NAME,
    ns: str = NS,
    job: tuple[str, str] = ("spark", "load_stats"),
) -> dict[str, Any]:
    facets = {"schema": ds_schema} if ds_schema is not None else {}
    out = dataset(ns, name, **facets)
    if output_stats is not None:
        out["outputFacets"] = output_stats
    return run_event(event_type, run_id=run_id, job=job, time=at(t), outputs=[out])


def path(ns: str = NS, name: str = NAME) -> str:
    return f"{API}/datasets/{quote(ns, safe='')}/{quote(name, safe='')}/versions"


def versions(client: TestClient, **params: Any) -> dict[str, Any]:
    response = client.get(path(), params=params)
    assert response.status_code == 200, response.text
    DatasetVersionPage.model_validate(response.json())
    return response.json()


def detail(client: TestClient, version_id: str) -> dict[str, Any]:
    response = client.get(f"{path()}/{version_id}")
    assert response.status_code == 200, response.text
    DatasetVersionDetail.model_validate(response.json())
    return response.json()


V1 = schema(("driver_id", "INT64"), ("conv_rate", "FLOAT", "conversion"))
V2 = schema(
    ("driver_id", "INT64"),
    ("conv_rate", "DOUBLE", "conversion rate"),
    ("acc_rate", "FLOAT"),
    nested=[{"name": "city", "type": "STRING"}],
)


def test_a_complete_write_mints_a_version_with_feasts_keys_and_ours(client: TestClient) -> None:
    run = "0190e6a1-7c3f-7b6e-9a1d-3f2b8c4d5e6f"
    ingest(
        client,
        write("START", 0, V1, run_id=run),
        write("COMPLETE", 10, V1, run_id=run, output_stats=stats(100, 2048, 3)),
    )
    body = versions(client)
    # START stated the schema first (a change), COMPLETE wrote it (a write).
    assert body["total"] == 2
    newest, oldest = body["versions"]
    assert newest["changes"] == ["write"]
    assert oldest["changes"] == ["schema"]
    assert newest["version"] == 2
    assert oldest["version"] == 1
    assert newest["created_by_run_id"] == run
    assert newest["created_at"] == 1767268810000  # eventTime, in ms
    assert newest["created_at_iso"] == "2026-01-01T12:00:10Z"
    assert newest["job"] == {"namespace": "spark", "name": "load_stats"}
    assert newest["event_type"] == "COMPLETE"
    assert newest["statistics"] == {"row_count": 100, "bytes": 2048, "file_count": 3}
    assert newest["schema"] == V1
    assert newest["facets"]["schema"] == V1
    assert [f["name"] for f in newest["fields"]] == ["driver_id", "conv_rate"]
    assert newest["previous_id"] == oldest["id"]
    assert isinstance(newest["version_id"], int)
    assert len(newest["id"]) == 16
    assert newest["version_id"] == int(newest["id"], 16)
    for key in ("dataset_namespace", "dataset_name"):
        assert newest[key] == {"dataset_namespace": NS, "dataset_name": NAME}[key]


@pytest.mark.parametrize("event_type", ["FAIL", "ABORT", "RUNNING", "START", "OTHER"])
def test_only_complete_mints_a_write_version(client: TestClient, event_type: str) -> None:
    ingest(client, write("COMPLETE", 0, V1), write(event_type, 5, V1))
    assert [v["changes"] for v in versions(client)["versions"]] == [["write", "schema"]]


def test_a_schema_change_by_any_event_mints_a_version_with_its_diff(client: TestClient) -> None:
    ingest(
        client,
        write("COMPLETE", 0, V1),
        write("FAIL", 5, V2),  # a failed run that changed the schema
        write("COMPLETE", 9),  # writes without stating the schema: keeps V2
    )
    body = versions(client)
    assert [v["changes"] for v in body["versions"]] == [["write"], ["schema"], ["write", "schema"]]
    assert body["versions"][0]["schema"] == V2
    changed = detail(client, body["versions"][1]["id"])
    assert changed["previous_id"] == body["versions"][2]["id"]
    diff = changed["diff"]
    assert diff["previous_id"] == body["versions"][2]["id"]
    assert [f["name"] for f in diff["added"]] == ["acc_rate", "address", "address.city"]
    assert diff["removed"] == []
    assert diff["type_changed"] == [{"name": "conv_rate", "before": "FLOAT", "after": "DOUBLE"}]
    assert diff["description_changed"] == [
        {"name": "conv_rate", "before": "conversion", "after": "conversion rate"}
    ]
    back = detail(client, body["versions"][0]["id"])["diff"]
    assert back["added"] == back["removed"] == back["type_changed"] == []
    first = detail(client, body["versions"][2]["id"])["diff"]
    assert first["previous_id"] is None
    assert len(first["added"]) == 2


def test_a_dataset_event_changing_lifecycle_version_and_symlinks_mints_versions(
    client: TestClient,
) -> None:
    ingest(
        client,
        write("COMPLETE", 0, V1),
        dataset_event(NS, NAME, at(1), version=facet(datasetVersion="7")),
        dataset_event(NS, NAME, at(2), version=facet(datasetVersion="7")),  # no change
        dataset_event(
            NS,
            NAME,
            at(3),
            symlinks=facet(identifiers=[{"namespace": "hive", "name": "d.s", "type": "TABLE"}]),
        ),
        dataset_event(NS, NAME, at(4), lifecycleStateChange=facet(lifecycleStateChange="DROP")),
    )
    body = versions(client)
    assert [v["changes"] for v in body["versions"]] == [
        ["lifecycle"],
        ["symlinks"],
        ["version"],
        ["write", "schema"],
    ]
    dropped = body["versions"][0]
    assert dropped["lifecycle_state_change"] == "DROP"
    assert dropped["job"] is None
    assert dropped["created_by_run_id"] is None
    assert dropped["schema"] == V1  # carried from the write
    assert body["versions"][2]["dataset_version"] == "7"


def test_a_run_reading_the_dataset_with_a_new_schema_mints_a_version(client: TestClient) -> None:
    reader = run_event(
        "START", job=("spark", "reader"), time=at(3), inputs=[dataset(NS, NAME, schema=V2)]
    )
    ingest(client, write("COMPLETE", 0, V1), reader)
    assert [v["changes"] for v in versions(client)["versions"]] == [["schema"], ["write", "schema"]]


def test_pages_newest_first_with_since_and_until(client: TestClient) -> None:
    ingest(client, *(write("COMPLETE", t, V1) for t in range(5)))
    body = versions(client, limit=2, offset=1)
    assert body["total"] == 5
    assert (body["limit"], body["offset"]) == (2, 1)
    assert [v["created_at_iso"][-3:] for v in body["versions"]] == ["03Z", "02Z"]
    window = versions(client, since=at(1), until=at(3))
    assert [v["created_at_iso"][-3:] for v in window["versions"]] == ["02Z", "01Z"]
    assert window["total"] == 2


def test_a_name_with_slashes_and_unknown_names_and_ids(client: TestClient) -> None:
    ingest(client, write("COMPLETE", 0, V1, ns="s3://bucket", name="path/to/t"))
    response = client.get(path("s3://bucket", "path/to/t"))
    assert response.status_code == 200
    assert response.json()["total"] == 1
    missing = client.get(path("s3://bucket", "nope"))
    assert missing.status_code == 404
    assert "list them with GET" in missing.json()["error"]["message"]
    unknown = client.get(path("s3://bucket", "path/to/t") + "/" + "0" * 16)
    assert unknown.status_code == 404
    assert "no version" in unknown.json()["error"]["message"]
    # Well-formed but beyond 63 bits (ids are 63-bit digests; mixed case is hex): no such version.
    beyond = client.get(path("s3://bucket", "path/to/t") + "/d5A0FD8faF000000")
    assert beyond.status_code == 404, beyond.text
    assert "no version" in beyond.json()["error"]["message"]


KEY = "key-seen"
AUTHORIZER = {"type": "api_keys", "keys": [{"key": KEY, "projects": ["seen"]}]}


def test_a_scoped_caller_sees_versions_of_visible_namespaces_only(make_client: AppFactory) -> None:
    client = make_client(api_key="admin-key", authorizer=AUTHORIZER)
    hidden_writer = write("COMPLETE", 1, V1, ns="seen", job=("hidden", "secret_job"))
    hidden_writer["outputs"][0]["facets"]["symlinks"] = facet(
        identifiers=[{"namespace": "hidden", "name": "secret_table", "type": "TABLE"}]
    )
    ingest(
        client,
        hidden_writer,
        write("COMPLETE", 2, V1, ns="hidden", name="h"),
        headers={"X-API-Key": "admin-key"},
    )
    seen = client.get(path("seen"), headers={"X-API-Key": KEY})
    assert seen.status_code == 200, seen.text
    (version,) = seen.json()["versions"]
    assert version["job"] is None  # its job is of a hidden namespace
    assert "secret" not in seen.text
    hidden = client.get(path("hidden", "h"), headers={"X-API-Key": KEY})
    assert hidden.status_code == 404
    everything = client.get(path("hidden", "h"), headers={"X-API-Key": "admin-key"})
    assert everything.status_code == 200
    assert everything.json()["total"] == 1


def test_a_pruned_version_answers_404_naming_the_retention_horizon(
    client: TestClient, head_store_url: str
) -> None:
    ingest(client, *(write("COMPLETE", t, V1 if t < 2 else V2) for t in (0, 1, 2, 100)))
    before = versions(client)["versions"]
    store = Store(head_store_url)
    try:
        prune(store.engine, parse_us(at(50)))
    finally:
        store.close()
    after = versions(client)["versions"]
    # The last version before the horizon stays (and the current one, after it).
    assert [v["id"] for v in after] == [before[0]["id"], before[1]["id"]]
    assert after[-1]["previous_id"] is None
    assert after[-1]["schema"] == V2
    gone = client.get(f"{path()}/{before[-1]['id']}")
    assert gone.status_code == 404
    message = gone.json()["error"]["message"]
    assert "retention horizon 2026-01-01T12:00:50Z" in message


def test_a_prune_that_removed_nothing_refuses_no_instant_and_blames_no_404_on_retention(
    make_client: AppFactory,
) -> None:
    """A young store's first prune (every event newer than its cutoff) removes nothing: the
    past before its cutoff still answers, and an unknown version id never existed."""
    client = make_client(api_key="admin-key", retention_days=30)
    now = datetime.now(UTC)
    written = run_event(
        "COMPLETE",
        job=("etl", "load"),
        time=iso(now - timedelta(days=1)),
        outputs=[dataset(NS, NAME, schema=V1)],
    )
    ingest(client, written, headers={"X-API-Key": "admin-key"})
    pruned = client.post(f"{API}/retention/prune", headers={"X-API-Key": "admin-key"})
    assert pruned.status_code == 200, pruned.text
    assert pruned.json()["removed"] == {}
    before_cutoff = iso(now - timedelta(days=40))
    for asked in (f"{API}/graph?as_of={before_cutoff}", f"{path()}?since={before_cutoff}"):
        response = client.get(asked)
        assert response.status_code == 200, response.text
    assert client.get(f"{API}/graph", params={"as_of": before_cutoff}).json()["nodes"] == []
    unknown = client.get(f"{path()}/{'0' * 16}")
    assert unknown.status_code == 404
    message = unknown.json()["error"]["message"]
    assert message.startswith(f"no version '{'0' * 16}' of dataset {NAME!r}")
    assert "retention" not in message
    assert "pruned" not in message


def test_answers_are_their_models_whole_and_bad_parameters_are_400s(client: TestClient) -> None:
    ingest(client, write("COMPLETE", 0, V1), write("COMPLETE", 1, V2))
    body = versions(client)
    page = DatasetVersionPage.model_validate(body)
    assert page.model_dump(mode="json", by_alias=True) == body  # nothing outside the model
    one = detail(client, body["versions"][0]["id"])
    assert DatasetVersionDetail.model_validate(one).model_dump(mode="json", by_alias=True) == one
    for params, field in (({"since": "never"}, "since"), ({"limit": 0}, "limit")):
        response = client.get(path(), params=params)
        assert response.status_code == 400, response.text
        assert field in response.json()["error"]["message"]
    response = client.get(f"{API}/datasets/{NS}/a/b/versions")
    assert response.status_code == 400
    assert "%2F" in response.json()["error"]["message"]
