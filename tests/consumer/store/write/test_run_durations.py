"""The run bounds in meta (longest run, longest START lead): any order, after a prune, a reset."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from feast_lineage.consumer.store.admin.prune import prune
from feast_lineage.consumer.store.admin.reset import reset_all
from feast_lineage.consumer.store.engine.meta import MAX_LEAD_KEY, MAX_RUN_KEY
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from tests.factories import at, run_event
from tests.store_helpers import Store

JOB = ("ns", "job")
SECOND = 1_000_000


def _longest(store: Store, key: str = MAX_RUN_KEY) -> int | None:
    with store.engine.connect() as conn:
        value = conn.execute(select(t.meta.c.value).where(t.meta.c.key == key)).scalar_one_or_none()
    return None if value is None else int(value)


def test_the_longest_run_whatever_the_order_and_after_a_prune_or_reset(store: Store) -> None:
    long, short, late = (str(uuid.uuid4()) for _ in range(3))
    # The end of the long run arrives first, in its own transaction: 40 s once its START does.
    store.ingest(run_event("COMPLETE", run_id=long, job=JOB, time=at(50)))
    assert _longest(store) == 0  # only an end so far: started at its first event
    store.ingest(run_event("START", run_id=short, job=JOB, time=at(100)))
    store.ingest(run_event("COMPLETE", run_id=short, job=JOB, time=at(105)))
    assert _longest(store) == 5 * SECOND
    store.ingest(run_event("START", run_id=long, job=JOB, time=at(10)))
    assert _longest(store) == 40 * SECOND
    # A run without START starts at its first event: an earlier RUNNING lengthens it.
    store.ingest(run_event("COMPLETE", run_id=late, job=JOB, time=at(200)))
    store.ingest(run_event("RUNNING", run_id=late, job=JOB, time=at(170)))
    assert _longest(store) == 40 * SECOND  # 30 s: shorter
    store.ingest(run_event("RUNNING", run_id=late, job=JOB, time=at(150)))
    assert _longest(store) == 50 * SECOND
    # A repeated event and a shorter run leave it.
    store.ingest(run_event("COMPLETE", run_id=short, job=JOB, time=at(105)))
    assert _longest(store) == 50 * SECOND
    # The prune removes the long runs that ended before the cutoff: the kept ones set it.
    prune(store.engine, parse_us(at(120)))
    assert store.run(long) is None
    assert _longest(store) == 50 * SECOND  # `late` is kept (its last event is after the cutoff)
    prune(store.engine, parse_us(at(300)))
    kept = {row["run_id"] for row in store.rows(t.runs)}
    expected = {short: 5 * SECOND, late: 50 * SECOND, long: 40 * SECOND}
    assert _longest(store) == max((expected[r] for r in kept), default=0)
    # After a prune lowered it, this writer raises it again (its cache was dropped).
    again = str(uuid.uuid4())
    store.ingest(run_event("START", run_id=again, job=JOB, time=at(400)))
    store.ingest(run_event("COMPLETE", run_id=again, job=JOB, time=at(460)))
    assert _longest(store) == 60 * SECOND
    reset_all(store.engine)
    assert _longest(store) == 0
    store.ingest(run_event("START", run_id=again, job=JOB, time=at(400)))
    store.ingest(run_event("COMPLETE", run_id=again, job=JOB, time=at(403)))
    assert _longest(store) == 3 * SECOND


def test_the_longest_start_lead_whatever_the_order_and_after_a_prune_or_reset(
    store: Store,
) -> None:
    early, late, later = (str(uuid.uuid4()) for _ in range(3))
    store.ingest(run_event("START", run_id=early, job=JOB, time=at(10)))
    store.ingest(run_event("COMPLETE", run_id=early, job=JOB, time=at(20)))
    assert _longest(store, MAX_LEAD_KEY) == 0  # START came first
    # START arrives first but happened after a RUNNING that arrives later: 30 s.
    store.ingest(run_event("START", run_id=late, job=JOB, time=at(130)))
    assert _longest(store, MAX_LEAD_KEY) == 0
    store.ingest(run_event("RUNNING", run_id=late, job=JOB, time=at(100)))
    assert _longest(store, MAX_LEAD_KEY) == 30 * SECOND
    # An earlier START shortens that run's lead; the bound stays (never lowered by ingest).
    store.ingest(run_event("START", run_id=late, job=JOB, time=at(110)))
    assert _longest(store, MAX_LEAD_KEY) == 30 * SECOND
    # A longer lead within one batch raises it.
    store.ingest(
        run_event("OTHER", run_id=later, job=JOB, time=at(200)),
        run_event("START", run_id=later, job=JOB, time=at(250)),
        run_event("COMPLETE", run_id=later, job=JOB, time=at(260)),
    )
    assert _longest(store, MAX_LEAD_KEY) == 50 * SECOND
    # A prune sets it from the runs kept, a reset to 0. Kept: the job's run
    # started last before the cutoff (a lone COMPLETE, no lead) and the recent one.
    last_before, recent = str(uuid.uuid4()), str(uuid.uuid4())
    store.ingest(run_event("COMPLETE", run_id=last_before, job=JOB, time=at(280)))
    store.ingest(run_event("RUNNING", run_id=recent, job=JOB, time=at(500)))
    store.ingest(run_event("START", run_id=recent, job=JOB, time=at(502)))
    prune(store.engine, parse_us(at(300)))
    assert {row["run_id"] for row in store.rows(t.runs)} == {last_before, recent}
    assert _longest(store, MAX_LEAD_KEY) == 2 * SECOND
    reset_all(store.engine)
    assert _longest(store, MAX_LEAD_KEY) == 0
    store.ingest(run_event("RUNNING", run_id=early, job=JOB, time=at(400)))
    store.ingest(run_event("START", run_id=early, job=JOB, time=at(403)))
    assert _longest(store, MAX_LEAD_KEY) == 3 * SECOND
