"""Alembic migrations: they build exactly the schema tables.py describes."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Column, Engine, Integer, MetaData, String, Table, inspect, select

from feast_lineage.consumer.store.engine.database import (
    alembic_config,
    create_store_engine,
    upgrade_schema,
)
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.schema.migrations.chunks import ATTRIBUTE as CHUNK_ATTRIBUTE
from feast_lineage.consumer.store.schema.migrations.naming import (
    LEGACY_VERSION_TABLE,
    RENAMED,
    VERSION_TABLE,
)
from feast_lineage.identity import dataset_id, job_id
from tests.factories import dataset, dataset_event, facet, job_event, run_event
from tests.store_helpers import Store
from tests.test_explicit_lineage import example


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


def _upgrade_to(engine: Engine, revision: str, chunk: int | None = None) -> None:
    """Upgrade to ``revision``; data migrations read ``chunk`` events at a time if given."""
    config = alembic_config(engine)
    if chunk is not None:
        config.attributes[CHUNK_ATTRIBUTE] = chunk
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, revision)


def _ours(obj: Any, name: str | None, kind: str, reflected: bool, compare_to: Any) -> bool:
    """Leave out tables of others in the database (those named like Feast's)."""
    return not (kind == "table" and reflected and compare_to is None and name in RENAMED)


def _differences(engine: Engine) -> list[Any]:
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn,
            opts={
                "version_table": VERSION_TABLE,
                "compare_type": True,
                "compare_server_default": True,
                "include_object": _ours,
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
            "INSERT INTO feast_lineage_facet_blobs (id, payload) VALUES"
            " ('run-only', '{}'), ('job-too', '{}'), ('dataset-too', '{}')"
        )
        conn.exec_driver_sql(
            "INSERT INTO feast_lineage_run_facets (owner_id, name, rank, blob_id) VALUES"
            f" ('{run_id}', 'own', 'r', 'run-only'), ('{run_id}', 'shared', 'r', 'job-too')"
        )
        conn.exec_driver_sql(
            "INSERT INTO feast_lineage_job_facets (owner_id, name, rank, blob_id)"
            " VALUES (1, 'shared', 'r', 'job-too')"
        )
        conn.exec_driver_sql(
            "INSERT INTO feast_lineage_dataset_facets (owner_id, name, rank, blob_id)"
            " VALUES (2, 'schema', 'r', 'dataset-too')"
        )
        conn.exec_driver_sql(
            "INSERT INTO feast_lineage_run_io (run_id, dataset_id, direction, rank, facets)"
            f" VALUES ('{run_id}', 2, 'input', 'r', '{{}}')"
        )
    upgrade_schema(engine)
    assert _current(engine) == _head(engine)
    assert _differences(engine) == []
    assert "feast_lineage_run_facets" not in inspect(engine).get_table_names()
    with engine.connect() as conn:
        blobs = conn.execute(select(t.facet_blobs.c.id)).scalars().all()
        io = conn.execute(select(*t.run_io.primary_key.columns)).all()
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


# --- stores made before 0008, and Feast's tables beside ours ------------------


def _legacy_store(engine: Engine, revision: str) -> None:
    """A store as feast-lineage made it before 0008: ``openlineage_*`` tables."""
    with engine.begin() as conn:
        conn.exec_driver_sql(
            f"CREATE TABLE {LEGACY_VERSION_TABLE} (version_num VARCHAR(32) NOT NULL,"
            f" CONSTRAINT {LEGACY_VERSION_TABLE}_pkc PRIMARY KEY (version_num))"
        )
    _upgrade_to(engine, revision)


def _as_named(table: Any, name: str) -> Any:
    """``table`` under another name (the same columns), to write a legacy store."""
    return table.to_metadata(MetaData(), name=name)


def _relations_named_like_feasts(engine: Engine) -> list[str]:
    """Tables, and on PostgreSQL every relation (indexes, sequences), named openlineage_*."""
    with engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            query = "SELECT relname FROM pg_class WHERE relname LIKE 'openlineage%%'"
            return sorted(conn.exec_driver_sql(query).scalars())
    return sorted(n for n in inspect(engine).get_table_names() if n.startswith("openlineage"))


@pytest.mark.parametrize("revision", ["0002", "0007"])
def test_a_store_made_before_0008_takes_the_new_names_with_its_rows(
    engine: Engine, store_url: str, revision: str
) -> None:
    _legacy_store(engine, revision)
    names = set(inspect(engine).get_table_names())
    assert "openlineage_jobs" in names
    assert not any(n.startswith("feast_lineage") for n in names)
    payload = {"eventType": "COMPLETE", "eventTime": "2026-01-01T00:00:00Z"}
    with engine.begin() as conn:
        conn.execute(
            _as_named(t.jobs, "openlineage_jobs")
            .insert()
            .values(id=1, ns_id=2, namespace="ns", name="kept", created_us=3, updated_us=4)
        )
        conn.execute(
            _as_named(t.events, "openlineage_events")
            .insert()
            .values(
                event_key="k" * 32,
                kind="run",
                event_type="COMPLETE",
                event_time_us=5,
                received_us=6,
                ns_id=2,
                subject_id=1,
                run_id=None,
                payload=payload,
            )
        )
    upgrade_schema(engine)

    assert _current(engine) == _head(engine)
    assert _differences(engine) == []
    names = set(inspect(engine).get_table_names())
    assert {table.name for table in t.metadata.sorted_tables} | {VERSION_TABLE} <= names
    assert _relations_named_like_feasts(engine) == []
    with engine.connect() as conn:
        assert conn.execute(select(t.jobs.c.name)).scalars().all() == ["kept"]
        assert conn.execute(select(t.events.c.id)).scalars().all() == [1]
    store = Store(store_url)  # new rows go on where the old ones stopped
    try:
        store.ingest(run_event("START", inputs=[dataset("s3://b", "x")]))
    finally:
        store.close()
    with engine.connect() as conn:
        assert conn.execute(select(t.events.c.id).order_by(t.events.c.id)).scalars().all() == [
            1,
            2,
        ]


def test_the_columns_feast_added_to_an_old_store_go(engine: Engine) -> None:
    """Feast 0.67's consumer, finding our old openlineage_datasets, adds its columns to it."""
    _legacy_store(engine, "0007")
    with engine.begin() as conn:
        for column in ("owner_name VARCHAR(512)", "lifecycle_state VARCHAR(50)"):
            conn.exec_driver_sql(f"ALTER TABLE openlineage_datasets ADD COLUMN {column}")
    upgrade_schema(engine)
    assert _differences(engine) == []


def _feast_like_tables() -> MetaData:
    """Tables named as Feast's consumer names its own: a serial key, a unique column."""
    feast = MetaData()
    for name in RENAMED:
        Table(
            name,
            feast,
            Column("id", Integer, primary_key=True, autoincrement=True),
            Column("event_id", String(255), unique=True),
        )
    return feast


def test_our_tables_and_tables_with_feasts_names_share_a_database(engine: Engine) -> None:
    """A new store, in a database where tables with Feast's names already are."""
    feast = _feast_like_tables()
    with engine.begin() as conn:
        feast.create_all(conn)
        conn.execute(feast.tables["openlineage_events"].insert().values(event_id="feast's"))
    upgrade_schema(engine)
    assert _differences(engine) == []
    with engine.connect() as conn:
        rows = conn.execute(select(feast.tables["openlineage_events"].c.event_id)).all()
    assert [tuple(row) for row in rows] == [("feast's",)]


def test_tables_with_feasts_names_can_be_made_after_an_old_store_is_renamed(
    engine: Engine,
) -> None:
    _legacy_store(engine, "0007")
    upgrade_schema(engine)
    feast = _feast_like_tables()
    with engine.begin() as conn:
        feast.create_all(conn)  # no table, index, constraint or sequence name is taken
    assert _differences(engine) == []


# One event a chunk crosses every chunk edge; None: the migrations' own chunk size.
CHUNKS = [pytest.param(None, id="chunk-default"), pytest.param(1, id="chunk-1")]


@pytest.mark.parametrize("chunk", CHUNKS)
def test_column_lineage_is_derived_from_the_events_already_stored(
    engine: Engine, store_url: str, chunk: int | None
) -> None:
    """0009 writes the rows ingest writes: a store migrated from 0008 equals one fed live."""

    def lineage(src: str) -> dict[str, Any]:
        return facet(
            fields={
                "a": {
                    "inputFields": [
                        {
                            "namespace": "lake",
                            "name": "src",
                            "field": src,
                            "transformations": [{"type": "DIRECT", "subtype": "IDENTITY"}],
                        }
                    ]
                }
            },
            dataset=[{"namespace": "lake", "name": "src", "field": "k"}],
        )

    run = "0190e6a1-7c3f-7b6e-9a1d-3f2b8c4d5e6f"
    events = [
        run_event(
            kind,
            run_id=run,
            job=("spark", "j"),
            time=f"2026-01-01T00:00:0{i}Z",
            outputs=[dataset("lake", "t", columnLineage=lineage("x"))],
        )
        for i, kind in enumerate(("START", "RUNNING", "COMPLETE"))
    ]
    events.append(
        run_event(
            "COMPLETE",
            job=("spark", "j"),
            time="2026-01-01T00:00:05Z",
            outputs=[dataset("lake", "t", columnLineage=lineage("y"))],
        )
    )
    events.append(dataset_event("lake", "u", columnLineage=lineage("z")))
    # Late: earlier than the last report of its dataset and job, it is not current.
    events.append(
        run_event(
            "COMPLETE",
            job=("spark", "j"),
            time="2026-01-01T00:00:04Z",
            outputs=[dataset("lake", "t", columnLineage=lineage("w"))],
        )
    )
    store = Store(store_url)
    try:
        store.ingest_each(events)
        live = {
            table.name: sorted(store.rows(table), key=repr)
            for table in (t.column_edges, t.column_lineage)
        }
        assert len(live["feast_lineage_column_edges"]) == 8
        assert len(live["feast_lineage_column_lineage"]) == 2
        config = alembic_config(engine)
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, "0008")
        assert t.column_edges.name not in inspect(engine).get_table_names()
        _upgrade_to(engine, "head", chunk)
        assert _differences(engine) == []
        migrated = {
            table.name: sorted(store.rows(table), key=repr)
            for table in (t.column_edges, t.column_lineage)
        }
        assert migrated == live
    finally:
        store.close()


@pytest.mark.parametrize("chunk", CHUNKS)
def test_a_store_at_0008_upgrades_through_0011_to_what_ingest_writes(
    engine: Engine, store_url: str, chunk: int | None
) -> None:
    """0009 to 0011 write the rows ingest writes: a store migrated from 0008 equals one fed live.

    Explicit lineage (0010) with the column lineage of its field entries beside
    the events' own (0009), payloads that arrive late (lower rank, higher id)
    and must not become current, and datasets written by one producer and read
    by another (0011); with one event a chunk, every rule crosses chunk edges.
    """
    own = ("airflow://production", "own.job")
    deps = facet(upstream=[{"job": {"namespace": "airflow://production", "name": "extract"}}])
    late_deps = facet(upstream=[{"job": {"namespace": "airflow://production", "name": "late"}}])
    wh = "postgresql://warehouse:5432"
    column_lineage = facet(
        fields={"a": {"inputFields": [{"namespace": "lake", "name": "src", "field": "b"}]}}
    )
    late_fields = facet(
        fields={
            "a": {
                "inputs": [
                    {"namespace": wh, "name": "public.late", "type": "DATASET", "field": "z"}
                ]
            }
        }
    )
    events = [
        job_event(*own, time="2026-01-01T00:00:01Z", lineage=example("mixed-sources")),
        job_event(*own, time="2026-01-01T00:00:02Z", lineage=example("job-to-job")),
        {
            **run_event(
                "COMPLETE",
                job=own,
                time="2026-01-01T00:00:03Z",
                job_facets={"lineage": example("mixed-sources")},
                run_facets={"jobDependencies": deps},
                inputs=[dataset(wh, "public.read")],
                outputs=[
                    dataset(wh, "t", lineage=example("dataset-to-dataset")),
                    dataset(
                        wh, "u", lineage=example("dataset-to-dataset"), columnLineage=column_lineage
                    ),
                ],
            ),
            "producer": "writer",
        },
        # The same payloads again: their edges keep the first event's time.
        {
            **run_event(
                "RUNNING",
                job=own,
                time="2026-01-01T00:00:03.500Z",
                job_facets={"lineage": example("mixed-sources")},
                outputs=[dataset(wh, "t", lineage=example("dataset-to-dataset"))],
            ),
            "producer": "writer",
        },
        dataset_event(wh, "public.customer_summary", lineage=example("dataset-to-dataset")),
        {
            **run_event(
                "COMPLETE",
                job=("spark", "r"),
                time="2026-01-01T00:00:04Z",
                inputs=[dataset(wh, "t")],
            ),
            "producer": "reader",
        },
        # Late: earlier than what the store holds for the same owner, facet and origin.
        job_event(*own, time="2026-01-01T00:00:00Z", lineage=example("generator")),
        run_event(
            "COMPLETE",
            job=own,
            time="2026-01-01T00:00:00.500Z",
            run_facets={"jobDependencies": late_deps},
            outputs=[dataset(wh, "u", lineage=late_fields)],
        ),
    ]
    mentioned = {
        dataset_id(ds["namespace"], ds["name"])
        for event in events
        for ds in [*event.get("inputs", []), *event.get("outputs", []), event.get("dataset")]
        if ds is not None
    }
    tables = (t.explicit_edges, t.explicit_lineage, t.column_edges, t.column_lineage)

    def producers() -> dict[int, tuple[str | None, str | None]]:
        return {
            r["id"]: (r["producer"], r["producer_rank"] if r["id"] in mentioned else None)
            for r in store.rows(t.datasets)
        }

    store = Store(store_url)
    try:
        store.ingest_each(events)
        live = {table.name: sorted(store.rows(table), key=repr) for table in tables}
        nodes = {r["id"] for table in (t.jobs, t.datasets) for r in store.rows(table)}
        live_producers = producers()
        assert len(live["feast_lineage_explicit_lineage"]) == 6
        assert len(live["feast_lineage_column_lineage"]) == 5
        assert live_producers[dataset_id(wh, "t")][0] == "writer"
        config = alembic_config(engine)
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, "0008")
        assert t.explicit_edges.name not in inspect(engine).get_table_names()
        with engine.begin() as conn:  # the nodes only the facets name
            for table in (t.jobs, t.datasets):
                conn.execute(table.delete().where(table.c.producer.is_(None)))
                conn.execute(table.delete().where(table.c.name.in_(["daily.enrichment"])))
            # What the store held before 0011: the last event's producer.
            conn.execute(
                t.datasets.update()
                .where(t.datasets.c.id.in_(sorted(mentioned)))
                .values(producer="reader")
            )
        _upgrade_to(engine, "head", chunk)
        assert _differences(engine) == []
        migrated = {table.name: sorted(store.rows(table), key=repr) for table in tables}
        assert migrated == live
        assert {r["id"] for table in (t.jobs, t.datasets) for r in store.rows(table)} == nodes
        assert producers() == live_producers
    finally:
        store.close()


def test_the_dataset_producer_is_recomputed_from_the_events_already_stored(
    engine: Engine, store_url: str
) -> None:
    """0011: a dataset a later job only read goes back to whoever wrote it."""
    trips = dataset("postgres://db", "raw.public.trips")
    events = [
        {**run_event("COMPLETE", time="2026-01-01T00:00:01Z", outputs=[trips]), "producer": "a"},
        {
            **run_event(
                "COMPLETE", job=("spark", "t"), time="2026-01-01T00:00:02Z", inputs=[trips]
            ),
            "producer": "b",
        },
    ]
    store = Store(store_url)
    try:
        store.ingest_each(events)
        config = alembic_config(engine)
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, "0010")
            # What the store held before 0011: the last event's producer.
            conn.exec_driver_sql(f"UPDATE {t.datasets.name} SET producer = 'b'")
        assert "producer_rank" not in {
            c["name"] for c in inspect(engine).get_columns(t.datasets.name)
        }
        upgrade_schema(engine)
        assert _differences(engine) == []
        row = store.dataset("postgres://db", "raw.public.trips")
        assert row is not None
        assert row["producer"] == "a"
        store.ingest(events[1])  # and the rule holds for what arrives next
        row = store.dataset("postgres://db", "raw.public.trips")
        assert row is not None
        assert row["producer"] == "a"
    finally:
        store.close()


def test_alembic_says_only_which_migrations_run(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    engine = create_store_engine(f"sqlite:///{tmp_path / 'store.db'}")
    with caplog.at_level(logging.INFO):
        upgrade_schema(engine)
        first = [r.getMessage() for r in caplog.records if r.name.startswith("alembic")]
        caplog.clear()
        upgrade_schema(engine)
        second = [r.getMessage() for r in caplog.records if r.name.startswith("alembic")]
    engine.dispose()
    assert first
    assert all(m.startswith("Running upgrade") for m in first), first
    assert second == []


def test_dataset_versions_are_derived_from_the_events_already_stored(
    engine: Engine, store_url: str
) -> None:
    """0012 (then 0015) write the rows ingest writes, and put back a schema blob a reset removed."""
    from feast_lineage.consumer.store.read.dataset_versions import observations, versions

    one, two = (
        facet(fields=[{"name": n, "type": "INT64"} for n in names]) for names in ("a", "ab")
    )
    lake = "s3://lake"
    events = [
        run_event("START", time="2026-01-01T00:00:01Z", outputs=[dataset(lake, "t", schema=one)]),
        run_event(
            "COMPLETE",
            time="2026-01-01T00:00:02Z",
            outputs=[
                {
                    **dataset(lake, "t", schema=one),
                    "outputFacets": {"outputStatistics": facet(rowCount=5, size=10)},
                }
            ],
        ),
        run_event(
            "START",
            job=("spark", "r"),
            time="2026-01-01T00:00:03Z",
            inputs=[dataset(lake, "t", schema=two)],
        ),
        dataset_event(lake, "t", "2026-01-01T00:00:04Z", version=facet(datasetVersion="3")),
        job_event("spark", "declared", outputs=[dataset(lake, "t", schema=one)]),
    ]
    store = Store(store_url)
    try:
        store.ingest_each(events)
        live = sorted(store.rows(t.dataset_versions), key=repr)
        states = sorted(store.rows(t.dataset_states), key=repr)
        assert len(live) == 1  # the write
        assert len(states) == 3  # what the other events stated; the JobEvent adds none
        with engine.connect() as conn:
            answer = versions(observations(conn, dataset_id(lake, "t")))
        config = alembic_config(engine)
        config.attributes[CHUNK_ATTRIBUTE] = 1
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, "0011")
            # The first schema's blob is gone (as a namespace reset can leave it).
            gone = min(r["schema_id"] for r in live + states if r["schema_id"])
            deleted = conn.execute(t.facet_blobs.delete().where(t.facet_blobs.c.id == gone))
            assert deleted.rowcount == 1
        assert t.dataset_versions.name not in inspect(engine).get_table_names()
        _upgrade_to(engine, "head", chunk=1)
        assert _differences(engine) == []
        assert sorted(store.rows(t.dataset_versions), key=repr) == live
        assert sorted(store.rows(t.dataset_states), key=repr) == states
        with engine.connect() as conn:
            assert versions(observations(conn, dataset_id(lake, "t"))) == answer
        for schema_id in {r["schema_id"] for r in live + states if r["schema_id"]}:
            assert store.one(t.facet_blobs, t.facet_blobs.c.id == schema_id) is not None
    finally:
        store.close()


def test_statement_rows_of_0012_become_the_states_ingest_keeps(
    engine: Engine, store_url: str
) -> None:
    """0015 folds a store's statement rows (at 0014, with data) into one row per state."""
    from feast_lineage.consumer.store.read.dataset_versions import observations, versions

    one, two = (
        facet(fields=[{"name": n, "type": "INT64"} for n in names]) for names in ("a", "ab")
    )
    lake = "s3://lake"

    def reader(run: int, kind: str, second: int, schema: dict[str, object]) -> dict[str, object]:
        return run_event(
            kind,
            run_id=f"00000000-0000-0000-0000-00000000000{run}",
            job=("spark", f"r{run % 2}"),
            time=f"2026-01-01T00:00:{second:02d}Z",
            inputs=[dataset(lake, "t", schema=schema)],
        )

    events = [
        run_event(
            "COMPLETE", time="2026-01-01T00:00:01Z", outputs=[dataset(lake, "t", schema=one)]
        ),
        reader(1, "START", 2, one),  # a run's START and COMPLETE stating one schema
        reader(1, "COMPLETE", 3, one),
        reader(2, "START", 4, two),  # a new schema, then a run stating the first again
        reader(3, "START", 5, one),
        reader(3, "COMPLETE", 6, one),
        dataset_event(lake, "t", "2026-01-01T00:00:07Z", version=facet(datasetVersion="3")),
        dataset_event(
            lake,
            "t",
            "2026-01-01T00:00:08Z",
            lifecycleStateChange=facet(lifecycleStateChange="TRUNCATE"),
        ),
    ]
    store = Store(store_url)
    try:
        store.ingest_each(events)
        made = sorted(store.rows(t.dataset_versions), key=repr)
        states = sorted(store.rows(t.dataset_states), key=repr)
        assert len(made) == 2  # the write and the lifecycle change
        assert len(states) == 3  # schema one, schema two, datasetVersion 3
        with engine.connect() as conn:
            answer = versions(observations(conn, dataset_id(lake, "t")))
        config = alembic_config(engine)
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, "0011")
        _upgrade_to(engine, "0014", chunk=1)  # one row per (event, dataset), as 0014 kept
        assert len(store.rows(t.dataset_versions)) == 8
        _upgrade_to(engine, "head", chunk=2)
        assert _differences(engine) == []
        assert sorted(store.rows(t.dataset_versions), key=repr) == made
        assert sorted(store.rows(t.dataset_states), key=repr) == states
        with engine.connect() as conn:
            assert versions(observations(conn, dataset_id(lake, "t"))) == answer
        store.ingest_each(events)  # delivered again after the upgrade: nothing new
        assert sorted(store.rows(t.dataset_states), key=repr) == states
        assert sorted(store.rows(t.dataset_versions), key=repr) == made
    finally:
        store.close()
