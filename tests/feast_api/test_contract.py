"""Clients of Feast 0.67's lineage server work against ours: the same keys, types and values.

Feast's own ``feast serve_lineage`` (Feast 0.67, a subprocess; nothing of
Feast's lineage code is imported) and a real ``feast-lineage serve_lineage``
process receive the same real events from ../shared, one request each.
Then, endpoint by endpoint, every key of Feast's answer must be in ours with
the same JSON type (null goes with any type: a value one side knows and the
other does not), and values must agree where they mean the same: names,
namespaces, states, counts. Where Feast's answer is wrong, ours stays right
and the test names the defect:

* Feast stores an event once per receipt (it gives each a new ``event_id``),
  so a producer's retry is two events, and two rows in its totals;
* Feast keeps the state of the last event to arrive, not of the latest
  event, so a run whose events arrive out of order ends in the wrong state;
* Feast routes ``/graph/{type}/{namespace}/{name}`` on raw ``/``, so a
  namespace containing ``/`` (``s3://bucket``) is a 404 even percent-encoded;
* Feast's events and runs ``total`` is the length of the page, not the
  number that match.

And where the two differ by design, the test checks the difference is only
that: Feast stores each alias of a SymlinksDatasetFacet as a dataset (ours
lists it under the graph's ``symlinks``), ours stores a job named only by a
ParentRunFacet (``updated_at`` 0, no run); Feast's ``state`` is the type of
the last event received (``START`` for a run that has only started, where
ours says ``RUNNING``); Feast's run and event times are receipt times, ours
are event times; Feast's ``facets_json`` is the last event's facets, ours
merges them key by key; Feast's ``root_run_id`` falls back to the parent; Feast keeps every edge
ever seen, ours the current ones.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from feast_lineage.consumer.lineage_model import NodeId
from tests.feast_api.feast_server import (
    READS,
    SKIP_REASON,
    FeastServer,
    feast_lineage_server,
    feast_serves_lineage,
    post_each,
    shared_events,
    write_feast_repo,
)
from tests.server_process import ServerProcess, lineage_server, write_repo

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not feast_serves_lineage(), reason=SKIP_REASON),
]

Json = dict[str, Any]
_PARTS = ("type", "namespace", "name")


class Both:
    """Feast's server and ours, fed the same events."""

    def __init__(self, feast: FeastServer, ours: ServerProcess, events: list[Json]) -> None:
        # A connection per request: the clients live for the whole module, and a kept-alive
        # connection idle for the servers' keep-alive timeout (uvicorn's 5 s, easily reached
        # between two tests on a loaded machine) can be closed by the server just as the next
        # request goes out on it: a "connection reset by peer" that says nothing of either server.
        fresh = httpx.Limits(max_keepalive_connections=0)
        self.feast = httpx.Client(base_url=feast.url, timeout=60, limits=fresh)
        self.ours = httpx.Client(base_url=ours.url, timeout=60, limits=fresh)
        self.events = events

    def close(self) -> None:
        self.feast.close()
        self.ours.close()

    def get(self, path: str, **params: Any) -> tuple[Json, Json]:
        feast = self.feast.get(READS + path, params=params)
        ours = self.ours.get(READS + path, params=params)
        assert feast.status_code == 200, (path, feast.text)
        assert ours.status_code == 200, (path, ours.text)
        return feast.json(), ours.json()


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Both]:
    root = tmp_path_factory.mktemp("contract")
    feast_repo = write_feast_repo(
        root / "feast", registry=f"sqlite:///{root / 'feast' / 'registry.db'}"
    )
    # Some shared events are years old: our scheduled prune (by event time)
    # would remove them a minute after the start (Feast's prunes by receipt
    # time): ours has retention off.
    ours_repo = write_repo(root / "ours", consumer={"retention_days": 0})
    events = shared_events()
    with (
        feast_lineage_server(feast_repo) as feast,
        lineage_server(ours_repo) as ours,
    ):
        pair = Both(feast, ours, events)
        with httpx.Client(timeout=60) as client:
            assert set(post_each(client, feast.url, events)) == {201}
            assert set(post_each(client, ours.url, events)) == {201}
        try:
            yield pair
        finally:
            pair.close()


def json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number" if isinstance(value, float) else "integer"
    return {dict: "object", list: "array", str: "string"}.get(type(value), "null")


def same_shape(feast: Json, ours: Json, where: str) -> list[str]:
    """Feast's keys missing from ours, or with another JSON type (null goes with any)."""
    problems = []
    for key, value in feast.items():
        if key not in ours:
            problems.append(f"{where}: no {key!r}")
            continue
        theirs, mine = json_type(value), json_type(ours[key])
        if "null" not in (theirs, mine) and theirs != mine:
            problems.append(f"{where}.{key}: {mine}, Feast sends {theirs}")
    return problems


def same_items(feast: list[Json], ours: list[Json], key: Any, where: str) -> list[str]:
    """Item by item (matched by ``key``), the same shape."""
    mine = {key(item): item for item in ours}
    problems = []
    for item in feast:
        if key(item) in mine:
            problems += same_shape(item, mine[key(item)], f"{where}[{key(item)}]")
    return problems


def _run_event(event_type: str, namespace: str, name: str) -> Json:
    """A bare RunEvent of a new run, both servers take as it is."""
    return {
        "eventType": event_type,
        "eventTime": "2026-06-01T00:00:00Z",
        "producer": "https://example.com/contract",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": namespace, "name": name},
    }


def test_ingest_answers_with_an_event_id(both: Both) -> None:
    event = _run_event("START", "contract", "ingest")
    feast = both.feast.post("/api/v1/lineage", json=event)
    ours = both.ours.post("/api/v1/lineage", json=event)
    assert feast.status_code == ours.status_code == 201
    assert same_shape(feast.json(), ours.json(), "POST /lineage") == []
    batch = [dict(event, eventType="COMPLETE", eventTime="2026-06-01T00:01:00Z")]
    assert both.feast.post("/api/v1/lineage/batch", json=batch).status_code == 204
    assert both.ours.post("/api/v1/lineage/batch", json=batch).status_code == 204


def only_named_jobs(both: Both) -> set[tuple[str, str]]:
    """Our jobs named only by a parent facet (Feast does not store those)."""
    _, ours = both.get("/jobs", limit=1000)
    return {(j["job_namespace"], j["job_name"]) for j in ours["jobs"] if j["updated_at"] == 0}


def aliases(both: Both) -> set[tuple[str, str]]:
    """The aliases of our graph's datasets (Feast stores each as a dataset)."""
    _, ours = both.get("/graph", limit=5000)
    return {(s["linked_namespace"], s["linked_name"]) for s in ours["symlinks"]}


def test_namespaces(both: Both) -> None:
    feast, ours = both.get("/namespaces")
    assert same_shape(feast, ours, "namespaces") == []
    assert all(isinstance(ns, str) for ns in ours["namespaces"])
    assert ours["namespaces"] == sorted(ours["namespaces"])
    assert set(ours["namespaces"]) - set(feast["namespaces"]) <= {
        ns for ns, _ in only_named_jobs(both)
    }
    assert set(feast["namespaces"]) - set(ours["namespaces"]) <= {ns for ns, _ in aliases(both)}
    assert len(set(ours["namespaces"]) & set(feast["namespaces"])) > 20


def test_jobs(both: Both) -> None:
    feast, ours = both.get("/jobs", limit=1000)
    assert same_shape(feast, ours, "jobs") == []

    def key(job: Json) -> tuple[str, str]:
        return job["job_namespace"], job["job_name"]

    named = only_named_jobs(both)
    assert set(map(key, ours["jobs"])) - named == set(map(key, feast["jobs"]))
    assert ours["total"] == len(feast["jobs"]) + len(named)
    assert same_items(feast["jobs"], ours["jobs"], key, "jobs") == []
    mine = {key(job): job for job in ours["jobs"]}
    for job in feast["jobs"]:
        for field in ("producer", "description", "job_type"):
            assert mine[key(job)][field] == job[field], (key(job), field)
        assert (mine[key(job)]["latest_run_id"] is None) == (job["latest_run_id"] is None)


def test_datasets(both: Both) -> None:
    feast, ours = both.get("/datasets", limit=1000)
    assert same_shape(feast, ours, "datasets") == []

    def key(ds: Json) -> tuple[str, str]:
        return ds["dataset_namespace"], ds["dataset_name"]

    alias_only = set(map(key, feast["datasets"])) - set(map(key, ours["datasets"]))
    assert alias_only <= aliases(both)
    assert set(map(key, ours["datasets"])) <= set(map(key, feast["datasets"]))
    assert ours["total"] == len(feast["datasets"]) - len(alias_only)
    assert same_items(feast["datasets"], ours["datasets"], key, "datasets") == []
    mine = {key(ds): ds for ds in ours["datasets"]}
    for ds in feast["datasets"]:
        if key(ds) in mine:
            # (Feast's producer is the last received event's; ours the last writer's.)
            for field in ("source_type", "feast_object_type", "feast_project"):
                assert mine[key(ds)][field] == ds[field], (key(ds), field)


def test_events(both: Both) -> None:
    feast, ours = both.get("/events", limit=1000)
    assert same_shape(feast, ours, "events") == []
    assert all(isinstance(e["event_id"], str) for e in ours["events"])

    def key(event: Json) -> tuple[Any, ...]:
        return (event["event_type"], event["event_time"], event["run_id"], event["event_json"])

    # Feast stores every receipt: the events sent twice are two rows there.
    assert len(feast["events"]) == len(both.events) + 2  # the ingest test's two
    assert ours["total"] == len({e["event_id"] for e in ours["events"]})
    assert ours["total"] <= len(feast["events"])
    first = {e["run_id"]: e for e in reversed(ours["events"])}
    problems = []
    for event in feast["events"]:
        if event["run_id"] in first:
            problems += same_shape(event, first[event["run_id"]], f"events[{event['run_id']}]")
    assert problems == []
    # Feast's total is the page's length; ours counts every match.
    feast_page, ours_page = both.get("/events", limit=2)
    assert feast_page["total"] == 2
    assert ours_page["total"] == ours["total"]


def test_runs(both: Both) -> None:
    feast, ours = both.get("/runs", limit=500)  # Feast's most
    assert same_shape(feast, ours, "runs") == []
    assert sorted(r["run_id"] for r in ours["runs"]) == sorted(r["run_id"] for r in feast["runs"])
    assert same_items(feast["runs"], ours["runs"], lambda r: r["run_id"], "runs") == []
    mine = {r["run_id"]: r for r in ours["runs"]}
    differ = {
        run["run_id"]: (run["state"], mine[run["run_id"]]["state"])
        for run in feast["runs"]
        if run["state"] != mine[run["run_id"]]["state"]
    }
    # Feast's state is the last received event's type: START where ours is
    # RUNNING; and a run whose events arrived out of time order keeps the
    # state of the last to arrive there, of the latest eventTime here.
    latest = latest_events(both.events)
    for run_id, (theirs, mine_state) in differ.items():
        last_sent, last_in_time = latest[run_id]
        assert theirs == last_sent, run_id
        assert (theirs, mine_state) == ("START", "RUNNING") or last_sent != last_in_time, run_id
    assert len(differ) < len(feast["runs"]) // 4
    for run in feast["runs"]:
        assert (mine[run["run_id"]]["job_namespace"], mine[run["run_id"]]["job_name"]) == (
            run["job_namespace"],
            run["job_name"],
        )


def latest_events(events: list[Json]) -> dict[str, tuple[str, str]]:
    """Run id -> (type of its last event sent, type of its latest event by eventTime)."""
    sent: dict[str, str] = {}
    timed: dict[str, tuple[str, str]] = {}
    for event in events:
        run_id = event.get("run", {}).get("runId")
        kind = event.get("eventType")
        if run_id is None or kind is None:
            continue
        sent[run_id] = kind
        final = kind in ("COMPLETE", "FAIL", "ABORT")
        previous = timed.get(run_id)
        if previous is None or (
            previous[1] not in ("COMPLETE", "FAIL", "ABORT")
            and (final or event["eventTime"] >= previous[0])
        ):
            timed[run_id] = (event["eventTime"], kind)
    return {run_id: (sent[run_id], timed[run_id][1]) for run_id in sent}


def test_run_detail(both: Both) -> None:
    feast_runs, _ = both.get("/runs", limit=500)
    checked = 0
    for run in feast_runs["runs"][:40]:
        feast, ours = both.get(f"/runs/{run['run_id']}")
        assert same_shape(feast, ours, f"runs/{run['run_id']}") == []
        for side in ("inputs", "outputs"):
            names = sorted((d["namespace"], d["name"]) for d in feast[side])
            assert sorted((d["namespace"], d["name"]) for d in ours[side]) == names
            assert (
                same_items(feast[side], ours[side], lambda d: (d["namespace"], d["name"]), side)
                == []
            )
        checked += 1
    assert checked


def test_run_tree(both: Both) -> None:
    """``/runs/{id}/tree``: Feast's keys and types, on top and per run.

    Feast's tree is the runs whose stored root is the asked run's (its
    ``root_run_id``, falling back to the parent), by start time; ours walks
    the parent links both ways and adds the parents that never arrived as
    ``missing`` runs. So every run of Feast's tree is in ours, and ours has
    more only where a parent never arrived or a run names no root.
    """
    feast_runs, _ = both.get("/runs", limit=500)
    checked = with_parent = 0
    for run in feast_runs["runs"][:40]:
        feast, ours = both.get(f"/runs/{run['run_id']}/tree")
        where = f"runs/{run['run_id']}/tree"
        assert same_shape(feast, ours, where) == []
        assert same_items(feast["runs"], ours["runs"], lambda r: r["run_id"], where) == []
        mine = {r["run_id"]: r for r in ours["runs"]}
        assert {r["run_id"] for r in feast["runs"]} <= set(mine), where
        assert ours["total"] == len(ours["runs"])
        for item in feast["runs"]:
            assert (mine[item["run_id"]]["job_namespace"], mine[item["run_id"]]["job_name"]) == (
                item["job_namespace"],
                item["job_name"],
            )
        with_parent += any(r["parent_run_id"] for r in ours["runs"])
        checked += 1
    assert checked
    assert with_parent, "the shared events have runs with parents"


def test_graph(both: Both) -> None:
    feast, ours = both.get("/graph", limit=5000)
    assert same_shape(feast, ours, "graph") == []

    def node(n: Json) -> tuple[str, str, str]:
        return n["type"], n["namespace"], n["name"]

    named = {("job", *job) for job in only_named_jobs(both)}
    alias_only = {("dataset", *ds) for ds in aliases(both)} - set(map(node, ours["nodes"]))
    assert set(map(node, ours["nodes"])) - named == set(map(node, feast["nodes"])) - alias_only
    assert ours["total_nodes"] == feast["total_nodes"] + len(named) - len(alias_only)
    assert same_items(feast["nodes"], ours["nodes"], node, "nodes") == []

    def edge(e: Json) -> tuple[str, ...]:
        ends = (e[f"{side}_{part}"] for side in ("source", "target") for part in _PARTS)
        return (*ends, e["edge_type"])

    assert same_items(feast["edges"], ours["edges"], edge, "edges") == []
    # Feast keeps every edge ever seen; ours are the current ones (docs/api.md).
    current = {edge(e) for e in ours["edges"] if e["edge_type"] in ("input", "output")}
    ever = {edge(e) for e in feast["edges"] if e["edge_type"] in ("input", "output")}
    assert current <= ever
    assert len(current) > len(ever) * 0.8

    def link(s: Json) -> tuple[str, ...]:
        return (s["dataset_namespace"], s["dataset_name"], s["linked_namespace"], s["linked_name"])

    assert same_items(feast["symlinks"], ours["symlinks"], link, "symlinks") == []
    # Feast also links every two datasets of one dataSource (a database):
    # ours links equal dataSource URIs only, and every symlink facet's alias.
    assert {link(s) for s in ours["symlinks"]} <= {link(s) for s in feast["symlinks"]}


def test_subgraph(both: Both) -> None:
    feast_jobs, _ = both.get("/jobs", limit=1000)
    compared = refused = 0
    for job in feast_jobs["jobs"][:30]:
        path = (
            f"/graph/job/{quote(job['job_namespace'], safe='')}/{quote(job['job_name'], safe='')}"
        )
        feast = both.feast.get(READS + path, params={"depth": 1})
        ours = both.ours.get(READS + path, params={"depth": 1})
        assert ours.status_code == 200, (path, ours.text)
        if "/" in job["job_namespace"] + job["job_name"]:
            # Feast's defect: a '/' in the namespace or name, even as %2F, misroutes.
            refused += feast.status_code == 404
            continue
        assert feast.status_code == 200, (path, feast.text)
        problems = same_shape(feast.json(), ours.json(), path)
        problems += same_items(
            feast.json()["nodes"],
            ours.json()["nodes"],
            lambda n: (n["type"], n["namespace"], n["name"]),
            path,
        )
        assert problems == []
        compared += 1
    assert compared


def test_retention(both: Both) -> None:
    feast, ours = both.get("/retention")
    assert same_shape(feast, ours, "retention") == []
    assert same_shape(feast["storage"], ours["storage"], "retention.storage") == []
    for kind in ("events", "runs", "jobs", "datasets"):
        assert same_shape(feast["storage"][kind], ours["storage"][kind], kind) == []
    counts = {kind: feast["storage"][kind]["count"] for kind in ("runs", "jobs", "datasets")}
    counts["jobs"] += len(only_named_jobs(both))
    _, datasets = both.get("/datasets", limit=1000)
    assert {k: ours["storage"][k]["count"] for k in counts} == {
        **counts,
        "datasets": datasets["total"],
    }
    assert datasets["total"] < feast["storage"]["datasets"]["count"]  # Feast's aliases
    # Feast counts each receipt of an event.
    assert ours["storage"]["events"]["count"] <= feast["storage"]["events"]["count"]
    assert (ours["retention_days"], ours["retention_enabled"]) == (0, False)


def test_prune_and_reset(both: Both) -> None:
    feast = both.feast.post(READS + "/retention/prune")
    ours = both.ours.post(READS + "/retention/prune")
    assert feast.status_code == ours.status_code == 200
    assert same_shape(feast.json(), ours.json(), "prune") == []
    # A namespace of its own, stored in both, so the reset removes nothing other tests read.
    event = _run_event("COMPLETE", "zz-reset-only", "gone")
    for client in (both.feast, both.ours):
        assert client.post("/api/v1/lineage", json=event).status_code == 201
    params = {"namespace": "zz-reset-only"}
    feast = both.feast.delete(READS + "/reset", params=params)
    ours = both.ours.delete(READS + "/reset", params=params)
    assert feast.status_code == ours.status_code == 200
    assert same_shape(feast.json(), ours.json(), "reset") == []
    assert ours.json()["status"] == feast.json()["status"]
    # Where we differ on purpose: Feast answers a namespace nothing is stored under (a typo)
    # with 200 "Purged"; ours is a 404 that names it, and nothing is deleted either way.
    params = {"namespace": "contract-nothing-here"}
    assert both.feast.delete(READS + "/reset", params=params).status_code == 200
    missing = both.ours.delete(READS + "/reset", params=params)
    assert missing.status_code == 404
    assert "contract-nothing-here" in missing.json()["error"]["message"]


def test_graph_carries_feasts_derived_edges(both: Both) -> None:
    """Feast's dataset -> dataset edges through a job are in ``edges``, typed ``derived``."""
    feast, ours = both.get("/graph", limit=5000)

    def derived(graph: Json) -> set[tuple[str, ...]]:
        return {
            tuple(e[f"{side}_{part}"] for side in ("source", "target") for part in _PARTS)
            for e in graph["edges"]
            if e["edge_type"] == "derived"
        }

    theirs, mine = derived(feast), derived(ours)
    assert mine, "no derived edge in edges"
    # Feast derives them from one event's inputs and outputs and keeps every
    # one ever seen; ours come from a job's current inputs and outputs, across
    # its events (a dbt model that lists inputs on START, outputs on COMPLETE).
    assert len(mine & theirs) > len(theirs) * 0.8
    # Ours beside them still name the job.
    keys = {(d["source"], d["target"]) for d in ours["derived_edges"]}
    assert {
        (str(NodeId.dataset(sn, s)), str(NodeId.dataset(tn, t))) for _, sn, s, _, tn, t in mine
    } == keys
    for edge in ours["edges"]:
        if edge["edge_type"] == "derived":
            assert edge["type"] == "derived"
            assert (edge["source_type"], edge["target_type"]) == ("dataset", "dataset")


@pytest.mark.parametrize(
    ("path", "params", "clamped"),
    [
        ("/graph", {"limit": 0}, [("limit", 0, 5000)]),
        ("/graph", {"limit": 10_000}, [("limit", 10_000, 5000)]),
        ("/graph", {"limit": 5000}, []),
        ("/retention", {"limit": 100}, None),
    ],
)
def test_every_value_feast_takes_is_taken(
    both: Both, path: str, params: Json, clamped: list[tuple[str, int, int]] | None
) -> None:
    """Where Feast answers, ours answers too: clamped to our bounds, and saying so."""
    _, ours = both.get(path, **params)
    if clamped is not None:
        assert [(c["parameter"], c["requested"], c["used"]) for c in ours["clamped"]] == clamped
        assert all(c["reason"] for c in ours["clamped"])
        assert ours["limit"] == (clamped[0][2] if clamped else params["limit"])


def test_a_subgraph_as_deep_as_feast_walks(both: Both) -> None:
    feast_jobs, _ = both.get("/jobs", limit=1000)
    job = next(j for j in feast_jobs["jobs"] if "/" not in j["job_namespace"] + j["job_name"])
    path = f"/graph/job/{quote(job['job_namespace'], safe='')}/{quote(job['job_name'], safe='')}"
    for depth in (1, 50):
        _, ours = both.get(path, depth=depth)
        assert ours["depth"] == min(depth, 20)
        expected = [("depth", 50, 20)] if depth == 50 else []
        assert [(c["parameter"], c["requested"], c["used"]) for c in ours["clamped"]] == expected
    # Feast's own bounds: past them both refuse.
    assert both.feast.get(READS + "/graph", params={"limit": 10_001}).status_code == 422
    assert both.ours.get(READS + "/graph", params={"limit": 10_001}).status_code == 400
    assert both.feast.get(READS + path, params={"depth": 51}).status_code == 422
    assert both.ours.get(READS + path, params={"depth": 51}).status_code == 400


def test_events_page_by_feasts_default(both: Both) -> None:
    feast, ours = both.get("/events")
    assert len(feast["events"]) == 100
    assert len(ours["events"]) == ours["limit"] == 100


@pytest.mark.parametrize(
    "path",
    [
        f"/runs/{uuid.UUID(int=7)}",
        "/graph/table/contract/nothing",
    ],
)
def test_errors_carry_feasts_detail(both: Both, path: str) -> None:
    """A client reading Feast's ``detail`` reads our message; ours stays under ``error``."""
    feast = both.feast.get(READS + path)
    ours = both.ours.get(READS + path)
    assert feast.status_code == ours.status_code
    assert isinstance(feast.json()["detail"], str)
    body = ours.json()
    assert same_shape(feast.json(), body, path) == []
    assert body["detail"] == body["error"]["message"]
    assert body["error"]["status"] == ours.status_code


def test_dataset_versions(both: Both) -> None:
    """Feast's versions are ours that a COMPLETE run wrote; ours add schema and other changes.

    The same runs made them, and the same keys with the same JSON types are in each.

    Feast numbers versions by arrival (``version`` 1, 2, ... as COMPLETE events
    come in, renumbering nothing but skipping none); ours by event time, so a
    late event renumbers the ones after it, and ``id`` is the stable key.
    """
    feast_datasets, _ = both.get("/datasets", limit=1000)
    compared = 0
    for ds in feast_datasets["datasets"]:
        ns, name = ds["dataset_namespace"], ds["dataset_name"]
        if "/" in ns + name:
            continue  # Feast's defect: a '/' in the namespace or name, even as %2F, misroutes
        path = f"/datasets/{quote(ns, safe='')}/{quote(name, safe='')}/versions"
        feast = both.feast.get(READS + path, params={"limit": 500})
        ours = both.ours.get(READS + path, params={"limit": 1000})
        if (ns, name) in aliases(both):
            continue  # Feast stores an alias as a dataset; ours does not
        assert feast.status_code == 200, (path, feast.text)
        assert ours.status_code == 200, (path, ours.text)
        f, o = feast.json(), ours.json()
        assert same_shape(f, o, path) == []
        if not f["versions"]:
            continue
        writes = [v for v in o["versions"] if "write" in v["changes"]]
        assert {v["created_by_run_id"] for v in f["versions"]} == {
            v["created_by_run_id"] for v in writes
        }, path
        # Feast stores each receipt of an event (a retry or a fixture sent twice is
        # two versions there), ours each event once.
        assert len(writes) <= f["total"], path
        for theirs in f["versions"]:
            assert same_shape(theirs, o["versions"][0], path) == []
        compared += 1
    assert compared


def test_job_versions_answer_in_the_envelope_of_feasts_versions(both: Both) -> None:
    """Feast 0.67 has no job versions (it answers 404); ours use its versions' envelope.

    Feast's dataset versions answer ``{"versions": [...], "total": N}``: a
    client that reads one reads ours for jobs, with the same keys and types.
    """
    plain = [
        (d["dataset_namespace"], d["dataset_name"])
        for d in both.ours.get(READS + "/datasets", params={"limit": 1000}).json()["datasets"]
        if "/" not in d["dataset_namespace"] + d["dataset_name"]
    ]
    namespace, name = plain[0]
    feast = both.feast.get(READS + f"/datasets/{namespace}/{name}/versions")
    assert feast.status_code == 200, feast.text
    jobs = [
        (j["job_namespace"], j["job_name"])
        for j in both.ours.get(READS + "/jobs", params={"limit": 1000}).json()["jobs"]
        if j["latest_run_id"] and "/" not in j["job_namespace"] + j["job_name"]
    ]
    job_ns, job_name = jobs[0]
    assert both.feast.get(READS + f"/jobs/{job_ns}/{job_name}/versions").status_code == 404
    ours = both.ours.get(READS + f"/jobs/{job_ns}/{job_name}/versions")
    assert ours.status_code == 200, ours.text
    body = ours.json()
    assert same_shape(feast.json(), body, "versions") == []
    assert body["total"] >= 1
    assert body["versions"][0]["job_name"] == job_name
