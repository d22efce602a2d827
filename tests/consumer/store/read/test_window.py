"""A window's runs: bounded below by the longest run, and runs with no end found however old."""

from __future__ import annotations

import uuid

import pytest

from feast_lineage.consumer.store.read import window as w
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id, job_id
from tests.factories import at, dataset, run_event
from tests.store_helpers import Store

JOB = ("ns", "job")


def _window(since: float, until: float) -> w.Window:
    return w.Window(parse_us(at(since)), parse_us(at(until)))


@pytest.fixture
def history(store: Store) -> Store:
    never_ends, short, other = (str(uuid.uuid4()) for _ in range(3))
    store.ingest(  # started long before any window below, never ended
        run_event("START", run_id=never_ends, job=JOB, time=at(0), inputs=[dataset("ns", "old")])
    )
    store.ingest(
        run_event("START", run_id=short, job=JOB, time=at(100), inputs=[dataset("ns", "short")]),
        run_event("COMPLETE", run_id=short, job=JOB, time=at(110)),
        run_event("START", run_id=other, job=JOB, time=at(300), inputs=[dataset("ns", "new")]),
        run_event("COMPLETE", run_id=other, job=JOB, time=at(301)),
    )
    return store


def _inputs(store: Store, window: w.Window) -> set[str]:
    with store.engine.connect() as conn:
        seen = w.observed(conn, None, window)
        walked = w.walk(conn, job_id(*JOB), "upstream", 1, None, window)
        names = {name: dataset_id("ns", name) for name in ("old", "short", "new")}
        rows, stats = w.edges_among(conn, {job_id(*JOB), *names.values()}, window)
    assert {(e.dst_id, e.src_id, e.edge_type) for e in rows} == set(stats)
    found = {name for name, ds in names.items() if (job_id(*JOB), ds, "input") in seen.edges}
    assert found == {name for name, ds in names.items() if ds in walked}
    assert found == {name for name, ds in names.items() if (job_id(*JOB), ds, "input") in stats}
    return found


def test_the_window_finds_every_run_that_overlapped_it(history: Store) -> None:
    with history.engine.connect() as conn:
        assert w.longest_run_us(conn) == 10_000_000
    # [120, 200): the short run ended before it; the run with no end started 120 s before.
    assert _inputs(history, _window(120, 200)) == {"old"}
    # The short run ended at `since` and started exactly the longest run before it.
    assert _inputs(history, _window(110, 200)) == {"old", "short"}
    assert _inputs(history, _window(111, 300)) == {"old"}
    assert _inputs(history, _window(111, 301)) == {"old", "new"}
    assert _inputs(history, _window(-10, 0)) == set()


@pytest.mark.parametrize("store", ["sqlite"], indirect=True)
def test_a_jobs_open_runs_are_one_seek_not_every_run_before_the_window(store: Store) -> None:
    job = ("ns", "busy")
    for i in range(6):
        run_id = str(uuid.uuid4())
        store.ingest(
            run_event(
                "START", run_id=run_id, job=job, time=at(10 * i), inputs=[dataset("ns", "i")]
            ),
            run_event("COMPLETE", run_id=run_id, job=job, time=at(10 * i + 1)),
        )
    store.ingest(run_event("START", job=job, time=at(5), inputs=[dataset("ns", "never_ended")]))

    def read() -> None:
        with store.engine.connect() as conn:
            among = {job_id(*job), dataset_id("ns", "never_ended")}
            found = w.edges_among(conn, among, _window(40, 60))[1]
            assert (job_id(*job), dataset_id("ns", "never_ended"), "input") in found
            assert w.walk(conn, job_id(*job), "upstream", 1, None, _window(40, 60))

    statements = store.traced_statements(read)
    with store.engine.connect() as conn:
        raw = conn.connection.dbapi_connection
        assert raw is not None
        plans = [
            str(row[-1])
            for s in statements
            if "feast_lineage_runs" in s and s.lstrip().upper().startswith(("SELECT", "WITH"))
            for row in raw.execute("EXPLAIN QUERY PLAN " + s).fetchall()
        ]
    open_seeks = [p for p in plans if "ix_ol_runs_job_open (job_id=? AND ended_us=?" in p]
    assert len(open_seeks) >= 2, "\n".join(plans)  # the stats and the walk
