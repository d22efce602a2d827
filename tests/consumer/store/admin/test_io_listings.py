"""After a prune, instants from the cutoff on answer as if nothing was pruned; before, a 400."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.errors import LineageError
from feast_lineage.consumer.services.catalog import dataset_page, job_page
from feast_lineage.consumer.services.graph_history import graph_page_at
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.admin.prune import prune
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.positions import PositionCache
from feast_lineage.consumer.store.read.sorting import Sort
from feast_lineage.consumer.store.read.window import Window
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from tests.factories import at, dataset, job_event, run_event
from tests.store_helpers import Store

JOBS = [("spark://p", "j0"), ("spark://p", "j1")]


def _history() -> list[dict[str, Any]]:
    """Each job runs every 10 s reading another dataset; j1 last ran at 20, j0 declared at 35."""
    events = []
    for i in range(6):
        job = JOBS[0] if i % 3 else JOBS[1]
        run_id = str(uuid.uuid4())
        inputs = [dataset("s3://b", f"in{i % 4}")]
        events.append(run_event("START", run_id=run_id, job=job, time=at(10 * i), inputs=inputs))
        events.append(
            run_event(
                "COMPLETE",
                run_id=run_id,
                job=job,
                time=at(10 * i + 5),
                inputs=inputs,
                outputs=[dataset("s3://b", f"out{i % 2}")],
            )
        )
    events.append(job_event(*JOBS[0], time=at(35), outputs=[dataset("s3://b", "declared")]))
    return events


def _page(store: Store, seconds: float) -> dict[str, Any]:
    read = StoreReader(store.engine, Scope.everything(), {}, PositionCache())
    page = graph_page_at(
        read, namespace=None, limit=100, offset=0, at=Instant(parse_us(at(seconds)))
    )
    return {
        "nodes": sorted(n["id"] for n in page["nodes"]),
        "edges": sorted((e["source"], e["target"], e["type"]) for e in page["edges"]),
        "totals": (page["total_nodes"], page["total_edges"]),
    }


def test_instants_from_the_cutoff_on_answer_as_if_nothing_was_pruned(
    two_stores: tuple[Store, Store],
) -> None:
    pruned, whole = two_stores
    for store in two_stores:
        store.ingest_each(_history())
    listings = pruned.count(t.io_listings)
    removed = prune(pruned.engine, parse_us(at(42)))
    assert removed.get("io_listings") > 0
    assert pruned.count(t.io_listings) < listings
    assert pruned.count(t.runs) < whole.count(t.runs)
    for seconds in (42, 44, 45, 50, 55, 1000):
        assert _page(pruned, seconds) == _page(whole, seconds), seconds
    with pytest.raises(LineageError, match=f"oldest instant still answered is {at(42)}"):
        _page(pruned, 41)


def _catalog(store: Store, seconds: float) -> list[Any]:
    read = StoreReader(store.engine, Scope.everything(), {}, PositionCache())
    instant = Instant(parse_us(at(seconds)))
    args: dict[str, Any] = {"namespace": None, "search": None, "limit": 100, "offset": 0}
    jobs = job_page(read, **args, sort=Sort("latest_started", True), at=instant)
    datasets = dataset_page(read, **args, at=instant)
    return [
        [(j.job_name, j.latest_run) for j in jobs.jobs],
        [d.dataset_name for d in datasets.datasets],
    ]


def test_the_catalog_from_the_cutoff_on_answers_as_if_nothing_was_pruned(
    two_stores: tuple[Store, Store],
) -> None:
    """Each job's latest run then is kept: under way at the cutoff, its latest listing run, or
    its run started last before the cutoff, whatever that listed (j2's lone COMPLETE at 30,
    after a run that read a dataset at 0)."""
    pruned, whole = two_stores
    lone, listing = str(uuid.uuid4()), str(uuid.uuid4())
    j2 = ("spark://p", "j2")
    events = [
        *_history(),
        run_event("COMPLETE", run_id=listing, job=j2, time=at(0), inputs=[dataset("s3://b", "x")]),
        run_event("COMPLETE", run_id=lone, job=j2, time=at(30)),
    ]
    for store in two_stores:
        store.ingest_each(events)
    prune(pruned.engine, parse_us(at(42)))
    assert pruned.count(t.runs) < whole.count(t.runs)
    for seconds in (42, 43, 45, 50, 1000):
        assert _catalog(pruned, seconds) == _catalog(whole, seconds), seconds
    assert _catalog(pruned, 43)[0][0][1].state == "RUNNING"  # j0's run of 40 to 45
    assert {name: run.run_id for name, run in _catalog(pruned, 1000)[0]}["j2"] == lone
    with pytest.raises(LineageError, match="retention horizon"):
        _catalog(pruned, 41)


def _window(store: Store, since: float | None, until: float | None) -> dict[str, Any]:
    read = StoreReader(store.engine, Scope.everything(), {}, PositionCache())
    window = Window(
        None if since is None else parse_us(at(since)),
        None if until is None else parse_us(at(until)),
    )
    page = graph_page_at(read, namespace=None, limit=100, offset=0, at=window)
    return {
        "nodes": sorted(n["id"] for n in page["nodes"]),
        "edges": sorted(
            (e["source"], e["target"], e["type"], e.get("run_count")) for e in page["edges"]
        ),
        "since": page["since"],
    }


def test_windows_from_the_cutoff_on_answer_as_if_nothing_was_pruned(
    two_stores: tuple[Store, Store],
) -> None:
    pruned, whole = two_stores
    for store in two_stores:
        store.ingest_each(_history())
    prune(pruned.engine, parse_us(at(42)))
    assert pruned.count(t.runs) < whole.count(t.runs)
    for since, until in ((42, 50), (42, None), (44, 56), (51, 1000)):
        assert _window(pruned, since, until) == _window(whole, since, until), (since, until)
    # No since: the window starts at the horizon, and the answer says so.
    assert _window(pruned, None, 60) == _window(whole, 42, 60)
    assert _window(pruned, None, 60)["since"] == at(42)
    with pytest.raises(LineageError, match=f"pass since at or after {at(42)}"):
        _window(pruned, 41, 60)
