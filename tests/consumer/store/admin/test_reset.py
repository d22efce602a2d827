"""Reset of a namespace: what belongs only to it goes, others stay whole."""

from __future__ import annotations

import pytest

from feast_lineage.consumer.store.admin.deletes import Removed
from feast_lineage.consumer.store.admin.reset import reset_namespace
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.identity import namespace_id
from tests.factories import at, dataset, facet, job_event, run_event
from tests.store_helpers import Store


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
    removed = reset_namespace(store.engine, namespace_id("a"))
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


@pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)
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
    removed: list[Removed] = []
    statements = store.traced_statements(
        lambda: removed.append(reset_namespace(store.engine, namespace_id("a"), chunk=7))
    )
    seen, scans = store.full_scans(statements)
    assert scans == []
    assert any(s.lstrip().startswith("DELETE FROM feast_lineage_run_io") for s in seen)
    # Every run and JobEvent of b that read a's datasets loses those inputs.
    assert store.count(t.run_io, t.run_io.c.direction == "input") == 0
    assert store.count(t.run_io, t.run_io.c.direction == "output") == 20
    assert removed[0].get("openlineage_runs") == 20
