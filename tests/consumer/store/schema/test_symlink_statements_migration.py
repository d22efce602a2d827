"""Migration 0020 derives the symlinks statements from the version, state and facet rows."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import Engine, inspect, select

from feast_lineage.consumer.store.engine.database import create_store_engine
from feast_lineage.consumer.store.schema import tables as t
from tests.factories import at, dataset, facet, run_event
from tests.store_helpers import Store, migrate

JOB = ("spark://cluster", "orders")


def _write(time: int, alias: str) -> dict[str, Any]:
    links = facet(identifiers=[{"namespace": "hive", "name": alias, "type": "TABLE"}])
    return run_event(
        "COMPLETE",
        run_id=str(uuid.uuid4()),
        job=JOB,
        time=at(time),
        outputs=[dataset("s3://l", "out", symlinks=links)],
    )


def _statements(store: Store) -> list[tuple[str, str]]:
    st = t.symlink_statements.c
    with store.engine.connect() as conn:
        rows = conn.execute(select(st.rank, st.blob_id)).all()
    return sorted((rank[:20], blob) for rank, blob in rows)


def test_0020_states_each_write_of_a_symlinks_facet_at_its_time(store_url: str) -> None:
    store = Store(store_url)
    engine: Engine = create_store_engine(store_url)
    try:
        store.ingest_each([_write(10, "a"), _write(20, "b"), _write(30, "a")])
        live = _statements(store)
        assert len(live) == 3
        assert live[0][1] == live[2][1] != live[1][1]  # A, B, A
        migrate(engine, "0019", down=True)
        assert t.symlink_statements.name not in inspect(engine).get_table_names()
        migrate(engine, "head")
        # Every write is a version row: its time (the rank's first 20 digits) and its blob.
        assert _statements(store) == live
    finally:
        engine.dispose()
        store.close()
