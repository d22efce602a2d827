from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from feast_lineage.consumer.store.admin import maintenance
from feast_lineage.consumer.store.engine import meta
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id, job_id, namespace_id
from tests.factories import at, dataset, facet, job_event, run_event
from tests.store_helpers import Store


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = Store(store_url)
    yield s
    s.close()


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
    removed = maintenance.prune(store.engine, parse_us(at(100)), chunk=3)
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
        stats = maintenance.stats(conn, None)
    assert stats.rows["events"] == 3
    assert stats.oldest_event_us == parse_us(at(8))
    # Once the run's last event is past the cutoff and a later run of its
    # job wrote the output, it goes whole.
    store.ingest(run_event("COMPLETE", job=late, time=at(1500), outputs=[dataset("ns", "out")]))
    removed = maintenance.prune(store.engine, parse_us(at(2000)), chunk=1)
    assert removed.get("openlineage_events") == 2
    assert removed.get("openlineage_runs") == 1
    assert store.run(keep) is None
    assert store.count(t.events) == 2
    assert len(store.current_edges()) == 3


def test_reset_namespace_leaves_other_namespaces_whole(store: Store) -> None:
    store.ingest(
        run_event(
            "COMPLETE",
            job=("a", "writer"),
            outputs=[
                dataset(
                    "a",
                    "table",
                    symlinks=facet(
                        identifiers=[{"namespace": "b", "name": "alias", "type": "TABLE"}]
                    ),
                )
            ],
        ),
        run_event("COMPLETE", job=("b", "reader"), inputs=[dataset("a", "table")]),
        run_event("COMPLETE", job=("b", "other"), outputs=[dataset("b", "mine")]),
    )
    removed = maintenance.reset_namespace(store.engine, namespace_id("a"))
    assert removed.get("openlineage_jobs") == 1
    assert removed.get("openlineage_datasets") == 1
    assert removed.get("openlineage_events") == 1
    assert removed.get("openlineage_dataset_symlinks") == 1
    assert {r["name"] for r in store.rows(t.jobs)} == {"reader", "other"}
    assert {r["name"] for r in store.rows(t.datasets)} == {"mine"}
    assert store.count(t.events) == 2
    # b's edge from a's dataset went with it; b's own edge stays.
    assert store.count(t.lineage_edges) == 1
    # b's run no longer names a dataset that is gone.
    assert store.count(t.run_io) == 1


def test_one_claim_of_the_scheduled_prune_per_round(store: Store) -> None:
    hour_us = 3_600 * 1_000_000
    now = parse_us(at(10_000))
    # Every worker of a server asks at about the same time; one gets the turn.
    assert maintenance.claim_prune(store.engine, now, hour_us) is True
    assert maintenance.claim_prune(store.engine, now + 5_000_000, hour_us) is False
    assert maintenance.claim_prune(store.engine, now + hour_us - 1, hour_us) is False
    # The next round's first claim wins again.
    assert maintenance.claim_prune(store.engine, now + hour_us, hour_us) is True
    with store.engine.connect() as conn:
        assert meta.read_meta(conn, maintenance.PRUNE_CLAIM_KEY) == str(now + hour_us)


def test_meta_values_are_replaced_not_duplicated(store: Store) -> None:
    with store.engine.begin() as conn:
        meta.write_meta(conn, "example", "one")
        meta.write_meta(conn, "example", "two")
    with store.engine.connect() as conn:
        assert meta.read_meta(conn, "example") == "two"
        assert meta.read_meta(conn, "absent") is None
    assert store.count(t.meta, t.meta.c.key == "example") == 1


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
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
    removed: list[maintenance.Removed] = []
    statements = store.traced_statements(
        lambda: removed.append(maintenance.prune(store.engine, parse_us(at(100)), chunk=7))
    )
    seen, scans = store.full_scans(statements)
    assert scans == []
    assert any(s.lstrip().startswith("DELETE FROM feast_lineage_runs") for s in seen)
    assert removed[0].get("openlineage_runs") == 26  # 30 runs, less each job's latest


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_every_reset_statement_uses_an_index(store: Store) -> None:
    for i in range(20):
        store.ingest(
            run_event(
                "COMPLETE",
                job=("b", f"reader{i % 3}"),
                time=at(i),
                inputs=[dataset("a", f"t{i % 5}")],
                outputs=[dataset("b", f"o{i}")],
            ),
            run_event("COMPLETE", job=("a", "writer"), time=at(i), outputs=[dataset("a", "t0")]),
            job_event("b", "described", time=at(i), inputs=[dataset("a", f"t{i % 5}")]),
        )
    removed: list[maintenance.Removed] = []
    statements = store.traced_statements(
        lambda: removed.append(
            maintenance.reset_namespace(store.engine, namespace_id("a"), chunk=7)
        )
    )
    seen, scans = store.full_scans(statements)
    assert scans == []
    assert any(s.lstrip().startswith("DELETE FROM feast_lineage_run_io") for s in seen)
    # Every run and JobEvent of b that read a's datasets loses those inputs.
    assert store.count(t.run_io, t.run_io.c.direction == "input") == 0
    assert store.count(t.run_io, t.run_io.c.direction == "output") == 20
    assert removed[0].get("openlineage_runs") == 20
