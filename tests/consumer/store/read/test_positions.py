from __future__ import annotations

import dataclasses
import random
import uuid
from collections.abc import Iterator

import pytest

from feast_lineage.consumer.store.admin.prune import prune
from feast_lineage.consumer.store.engine import meta
from feast_lineage.consumer.store.read import events as event_reads
from feast_lineage.consumer.store.read.positions import PositionCache
from feast_lineage.consumer.store.schema import tables as t
from tests.factories import at, run_event
from tests.store_helpers import Store


@pytest.fixture
def store(head_store_url: str) -> Iterator[Store]:
    s = Store(head_store_url)
    yield s
    s.close()


def events(n: int, rng: random.Random) -> list[dict]:
    out = []
    for _ in range(n):
        run = str(uuid.uuid4())
        out.append(
            run_event(
                rng.choice(["START", "COMPLETE"]),
                run_id=run,
                job=(rng.choice(["a", "b"]), "job"),
                time=at(rng.randint(0, 50)),  # many equal times
            )
        )
    return out


def expected(store: Store, ns: str | None) -> list[int]:
    rows = store.rows(t.events)
    from feast_lineage.identity import namespace_id

    if ns is not None:
        rows = [r for r in rows if r["ns_id"] == namespace_id(ns)]
    rows.sort(key=lambda r: (r["event_time_us"], r["id"]), reverse=True)
    return [r["id"] for r in rows]


def page(store: Store, cache: PositionCache, ns: str | None, offset: int, limit: int):
    from feast_lineage.identity import namespace_id

    ns_ids = None if ns is None else frozenset({namespace_id(ns)})
    with store.engine.connect() as conn:
        spec = event_reads.events_list(conn, event_reads.EventFilter(ns_ids=ns_ids))
        if spec.margin:  # PostgreSQL: a small margin, so these few rows are indexed too
            spec = dataclasses.replace(spec, margin=3)
        return cache.page(conn, spec, meta.generation(conn), offset=offset, limit=limit)


@pytest.mark.parametrize("ns", [None, "a"])
def test_pages_match_a_plain_sort_before_and_after_new_rows_and_deletes(
    store: Store, ns: str | None
) -> None:
    rng = random.Random(7)
    store.ingest(*events(150, rng))
    cache = PositionCache(every=7, min_rows=10, max_new=40)

    def check() -> None:
        want = expected(store, ns)
        for offset in [0, 1, 6, 7, 8, 13, 14, 50, len(want) - 5, len(want) - 1, len(want)]:
            got = page(store, cache, ns, offset, 5)
            assert got.total == len(want)
            assert [r.id for r in got.rows] == want[offset : offset + 5], offset

    check()
    assert cache._entries, "the position index was not built"
    store.ingest(*events(30, rng))  # new rows land all over the order
    check()
    store.ingest(*events(60, rng))  # more than max_new: rebuilt
    check()
    prune(store.engine, cutoff_us=_us(at(20)), chunk=17)
    check()


def _us(text: str) -> int:
    from feast_lineage.event_time import parse_us

    return parse_us(text)


def test_short_lists_are_paged_directly(store: Store) -> None:
    store.ingest(*events(12, random.Random(1)))
    cache = PositionCache(every=5, min_rows=100)
    got = page(store, cache, None, 10, 5)
    assert got.total == 12
    assert [r.id for r in got.rows] == expected(store, None)[10:]
    assert not cache._entries
