from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from feast_lineage.config import ConsumerSettings
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.services import retention
from feast_lineage.consumer.settings import AppSettings
from feast_lineage.consumer.store.admin.prune_claims import claim_prune
from feast_lineage.event_time import now_us
from tests.conftest import AppFactory
from tests.consumer.lineage import API, cross_producer, ingest
from tests.factories import at, dataset, facet, iso, run_event
from tests.server_process import wait_for

# Routes on SQLite: the store tests run the same rules on the three databases
# (tests/consumer/store/admin/test_prune.py, test_reset.py and test_prune_claims.py).
pytestmark = pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)

KEY = {"X-API-Key": "admin-key"}


def recent() -> str:
    return iso(datetime.now(tz=UTC) - timedelta(hours=1))


FRESH = ("airflow://prod", "fresh")


def seed_old_and_new(client: TestClient) -> str:
    """Three old runs of a job (2026-01-01) and one from an hour ago; returns the new run id.

    The new run reads another dataset than the old ones, so none of them is
    the job's latest run that read or wrote; retention keeps the last old
    one all the same, the job's latest listing before the cutoff, so that
    ``as_of`` answers every instant after it exactly: a prune removes two.
    """
    for i in range(3):
        ingest(
            client,
            run_event(
                "COMPLETE",
                run_id=str(uuid.uuid4()),
                job=FRESH,
                time=at(i),
                inputs=[dataset("s3://bucket", f"old_in{i}")],
                outputs=[dataset("s3://bucket", "fresh")],
            ),
            headers=KEY,
        )
    new_run = str(uuid.uuid4())
    ingest(
        client,
        run_event(
            "COMPLETE",
            run_id=new_run,
            job=FRESH,
            time=recent(),
            inputs=[dataset("s3://bucket", "new_in")],
            outputs=[dataset("s3://bucket", "fresh")],
            run_facets={"custom": facet(value="new")},
        ),
        headers=KEY,
    )
    return new_run


def test_retention_shows_config_and_storage(make_client: AppFactory) -> None:
    client = make_client(retention_days=7, retention_check_interval_hours=2)
    ingest(client, *cross_producer())
    body = client.get(f"{API}/retention").json()
    assert body["config"] == {
        "retention_days": 7,
        "retention_check_interval_hours": 2.0,
        "standalone_server": False,
        "runs_background_pruning": True,
    }
    rows = body["storage_stats"]["rows"]
    assert rows["events"] == 3
    assert rows["runs"] == 3
    assert rows["jobs"] == 3
    assert rows["datasets"] == 5
    assert body["storage_stats"]["oldest_event_time"] == "2026-01-01T12:00:00Z"
    # Feast's shape beside ours.
    assert (body["retention_days"], body["retention_enabled"]) == (7, True)
    assert body["check_interval_hours"] == 2
    assert isinstance(body["check_interval_hours"], int)
    assert {kind: counted["count"] for kind, counted in body["storage"].items()} == {
        "events": 3,
        "runs": 3,
        "jobs": 3,
        "datasets": 5,
    }
    assert body["storage"]["events"]["oldest_ms"] == 1_767_268_800_000


def test_prune_needs_the_key_and_keeps_the_graph(make_client: AppFactory) -> None:
    client = make_client(api_key="admin-key", retention_days=30)
    new_run = seed_old_and_new(client)
    before = client.get(f"{API}/graph").json()
    # The graph shows the job's current inputs only; the old ones stay stored.
    inputs = {e["source"] for e in before["edges"] if e["type"] == "input"}
    assert inputs == {"dataset:s3://bucket:new_in"}
    denied = client.post(f"{API}/retention/prune")
    assert denied.status_code == 401
    response = client.post(f"{API}/retention/prune", headers=KEY)
    assert response.status_code == 200, response.text
    removed = response.json()["removed"]
    assert response.json()["deleted"] == removed
    assert response.json()["message"] == "Pruning completed"
    assert removed["openlineage_events"] == 2
    assert removed["openlineage_runs"] == 2
    assert removed["openlineage_run_io"] == 4
    events = client.get(f"{API}/events").json()
    assert events["total"] == 2
    runs = [r["run_id"] for r in client.get(f"{API}/runs").json()["runs"]]
    assert len(runs) == 2
    assert runs[0] == new_run  # and the job's latest listing before the cutoff
    assert client.get(f"{API}/runs/{new_run}").json()["facets"]["custom"]["value"] == "new"
    after = client.get(f"{API}/graph").json()
    # The nodes are kept whole, their health too: retention keeps each dataset's
    # latest writes, which its expected interval is learned from.
    assert after["nodes"] == before["nodes"]
    assert after["edges"] == before["edges"]
    assert after["symlinks"] == before["symlinks"]
    info = client.get(f"{API}/retention").json()
    assert info["last_prune"]["removed"] == removed


def test_prune_with_retention_off_removes_nothing(make_client: AppFactory) -> None:
    client = make_client(retention_days=0)
    seed_old_and_new(client)
    body = client.post(f"{API}/retention/prune").json()
    assert body["removed"] == {}
    assert body["cutoff"] is None
    assert client.get(f"{API}/events").json()["total"] == 4
    assert client.get(f"{API}/retention").json()["config"]["runs_background_pruning"] is False


def test_reset_one_namespace_removes_only_what_belongs_to_it(make_client: AppFactory) -> None:
    client = make_client(api_key="admin-key")
    ingest(client, *cross_producer(), headers=KEY)
    assert client.delete(f"{API}/reset", params={"namespace": "spark://ml-team"}).status_code == 401
    response = client.delete(f"{API}/reset", params={"namespace": "spark://ml-team"}, headers=KEY)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["namespace"] == "spark://ml-team"
    assert (body["status"], body["message"]) == ("success", "Purged namespace: spark://ml-team")
    assert body["removed"]["openlineage_jobs"] == 2
    assert body["removed"]["openlineage_events"] == 2
    assert body["removed"]["openlineage_runs"] == 2
    graph = client.get(f"{API}/graph").json()
    assert all(n["namespace"] != "spark://ml-team" for n in graph["nodes"])
    assert graph["total_nodes"] == 6
    assert all("spark://" not in e["source"] + e["target"] for e in graph["edges"])
    assert client.get(f"{API}/events").json()["total"] == 1
    assert client.get(f"{API}/graph", params={"namespace": "ml_team"}).json()["total_edges"] == 2


def test_reset_of_a_namespace_nothing_is_stored_in_is_404_naming_it(
    make_client: AppFactory,
) -> None:
    client = make_client(api_key="admin-key")
    ingest(client, *cross_producer(), headers=KEY)
    before = client.get(f"{API}/events").json()["total"]
    response = client.delete(f"{API}/reset", params={"namespace": "nonexistent"}, headers=KEY)
    assert response.status_code == 404, response.text
    error = response.json()["error"]
    assert error["code"] == "not_found"
    assert "'nonexistent'" in error["message"]
    assert "/namespaces" in error["message"]
    assert client.get(f"{API}/events").json()["total"] == before


def test_reset_everything(make_client: AppFactory) -> None:
    client = make_client()
    seed_old_and_new(client)
    body = client.delete(f"{API}/reset").json()
    assert body["namespace"] is None
    assert (body["status"], body["message"]) == ("success", "Purged all lineage data")
    assert body["removed"]["openlineage_events"] == 4
    rows = client.get(f"{API}/retention").json()["storage_stats"]["rows"]
    assert set(rows.values()) == {0}
    # The store still works afterwards.
    ingest(client, *cross_producer())
    assert client.get(f"{API}/graph").json()["total_nodes"] == 8


def test_background_prune_runs_every_interval(make_client: AppFactory) -> None:
    client = make_client(retention_days=30, retention_check_interval_hours=1 / 3600)
    seed_old_and_new(client)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if client.get(f"{API}/events").json()["total"] == 2:
            break
        time.sleep(0.2)
    assert client.get(f"{API}/events").json()["total"] == 2
    last = client.get(f"{API}/retention").json()["last_prune"]
    assert last["cutoff"] is not None  # later prunes find nothing left to remove
    assert client.get(f"{API}/runs").json()["total"] == 2


@pytest.mark.parametrize("claimed_hours_ago", [None, 7.0, 1.0])
def test_the_schedule_counts_from_the_stores_last_prune_not_from_start(
    make_client: AppFactory, monkeypatch: pytest.MonkeyPatch, claimed_hours_ago: float | None
) -> None:
    # A server restarted more often than the interval (6 hours) must still prune:
    # soon after start when the last scheduled prune is over an interval old
    # (or there was none), and not when it is recent.
    monkeypatch.setattr(retention, "_FIRST_CHECK_S", 0.2)
    first = make_client(retention_days=0)  # no schedule of its own
    seed_old_and_new(first)
    engine = first.app.state.consumer.engine
    if claimed_hours_ago is not None:
        claimed = now_us() - int(claimed_hours_ago * 3_600_000_000)
        assert claim_prune(engine, claimed, 0)
    restarted = make_client(retention_days=30, retention_check_interval_hours=6)
    # Its first round (0.2 s after start) has claimed and pruned, or found the claim recent.
    schedule = restarted.app.state.consumer.retention  # type: ignore[attr-defined]
    assert wait_for(lambda: schedule.rounds >= 1, timeout=30)
    total = restarted.get(f"{API}/events").json()["total"]
    assert total == (4 if claimed_hours_ago == 1.0 else 2)


def test_embedded_server_of_a_standalone_setup_does_not_prune(head_store_url: str) -> None:
    consumer = ConsumerSettings(
        enabled=True,
        standalone_server=True,
        retention_days=30,
        retention_check_interval_hours=1 / 3600,
    )
    settings = AppSettings(consumer=consumer, database_url=head_store_url, run_retention=False)
    with TestClient(create_app(settings)) as client:
        seed_old_and_new(client)
        time.sleep(3)
        assert client.get(f"{API}/events").json()["total"] == 4
        assert client.get(f"{API}/retention").json()["config"]["runs_background_pruning"] is False


def test_the_last_prune_is_shared_by_every_server_of_a_store(head_store_url: str) -> None:
    # Worker processes of one server (or several servers) share the store:
    # whichever answers reports the last prune, whoever ran it.
    consumer = ConsumerSettings(enabled=True, retention_days=30)
    settings = AppSettings(consumer=consumer, database_url=head_store_url)
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as other:
        assert other.get(f"{API}/retention").json()["last_prune"] is None
        seed_old_and_new(one)
        pruned = one.post(f"{API}/retention/prune").json()
        assert pruned["removed"]["openlineage_events"] == 2
        assert other.get(f"{API}/retention").json()["last_prune"] == pruned
