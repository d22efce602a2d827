"""Migration 0017 derives the io listings and each run's first listing times ingest would write."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import Engine, inspect, select

from feast_lineage.consumer.store.engine.database import create_store_engine
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id
from tests.factories import at, dataset, job_event, run_event
from tests.store_helpers import Store, migrate

JOB = ("spark://cluster", "orders")


def _history() -> list[dict[str, Any]]:
    """Runs listing more as they go, events out of order, a JobEvent, a run listing nothing."""
    one, two = str(uuid.uuid4()), str(uuid.uuid4())
    return [
        run_event(
            "COMPLETE",
            run_id=one,
            job=JOB,
            time=at(30),
            inputs=[dataset("s3://r", "a"), dataset("s3://r", "b")],
            outputs=[dataset("s3://l", "out")],
        ),
        run_event("START", run_id=one, job=JOB, time=at(10), inputs=[dataset("s3://r", "a")]),
        run_event("START", run_id=two, job=JOB, time=at(20), inputs=[dataset("s3://r", "c")]),
        run_event("RUNNING", run_id=two, job=JOB, time=at(25)),
        job_event(*JOB, time=at(40), outputs=[dataset("s3://l", "declared")]),
    ]


def _rows(store: Store) -> dict[str, list[Any]]:
    with store.engine.connect() as conn:
        listings = conn.execute(select(t.io_listings)).all()
        io = conn.execute(select(t.run_io)).all()
    return {"listings": sorted(map(tuple, listings)), "run_io": sorted(map(tuple, io))}


def test_0017_backfills_what_ingest_writes(store_url: str) -> None:
    store = Store(store_url)
    engine: Engine = create_store_engine(store_url)
    try:
        store.ingest_each(_history())
        live = _rows(store)
        assert len(live["listings"]) == 5  # 3 input listings, 2 output listings
        firsts = {(row[1], row[2]): row[3] for row in live["run_io"]}
        # Run one's COMPLETE arrived first; its START listed a earlier.
        assert firsts[(dataset_id("s3://r", "a"), "input")] == parse_us(at(10))
        assert firsts[(dataset_id("s3://r", "b"), "input")] == parse_us(at(30))
        migrate(engine, "0016", down=True)
        assert t.io_listings.name not in inspect(engine).get_table_names()
        columns = {c["name"] for c in inspect(engine).get_columns(t.run_io.name)}
        assert "first_us" not in columns
        migrate(engine, "head", chunk=1)  # a run's events cross chunk edges
        assert _rows(store) == live
    finally:
        engine.dispose()
        store.close()
