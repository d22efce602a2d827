"""Retention pruning: chunks, whole runs, the current graph kept, indexes used."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from feast_lineage.consumer.store.admin import prune as prune_module
from feast_lineage.consumer.store.admin.deletes import Removed
from feast_lineage.consumer.store.admin.prune import prune
from feast_lineage.consumer.store.admin.stats import stats
from feast_lineage.consumer.store.engine import meta
from feast_lineage.consumer.store.read import dataset_versions as dv
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id, job_id
from tests.factories import at, dataset, facet, job_event, run_event
from tests.store_helpers import Store


def generation(store: Store) -> str:
    with store.engine.connect() as conn:
        return meta.generation(conn)


def test_prune_works_in_chunks_and_keeps_runs_whole(store: Store) -> None:
    batch = ("ns", "batch")
    for i in range(7):
        store.ingest(
            run_event(
                "COMPLETE",
                run_id=str(uuid.uuid4()),
                job=batch,
                time=at(i),
                run_facets={"own": facet(value=f"run {i}")},
                inputs=[dataset("ns", f"d{i}")],
            )
        )
    # The job's latest run that listed inputs stays, however old: it tells
    # which of the job's edges are current.
    latest = str(uuid.uuid4())
    store.ingest(
        run_event("COMPLETE", run_id=latest, job=batch, time=at(8), inputs=[dataset("ns", "d8")])
    )
    # A run that started before the cutoff and is still going keeps the old
    # events that hold its facets' latest values (its facets are read from
    # its events); an old event whose values later events replaced goes.
    keep = str(uuid.uuid4())
    late = ("ns", "late")
    out = dataset("ns", "out")
    out["outputFacets"] = {"outputStatistics": facet(rowCount=1)}
    store.ingest(
        run_event(
            "START",
            run_id=keep,
            job=late,
            time=at(50),
            run_facets={"nominalTime": facet(nominalStartTime=at(50)), "progress": facet(p=0)},
            outputs=[out],
        ),
        run_event(
            "RUNNING",
            run_id=keep,
            job=late,
            time=at(70),
            run_facets={"progress": facet(p=1)},
        ),
        run_event(
            "RUNNING", run_id=keep, job=late, time=at(1000), run_facets={"progress": facet(p=2)}
        ),
        job_event("ns", "described", time=at(60)),
        # Two JobEvents: the later one's inputs are its job's current ones.
        job_event("ns", "jobio", time=at(30), inputs=[dataset("ns", "old_in")]),
        job_event("ns", "jobio", time=at(40), inputs=[dataset("ns", "new_in")]),
    )
    before = generation(store)
    removed = prune(store.engine, parse_us(at(100)), chunk=3)
    # the 7 runs' events, the three job events and the kept run's RUNNING at 70
    assert removed.get("openlineage_events") == 11
    assert removed.get("openlineage_runs") == 7
    # the 7 runs' inputs and the first JobEvent's
    assert removed.get("openlineage_run_io") == 8
    assert generation(store) != before
    assert {r["run_id"] for r in store.rows(t.runs)} == {keep, latest}
    assert store.count(t.events) == 3
    assert store.run_facets(keep) == {
        "nominalTime": facet(nominalStartTime=at(50)),
        "progress": facet(p=2),
    }
    assert store.run_io(keep) == {
        (dataset_id("ns", "out"), "output"): {"outputStatistics": facet(rowCount=1)}
    }
    # The graph stays, and so does which of its edges are current.
    assert store.count(t.jobs) == 4
    assert store.count(t.lineage_edges) == 11
    assert store.current_edges() == {
        (dataset_id("ns", "d8"), job_id(*batch), "input"),
        (job_id(*late), dataset_id("ns", "out"), "output"),
        (dataset_id("ns", "new_in"), job_id("ns", "jobio"), "input"),
    }
    with store.engine.connect() as conn:
        found = stats(conn, None)
    assert found.rows["events"] == 3
    assert found.oldest_event_us == parse_us(at(8))
    # Once the run's last event is past the cutoff and a later run of its
    # job wrote the output, it goes whole.
    store.ingest(run_event("COMPLETE", job=late, time=at(1500), outputs=[dataset("ns", "out")]))
    removed = prune(store.engine, parse_us(at(2000)), chunk=1)
    assert removed.get("openlineage_events") == 2
    assert removed.get("openlineage_runs") == 1
    assert store.run(keep) is None
    assert store.count(t.events) == 2
    assert len(store.current_edges()) == 3


@pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)
def test_every_prune_statement_uses_an_index(store: Store) -> None:
    for i in range(30):
        job, run_id = ("ns", f"job{i % 4}"), str(uuid.uuid4())
        store.ingest(
            run_event("START", run_id=run_id, job=job, time=at(i), inputs=[dataset("ns", f"i{i}")]),
            run_event(
                "COMPLETE", run_id=run_id, job=job, time=at(i + 0.5), outputs=[dataset("ns", "o")]
            ),
            job_event("ns", f"described{i % 3}", time=at(i), inputs=[dataset("ns", f"j{i}")]),
        )
    long_run = str(uuid.uuid4())
    store.ingest(
        run_event("START", run_id=long_run, job=("ns", "stream"), time=at(1)),
        run_event("RUNNING", run_id=long_run, job=("ns", "stream"), time=at(500)),
    )
    removed: list[Removed] = []
    statements = store.traced_statements(
        lambda: removed.append(prune(store.engine, parse_us(at(100)), chunk=7))
    )
    seen, scans = store.full_scans(statements)
    assert scans == []
    assert any(s.lstrip().startswith("DELETE FROM feast_lineage_runs") for s in seen)
    assert removed[0].get("openlineage_runs") == 26  # 30 runs, less each job's latest


def test_the_horizon_is_raised_before_anything_is_deleted(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a prune deletes, reads of the past already stop at its cutoff (none reads a kept
    event whose value the events being deleted had replaced)."""
    for i in range(3):
        store.ingest(run_event("COMPLETE", job=("ns", "etl"), time=at(i)))
    seen: list[int | None] = []
    real = prune_module.deletes.chunked_events

    def chunked_events(engine: Any, *args: Any, **kwargs: Any) -> None:
        with engine.connect() as conn:
            seen.append(dv.horizon(conn))
        real(engine, *args, **kwargs)

    monkeypatch.setattr(prune_module.deletes, "chunked_events", chunked_events)
    prune(store.engine, parse_us(at(2)))
    assert seen == [parse_us(at(2))]


def _horizon(store: Store) -> int | None:
    with store.engine.connect() as conn:
        return dv.horizon(conn)


def test_a_prune_with_no_event_older_than_its_cutoff_leaves_the_horizon_unset(
    store: Store,
) -> None:
    """A young store's first scheduled prune removes nothing: every instant still answers."""
    for i in (10, 20):
        store.ingest(
            run_event("COMPLETE", job=("ns", "etl"), time=at(i), outputs=[dataset("ns", "d")])
        )
    assert prune(store.engine, parse_us(at(10))).counts == {}
    assert _horizon(store) is None
    # Once an event is older than a cutoff, that prune may remove history: it sets the horizon.
    prune(store.engine, parse_us(at(15)))
    assert _horizon(store) == parse_us(at(15))
    # A later prune with nothing older than its cutoff but what the last one kept raises it.
    prune(store.engine, parse_us(at(18)))
    assert _horizon(store) == parse_us(at(18))


def test_an_old_event_that_comes_while_a_prune_runs_and_goes_sets_the_horizon(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No event was older than the cutoff when the prune began; one that came meanwhile was
    deleted, so the instants before the cutoff no longer answer exactly: the horizon moves."""
    store.ingest(run_event("COMPLETE", job=("ns", "etl"), time=at(100)))
    real = prune_module.deletes.chunked_events

    def chunked_events(engine: Any, *args: Any, **kwargs: Any) -> None:
        # A backfill of an older run of the job arrives between the check and the deletes.
        store.ingest(run_event("COMPLETE", job=("ns", "etl"), time=at(1)))
        real(engine, *args, **kwargs)

    monkeypatch.setattr(prune_module.deletes, "chunked_events", chunked_events)
    removed = prune(store.engine, parse_us(at(50)))
    assert removed.get("openlineage_events") > 0
    assert _horizon(store) == parse_us(at(50))
