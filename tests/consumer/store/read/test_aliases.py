from __future__ import annotations

from collections.abc import Iterator

import pytest

from feast_lineage.consumer.store.read.aliases import alias_groups, alias_names
from feast_lineage.identity import dataset_id, namespace_id
from tests.factories import at, dataset_event
from tests.store_helpers import Store


@pytest.fixture
def store(head_store_url: str) -> Iterator[Store]:
    s = Store(head_store_url)
    yield s
    s.close()


def _aliases(*names: tuple[str, str]) -> dict[str, object]:
    return {"identifiers": [{"namespace": ns, "name": n, "type": "TABLE"} for ns, n in names]}


def test_alias_groups_follow_chains_of_symlinks_both_ways(store: Store) -> None:
    # orders names hive.orders; hive.orders (stored too) names glue.orders; lone names nothing.
    store.ingest(
        dataset_event("s3://b", "orders", time=at(1), symlinks=_aliases(("hive://m", "orders"))),
        dataset_event("hive://m", "orders", time=at(2), symlinks=_aliases(("glue://c", "orders"))),
        dataset_event("s3://b", "lone", time=at(3)),
    )
    s3, hive, glue = (dataset_id(ns, "orders") for ns in ("s3://b", "hive://m", "glue://c"))
    lone = dataset_id("s3://b", "lone")
    with store.engine.connect() as conn:
        # From the middle, from the alias no dataset stored, and from a dataset without any.
        for asked in ({hive, lone}, {glue}, {s3, glue, lone}):
            found = alias_groups(conn, asked, None)
            first = min(s3, hive, glue)
            assert found.members[first] == {s3, hive, glue}
            assert {found.group[i] for i in asked} <= {first, lone}
        assert found.group[lone] == lone
        assert found.members[lone] == {lone}
        assert alias_names(conn, [glue, s3]) == {glue: ("glue://c", "orders")}


def test_alias_groups_never_cross_into_a_hidden_namespace(store: Store) -> None:
    store.ingest(
        dataset_event("s3://b", "orders", time=at(1), symlinks=_aliases(("hive://m", "orders"))),
        dataset_event("hive://m", "orders", time=at(2), symlinks=_aliases(("glue://c", "orders"))),
    )
    s3, hive, glue = (dataset_id(ns, "orders") for ns in ("s3://b", "hive://m", "glue://c"))
    visible = frozenset({namespace_id("s3://b"), namespace_id("glue://c")})
    with store.engine.connect() as conn:
        found = alias_groups(conn, [s3, glue], visible)
        # hive://m is hidden: s3 and glue are linked only through it, so not at all.
        assert found.members[found.group[s3]] == {s3}
        assert found.members[found.group[glue]] == {glue}
        # A hidden dataset asked for is a group of its own.
        assert alias_groups(conn, [hive], visible).members[hive] == {hive}
        assert alias_groups(conn, [s3], frozenset()).members[s3] == {s3}


def test_alias_groups_drop_an_alias_the_dataset_no_longer_names(store: Store) -> None:
    store.ingest(
        dataset_event("s3://b", "orders", time=at(1), symlinks=_aliases(("hive://m", "old"))),
        dataset_event("s3://b", "orders", time=at(2), symlinks=_aliases(("hive://m", "new"))),
    )
    orders, old, new = (
        dataset_id("s3://b", "orders"),
        dataset_id("hive://m", "old"),
        dataset_id("hive://m", "new"),
    )
    with store.engine.connect() as conn:
        found = alias_groups(conn, [orders, old], None)
    assert found.members[found.group[orders]] == {orders, new}
    assert found.members[found.group[old]] == {old}
