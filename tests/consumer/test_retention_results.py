"""What retention reports and keeps, on a real store (SQLite file, PostgreSQL, MariaDB).

- Two prunes at once (two worker processes, or two servers: a prune on
  request while the scheduled one runs) each delete part of what is due;
  ``last_prune`` reports them together, not whichever wrote last.
- A job's latest run that listed inputs or outputs is kept however old (it
  tells which edges are current), with the events its detail needs: like
  any kept run, its older events whose facet values later events replaced
  go (a long-stopped streaming job must not keep a million RUNNING events).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import Engine

from feast_lineage.consumer.schemas import PruneResult
from feast_lineage.consumer.services import retention
from feast_lineage.consumer.services.retention import Retention
from feast_lineage.consumer.store.admin import prune as store_prune
from feast_lineage.consumer.store.admin.deletes import Removed
from feast_lineage.event_time import parse_us, to_iso
from feast_lineage.identity import dataset_id, job_id
from tests.factories import at, dataset, facet, run_event
from tests.store_helpers import Store

OLD_RUNS = 6


@pytest.fixture
def store(head_store_url: str) -> Iterator[Store]:
    s = Store(head_store_url)
    yield s
    s.close()


def _seed_old_runs(store: Store) -> None:
    """Six long-past runs of one job (two events each), none its latest that read or wrote.

    And a seventh after them, a lone COMPLETE with a facet: the job's run started last
    before any cutoff, which retention keeps (its latest run at every
    instant after the cutoff).
    """
    job = ("ns", "old")
    for i in range(OLD_RUNS):
        run_id = str(uuid.uuid4())
        store.ingest(
            run_event("START", run_id=run_id, job=job, time=at(i)),
            run_event("COMPLETE", run_id=run_id, job=job, time=at(i + 0.5)),
        )
    keeper = run_event(
        "COMPLETE",
        run_id=str(uuid.uuid4()),
        job=job,
        time=at(OLD_RUNS),
        run_facets={"nominalTime": facet(nominalStartTime=at(OLD_RUNS))},
    )
    store.ingest(keeper)  # its event holds a facet: it stays with the run


def _prune_in(name: str, engine: Engine, out: dict[str, Any]) -> threading.Thread:
    # A Retention of its own, as another process would have.
    def run() -> None:
        out[name] = Retention().prune(engine, 30)

    return threading.Thread(target=run, name=name)


def _wait(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 60
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_two_prunes_at_once_are_reported_together(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    _seed_old_runs(store)
    real_prune = store_prune.prune
    first_pruned = threading.Event()
    second_started = threading.Event()

    def prune(engine: Engine, cutoff_us: int, **kwargs: Any) -> Removed:
        # "first" removes everything and is still running when "second"
        # starts; "second" finds nothing left and writes its result last.
        if threading.current_thread().name == "first":
            removed = real_prune(engine, cutoff_us, **kwargs)
            first_pruned.set()
            assert second_started.wait(60)
            return removed
        second_started.set()
        assert first_pruned.wait(60)
        removed = real_prune(engine, cutoff_us, **kwargs)
        _wait(lambda: Retention.last(engine) is not None)  # "first" has written its result
        return removed

    monkeypatch.setattr(retention.store_prune, "prune", prune)
    results: dict[str, Any] = {}
    threads = [_prune_in(name, store.engine, results) for name in ("first", "second")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    # Each answers what it removed itself...
    assert results["first"].removed["openlineage_runs"] == OLD_RUNS
    assert results["second"].removed.get("openlineage_runs", 0) == 0
    # ...and the store reports both.
    last = Retention.last(store.engine)
    assert last is not None
    assert last.prunes == 2
    assert last.removed["openlineage_runs"] == OLD_RUNS
    assert last.removed["openlineage_events"] == 2 * OLD_RUNS
    assert last.cutoff == results["first"].cutoff or last.cutoff == results["second"].cutoff
    finished = max(parse_us(r.finished_at) for r in results.values())
    assert parse_us(last.finished_at) == finished
    assert last.duration_ms >= max(r.duration_ms for r in results.values())


def test_prunes_one_after_the_other_are_reported_alone(store: Store) -> None:
    _seed_old_runs(store)
    first = Retention().prune(store.engine, 30)
    assert first.removed["openlineage_runs"] == OLD_RUNS
    second = Retention().prune(store.engine, 30)
    last = Retention.last(store.engine)
    assert last == second
    assert last.prunes == 1
    assert last.removed.get("openlineage_runs", 0) == 0


def test_an_old_jobs_kept_run_keeps_the_events_its_detail_needs(store: Store) -> None:
    job = ("ns", "stopped")
    run_id = str(uuid.uuid4())
    source = dataset("ns", "source")
    source["inputFacets"] = {"dataQualityMetrics": facet(rowCount=10)}

    def event(kind: str, second: int, **facets: Any) -> dict[str, Any]:
        inputs = [source] if kind == "COMPLETE" else [dataset("ns", "source")]
        return run_event(
            kind, run_id=run_id, job=job, time=at(second), run_facets=facets, inputs=inputs
        )

    store.ingest(
        event("START", 0, progress=facet(p=0)),
        event("RUNNING", 1, progress=facet(p=1), nominalTime=facet(nominalStartTime=at(0))),
        event("RUNNING", 2, progress=facet(p=2)),
        event("COMPLETE", 10, progress=facet(p=10)),
    )
    before = (store.run(run_id), store.run_facets(run_id), store.run_io(run_id))
    removed = store_prune.prune(store.engine, parse_us(at(1000)))
    # Kept however old, being its job's latest run that listed inputs, and
    # read back as before: state, times, facets, inputs and their facets.
    assert removed.get("openlineage_runs") == 0
    assert (store.run(run_id), store.run_facets(run_id), store.run_io(run_id)) == before
    assert store.current_edges() == {(dataset_id("ns", "source"), job_id(*job), "input")}
    # With the events that hold its facets' latest values: the first RUNNING
    # (nominalTime) and the COMPLETE (progress, the input's facets). The
    # START and the second RUNNING, whose values the COMPLETE replaced, went.
    kept = sorted(
        (p["eventTime"], p["eventType"]) for p in store.payloads() if p["run"]["runId"] == run_id
    )
    assert kept == [(at(1), "RUNNING"), (at(10), "COMPLETE")]
    assert removed.get("openlineage_events") == 2


def test_prunes_reported_together_last_at_least_as_long_as_either() -> None:
    """Each prune's duration is of the monotonic clock; their span, of wall-clock times
    rounded to the millisecond, can be a millisecond shorter than one of them (a gate saw
    75 against 76)."""

    def result(finished_us: int, duration_ms: int) -> PruneResult:
        return PruneResult(
            message="Pruning completed",
            deleted={},
            cutoff=None,
            removed={},
            finished_at=to_iso(finished_us) or "",
            duration_ms=duration_ms,
        )

    finished = parse_us("2026-12-04T18:30:37.857668Z")
    saved = result(finished - 400, 75)  # started 75.4 ms before it finished, wall-clock
    this = result(finished, 76)  # started 0.5 ms after the saved one, ran 76 ms
    merged = retention._merged(saved, this, finished - 75_900)
    assert merged.prunes == 2
    assert merged.duration_ms >= 76
