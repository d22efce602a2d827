"""Migrations 0019 and 0022 set the run bounds from the stored runs, as ingest keeps them."""

from __future__ import annotations

import uuid

from alembic import command
from sqlalchemy import Engine, delete, select

from feast_lineage.consumer.store.engine.database import alembic_config, create_store_engine
from feast_lineage.consumer.store.engine.meta import MAX_LEAD_KEY, MAX_RUN_KEY
from feast_lineage.consumer.store.schema import tables as t
from tests.factories import at, run_event
from tests.store_helpers import Store

JOB = ("ns", "job")


def _value(engine: Engine, key: str = MAX_RUN_KEY) -> str | None:
    with engine.connect() as conn:
        found: str | None = conn.execute(
            select(t.meta.c.value).where(t.meta.c.key == key)
        ).scalar_one_or_none()
    return found


def _migrate(engine: Engine, how: str, revision: str) -> None:
    config = alembic_config(engine)
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        getattr(command, how)(config, revision)


def test_0019_sets_the_longest_run_from_0018_with_data(store_url: str) -> None:
    store = Store(store_url)
    engine = create_store_engine(store_url)
    try:
        one, two, open_run = (str(uuid.uuid4()) for _ in range(3))
        store.ingest_each(
            [
                run_event("COMPLETE", run_id=one, job=JOB, time=at(30)),
                run_event("START", run_id=one, job=JOB, time=at(10)),
                run_event("START", run_id=two, job=JOB, time=at(40)),
                run_event("FAIL", run_id=two, job=JOB, time=at(45)),
                run_event("START", run_id=open_run, job=JOB, time=at(0)),
            ]
        )
        assert _value(engine) == "20000000"
        _migrate(engine, "downgrade", "0018")
        assert _value(engine) is None
        _migrate(engine, "upgrade", "head")
        assert _value(engine) == "20000000"
        # A store whose runs never ended: 0.
        with engine.begin() as conn:
            conn.execute(delete(t.runs).where(t.runs.c.run_id.in_([one, two])))
        _migrate(engine, "downgrade", "0018")
        _migrate(engine, "upgrade", "head")
        assert _value(engine) == "0"
    finally:
        engine.dispose()
        store.close()


def test_0022_sets_the_start_lead_from_0021_with_data(store_url: str) -> None:
    store = Store(store_url)
    engine = create_store_engine(store_url)
    try:
        late, first = (str(uuid.uuid4()) for _ in range(2))
        store.ingest_each(
            [
                run_event("COMPLETE", run_id=late, job=JOB, time=at(30)),
                run_event("START", run_id=late, job=JOB, time=at(25)),
                run_event("RUNNING", run_id=late, job=JOB, time=at(10)),  # 15 s before START
                run_event("START", run_id=first, job=JOB, time=at(40)),
                run_event("RUNNING", run_id=first, job=JOB, time=at(41)),
            ]
        )
        assert _value(engine, MAX_LEAD_KEY) == "15000000"
        _migrate(engine, "downgrade", "0021")
        assert _value(engine, MAX_LEAD_KEY) is None
        _migrate(engine, "upgrade", "head")
        assert _value(engine, MAX_LEAD_KEY) == "15000000"
        # A store whose every START came first: 0.
        with engine.begin() as conn:
            conn.execute(delete(t.runs).where(t.runs.c.run_id == late))
        _migrate(engine, "downgrade", "0021")
        _migrate(engine, "upgrade", "head")
        assert _value(engine, MAX_LEAD_KEY) == "0"
    finally:
        engine.dispose()
        store.close()
