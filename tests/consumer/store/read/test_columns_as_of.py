"""Issue 39: column lineage ``as_of=T`` is today's answer on the events up to T.

Histories of runs whose outputs carry changing ``columnLineage`` facets,
schemas and symlinks (and outputs dropped from one run to the next), delivered to
store A in any order with duplicates. For several instants T, a fresh
store B is fed only the events at or before T: A's column lineage of every
dataset as of T equals B's current one (nodes with their types and depths,
edges with their job, run, transformations), and so do the column edges
of the datasets (:func:`.columns.column_edges_of_datasets_at`, what the
lineage diff reads). Over a window, a dataset's column edges are the union
of those its overlapping runs stated.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.errors import NotFound
from feast_lineage.consumer.schemas import ColumnLineage
from feast_lineage.consumer.services.columns import (
    column_edges_of_datasets_at,
    column_lineage,
    has_column_lineage,
)
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.positions import PositionCache
from feast_lineage.consumer.store.read.window import Window
from feast_lineage.event_time import parse_us, to_iso
from feast_lineage.identity import dataset_id
from tests.factories import at, dataset, facet, run_event, schema_facet
from tests.store_helpers import Store, ingest_shuffled

NS = "s3://c"
JOBS = [("spark://p", "j0"), ("spark://p", "j1")]
NAMES = ["d0", "d1", "d2"]
FIELDS = ["a", "b"]

_source = st.tuples(st.sampled_from(NAMES), st.sampled_from(FIELDS))
_lineage = st.dictionaries(st.sampled_from(FIELDS), st.lists(_source, min_size=1, max_size=2))
_output = st.fixed_dictionaries(
    {
        "name": st.sampled_from(NAMES),
        "lineage": st.none() | _lineage,
        "schema": st.sampled_from([None, ("a",), ("a", "b")]),
        # its symlinks facet: None (no facet), or the other datasets it names
        "links": st.sampled_from([None, None, (), ("d1",), ("d2",)]),
    }
)
_event = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["START", "COMPLETE", "FAIL"]),
        "time": st.integers(0, 10),
        "outputs": st.lists(_output, max_size=2, unique_by=lambda o: o["name"]),
    }
)
_run = st.fixed_dictionaries(
    {"job": st.integers(0, len(JOBS) - 1), "events": st.lists(_event, min_size=1, max_size=3)}
)


def _reader(store: Store) -> StoreReader:
    return StoreReader(store.engine, Scope.everything(), {}, PositionCache())


def _cll(spec: dict[str, list[tuple[str, str]]]) -> dict[str, Any]:
    return facet(
        fields={
            out: {
                "inputFields": [
                    {"namespace": NS, "name": n, "field": f, "transformations": []}
                    for n, f in sources
                ]
            }
            for out, sources in spec.items()
        }
    )


def _out(o: dict[str, Any]) -> dict[str, Any]:
    facets: dict[str, Any] = {}
    if o["lineage"] is not None:
        facets["columnLineage"] = _cll(o["lineage"])
    if o["schema"] is not None:
        facets["schema"] = schema_facet(*o["schema"])
    if o["links"] is not None:
        names = [n for n in o["links"] if n != o["name"]]
        facets["symlinks"] = facet(
            identifiers=[{"namespace": NS, "name": n, "type": "TABLE"} for n in names]
        )
    return dataset(NS, o["name"], **facets)


def _events(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for spec in runs:
        job, run_id = JOBS[spec["job"]], str(uuid.uuid4())
        for e in spec["events"]:
            sources = {
                n for o in e["outputs"] for ss in (o["lineage"] or {}).values() for n, _ in ss
            }
            out.append(
                run_event(
                    e["type"],
                    run_id=run_id,
                    job=job,
                    time=at(e["time"]),
                    inputs=[dataset(NS, n) for n in sorted(sources)],
                    outputs=[_out(o) for o in e["outputs"]],
                )
            )
    return out


def _ask(store: Store, name: str, instant: Instant | None) -> ColumnLineage | None:
    try:
        return column_lineage(
            _reader(store),
            namespace=NS,
            name=name,
            field_name=None,
            direction="both",
            depth=3,
            indirect=True,
            limit=100,
            at=instant,
        )
    except NotFound:
        return None


def _shape(answer: ColumnLineage | None) -> Any:
    if answer is None:
        return None
    return {
        "nodes": sorted((n["id"], n["depth"], n["type"] or "") for n in answer["nodes"]),
        "edges": sorted(
            (e["source"], e["target"], str(e["job"]), e["run_id"] or "", str(e["transformations"]))
            for e in answer["edges"]
        ),
        "feast": sorted(
            (r["output_field"], r["input_name"], r["input_field"], r["direction"], r["updated_at"])
            for r in answer["column_lineage"]
        ),
        "truncated": answer["truncated"],
    }


def _settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def _compare_at(a: Store, b: Store, events: list[dict[str, Any]], seconds: int) -> None:
    b.reset()
    b.ingest_each(e for e in events if parse_us(e["eventTime"]) <= parse_us(at(seconds)))
    instant = Instant(parse_us(at(seconds)))
    for name in NAMES:
        then, now = _ask(a, name, instant), _ask(b, name, None)
        assert _shape(then) == _shape(now), (seconds, name)
        if then is not None:
            assert then["as_of"] is not None
    datasets = [(NS, n) for n in NAMES]
    assert column_edges_of_datasets_at(_reader(a), datasets, instant) == (
        column_edges_of_datasets_at(_reader(b), datasets, None)
    )
    # Which datasets offer the column view then (theirs, or an alias's through the
    # symlinks current then): those of the store of the events until then.
    ids = [dataset_id(NS, n) for n in NAMES]
    with a.engine.connect() as conn_a, b.engine.connect() as conn_b:
        then_flags = has_column_lineage(conn_a, ids, Scope.everything(), instant)
        assert then_flags == has_column_lineage(conn_b, ids, Scope.everything())


@pytest.mark.slow
def test_column_lineage_as_of_is_the_answer_of_a_store_of_the_events_until_then(
    two_stores: tuple[Store, Store],
) -> None:
    a, b = two_stores
    examples = 30 if a.dialect == "sqlite" else 6

    @_settings(examples)
    @given(st.lists(_run, min_size=1, max_size=4), st.data())
    def check(runs: list[dict[str, Any]], data: st.DataObject) -> None:
        a.reset()
        events = _events(runs)
        ingest_shuffled(a, events, data)
        for seconds in data.draw(st.lists(st.integers(-1, 11), min_size=1, max_size=3)):
            _compare_at(a, b, events, seconds)

    check()


def _expected_window(runs: list[dict[str, Any]], since: int, until: int) -> dict[str, set[Any]]:
    """Dataset -> (input field, output field, job) the overlapping runs' events stated into it."""
    out: dict[str, set[Any]] = {name: set() for name in NAMES}
    for spec in runs:
        events = spec["events"]
        starts = [e["time"] for e in events if e["type"] == "START"]
        started = min(starts) if starts else min(e["time"] for e in events)
        ends = [e["time"] for e in events if e["type"] != "START"]
        if not (started < until and (not ends or ends[0] >= since)):
            continue
        job = "{}:{}".format(*JOBS[spec["job"]])
        for e in events:
            for o in e["outputs"]:
                for field, sources in (o["lineage"] or {}).items():
                    for n, f in sources:
                        edge = (f"field:{NS}:{n}:{f}", f"field:{NS}:{o['name']}:{field}", job)
                        out[o["name"]].add(edge)
    return out


def _window_edges(store: Store, name: str, window: Window) -> set[Any]:
    try:
        answer = column_lineage(
            _reader(store),
            namespace=NS,
            name=name,
            field_name=None,
            direction="upstream",
            depth=1,
            indirect=True,
            limit=100,
            at=window,
        )
    except NotFound:
        return set()
    assert (answer["since"], answer["until"]) == (to_iso(window.since_us), to_iso(window.until_us))
    return {
        (e["source"], e["target"], "{namespace}:{name}".format(**e["job"]))
        for e in answer["edges"]
        if e["job"] is not None
    }


@pytest.mark.slow
def test_column_lineage_over_a_window_is_the_union_of_its_runs_column_lineage(
    head_store_url: str,
) -> None:
    store = Store(head_store_url)
    examples = 25 if store.dialect == "sqlite" else 5

    @_settings(examples)
    @given(st.lists(_run, min_size=1, max_size=4), st.data())
    def check(runs: list[dict[str, Any]], data: st.DataObject) -> None:
        for spec in runs:  # at most one terminal event a run: its time ends it
            terminal = [e for e in spec["events"] if e["type"] != "START"]
            for extra in terminal[1:]:
                extra["type"] = "START"
            for e in spec["events"]:  # no symlinks: each dataset a node of its own
                for o in e["outputs"]:
                    o["links"] = None
        store.reset()
        ingest_shuffled(store, _events(runs), data)
        since = data.draw(st.integers(-1, 11), label="since")
        until = data.draw(st.integers(since, 12), label="until")
        window = Window(parse_us(at(since)), parse_us(at(until)))
        expected = _expected_window(runs, since, until)
        for name in NAMES:
            assert _window_edges(store, name, window) == expected[name], name

    try:
        check()
    finally:
        store.close()
