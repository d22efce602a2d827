"""The reads health is computed from, and the states on generated histories.

Histories of runs of two jobs on a fixed chain (``up`` writes ``raw``,
``down`` reads it and writes ``out``), each run one terminal event at a
drawn time, delivered in any order with duplicates: the failed jobs, the
stale and unknown datasets and the nodes at risk are those a model of the
definitions in docs/api.md (Lineage health) gives.
"""

from __future__ import annotations

import itertools
import statistics
import uuid
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feast_lineage.consumer.services import reach
from feast_lineage.consumer.services.health_states import FACTOR, KEEP, MIN_INTERVALS, compute
from feast_lineage.consumer.store.read import health as h
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id, job_id
from tests.factories import at, dataset, facet, run_event
from tests.store_helpers import Store, ingest_shuffled

UP, DOWN = ("airflow", "up"), ("airflow", "down")
RAW, OUT = ("warehouse", "raw"), ("warehouse", "out")
NOW_S = 10_000


def _run(job: tuple[str, str], state: str, minute: int) -> dict[str, Any]:
    inputs = [dataset(*RAW)] if job == DOWN else []
    outputs = [dataset(*(OUT if job == DOWN else RAW))]
    return run_event(
        state,
        run_id=str(uuid.uuid4()),
        job=job,
        time=at(60 * minute),
        inputs=inputs,
        outputs=outputs,
    )


def _failed(runs: list[tuple[str, int]]) -> bool:
    fails = [m for s, m in runs if s in ("FAIL", "ABORT")]
    done = [m for s, m in runs if s == "COMPLETE"]
    return bool(fails) and (not done or max(done) < max(fails))


def _interval(minutes: list[int]) -> float | None:
    times = sorted(minutes, reverse=True)[:KEEP]
    gaps = [60.0 * (a - b) for a, b in itertools.pairwise(times) if a > b]
    return statistics.median(gaps) * FACTOR if len(gaps) >= MIN_INTERVALS else None


_runs = st.lists(
    st.tuples(st.sampled_from(["COMPLETE", "FAIL", "ABORT"]), st.integers(0, 120)),
    min_size=1,
    max_size=7,
)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(up=_runs, down=_runs, now_minute=st.integers(60, 400), data=st.data())
def test_states_follow_the_definitions_in_any_order(
    store: Store,
    up: list[tuple[str, int]],
    down: list[tuple[str, int]],
    now_minute: int,
    data: st.DataObject,
) -> None:
    store.reset()
    events = [_run(UP, s, m) for s, m in up] + [_run(DOWN, s, m) for s, m in down]
    ingest_shuffled(store, events, data)
    now_us = parse_us(at(60 * now_minute))
    with store.engine.connect() as conn:
        found = compute(conn, {}, now_us)
    ids = {
        "up": job_id(*UP),
        "down": job_id(*DOWN),
        "raw": dataset_id(*RAW),
        "out": dataset_id(*OUT),
    }
    expected: dict[str, str] = {}
    for name, runs in (("up", up), ("down", down)):
        expected[name] = "failed" if _failed(runs) else "ok"
    for name, runs in (("raw", up), ("out", down)):
        written = [m for s, m in runs if s == "COMPLETE"]
        interval = _interval(written)
        if not written:
            expected[name] = "ok"
        elif interval is None:
            expected[name] = "unknown"
        else:
            late = 60 * now_minute > 60 * max(written) + interval
            expected[name] = "stale" if late else "ok"
    chain = ["up", "raw", "down", "out"]
    for i, name in enumerate(chain):
        causes = [c for c in chain[:i] if expected[c] in ("failed", "stale")]
        if expected[name] in ("ok", "unknown") and causes:
            expected[name] = "at_risk"
            nearest = causes[-1]
            assert found.at_risk[ids[name]][0] == (ids[nearest], i - chain.index(nearest))
    assert {n: found.state(ids[n]) for n in chain} == expected


def test_recent_writes_keeps_the_latest_writes_of_each_dataset(store: Store) -> None:
    store.reset()
    store.ingest(*[_run(UP, "COMPLETE", m) for m in range(15)], _run(UP, "FAIL", 20))
    store.ingest(_run(DOWN, "COMPLETE", 3))
    with store.engine.connect() as conn:
        every = h.recent_writes(conn, None, 4)
        some = h.recent_writes(conn, [dataset_id(*OUT)], 4)
    raw_times = [parse_us(at(60 * m)) for m in (14, 13, 12, 11)]
    assert every == {dataset_id(*RAW): raw_times, dataset_id(*OUT): [parse_us(at(180))]}
    assert some == {dataset_id(*OUT): [parse_us(at(180))]}


def test_a_feast_definition_run_is_not_a_write(store: Store) -> None:
    # `feast apply` (and lineage-sync) outputs the registry's objects: definitions, not data.
    # Counted as writes, a few applies in a minute taught a feature service a 29 s interval.
    store.reset()
    kind = facet(kind="definition", feast_project="p")
    service = ("p", "feature_service/svc")
    applies = [
        run_event(
            "COMPLETE",
            job=("p", "feast_apply_feature_service_svc"),
            time=at(10 * m),
            outputs=[dataset(*service)],
            job_facets={"feast_job_kind": kind},
        )
        for m in range(5)
    ]
    materialized = facet(kind="materialization", feast_project="p")
    data = run_event(
        "COMPLETE",
        job=("p", "feast_materialize"),
        time=at(100),
        outputs=[dataset(*service)],
        job_facets={"feast_job_kind": materialized},
    )
    store.ingest(*applies, data)
    with store.engine.connect() as conn:
        writes = h.recent_writes(conn, None, KEEP)
    assert writes == {dataset_id(*service): [parse_us(at(100))]}


def test_steps_cross_symlinks_on_the_same_level(store: Store) -> None:
    store.reset()
    alias = facet(identifiers=[{"namespace": "s3://b", "name": "raw", "type": "FILE"}])
    store.ingest(
        run_event("COMPLETE", job=UP, time=at(0), outputs=[dataset(*RAW, symlinks=alias)]),
        run_event("COMPLETE", job=DOWN, time=at(1), inputs=[dataset("s3://b", "raw")]),
    )
    with store.engine.connect() as conn:
        out = h.steps(conn, [dataset_id(*RAW)], downstream=True)
        on = h.steps(conn, [dataset_id("s3://b", "raw")], downstream=True)
    assert h.Step(dataset_id(*RAW), dataset_id("s3://b", "raw"), 0) in out
    assert h.Step(dataset_id("s3://b", "raw"), job_id(*DOWN), 1) in on


def test_the_whole_graph_read_at_once_is_every_node_s_steps(store: Store) -> None:
    """every_step / every_node (read once per store state) against the reads per node, and
    the walks over them against the walks that query each level."""
    store.reset()
    alias = facet(identifiers=[{"namespace": "s3://b", "name": "raw", "type": "FILE"}])
    store.ingest(
        run_event("COMPLETE", job=UP, time=at(0), outputs=[dataset(*RAW, symlinks=alias)]),
        run_event("COMPLETE", job=DOWN, time=at(1), inputs=[dataset("s3://b", "raw")]),
        # DOWN's latest run reads OUT only: its edge from the alias is no longer current
        run_event("COMPLETE", job=DOWN, time=at(2), inputs=[dataset(*OUT)]),
    )
    with store.engine.connect() as conn:
        nodes = h.every_node(conn)
        ids = [*nodes, dataset_id("s3://b", "raw")]
        for downstream in (True, False):
            one_by_one = sorted(h.steps(conn, ids, downstream=downstream))
            assert sorted(h.every_step(conn, downstream=downstream)) == one_by_one
        assert nodes == h.node_info(conn, ids)
        down, up = reach.KnownSteps.whole(h.every_step(conn, downstream=True))
        for start in ids:
            for known, downstream in ((down, True), (up, False)):
                queried = reach.walk(conn, [start], 4, downstream=downstream)
                assert known.walk(conn, start, 4) == queried
    assert h.Step(job_id(*UP), dataset_id(*RAW), 1) in down.fetch(conn, [job_id(*UP)])
    assert (dataset_id("s3://b", "raw"), job_id(*DOWN)) not in {
        (s.near, s.far) for s in down.fetch(conn, [dataset_id("s3://b", "raw")])
    }


def test_steps_follow_data_edges_never_the_run_tree(store: Store) -> None:
    """A parent job's failure is caused by its children, not the other way round: the steps
    health walks (both ways) leave out parent and root edges, and keep the data edges."""
    store.reset()
    dag, task = ("airflow", "dag"), ("airflow", "dag.task")
    dag_run = str(uuid.uuid4())
    root = facet(
        run={"runId": str(uuid.uuid4())},
        job={"namespace": "airflow", "name": "root_dag"},
        root={"run": {"runId": str(uuid.uuid4())}, "job": {"namespace": "a", "name": "root"}},
    )
    store.ingest(
        run_event("FAIL", run_id=dag_run, job=dag, time=at(60), run_facets={"parent": root}),
        run_event(
            "COMPLETE",
            job=task,
            time=at(30),
            inputs=[dataset(*RAW)],
            outputs=[dataset(*OUT)],
            parent=(dag_run, dag),
        ),
    )
    ids = [job_id(*dag), job_id(*task), job_id("airflow", "root_dag"), job_id("a", "root")]
    with store.engine.connect() as conn:
        down = h.every_step(conn, downstream=True)
        assert sorted(h.steps(conn, ids, downstream=True)) == sorted(
            s for s in down if s.near in ids
        )
        up = h.steps(conn, ids, downstream=False)
    assert set(down) == {
        h.Step(dataset_id(*RAW), job_id(*task), 1),
        h.Step(job_id(*task), dataset_id(*OUT), 1),
    }
    assert up == [h.Step(job_id(*task), dataset_id(*RAW), 1)]
