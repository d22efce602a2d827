"""The whole-graph diff from two outlines is the diff of the two whole ``as_of`` answers, bytewise.

:func:`.lineage_diff.lineage_diff` without a centre builds full nodes and
edges only where the two instants differ (:mod:`.graph_outline`); the
definition is :func:`.lineage_diff.difference` of the two whole answers
(:func:`.lineage_diff.sides`). Histories of runs and JobEvents with changing
inputs, outputs, schemas (the same schema stated again by a later version),
column lineage, symlinks, SQL and explicit lineage (a ``lineage`` job facet
stating payload A or B or nothing, so A, B, A happens), in two dataset
namespaces, delivered in any order with duplicates; asked with every
namespace visible and with one hidden.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.responses import FastJSONResponse
from feast_lineage.consumer.services.lineage_diff import Moment, difference, lineage_diff, sides
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.positions import PositionCache
from feast_lineage.event_time import parse_us
from tests.factories import at, dataset, facet, generated_history, lineage_facet, schema_facet
from tests.store_helpers import Store, history_settings, ingest_shuffled

NAMESPACES = ["s3://b", "s3://other"]
JOBS = [("spark://p", "j0"), ("spark://p", "j1"), ("spark://q", "j2")]
NAMES = ["d0", "d1", "d2"]
NOW = parse_us(at(1000))

_datasets = st.lists(
    st.tuples(st.sampled_from(NAMESPACES), st.sampled_from(NAMES)), max_size=3, unique=True
)
_event = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["START", "COMPLETE", "FAIL"]),
        "time": st.integers(0, 10),
        "inputs": _datasets,
        "outputs": _datasets,
        # ("a", "b", "!"): the fields of ("a", "b") in a facet of another producer (another
        # blob, the same schema)
        "schema": st.sampled_from([None, ("a",), ("a", "b"), ("a", "b", "!")]),
        "columns": st.booleans(),
        "sql": st.sampled_from([None, "select 1", "select 2"]),
        "alias": st.sampled_from(["d9", None, "d0"]),  # an output's symlink, stated then
        "lineage": st.sampled_from([None, "A", "B", "E"]),  # the job's lineage facet
    }
)
# A: d0 feeds d1 (another namespace) through the event's job; B: d1 feeds d2 through
# it, and j2 (another job namespace) feeds j0; E: states nothing.
LINEAGE: dict[str, list[Any]] = {
    "A": [("DATASET", NAMESPACES[1], "d1", [("DATASET", NAMESPACES[0], "d0")])],
    "B": [
        ("DATASET", NAMESPACES[0], "d2", [("DATASET", NAMESPACES[0], "d1")]),
        ("JOB", *JOBS[0], [("JOB", *JOBS[2])]),
    ],
    "E": [],
}
_run = st.fixed_dictionaries(
    {
        "job": st.integers(0, len(JOBS) - 1),
        "events": st.lists(_event, min_size=1, max_size=3),
        "job_event": st.booleans(),
    }
)


def _schema(names: tuple[str, ...]) -> dict[str, Any]:
    if names[-1] != "!":
        return schema_facet(*names)
    return {**schema_facet(*names[:-1]), "_producer": "https://example.com/another"}


def _output(namespace: str, name: str, e: dict[str, Any]) -> dict[str, Any]:
    facets: dict[str, Any] = {"schema": _schema(e["schema"])} if e["schema"] else {}
    if e["columns"] and e["inputs"]:
        source_ns, source = e["inputs"][0]
        read = {"namespace": source_ns, "name": source, "field": "a"}
        facets["columnLineage"] = facet(fields={"a": {"inputFields": [read]}})
    if e["alias"] is not None and e["alias"] != name:
        alias = {"namespace": NAMESPACES[1], "name": e["alias"], "type": "TABLE"}
        facets["symlinks"] = facet(identifiers=[alias])
    return dataset(namespace, name, **facets)


def _events(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    def datasets_of(e: dict[str, Any]) -> tuple[list[Any], list[Any]]:
        return [dataset(ns, n) for ns, n in e["inputs"]], [
            _output(ns, n, e) for ns, n in e["outputs"]
        ]

    def lineage(e: dict[str, Any], _job: tuple[str, str]) -> dict[str, Any]:
        return {"lineage": lineage_facet(*LINEAGE[e["lineage"]])} if e["lineage"] else {}

    return generated_history(runs, JOBS, datasets_of, lineage)


def _bytes(diff: Any) -> bytes:
    """The diff as the route renders it."""
    return FastJSONResponse(None).render(diff)


SCOPES = [Scope.everything(), Scope.of(["s3://b", "spark://p"])]


@pytest.mark.slow
def test_the_outline_diff_is_the_diff_of_the_whole_answers(store_url: str) -> None:
    store = Store(store_url)
    # (Derandomized: the examples are fixed by the test's code. On PostgreSQL and MariaDB the
    # first 5 of them changed too little for the guards below; the first 10 do.)
    examples = 15 if store.dialect == "sqlite" else 10
    # diffs that named a node or schema change, a column edge, a symlink, an explicit
    # edge, a job whose version changed (job_changes: its pairs of versions)
    changed = [0, 0, 0, 0, 0]

    @history_settings(examples)
    @given(st.lists(_run, min_size=1, max_size=5), st.data())
    def check(runs: list[dict[str, Any]], data: st.DataObject) -> None:
        store.reset()
        ingest_shuffled(store, _events(runs), data)
        for _ in range(3):
            t1 = parse_us(at(data.draw(st.integers(-1, 11), label="t1")))
            t2 = parse_us(at(data.draw(st.integers(-1, 11), label="t2")))
            for scope in SCOPES:
                read = StoreReader(store.engine, scope, {}, PositionCache())
                instants = (Instant(t1), Instant(t2))
                expected = difference(read, *sides(read, None, instants), instants)
                got = lineage_diff(
                    read,
                    start=Moment("from", time_us=t1),
                    end=Moment("to", time_us=t2),
                    centre=None,
                    now_us=NOW,
                )
                assert _bytes(got) == _bytes(expected), (t1, t2, scope)
                totals = got["totals"]
                changed[0] += totals["nodes_added"] + totals["schema_changes"] > 0
                changed[1] += totals["column_edges_added"] + totals["column_edges_removed"] > 0
                moved = [*got["edges_added"], *got["edges_removed"]]
                changed[2] += any(e["type"] == "symlink" for e in moved)
                changed[3] += any(e["origin"] is not None for e in moved)
                changed[4] += totals["job_changes"] > 0

    try:
        check()
        assert changed[0] > examples, changed  # not passing by emptiness
        assert changed[1] > 0, changed
        assert changed[2] > 0, changed
        assert changed[3] > 0, changed
        assert changed[4] > 0, changed
    finally:
        store.close()
