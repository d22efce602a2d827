"""``/jobs/{namespace}/{name}/versions`` and ``.../versions/{id}``, through the app (SQLite)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from tests.conftest import AppFactory
from tests.consumer.lineage import API, ingest
from tests.factories import at, dataset, facet, iso, run_event

# Routes on SQLite: the store tests run the same rules on the three databases
# (tests/consumer/store/write/test_job_versions.py and store/read/test_job_versions_as_of.py).
pytestmark = pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)

JOB = ("airflow://prod", "daily/orders")
PATH = f"{API}/jobs/{quote(JOB[0], safe='')}/{quote(JOB[1], safe='')}/versions"


def _run(
    sec: float, sql: str, *, inputs: tuple[str, ...] = ("orders",), when: str | None = None
) -> list[dict[str, Any]]:
    run_id = str(uuid.uuid4())
    time = when or at(sec)
    job_facets = {
        "sql": facet(query=sql),
        "jobType": facet(processingType="BATCH", integration="AIRFLOW", jobType="TASK"),
    }
    return [
        run_event(
            "START",
            run_id=run_id,
            job=JOB,
            time=time,
            job_facets=job_facets,
            inputs=[dataset("postgres://db:5432", f"public.{n}") for n in inputs],
        ),
        run_event(
            "COMPLETE",
            run_id=run_id,
            job=JOB,
            time=time,
            job_facets=job_facets,
            outputs=[dataset("s3://lake", f"orders_daily/date=2026-01-0{int(sec) % 9 + 1}")],
        ),
    ]


def _seed(client: TestClient) -> None:
    ingest(
        client,
        *_run(1, "select * from orders"),
        *_run(2, "select * from orders"),
        *_run(3, "select * from orders join customers", inputs=("orders", "customers")),
        *_run(4, "select * from orders join customers", inputs=("orders", "customers")),
    )


def test_versions_newest_first_with_their_runs(client: TestClient) -> None:
    _seed(client)
    response = client.get(PATH)
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["total"], body["limit"], body["offset"]) == (2, 50, 0)
    newest, oldest = body["versions"]
    assert newest["current"] is True
    assert oldest["current"] is False
    assert newest["created_at_iso"] == at(3)
    assert oldest["created_at_iso"] == at(1)
    assert newest["run_count"] == oldest["run_count"] == 2
    assert newest["latest_run"]["state"] == "COMPLETE"
    assert newest["latest_run"]["started_at_iso"] == at(4)
    # A partition that moves every run counts as its table.
    assert newest["outputs"] == [{"namespace": "s3://lake", "name": "orders_daily"}]
    assert [d["name"] for d in newest["inputs"]] == ["public.customers", "public.orders"]
    assert newest["source_facets"]["sql"] == {"query": "select * from orders join customers"}
    assert newest["job_type"] == "TASK"
    assert newest["job_namespace"] == JOB[0]
    assert newest["job_name"] == JOB[1]


def test_paging_and_time_filters(client: TestClient) -> None:
    _seed(client)
    newest, oldest = client.get(PATH).json()["versions"]

    def ids(**params: Any) -> list[str]:
        response = client.get(PATH, params=params)
        assert response.status_code == 200, response.text
        return [v["id"] for v in response.json()["versions"]]

    assert ids(limit=1) == [newest["id"]]
    assert ids(limit=1, offset=1) == [oldest["id"]]
    assert ids(offset=2) == []
    assert ids(since=at(3)) == [newest["id"]]
    assert ids(until=at(3)) == [oldest["id"]]
    assert ids(since=at(2), until=at(2.5)) == []
    assert client.get(PATH, params={"since": at(3)}).json()["total"] == 1
    bad = client.get(PATH, params={"since": "yesterday"})
    assert bad.status_code == 400
    assert "since" in bad.json()["error"]["message"]
    swapped = client.get(PATH, params={"since": at(3), "until": at(1)})
    assert swapped.status_code == 400


def test_until_counts_the_runs_started_before_it_and_their_state_then(
    client: TestClient,
) -> None:
    """As of an instant (the UI asks ``until`` one microsecond after it), a version's run
    count and latest run are those of then, not today's."""
    _seed(client)
    late = str(uuid.uuid4())
    join = {"sql": facet(query="select * from orders join customers")}
    ingest(
        client,
        run_event("START", run_id=late, job=JOB, time=at(5), job_facets=join),
        run_event("COMPLETE", run_id=late, job=JOB, time=at(8), job_facets=join),
    )

    def page(**params: str) -> list[dict[str, Any]]:
        response = client.get(PATH, params=params)
        assert response.status_code == 200, response.text
        versions: list[dict[str, Any]] = response.json()["versions"]
        return versions

    (oldest,) = page(until=at(2))
    assert oldest["run_count"] == 1
    assert oldest["latest_run"]["started_at_iso"] == at(1)
    newest, oldest = page(until=at(3.5))
    assert (newest["run_count"], oldest["run_count"]) == (1, 2)
    assert newest["latest_run"]["started_at_iso"] == at(3)
    # A run under way then is RUNNING then; now it is complete.
    then = page(until=at(6))
    latest = [v["latest_run"] for v in then if v["latest_run"]["run_id"] == late]
    assert [run["state"] for run in latest] == ["RUNNING"]
    now = [v["latest_run"] for v in page() if v["latest_run"]["run_id"] == late]
    assert [run["state"] for run in now] == ["COMPLETE"]
    assert sum(v["run_count"] for v in page()) == 5


def test_one_version_with_what_changed(client: TestClient) -> None:
    _seed(client)
    newest, oldest = client.get(PATH).json()["versions"]
    response = client.get(f"{PATH}/{newest['id']}")
    assert response.status_code == 200, response.text
    detail = response.json()
    assert detail["previous_id"] == oldest["id"]
    assert detail["changes"] == {
        "inputs_added": [{"namespace": "postgres://db:5432", "name": "public.customers"}],
        "inputs_removed": [],
        "outputs_added": [],
        "outputs_removed": [],
        "source_facets_changed": ["sql"],
    }
    assert {k: v for k, v in detail.items() if k not in ("previous_id", "changes")} == newest
    first = client.get(f"{PATH}/{oldest['id']}").json()
    assert first["previous_id"] is None
    assert first["changes"] is None


def test_not_found_and_bad_paths_name_the_problem(client: TestClient) -> None:
    _seed(client)
    missing = client.get(f"{PATH}/{'0' * 32}")
    assert missing.status_code == 404
    assert "no version" in missing.json()["error"]["message"]
    no_job = client.get(f"{API}/jobs/airflow%3A%2F%2Fprod/nothing/versions")
    assert no_job.status_code == 404
    assert no_job.json()["error"]["message"] == (
        "no job 'nothing' in namespace 'airflow://prod'; "
        "list them with GET /api/v1/lineage/openlineage/jobs"
    )
    bad_id = client.get(f"{PATH}/not-a-version")
    assert bad_id.status_code == 400
    assert "version_id" in bad_id.json()["error"]["message"]
    unencoded = client.get(f"{API}/jobs/airflow://prod/daily/orders/versions")
    assert unencoded.status_code in (400, 404)
    assert unencoded.status_code != 500


def test_a_scoped_caller_sees_visible_jobs_and_datasets_only(make_client: AppFactory) -> None:
    keys = {"type": "api_keys", "keys": [{"key": "key-ml", "projects": ["ml"]}]}
    client = make_client(authorizer=keys, api_key="admin")
    admin = {"X-API-Key": "admin"}
    ingest(
        client,
        run_event(
            "COMPLETE",
            job=("ml", "train"),
            time=at(1),
            inputs=[dataset("finance", "salaries"), dataset("ml", "users")],
            outputs=[dataset("ml", "model")],
        ),
        run_event("COMPLETE", job=("finance", "payroll"), time=at(1)),
        headers=admin,
    )
    scoped = {"X-API-Key": "key-ml"}
    (version,) = client.get(f"{API}/jobs/ml/train/versions", headers=scoped).json()["versions"]
    assert version["inputs"] == [{"namespace": "ml", "name": "users"}]
    assert (
        "finance"
        not in client.get(f"{API}/jobs/ml/train/versions/{version['id']}", headers=scoped).text
    )
    everything = client.get(f"{API}/jobs/ml/train/versions", headers=admin).json()["versions"][0]
    assert {"namespace": "finance", "name": "salaries"} in everything["inputs"]
    hidden = client.get(f"{API}/jobs/finance/payroll/versions", headers=scoped)
    assert hidden.status_code == 404
    assert client.get(f"{API}/jobs/finance/payroll/versions", headers=admin).status_code == 200


def test_retention_keeps_the_current_version_and_names_its_horizon(make_client: AppFactory) -> None:
    client = make_client(api_key="admin-key", retention_days=30)
    key = {"X-API-Key": "admin-key"}
    now = datetime.now(UTC)
    old = iso(now - timedelta(days=100))
    older = iso(now - timedelta(days=101))
    recent = iso(now - timedelta(days=1))
    ingest(
        client,
        *_run(1, "select 1", when=older),  # a version whose only run expires
        *_run(2, "select 2", when=old),  # the current version: its run expires too
        headers=key,
    )
    ingest(client, *_run(3, "select 3", when=recent, inputs=("orders", "x")), headers=key)
    before = client.get(PATH).json()["versions"]
    assert len(before) == 3
    ingest(client, *_run(4, "select 2", when=iso(now - timedelta(hours=12))), headers=key)
    # "select 2" is current again (its latest run is recent); "select 1" and "select 3"
    # have nothing recent but "select 3"'s run is recent: only "select 1" goes.
    pruned = client.post(f"{API}/retention/prune", headers=key)
    assert pruned.status_code == 200, pruned.text
    assert pruned.json()["removed"]["job_versions"] == 1
    after = client.get(PATH).json()
    assert after["total"] == 2
    gone = next(v for v in before if v["source_facets"]["sql"]["query"] == "select 1")
    response = client.get(f"{PATH}/{gone['id']}")
    assert response.status_code == 404
    cutoff = pruned.json()["cutoff"]
    assert cutoff in response.json()["error"]["message"]
    current = next(v for v in after["versions"] if v["current"])
    assert current["source_facets"]["sql"] == {"query": "select 2"}


def test_an_unknown_version_after_a_prune_that_removed_nothing_is_not_blamed_on_retention(
    make_client: AppFactory,
) -> None:
    client = make_client(api_key="admin-key", retention_days=30)
    key = {"X-API-Key": "admin-key"}
    recent = iso(datetime.now(UTC) - timedelta(days=1))
    ingest(client, *_run(1, "select 1", when=recent), headers=key)
    pruned = client.post(f"{API}/retention/prune", headers=key)
    assert pruned.status_code == 200, pruned.text
    assert pruned.json()["removed"] == {}
    response = client.get(f"{PATH}/{'9b2f' * 8}")
    assert response.status_code == 404
    message = response.json()["error"]["message"]
    assert message.startswith(f"no version '{'9b2f' * 8}' of job {JOB[1]!r}")
    assert "retention" not in message
    assert message.endswith("list them with GET .../jobs/{namespace}/{name}/versions")


def test_a_jobs_last_run_that_listed_nothing_is_kept_with_its_current_version(
    make_client: AppFactory,
) -> None:
    """The latest run listed no datasets and ended before the cutoff: it stays, as its job's
    latest run at every instant after the cutoff, and its version stays current."""
    client = make_client(api_key="admin-key", retention_days=30)
    key = {"X-API-Key": "admin-key"}
    now = datetime.now(UTC)
    last = str(uuid.uuid4())
    ingest(
        client,
        *_run(1, "select 1", when=iso(now - timedelta(days=200))),
        *_run(2, "select 2", when=iso(now - timedelta(days=150))),
        run_event(
            "FAIL",
            run_id=last,
            job=JOB,
            time=iso(now - timedelta(days=100)),
            job_facets={"sql": facet(query="select 3")},
        ),
        headers=key,
    )
    assert client.get(PATH).json()["total"] == 3
    assert client.post(f"{API}/retention/prune", headers=key).status_code == 200
    assert client.get(f"{API}/runs/{last}").json()["state"] == "FAIL"  # the run stayed
    versions = client.get(PATH).json()["versions"]
    current = next(v for v in versions if v["current"])
    assert current["source_facets"]["sql"] == {"query": "select 3"}
    assert current["latest_run"]["run_id"] == last
    assert current["latest_run"]["state"] == "FAIL"
    # "select 2"'s run is kept (the job's latest run that listed datasets), "select 1"'s went.
    assert {v["source_facets"]["sql"]["query"] for v in versions} == {"select 2", "select 3"}


def test_a_namespace_reset_deletes_its_versions(make_client: AppFactory) -> None:
    client = make_client(api_key="admin-key")
    key = {"X-API-Key": "admin-key"}
    ingest(
        client,
        *_run(1, "select 1"),
        run_event("COMPLETE", job=("other", "kept"), time=at(1)),
        headers=key,
    )
    reset = client.delete(f"{API}/reset", params={"namespace": JOB[0]}, headers=key)
    assert reset.status_code == 200, reset.text
    removed = reset.json()["removed"]
    assert removed["job_versions"] == 1
    assert removed["run_versions"] == 1
    assert client.get(PATH).status_code == 404
    assert client.get(f"{API}/jobs/other/kept/versions").json()["total"] == 1


def test_as_of_a_run_under_way_counts_under_the_version_of_its_events_then(
    client: TestClient,
) -> None:
    """Its START (inputs, a first query) before the instant, its COMPLETE (outputs, another
    query) after: then it ran a version of the START's parts, which opens with ``until``."""
    _seed(client)
    going = str(uuid.uuid4())
    ingest(
        client,
        run_event(
            "START",
            run_id=going,
            job=JOB,
            time=at(5),
            job_facets={"sql": facet(query="select 1")},
            inputs=[dataset("postgres://db:5432", "public.orders")],
        ),
        run_event(
            "COMPLETE",
            run_id=going,
            job=JOB,
            time=at(8),
            job_facets={"sql": facet(query="select 2")},
            outputs=[dataset("s3://lake", "orders_daily/date=2026-01-09")],
        ),
    )
    until = at(6)
    then = client.get(PATH, params={"until": until}).json()
    assert then["total"] == 3
    newest = then["versions"][0]
    assert newest["source_facets"]["sql"] == {"query": "select 1"}
    assert (newest["outputs"], newest["run_count"]) == ([], 1)
    assert newest["latest_run"]["run_id"] == going
    assert newest["latest_run"]["state"] == "RUNNING"
    now = client.get(PATH).json()["versions"]
    assert newest["id"] not in {v["id"] for v in now}  # no run runs it now
    detail = client.get(f"{PATH}/{newest['id']}", params={"until": until})
    assert detail.status_code == 200, detail.text
    body = detail.json()
    assert {k: v for k, v in body.items() if k not in ("previous_id", "changes")} == newest
    assert body["previous_id"] == then["versions"][1]["id"]
    assert body["changes"]["source_facets_changed"] == ["jobType", "sql"]
    gone = client.get(f"{PATH}/{newest['id']}")
    assert gone.status_code == 404
    later = client.get(f"{PATH}/{now[0]['id']}", params={"until": until})
    assert later.status_code == 404  # not run by then
    assert "run before 2026-01-01T12:00:06Z" in later.json()["error"]["message"]
    bad = client.get(f"{PATH}/{newest['id']}", params={"until": "yesterday"})
    assert bad.status_code == 400
    assert "until" in bad.json()["error"]["message"]
