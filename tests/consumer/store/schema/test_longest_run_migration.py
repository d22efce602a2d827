"""Migration 0019 sets the longest run from the stored runs, as ingest keeps it."""

from __future__ import annotations

import uuid

from alembic import command
from sqlalchemy import Engine, delete, select

from feast_lineage.consumer.store.engine.database import alembic_config, create_store_engine
from feast_lineage.consumer.store.engine.meta import MAX_RUN_KEY
from feast_lineage.consumer.store.schema import tables as t
from tests.factories import at, run_event
from tests.store_helpers import Store

JOB = ("ns", "job")


def _value(engine: Engine) -> str | None:
    with engine.connect() as conn:
        found: str | None = conn.execute(
            select(t.meta.c.value).where(t.meta.c.key == MAX_RUN_KEY)
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
