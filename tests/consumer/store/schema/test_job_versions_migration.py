"""Migrations 0013 and 0016 build the job versions ingest would have built from a store's events.

0013 derives each run's parts (a row per part) and version from the
stored events; 0016 merges each run's parts into its run -> version row,
as ingest now keeps them, and drops 0013's tables of parts.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from sqlalchemy import Engine, inspect, text

from feast_lineage.consumer.store.engine.database import create_store_engine
from feast_lineage.consumer.store.schema import tables as t
from tests.conftest import EVENTS_DIR
from tests.factories import at, dataset, facet, job_event, run_event
from tests.store_helpers import Store, migrate

TABLES = (t.job_sources, t.run_versions, t.job_versions)
PART_TABLES = ("feast_lineage_job_version_io", "feast_lineage_job_version_sources")
JOB = ("spark://cluster", "orders")


def _history() -> list[dict[str, Any]]:
    """Runs whose events split inputs and outputs, move partitions, change sql and jobType."""
    events: list[dict[str, Any]] = []
    table = facet(identifiers=[{"namespace": "hive://meta", "name": "db.orders", "type": "TABLE"}])
    for i, (sql, job_type) in enumerate(
        [("q1", None), ("q1", None), ("q2", "QUERY"), ("q2", "QUERY"), ("q1", None)]
    ):
        run_id = str(uuid.uuid4())
        job_facets: dict[str, Any] = {"sql": facet(query=sql)}
        if job_type:
            job_facets["jobType"] = facet(jobType=job_type, integration="SPARK")
        events.append(
            run_event(
                "START",
                run_id=run_id,
                job=JOB,
                time=at(10 * i),
                inputs=[dataset("s3://raw", f"events/date=2026-01-0{i + 1}")],
                job_facets=job_facets,
            )
        )
        events.append(run_event("RUNNING", run_id=run_id, job=JOB, time=at(10 * i + 1)))
        events.append(
            run_event(
                "COMPLETE",
                run_id=run_id,
                job=JOB,
                time=at(10 * i + 2),
                outputs=[dataset("s3://lake", f"orders/part={i}", symlinks=table)],
                job_facets=job_facets,
            )
        )
    events.append(
        job_event(
            *JOB,
            time=at(100),
            inputs=[dataset("s3://raw", "events")],
            sql=facet(query="declared"),
        )
    )
    events.append(
        run_event(
            "COMPLETE",
            job=JOB,
            time=at(110),
            job_facets={"sql": {"_deleted": True}},
        )
    )
    hive = json.loads((EVENTS_DIR / "ol_hive" / "loadToPartitionComplete.json").read_text())
    # A partial template of the Hive integration's tests: the envelope it leaves out.
    hive.update(eventTime=at(120), producer="https://github.com/OpenLineage/OpenLineage/hive")
    hive["run"]["runId"] = str(uuid.uuid4())
    events.append(hive)
    return events


def _rows(store: Store) -> dict[str, list[Any]]:
    return {
        table.name: sorted(tuple(sorted(r.items())) for r in store.rows(table)) for table in TABLES
    }


def test_0013_backfills_what_ingest_writes(store_url: str) -> None:
    store = Store(store_url)
    engine: Engine = create_store_engine(store_url)
    try:
        store.ingest_each(_history())
        live = _rows(store)
        assert len(live[t.job_versions.name]) >= 4
        assert len(live[t.run_versions.name]) == 8  # 7 runs and a JobEvent
        migrate(engine, "0011", down=True)
        assert t.run_versions.name not in inspect(engine).get_table_names()
        migrate(engine, "head", chunk=1)  # every rule crosses chunk edges
        assert _rows(store) == live
    finally:
        engine.dispose()
        store.close()


def test_0016_merges_the_parts_0013_stored_into_what_ingest_writes(store_url: str) -> None:
    """A store at 0015 with versions in it: 0016 fills each run's parts as ingest would.

    Ingest at head, go down to 0015 (0016's downgrade rebuilds 0013's rows
    of parts, with the parts' column gone), and up again: the rows are
    those ingest wrote. Then ingest more on the migrated store: the merge
    with the migrated parts gives what ingest alone gives.
    """
    store = Store(store_url)
    engine: Engine = create_store_engine(store_url)
    history = _history()
    try:
        store.ingest_each(history[:-4])
        live = _rows(store)
        migrate(engine, "0015", down=True, chunk=1)
        names = inspect(engine).get_table_names()
        assert set(PART_TABLES) <= set(names)
        columns = {c["name"] for c in inspect(engine).get_columns(t.run_versions.name)}
        assert "parts" not in columns
        with engine.connect() as conn:
            (io_rows,) = conn.execute(text(f"SELECT count(*) FROM {PART_TABLES[0]}")).one()
        assert io_rows >= 5  # a row per dataset of each run
        migrate(engine, "head", chunk=1)
        assert not set(PART_TABLES) & set(inspect(engine).get_table_names())
        assert _rows(store) == live
        store.ingest_each(history[-4:])
        migrated_then_live = _rows(store)
    finally:
        engine.dispose()
        store.close()
    fresh = Store(store_url)
    try:
        fresh.reset()
        fresh.ingest_each(history)
        assert _rows(fresh) == migrated_then_live
    finally:
        fresh.close()
