"""Issue 39: ``as_of=T`` is today's answer on the events up to T; a window, its runs' union.

Histories of runs (and JobEvents) with changing inputs, outputs, schemas,
symlinks (an output's symlinks facet naming other datasets of the
history, or none) and explicit lineage (a ``lineage`` job facet stating
one of two payloads, or nothing, so A, B, A happens), and DatasetEvents,
delivered to store A in any order with duplicates. For several instants T,
a fresh store B is fed only the events whose eventTime is at or before T:
A's graph page and subgraphs as of T equal B's current ones
(nodes with whether each was written, input/output/derived/symlink and
explicit edges with their origin, symlinks, counts), and each dataset
node's version is B's latest version of it. For windows, the answer's
edges are the union of the inputs and outputs of the runs that overlapped
the window, each with the number of those runs, and the explicit edges of
the payloads stated in the window.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.schemas import DatasetPage, GraphPage, JobPage, Subgraph
from feast_lineage.consumer.services.catalog import dataset_page, job_page
from feast_lineage.consumer.services.dataset_versions import version_key
from feast_lineage.consumer.services.graph import graph_page, subgraph
from feast_lineage.consumer.services.graph_history import graph_page_at, subgraph_at
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.read import dataset_versions as dv
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.catalog_as_of import DATASET_SORT_KEYS_AT, JOB_SORT_KEYS_AT
from feast_lineage.consumer.store.read.positions import PositionCache
from feast_lineage.consumer.store.read.sorting import Sort
from feast_lineage.consumer.store.read.window import Window, longest_run_us
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id
from tests.factories import (
    at,
    dataset,
    dataset_event,
    facet,
    generated_history,
    lineage_facet,
    schema_facet,
)
from tests.store_helpers import Store, ingest_shuffled

NS = "s3://b"
JOBS = [("spark://p", "j0"), ("spark://p", "j1")]
NAMES = ["d0", "d1", "d2", "d3"]
TERMINAL = ("COMPLETE", "FAIL")

_datasets = st.lists(st.sampled_from(NAMES), max_size=3, unique=True)
_event = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["START", "RUNNING", "COMPLETE", "FAIL", "OTHER"]),
        "time": st.integers(0, 12),
        "inputs": _datasets,
        "outputs": _datasets,
        "schema": st.sampled_from([None, ("a",), ("a", "b")]),
        # the outputs' symlinks facet: None (no facet), or the names it lists
        "links": st.sampled_from([None, None, (), ("d2",), ("d3",), ("d2", "d3")]),
        # the job's lineage facet: none, payload A or B (LINEAGE), or one stating nothing
        "lineage": st.sampled_from([None, None, "A", "B", "E"]),
        # the job's sql facet: stated again with another query, or not at all
        "sql": st.sampled_from([None, "select 1", "select 2"]),
        # the inputs' documentation (readers state dataset facets too), and the outputs'
        # dataSource: a URI, another, or none named
        "doc": st.sampled_from([None, "x", "y"]),
        "uri": st.sampled_from([None, "s3://b/one", "s3://b/two", ""]),
    }
)
# A: d0 feeds d1 through the event's job; B: d1 feeds d2 through it, and j0 feeds j1.
LINEAGE: dict[str, list[Any]] = {
    "A": [("DATASET", NS, "d1", [("DATASET", NS, "d0")])],
    "B": [
        ("DATASET", NS, "d2", [("DATASET", NS, "d1")]),
        ("JOB", *JOBS[1], [("JOB", *JOBS[0])]),
    ],
    "E": [],
}
# A DatasetEvent declaring a dataset (a write, as an output is): its name and time.
_declared = st.tuples(st.sampled_from(NAMES), st.integers(0, 12))
_run = st.fixed_dictionaries(
    {
        "job": st.integers(0, len(JOBS) - 1),
        "events": st.lists(_event, min_size=1, max_size=3),
        "job_event": st.booleans(),  # a JobEvent instead of a run (its first event)
    }
)


def _reader(store: Store) -> StoreReader:
    return StoreReader(store.engine, Scope.everything(), {}, PositionCache())


def _events(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    def datasets_of(e: dict[str, Any]) -> tuple[list[Any], list[Any]]:
        outputs = [dataset(NS, n, **_facets(n, e)) for n in e["outputs"]]
        doc = {"documentation": facet(description=e["doc"])} if e["doc"] else {}
        return [dataset(NS, n, **doc) for n in e["inputs"]], outputs

    return generated_history(runs, JOBS, datasets_of, _job_facets)


def _job_facets(e: dict[str, Any], _job: tuple[str, str]) -> dict[str, Any]:
    out = {"lineage": lineage_facet(*LINEAGE[e["lineage"]])} if e["lineage"] else {}
    return out | ({"sql": facet(query=e["sql"])} if e["sql"] else {})


def _stated_edges(label: str, job: tuple[str, str]) -> set[tuple[str, str, str]]:
    """The explicit edges a payload of LINEAGE states, the event's job being ``job``."""
    own = "job:{}:{}".format(*job)
    out: set[tuple[str, str, str]] = set()
    for kind, ns, name, sources in LINEAGE[label]:
        for _s_kind, s_ns, s_name in sources:
            if kind == "DATASET":
                target = f"dataset:{ns}:{name}"
                out |= {(f"dataset:{s_ns}:{s_name}", own, "input"), (own, target, "output")}
            else:
                out.add((f"job:{s_ns}:{s_name}", f"job:{ns}:{name}", "job_to_job"))
    return out


def _facets(name: str, e: dict[str, Any]) -> dict[str, Any]:
    """An output's facets: its schema, and its symlinks to the other datasets listed."""
    out: dict[str, Any] = {}
    if e["schema"]:
        out["schema"] = schema_facet(*e["schema"])
    if e["links"] is not None:
        ids = [{"namespace": NS, "name": n, "type": "TABLE"} for n in e["links"] if n != name]
        out["symlinks"] = facet(identifiers=ids)
    if e["uri"] is not None:
        out["dataSource"] = facet(name="s3", **({"uri": e["uri"]} if e["uri"] else {}))
    return out


def _shape(answer: GraphPage | Subgraph) -> dict[str, Any]:
    return {
        "symlinks": sorted((s["dataset"], s["alias"]) for s in answer["symlinks"]),
        "nodes": sorted((n["id"], n["depth"], n["written"]) for n in answer["nodes"]),
        "edges": sorted(
            (e["source"], e["target"], e["type"], e["origin"] or "") for e in answer["edges"]
        ),
        "derived": sorted((d["source"], d["target"], d["via"]) for d in answer["derived_edges"]),
    }


def _latest_versions(store: Store) -> dict[str, str]:
    out = {}
    with store.engine.connect() as conn:
        for name in NAMES:
            found = dv.versions(dv.observations(conn, dataset_id(NS, name)))
            if found:
                out[f"dataset:{NS}:{name}"] = version_key(found[-1].row.id)
    return out


def _settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def _job_shape(page: JobPage) -> list[tuple[Any, ...]]:
    return [
        (j.job_namespace, j.job_name, j.created_at, j.latest_run_id, j.latest_run)
        for j in page.jobs
    ]


def _dataset_shape(page: DatasetPage) -> list[tuple[Any, ...]]:
    return [(d.dataset_namespace, d.dataset_name, d.created_at) for d in page.datasets]


def _facets_kept(then: dict[str, Any] | None, now: dict[str, Any] | None) -> None:
    """An as_of facet is today's value in the store of the events until then (or left out)."""
    for name, value in (then or {}).items():
        assert orjson.loads(orjson.dumps((now or {}).get(name))) == orjson.loads(
            orjson.dumps(value)
        ), name


def _compare_catalog(a: Store, b: Store, instant: Instant, seconds: int) -> None:
    """/jobs, /datasets and a node's details as of T equal B's now.

    The default order, and one of the orders that depend on the latest run
    then (drawn from T, so the examples cover every key and direction).
    """
    ran = JOB_SORT_KEYS_AT[2:]
    orders = [Sort("namespace"), Sort(ran[seconds % len(ran)], descending=seconds % 2 == 0)]
    for sort, (offset, limit) in zip(
        orders, ((0, 100), (seconds % 2, 1 + seconds % 2)), strict=True
    ):
        args: dict[str, Any] = {"namespace": None, "search": None, "sort": sort}
        then = job_page(_reader(a), **args, offset=offset, limit=limit, at=instant)
        now = job_page(_reader(b), **args, offset=offset, limit=limit)
        assert then.total == now.total
        assert _job_shape(then) == _job_shape(now), sort
    args = {"namespace": None, "search": None, "sort": Sort(DATASET_SORT_KEYS_AT[seconds % 3])}
    then_ds = dataset_page(_reader(a), **args, offset=0, limit=100, at=instant)
    now_ds = dataset_page(_reader(b), **args, offset=0, limit=100)
    assert then_ds.total == now_ds.total
    assert _dataset_shape(then_ds) == _dataset_shape(now_ds)
    for t_item, n_item in zip(then_ds.datasets, now_ds.datasets, strict=True):
        # The schema stated again after T is left out (its version holds it), never later's.
        assert t_item.schema_text in (None, n_item.schema_text)
        # A page's dataset facets (and URI) are those stated last by then: never later's.
        _facets_kept(
            orjson.loads(t_item.facets_json or "{}"), orjson.loads(n_item.facets_json or "{}")
        )
        assert t_item.datasource_uri in (None, n_item.datasource_uri)


def _compare_centre(then: Subgraph, now: Subgraph, details: bool) -> None:
    """A node's details as of T (the UI opens the subgraph's centre) equal B's now.

    ``details``: the answer of that node alone (``depth=0``, as the UI asks a node's
    details), whose dataset facets are exact too; in a larger answer a dataset facet
    stated again since is left out.
    """
    then_node = next(n for n in then["nodes"] if n["id"] == then["center"])
    now_node = next(n for n in now["nodes"] if n["id"] == now["center"])
    for field in ("latest_run_state", "created_at", "job_type"):
        assert then_node[field] == now_node[field], field
    # A node's schema then is its version's (the version rules break ties of one time by
    # the version id, the facet rules by the content): the other facets are compared.
    _facets_kept({**then_node["facets"], "schema": None}, {**now_node["facets"], "schema": None})
    assert then_node["datasource_uri"] in (None, now_node["datasource_uri"])
    if then_node["type"] == "job" or details:  # exact: none left out
        # (as JSON values: the current answer lists them in the database's order)
        then_facets = {**orjson.loads(orjson.dumps(then_node["facets"])), "schema": None}
        assert then_facets == {**orjson.loads(orjson.dumps(now_node["facets"])), "schema": None}
        assert then_node["datasource_uri"] == now_node["datasource_uri"]


def _compare_at(a: Store, b: Store, events: list[dict[str, Any]], seconds: int) -> None:
    b.reset()
    b.ingest_each(e for e in events if parse_us(e["eventTime"]) <= parse_us(at(seconds)))
    instant = Instant(parse_us(at(seconds)))
    then = graph_page_at(_reader(a), namespace=None, limit=500, offset=0, at=instant)
    now = graph_page(_reader(b), namespace=None, limit=500, offset=0)
    assert _shape(then) == _shape(now), seconds
    assert then["total_nodes"] == now["total_nodes"]
    assert then["total_edges"] == now["total_edges"]
    versions = {n["id"]: n.get("version") for n in then["nodes"] if n["type"] == "dataset"}
    latest = _latest_versions(b)
    assert {k: v for k, v in versions.items() if v is not None} == latest
    _compare_catalog(a, b, instant, seconds)
    for node in now["nodes"]:
        kind = node["type"]
        for direction in ("upstream", "downstream", "both"):
            args = {"kind": kind, "namespace": node["namespace"], "name": node["name"]}
            args |= {"depth": 3, "direction": direction, "limit": 100}
            then_sub = subgraph_at(_reader(a), **args, at=instant)
            now_sub = subgraph(_reader(b), **args)
            assert _shape(then_sub) == _shape(now_sub)
            if direction == "both":
                _compare_centre(then_sub, now_sub, details=False)
        args = {"kind": kind, "namespace": node["namespace"], "name": node["name"]}
        args |= {"depth": 0, "direction": "both", "limit": 100}
        then_sub, now_sub = (
            subgraph_at(_reader(a), **args, at=instant),
            subgraph(_reader(b), **args),
        )
        _compare_centre(then_sub, now_sub, details=True)


@pytest.mark.slow
def test_as_of_is_the_answer_of_a_store_of_the_events_until_then(
    two_stores: tuple[Store, Store],
) -> None:
    a, b = two_stores
    examples = 40 if a.dialect == "sqlite" else 10

    @_settings(examples)
    @given(
        st.lists(_run, min_size=1, max_size=4),
        st.lists(_declared, min_size=1, max_size=3),
        st.data(),
    )
    def check(
        runs: list[dict[str, Any]], declared: list[tuple[str, int]], data: st.DataObject
    ) -> None:
        a.reset()
        events = _events(runs) + [dataset_event(NS, n, time=at(s)) for n, s in declared]
        ingest_shuffled(a, events, data)
        times = sorted({parse_us(e["eventTime"]) for e in events})
        drawn = data.draw(st.lists(st.integers(-1, 13), min_size=1, max_size=3), label="at")
        for seconds in drawn:
            _compare_at(a, b, events, seconds)
        assert times  # every history has an event

    check()


def _expected_window(
    runs: list[dict[str, Any]], since: int, until: int
) -> dict[tuple[str, str, str], int]:
    """(source, target, type) -> how many overlapping runs listed it."""
    counts: dict[tuple[str, str, str], int] = {}
    for spec in runs:
        if spec["job_event"]:
            continue
        events = spec["events"]
        starts = [e["time"] for e in events if e["type"] == "START"]
        started = min(starts) if starts else min(e["time"] for e in events)
        ends = [e for e in events if e["type"] in TERMINAL]
        # The terminal event of the highest rank ends it; with one, its time.
        ended = max(e["time"] for e in ends) if ends else None
        if not (started < until and (ended is None or ended >= since)):
            continue
        job = "job:{}:{}".format(*JOBS[spec["job"]])
        edges = {(f"dataset:{NS}:{n}", job, "input") for e in events for n in e["inputs"]}
        edges |= {(job, f"dataset:{NS}:{n}", "output") for e in events for n in e["outputs"]}
        for edge in edges:
            counts[edge] = counts.get(edge, 0) + 1
    return counts


def _expected_stated(
    runs: list[dict[str, Any]], since: int, until: int
) -> set[tuple[str, str, str, str]]:
    """(source, target, type, origin) of the explicit payloads stated in [since, until)."""
    out: set[tuple[str, str, str, str]] = set()
    for spec in runs:
        events = spec["events"][:1] if spec["job_event"] else spec["events"]
        origin = "declared" if spec["job_event"] else "observed"
        for e in events:
            if e["lineage"] and since <= e["time"] < until:
                edges = _stated_edges(e["lineage"], JOBS[spec["job"]])
                out |= {(*edge, origin) for edge in edges}
    return out


def _check_longest(store: Store, runs: list[dict[str, Any]]) -> None:
    """The bound the window reads use: at least every run's length, whatever the order.

    At most the length from a run's earliest event: a run's start can move
    later (a late START), and the value is never lowered by ingest.
    """
    least, most = 0, 0
    for spec in runs:
        events = spec["events"]
        ends = [e["time"] for e in events if e["type"] in TERMINAL]
        if spec["job_event"] or not ends:
            continue
        starts = [e["time"] for e in events if e["type"] == "START"]
        started = min(starts) if starts else min(e["time"] for e in events)
        least = max(least, ends[0] - started)
        most = max(most, ends[0] - min(e["time"] for e in events))
    with store.engine.connect() as conn:
        longest = longest_run_us(conn)
    assert least * 1_000_000 <= longest <= most * 1_000_000


@pytest.mark.slow
def test_a_window_is_the_union_of_its_runs_lineage(store_url: str) -> None:
    store = Store(store_url)
    examples = 40 if store.dialect == "sqlite" else 10

    @_settings(examples)
    @given(st.lists(_run, min_size=1, max_size=4), st.data())
    def check(runs: list[dict[str, Any]], data: st.DataObject) -> None:
        for spec in runs:  # at most one terminal event a run: its time ends it
            terminal = [e for e in spec["events"] if e["type"] in TERMINAL]
            for extra in terminal[1:]:
                extra["type"] = "RUNNING"
        store.reset()
        events = _events(runs)
        ingest_shuffled(store, events, data)
        since = data.draw(st.integers(-1, 13), label="since")
        until = data.draw(st.integers(since, 14), label="until")
        window = Window(parse_us(at(since)), parse_us(at(until)))
        page = graph_page_at(_reader(store), namespace=None, limit=500, offset=0, at=window)
        got = {
            (e["source"], e["target"], e["type"]): e["run_count"]
            for e in page["edges"]
            if e["type"] in ("input", "output") and e["origin"] is None
        }
        assert got == _expected_window(runs, since, until)
        stated = {
            (e["source"], e["target"], e["type"], e["origin"])
            for e in page["edges"]
            if e["origin"] is not None
        }
        assert stated == _expected_stated(runs, since, until)
        assert page["total_edges"] == len(got) + len(stated)
        _check_longest(store, runs)

    try:
        check()
    finally:
        store.close()
