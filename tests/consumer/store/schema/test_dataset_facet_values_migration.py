"""Migration 0026 claims of each dataset facet only what its stored row says."""

from __future__ import annotations

import importlib

from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select

from feast_lineage.consumer.store.engine.database import create_store_engine
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.dataset_facets_at import dataset_facets_at
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id
from tests.factories import at, dataset, facet, run_event
from tests.store_helpers import Store, migrate

NS, NAME = "s3://b", "t"
below = importlib.import_module(
    "feast_lineage.consumer.store.schema.migrations.versions.0026_dataset_facet_values"
).below
_rank = st.text("0123456789abcdef", min_size=4, max_size=4)


@given(_rank, _rank)
def test_the_bound_below_a_rank_is_at_or_above_every_lower_rank(a: str, b: str) -> None:
    low, high = sorted((a, b))
    if low < high:
        assert low <= below(high) < high
    assert below("0000") == "0000"  # none below: its own bound, nothing claimed


JOB = ("spark://p", "etl")


def _page(store: Store, seconds: float) -> set[str]:
    """The facet names a page has as of ``seconds`` (no event read)."""
    did = dataset_id(NS, NAME)
    with store.engine.connect() as conn:
        found = dataset_facets_at(conn, [did], Instant(parse_us(at(seconds))), walk=False)
    return set(found.facets.get(did, {}))


def test_0026_starts_each_bound_at_the_latest_statement_from_0025_with_data(
    store_url: str,
) -> None:
    """Documentation restated at 1, 2 and 3 before the upgrade, then at 4 and 5 after it:
    an upgraded store knows it from 3 (its latest statement at the upgrade) but not as of
    2, where only the events could tell; a store that saw every statement knows it from 1."""
    store = Store(store_url)
    engine = create_store_engine(store_url)

    def write(second: int) -> dict[str, object]:
        out = dataset(NS, NAME, documentation=facet(description="d"))
        return run_event("COMPLETE", job=JOB, time=at(second), outputs=[out])

    try:
        store.ingest_each([write(1), write(2), write(3)])
        migrate(engine, "0025", down=True)
        migrate(engine, "head")
        c = t.dataset_facets.c
        with engine.connect() as conn:
            (rank, other) = conn.execute(select(c.rank, c.other_rank)).one()
            values = conn.execute(select(t.dataset_facet_values)).all()
        assert other == below(rank) < rank  # just below: nothing older is claimed
        assert [v.first_rank for v in values] == [rank]
        store.ingest_each([write(4), write(5)])
        assert "documentation" in _page(store, 3)
        assert "documentation" not in _page(store, 2.5)
        store.reset()
        store.ingest_each([write(s) for s in (5, 1, 3, 2, 4)])
        assert "documentation" in _page(store, 1.5)
    finally:
        engine.dispose()
        store.close()
