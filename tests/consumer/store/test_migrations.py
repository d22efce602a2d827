"""Alembic migrations: they build exactly the schema tables.py describes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect, select

from feast_lineage.consumer.store import tables as t
from feast_lineage.consumer.store.engine import alembic_config, create_store_engine, upgrade_schema
from feast_lineage.identity import dataset_id, job_id
from tests.factories import dataset, dataset_event, facet, run_event
from tests.store_helpers import Store

VERSION_TABLE = "openlineage_alembic_version"


@pytest.fixture
def engine(store_url: str) -> Iterator[Engine]:
    e = create_store_engine(store_url)
    yield e
    e.dispose()


def _head(engine: Engine) -> str:
    head = ScriptDirectory.from_config(alembic_config(engine)).get_current_head()
    assert head is not None
    return head


def _current(engine: Engine) -> str | None:
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE})
        return context.get_current_revision()


def _upgrade_to(engine: Engine, revision: str) -> None:
    config = alembic_config(engine)
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, revision)


def _differences(engine: Engine) -> list[Any]:
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn,
            opts={
                "version_table": VERSION_TABLE,
                "compare_type": True,
                "compare_server_default": True,
            },
        )
        return list(compare_metadata(context, t.metadata))


def test_an_empty_database_upgrades_to_head(engine: Engine) -> None:
    assert _current(engine) is None
    upgrade_schema(engine)
    assert _current(engine) == _head(engine)
    names = set(inspect(engine).get_table_names())
    assert {table.name for table in t.metadata.sorted_tables} <= names
    assert VERSION_TABLE in names


def test_the_migrated_schema_matches_the_tables(engine: Engine) -> None:
    upgrade_schema(engine)
    assert _differences(engine) == []


def test_the_comparison_would_notice_a_difference(engine: Engine) -> None:
    upgrade_schema(engine)
    index = next(i for i in t.runs.indexes if i.name == "ix_ol_runs_parent")
    with engine.begin() as conn:
        index.drop(conn)
    diffs = _differences(engine)
    assert [d[0] for d in diffs] == ["add_index"]
    assert diffs[0][1].name == "ix_ol_runs_parent"


def test_upgrading_twice_is_harmless(engine: Engine, store_url: str) -> None:
    upgrade_schema(engine)
    store = Store(store_url)  # upgrades again, then writes
    try:
        store.ingest(run_event("START", inputs=[dataset("s3://b", "x")]))
    finally:
        store.close()
    upgrade_schema(engine)
    assert _current(engine) == _head(engine)
    with engine.connect() as conn:
        assert conn.execute(select(t.runs.c.state)).scalars().all() == ["RUNNING"]


def test_an_older_database_upgrades_in_place(engine: Engine, store_url: str) -> None:
    revisions = [
        r.revision
        for r in reversed(
            list(ScriptDirectory.from_config(alembic_config(engine)).walk_revisions())
        )
    ]
    assert revisions[0] == "0001"
    _upgrade_to(engine, revisions[0])
    assert _current(engine) == revisions[0]
    with engine.begin() as conn:
        conn.execute(
            t.jobs.insert(),
            [
                {
                    "id": 1,
                    "ns_id": 2,
                    "namespace": "ns",
                    "name": "kept",
                    "producer": "p",
                    "created_us": 3,
                    "updated_us": 4,
                }
            ],
        )
    upgrade_schema(engine)
    assert _current(engine) == _head(engine)
    assert _differences(engine) == []
    with engine.connect() as conn:
        assert conn.execute(select(t.jobs.c.name)).scalars().all() == ["kept"]


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_sqlite_store_runs_in_wal_mode(engine: Engine) -> None:
    upgrade_schema(engine)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_run_facets_move_to_the_events_without_loss(engine: Engine, store_url: str) -> None:
    """0003 drops the run facets table and run_io's facets: the events hold them."""
    _upgrade_to(engine, "0002")
    run_id = "3f8e2a1c-5b7d-4c9e-8f6a-2d1b0c9e7a54"
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO openlineage_facet_blobs (id, payload) VALUES"
            " ('run-only', '{}'), ('job-too', '{}'), ('dataset-too', '{}')"
        )
        conn.exec_driver_sql(
            "INSERT INTO openlineage_run_facets (owner_id, name, rank, blob_id) VALUES"
            f" ('{run_id}', 'own', 'r', 'run-only'), ('{run_id}', 'shared', 'r', 'job-too')"
        )
        conn.exec_driver_sql(
            "INSERT INTO openlineage_job_facets (owner_id, name, rank, blob_id)"
            " VALUES (1, 'shared', 'r', 'job-too')"
        )
        conn.exec_driver_sql(
            "INSERT INTO openlineage_dataset_facets (owner_id, name, rank, blob_id)"
            " VALUES (2, 'schema', 'r', 'dataset-too')"
        )
        conn.exec_driver_sql(
            "INSERT INTO openlineage_run_io (run_id, dataset_id, direction, rank, facets)"
            f" VALUES ('{run_id}', 2, 'input', 'r', '{{}}')"
        )
    upgrade_schema(engine)
    assert _current(engine) == _head(engine)
    assert _differences(engine) == []
    assert "openlineage_run_facets" not in inspect(engine).get_table_names()
    with engine.connect() as conn:
        blobs = conn.execute(select(t.facet_blobs.c.id)).scalars().all()
        io = conn.execute(select(t.run_io)).all()
    assert sorted(blobs) == ["dataset-too", "job-too"]  # the run's own blob went
    assert [tuple(row) for row in io] == [(run_id, 2, "input")]


def test_edges_stored_before_0004_stay_current_until_the_job_runs_again(
    engine: Engine, store_url: str
) -> None:
    _upgrade_to(engine, "0003")
    job, old, kept = job_id("ns", "etl"), dataset_id("s3://b", "old"), dataset_id("s3://b", "kept")
    edge = {"edge_type": "input", "src_kind": "dataset", "dst_kind": "job", "created_us": 1}
    with engine.begin() as conn:
        conn.execute(
            t.jobs.insert().values(
                id=job, ns_id=1, namespace="ns", name="etl", created_us=1, updated_us=1
            )
        )
        conn.execute(
            t.lineage_edges.insert(),
            [
                {"src_id": src, "dst_id": job, "src_ns_id": 2, "dst_ns_id": 1, **edge}
                for src in (old, kept)
            ],
        )
    upgrade_schema(engine)
    assert _differences(engine) == []
    store = Store(store_url)
    try:
        assert store.current_edges() == {(old, job, "input"), (kept, job, "input")}
        store.ingest(run_event("COMPLETE", job=("ns", "etl"), inputs=[dataset("s3://b", "kept")]))
        assert store.current_edges() == {(kept, job, "input")}
        assert len(store.edges()) == 2
    finally:
        store.close()


def test_aliases_stored_before_0005_stay_current_until_the_facet_changes(
    engine: Engine, store_url: str
) -> None:
    _upgrade_to(engine, "0004")
    me, h1, h2 = (
        dataset_id("s3://b", "o"),
        dataset_id("hive://m", "h1"),
        dataset_id("hive://m", "h2"),
    )
    link = {"alias_ns_id": 3, "alias_namespace": "hive://m", "source": "symlink", "created_us": 1}
    with engine.begin() as conn:
        conn.execute(
            t.datasets.insert().values(
                id=me, ns_id=1, namespace="s3://b", name="o", created_us=1, updated_us=1
            )
        )
        conn.execute(t.facet_blobs.insert().values(id="old", payload='{"identifiers": []}'))
        conn.execute(
            t.dataset_facets.insert().values(owner_id=me, name="symlinks", rank="0", blob_id="old")
        )
        conn.execute(
            t.dataset_symlinks.insert(),
            [
                {"dataset_id": me, "alias_id": alias, "alias_name": name, **link}
                for alias, name in ((h1, "h1"), (h2, "h2"))
            ],
        )
    upgrade_schema(engine)
    assert _differences(engine) == []
    store = Store(store_url)
    try:
        assert store.current_symlinks() == {(me, h1, "symlink"), (me, h2, "symlink")}
        identifiers = [{"namespace": "hive://m", "name": "h2", "type": "TABLE"}]
        store.ingest(dataset_event("s3://b", "o", symlinks=facet(identifiers=identifiers)))
        assert store.current_symlinks() == {(me, h2, "symlink")}
    finally:
        store.close()
