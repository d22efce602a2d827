"""Explicit lineage at an instant and over a window: the statement ranked last by then wins."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from feast_lineage.consumer.store.read import as_of, window
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.window import Window
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id, job_id
from tests.factories import at, job_event, lineage_facet
from tests.store_helpers import Store

NS = "s3://b"
JOB = ("airflow://p", "load")
OWN = job_id(*JOB)
SRC = {n: dataset_id(NS, n) for n in ("a", "b", "t")}


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = Store(store_url)
    yield s
    s.close()


def stating(source: str, seconds: int) -> dict:
    """A JobEvent whose lineage facet says ``source`` feeds t through the job."""
    entry = ("DATASET", NS, "t", [("DATASET", NS, source)])
    return job_event(*JOB, time=at(seconds), lineage=lineage_facet(entry))


# A at 10, B at 20, A again at 30.
HISTORY = [stating("a", 10), stating("b", 20), stating("a", 30)]


def sources_at(store: Store, seconds: int) -> set[int]:
    at_ = Instant(parse_us(at(seconds)))
    with store.engine.connect() as conn:
        found = as_of.explicit_among(conn, set(SRC.values()) | {OWN}, at_)
        walked = as_of.walk(conn, OWN, "upstream", 1, None, at_)
        counted = as_of.count_edges(conn, None, at_)
    listed = {x.src_id for x in found if x.edge_type == "input"}
    assert set(walked) - {OWN} == listed
    assert counted == len(found)  # the JobEvents list no inputs or outputs of their own
    return listed


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 1, 0), (1, 2, 0)])  # the property: the rest
def test_the_payload_stated_last_by_then_is_current_in_any_order(
    store: Store, order: tuple[int, ...]
) -> None:
    store.ingest_each([HISTORY[i] for i in order] + [HISTORY[order[0]]])  # and a duplicate
    assert sources_at(store, 5) == set()
    assert sources_at(store, 10) == sources_at(store, 15) == {SRC["a"]}
    assert sources_at(store, 20) == sources_at(store, 29) == {SRC["b"]}
    assert sources_at(store, 30) == sources_at(store, 99) == {SRC["a"]}


def stated_in(store: Store, since: int | None, until: int | None) -> set[int]:
    w = Window(
        None if since is None else parse_us(at(since)),
        None if until is None else parse_us(at(until)),
    )
    with store.engine.connect() as conn:
        found = window.explicit_among(conn, set(SRC.values()) | {OWN}, w)
        walked = window.walk(conn, OWN, "upstream", 1, None, w)
        visible = window.explicit_stated(conn, None, w)
    listed = {x.src_id for x in found if x.edge_type == "input"}
    assert set(walked) - {OWN} == listed
    assert sorted(visible) == sorted(found)
    return listed


def test_a_window_keeps_the_payloads_stated_in_it(store: Store) -> None:
    store.ingest_each(reversed(HISTORY))
    assert stated_in(store, 0, 10) == set()
    assert stated_in(store, 10, 11) == stated_in(store, 30, None) == {SRC["a"]}
    assert stated_in(store, 11, 30) == {SRC["b"]}
    assert stated_in(store, 15, 31) == stated_in(store, None, None) == {SRC["a"], SRC["b"]}
