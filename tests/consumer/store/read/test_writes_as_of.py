"""Whether a dataset had been written by an instant: its first output or DatasetEvent by then."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from feast_lineage.consumer.store.admin.prune import prune
from feast_lineage.consumer.store.read import as_of
from feast_lineage.consumer.store.read.writes_as_of import written_among
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id
from tests.factories import at, dataset, dataset_event, job_event, run_event
from tests.store_helpers import Store, instant

NS = "s3://b"
NAMES = ("read", "out", "late", "declared", "listed")
IDS = {dataset_id(NS, n): n for n in NAMES}


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = Store(store_url)
    yield s
    s.close()


def history() -> list[dict[str, Any]]:
    """``out`` is an output from a run's START at 10; ``late`` is read at 10 and written at 30;
    ``declared`` is declared at 20 and 25; a JobEvent lists ``listed`` at 15; ``read`` is
    only ever read."""
    run = str(uuid.uuid4())
    return [
        run_event(
            "START",
            run_id=run,
            job=("spark", "etl"),
            time=at(10),
            inputs=[dataset(NS, "read"), dataset(NS, "late")],
            outputs=[dataset(NS, "out")],
        ),
        job_event("dbt", "model", time=at(15), outputs=[dataset(NS, "listed")]),
        dataset_event(NS, "declared", time=at(20)),
        dataset_event(NS, "declared", time=at(25)),
        run_event(
            "COMPLETE",
            run_id=run,
            job=("spark", "etl"),
            time=at(30),
            inputs=[dataset(NS, "read")],
            outputs=[dataset(NS, "out"), dataset(NS, "late")],
        ),
    ]


def written_then(store: Store, seconds: float) -> set[str]:
    with store.engine.connect() as conn:
        found = written_among(conn, IDS, instant(seconds).params())
    return {IDS[i] for i in found}


@pytest.mark.parametrize("order", [(0, 1, 2, 3, 4), (4, 3, 2, 1, 0), (2, 4, 0, 3, 1, 4)])
def test_written_from_the_first_event_that_wrote_or_declared_it(
    store: Store, order: tuple[int, ...]
) -> None:
    events = history()
    store.ingest_each(events[i] for i in order)
    assert written_then(store, 9) == set()
    assert written_then(store, 10) == {"out"}
    assert written_then(store, 15) == {"out", "listed"}
    assert written_then(store, 24) == {"out", "listed", "declared"}
    assert written_then(store, 29.999999) == {"out", "listed", "declared"}
    assert written_then(store, 30) == {"out", "listed", "declared", "late"}


def test_node_reads_as_of_an_instant_say_written_then(store: Store) -> None:
    store.ingest_each(reversed(history()))
    with store.engine.connect() as conn:
        page = as_of.node_page(conn, None, instant(20), 0, 100)
        every = as_of.all_nodes(conn, None, instant(20))
        by_id = as_of.nodes_by_id(conn, IDS, None, instant(20))
    for rows in (page, every, by_id):
        assert {r.name for r in rows if r.written} == {"out", "listed", "declared"}
        assert len([r for r in rows if r.kind == "dataset"]) == 5


def test_a_declaration_retention_pruned_still_counts(store: Store) -> None:
    """A prune deletes old DatasetEvents and runs; the latest write, and the outputs (the
    graph stays), still say a dataset had been written at an instant after the horizon."""
    store.ingest_each(
        [
            dataset_event(NS, "declared", time=at(0)),
            run_event("COMPLETE", job=("spark", "etl"), time=at(1), outputs=[dataset(NS, "out")]),
            run_event("COMPLETE", job=("spark", "etl"), time=at(2), inputs=[dataset(NS, "read")]),
        ]
    )
    prune(store.engine, parse_us(at(50)))
    assert written_then(store, 60) == {"declared", "out"}
