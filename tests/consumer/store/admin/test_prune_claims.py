"""Claims of the scheduled prune, shared by every process of a store."""

from __future__ import annotations

from feast_lineage.consumer.store.admin.prune_claims import PRUNE_CLAIM_KEY, claim_prune
from feast_lineage.consumer.store.engine import meta
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from tests.factories import at
from tests.store_helpers import Store


def test_one_claim_of_the_scheduled_prune_per_round(store: Store) -> None:
    hour_us = 3_600 * 1_000_000
    now = parse_us(at(10_000))
    # Every worker of a server asks at about the same time; one gets the turn.
    assert claim_prune(store.engine, now, hour_us) is True
    assert claim_prune(store.engine, now + 5_000_000, hour_us) is False
    assert claim_prune(store.engine, now + hour_us - 1, hour_us) is False
    # The next round's first claim wins again.
    assert claim_prune(store.engine, now + hour_us, hour_us) is True
    with store.engine.connect() as conn:
        assert meta.read_meta(conn, PRUNE_CLAIM_KEY) == str(now + hour_us)


def test_meta_values_are_replaced_not_duplicated(store: Store) -> None:
    with store.engine.begin() as conn:
        meta.write_meta(conn, "example", "one")
        meta.write_meta(conn, "example", "two")
    with store.engine.connect() as conn:
        assert meta.read_meta(conn, "example") == "two"
        assert meta.read_meta(conn, "absent") is None
    assert store.count(t.meta, t.meta.c.key == "example") == 1
