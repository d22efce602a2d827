"""Migration 0024 sets each job facet's first statement from the stored events, as ingest does."""

from __future__ import annotations

from sqlalchemy import delete, select

from feast_lineage.consumer.store.engine.database import create_store_engine
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from tests.factories import at, facet, job_event, run_event
from tests.store_helpers import Store, migrate

JOB, OTHER = ("spark://p", "etl"), ("spark://p", "other")


def _first_ranks(store: Store) -> dict[tuple[int, str], str | None]:
    c = t.job_facets.c
    with store.engine.connect() as conn:
        rows = conn.execute(select(c.owner_id, c.name, c.first_rank)).all()
    return {(int(o), str(n)): f for o, n, f in rows}


def test_0024_sets_the_first_statement_from_0023_with_data(store_url: str) -> None:
    store = Store(store_url)
    engine = create_store_engine(store_url)
    try:
        # Out of order, in two jobs, a JobEvent among them, and a dataset event that
        # states no job facet.
        store.ingest_each(
            [
                run_event("COMPLETE", job=JOB, time=at(30), job_facets={"sql": facet(query="b")}),
                run_event("START", job=JOB, time=at(10), job_facets={"sql": facet(query="a")}),
                job_event(*OTHER, time=at(20), jobType=facet(jobType="JOB")),
                run_event("START", job=OTHER, time=at(5), job_facets={"sql": facet(query="x")}),
                run_event(
                    "START", job=JOB, time=at(40), job_facets={"jobType": facet(jobType="J")}
                ),
            ]
        )
        ingested = _first_ranks(store)
        assert len(ingested) == 4
        assert None not in ingested.values()
        migrate(engine, "0023", down=True)
        migrate(engine, "head", chunk=2)  # events cross chunk boundaries
        assert _first_ranks(store) == ingested
        # A facet whose events are gone (a prune took them): its latest statement's rank.
        with engine.begin() as conn:
            conn.execute(delete(t.events).where(t.events.c.event_time_us < parse_us(at(30))))
        migrate(engine, "0023", down=True)
        migrate(engine, "head", chunk=2)
        after = _first_ranks(store)
        with engine.connect() as conn:
            latest = {
                (int(o), str(n)): str(r)
                for o, n, r in conn.execute(
                    select(t.job_facets.c.owner_id, t.job_facets.c.name, t.job_facets.c.rank)
                )
            }
        assert after == latest  # every event before 30 went: each facet's latest is its first
    finally:
        engine.dispose()
        store.close()
