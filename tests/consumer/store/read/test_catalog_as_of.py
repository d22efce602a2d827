"""A job's latest run as of an instant (catalog_as_of.latest_runs_at), a late START included."""

from __future__ import annotations

from sqlalchemy import update

from feast_lineage.consumer.store.engine.meta import MAX_LEAD_KEY
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.catalog_as_of import latest_runs_at
from feast_lineage.consumer.store.read.jobs import LatestRun
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from feast_lineage.identity import job_id
from tests.factories import at, run_event
from tests.store_helpers import Store

JOB = ("ns", "job")
OTHER_JOB = ("ns", "other")
EARLY = "00000000-0000-4000-8000-000000000001"
LATE = "00000000-0000-4000-8000-000000000002"
QUIET = "00000000-0000-4000-8000-000000000003"


def _latest(store: Store, seconds: int) -> dict[int, LatestRun]:
    with store.engine.connect() as conn:
        return latest_runs_at(
            conn, [job_id(*JOB), job_id(*OTHER_JOB)], Instant(parse_us(at(seconds)))
        )


def _us(seconds: int) -> int:
    return parse_us(at(seconds))


def test_a_run_whose_start_came_after_the_instant_had_started_at_its_first_event(
    store: Store,
) -> None:
    store.ingest_each(
        [
            run_event("START", run_id=EARLY, job=JOB, time=at(10)),
            run_event("COMPLETE", run_id=EARLY, job=JOB, time=at(20)),
            # Stored as started at 50 (its START), but under way from 30.
            run_event("COMPLETE", run_id=LATE, job=JOB, time=at(60)),
            run_event("START", run_id=LATE, job=JOB, time=at(50)),
            run_event("RUNNING", run_id=LATE, job=JOB, time=at(30)),
            run_event("START", run_id=QUIET, job=OTHER_JOB, time=at(100)),
        ]
    )
    job = job_id(*JOB)
    assert _latest(store, 5) == {}
    assert _latest(store, 25)[job] == LatestRun(EARLY, "COMPLETE", _us(10), _us(20))
    # At 40 the late run had begun (at its first event) and not yet started by START.
    assert _latest(store, 40)[job] == LatestRun(LATE, "RUNNING", _us(30), None)
    assert _latest(store, 55)[job] == LatestRun(LATE, "RUNNING", _us(50), None)
    assert _latest(store, 70)[job] == LatestRun(LATE, "COMPLETE", _us(50), _us(60))
    assert set(_latest(store, 100)) == {job, job_id(*OTHER_JOB)}


def test_the_late_start_is_found_within_the_stored_lead_and_without_one(store: Store) -> None:
    store.ingest_each(
        [
            run_event("START", run_id=EARLY, job=JOB, time=at(10)),
            run_event("RUNNING", run_id=LATE, job=JOB, time=at(30)),
            run_event("START", run_id=LATE, job=JOB, time=at(50)),
        ]
    )
    expected = LatestRun(LATE, "RUNNING", _us(30), None)
    assert _latest(store, 40)[job_id(*JOB)] == expected
    # Below the truth (never so by ingest) the late run is out of reach: the bound is what is read.
    with store.engine.begin() as conn:
        conn.execute(update(t.meta).where(t.meta.c.key == MAX_LEAD_KEY).values(value="0"))
    assert _latest(store, 40)[job_id(*JOB)].run_id == EARLY
    # A store without the bound reads every later run.
    with store.engine.begin() as conn:
        conn.execute(t.meta.delete().where(t.meta.c.key == MAX_LEAD_KEY))
    assert _latest(store, 40)[job_id(*JOB)] == expected


def test_a_tie_goes_to_the_higher_run_id_and_both_bounds_are_inclusive(store: Store) -> None:
    # EARLY started at 30 (its START); LATE's first event is at 30 and its START at 50.
    store.ingest_each(
        [
            run_event("START", run_id=EARLY, job=JOB, time=at(30)),
            run_event("RUNNING", run_id=LATE, job=JOB, time=at(30)),
            run_event("START", run_id=LATE, job=JOB, time=at(50)),
        ]
    )
    job = job_id(*JOB)
    # At 30 both had started then at 30 (LATE at its first event, 20 s before
    # its START: T plus the lead is exactly its stored start): the higher id.
    assert _latest(store, 30)[job] == LatestRun(LATE, "RUNNING", _us(30), None)
    assert _latest(store, 49)[job] == LatestRun(LATE, "RUNNING", _us(30), None)
    assert _latest(store, 50)[job] == LatestRun(LATE, "RUNNING", _us(50), None)
    # The other way round: the started run has the higher id.
    store.reset()
    store.ingest_each(
        [
            run_event("START", run_id=LATE, job=JOB, time=at(30)),
            run_event("RUNNING", run_id=EARLY, job=JOB, time=at(30)),
            run_event("START", run_id=EARLY, job=JOB, time=at(50)),
        ]
    )
    assert _latest(store, 30)[job] == LatestRun(LATE, "RUNNING", _us(30), None)
    assert _latest(store, 29) == {}
