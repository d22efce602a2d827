"""Migration 0018 derives the column listings from the column edges and pointers of 0017."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import Engine, inspect, select

from feast_lineage.consumer.store.engine.database import create_store_engine
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from tests.factories import at, dataset, facet, run_event
from tests.store_helpers import Store, migrate

JOB = ("spark://cluster", "orders")


def _write(time: int, source: str) -> dict[str, Any]:
    lineage = facet(
        fields={
            "x": {
                "inputFields": [
                    {"namespace": "s3://r", "name": source, "field": "x", "transformations": []}
                ]
            }
        }
    )
    return run_event(
        "COMPLETE",
        run_id=str(uuid.uuid4()),
        job=JOB,
        time=at(time),
        inputs=[dataset("s3://r", source)],
        outputs=[dataset("s3://l", "out", columnLineage=lineage)],
    )


def _listings(store: Store) -> list[tuple[str, str]]:
    with store.engine.connect() as conn:
        rows = conn.execute(select(t.column_listings.c.rank, t.column_listings.c.digest)).all()
    return sorted((rank[:20], digest) for rank, digest in rows)


def test_0018_lists_each_payload_at_its_first_time_and_the_pointer_at_its_rank(
    store_url: str,
) -> None:
    store = Store(store_url)
    engine: Engine = create_store_engine(store_url)
    try:
        store.ingest_each([_write(10, "a"), _write(20, "b"), _write(30, "a")])
        live = _listings(store)
        assert len(live) == 3
        assert live[0][1] == live[2][1] != live[1][1]
        migrate(engine, "0017", down=True)
        assert t.column_listings.name not in inspect(engine).get_table_names()
        migrate(engine, "head")
        # A, B, A: the derived history lists A at 10 (its edges' first time) and 30
        # (the pointer), B at 20, as ingest did.
        assert _listings(store) == live
        times = [int(rank) for rank, _ in live]
        assert times[0] - times[1] == parse_us(at(10)) - parse_us(at(20))
    finally:
        engine.dispose()
        store.close()
