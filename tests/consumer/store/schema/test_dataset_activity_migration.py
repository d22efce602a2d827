"""Migration 0029: datasets stored before it keep their rows, and whose events set their
producer and update time is unknown until a later event sets them."""

from __future__ import annotations

from alembic import command
from sqlalchemy import Engine, inspect, select

from feast_lineage.consumer.store.engine.database import alembic_config, create_store_engine
from feast_lineage.consumer.store.read.datasets import dataset_rows
from feast_lineage.consumer.store.read.sorting import Sort
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from feast_lineage.identity import namespace_id
from tests.factories import at, dataset, run_event
from tests.store_helpers import Store

TEAM, HIDDEN = "team", "secret://hidden"
TEAM_ONLY = frozenset({namespace_id(TEAM)})
COLUMNS = {"producer_ns_id", "updated_ns_id"}


def _migrate(engine: Engine, how: str, revision: str) -> None:
    config = alembic_config(engine)
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        getattr(command, how)(config, revision)


def _columns(engine: Engine) -> set[str]:
    return {c["name"] for c in inspect(engine).get_columns(t.datasets.name)}


def _shown(engine: Engine, visible: frozenset[int] | None) -> list[tuple[object, ...]]:
    with engine.connect() as conn:
        _total, found = dataset_rows(conn, visible, None, Sort("name"), 0, 10, visible=visible)
    return [(r.name, r.producer, r.updated_us) for r in found]


def test_0029_upgrades_a_store_of_0028_with_data(store_url: str) -> None:
    store = Store(store_url)
    engine = create_store_engine(store_url)
    try:
        store.ingest(
            {
                **run_event(
                    "COMPLETE", job=(TEAM, "j"), time=at(10), outputs=[dataset(TEAM, "out")]
                ),
                "producer": "team-producer",
            },
            {
                **run_event(
                    "FAIL", job=(HIDDEN, "loader"), time=at(20), outputs=[dataset(TEAM, "out")]
                ),
                "producer": "secret-producer",
            },
        )
        with engine.connect() as conn:
            before = [dict(r._mapping) for r in conn.execute(select(t.datasets))]
        _migrate(engine, "downgrade", "0028")
        assert not COLUMNS & _columns(engine)
        _migrate(engine, "upgrade", "head")
        assert _columns(engine) >= COLUMNS
        with engine.connect() as conn:
            after = [dict(r._mapping) for r in conn.execute(select(t.datasets))]
        # Every row kept, with nothing known of whose events set the two values.
        unknown = [{**row, "producer_ns_id": None, "updated_ns_id": None} for row in before]
        assert after == unknown
        hidden = ("out", "secret-producer", parse_us(at(20)))
        assert _shown(engine, None) == [hidden]  # the unscoped caller: as before
        assert _shown(engine, TEAM_ONLY) == [("out", None, None)]  # unknown: not shown
        # A later event of the team's sets them: shown to the team.
        store.ingest(
            {
                **run_event(
                    "COMPLETE", job=(TEAM, "j"), time=at(30), outputs=[dataset(TEAM, "out")]
                ),
                "producer": "team-producer",
            }
        )
        assert _shown(engine, TEAM_ONLY) == [("out", "team-producer", parse_us(at(30)))]
    finally:
        engine.dispose()
        store.close()
