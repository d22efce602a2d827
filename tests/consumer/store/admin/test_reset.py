"""Reset of a namespace: what belongs only to it goes, others stay whole."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from sqlalchemy import Table

from feast_lineage.consumer.store.admin.deletes import Removed
from feast_lineage.consumer.store.admin.latest_mark import event_key
from feast_lineage.consumer.store.admin.reset import reset_namespace
from feast_lineage.consumer.store.read import health
from feast_lineage.consumer.store.read.run_tree import run_tree
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.write.producer_rank import event_rank
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id, job_id, namespace_id
from tests.factories import at, dataset, dataset_event, facet, job_event, run_event
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


def _from(producer: str, event: dict[str, Any]) -> dict[str, Any]:
    return {**event, "producer": producer}


def _others_history() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Events of namespace ``a`` and of the others (``b``) that name ``b``'s datasets both."""
    schema_1 = facet(fields=[{"name": "id", "type": "INT"}])
    schema_2 = facet(fields=[{"name": "id", "type": "BIGINT"}])
    b_run, a_run, reader_run = (str(uuid.UUID(int=n)) for n in (1, 2, 3))
    others = [
        _from(
            "b-load",
            run_event(
                "START",
                run_id=b_run,
                job=("b", "load"),
                time=at(10),
                inputs=[dataset("b", "src")],
                outputs=[dataset("b", "table", schema=schema_1)],
            ),
        ),
        _from(
            "b-load",
            run_event(
                "COMPLETE",
                run_id=b_run,
                job=("b", "load"),
                time=at(11),
                outputs=[dataset("b", "table", schema=schema_1)],
            ),
        ),
        # b's latest write of the table is a START whose COMPLETE wrote another dataset.
        _from(
            "b-mixed",
            run_event(
                "START",
                run_id=str(uuid.UUID(int=5)),
                job=("b", "mixed"),
                time=at(12),
                outputs=[dataset("b", "table")],
            ),
        ),
        _from(
            "b-mixed",
            run_event(
                "COMPLETE",
                run_id=str(uuid.UUID(int=5)),
                job=("b", "mixed"),
                time=at(13),
                outputs=[dataset("b", "other")],
            ),
        ),
        # b reads the table after a wrote it, stating the schema b's START stated first.
        _from(
            "b-use",
            run_event(
                "COMPLETE",
                run_id=reader_run,
                job=("b", "use"),
                time=at(40),
                inputs=[dataset("b", "table", schema=schema_1)],
            ),
        ),
        _from("b-decl", dataset_event("b", "declared", time=at(5))),
        # b's run names a's run as its parent.
        _from(
            "b-task",
            run_event(
                "COMPLETE",
                run_id=str(uuid.UUID(int=4)),
                job=("b", "task"),
                time=at(35),
                parent=(a_run, ("a", "dag")),
            ),
        ),
    ]
    a = [
        _from(
            "a-export",
            run_event(
                "START",
                run_id=a_run,
                job=("a", "export"),
                time=at(20),
                # A lifecycle change of an input is a version too.
                inputs=[
                    dataset(
                        "b",
                        "src",
                        schema=schema_2,
                        lifecycleStateChange=facet(lifecycleStateChange="ALTER"),
                    )
                ],
                outputs=[dataset("b", "table", schema=schema_1)],
            ),
        ),
        # a writes b's table last, a table only a ever wrote, and one b declared.
        _from(
            "a-export",
            run_event(
                "COMPLETE",
                run_id=a_run,
                job=("a", "export"),
                time=at(30),
                outputs=[
                    dataset("b", "table", schema=schema_1),
                    dataset("b", "only_a"),
                    dataset("b", "declared"),
                ],
            ),
        ),
    ]
    return a, others


def _datasets_of_b(s: Store) -> dict[str, tuple[Any, ...]]:
    return {
        r["name"]: (r["producer"], r["producer_rank"])
        for r in s.rows(t.datasets, t.datasets.c.ns_id == namespace_id("b"))
    }


def _history_of(s: Store, table: Table) -> set[tuple[Any, ...]]:
    return {tuple(r.values()) for r in s.rows(table)}


def test_reset_namespace_leaves_other_namespaces_as_if_it_was_never_sent(
    two_stores: tuple[Store, Store],
) -> None:
    """Other namespaces' datasets a's jobs wrote or read answer as on a store that never had
    a's events: their latest write (producer, written), their versions and states (health's
    writes), but for the datasets only a's events named (they stay, with no producer)."""
    reset, never = two_stores
    a, others = _others_history()
    reset.ingest_each([*others, *a])
    never.ingest_each(others)
    reset_namespace(reset.engine, namespace_id("a"))

    kept = _datasets_of_b(reset)
    assert kept.pop("only_a") == (None, None)
    assert kept == _datasets_of_b(never)
    # Whose event the mark set again is, is not known: a scoped caller is shown no producer.
    shown_to = {
        r["name"]: r["producer_ns_id"]
        for r in reset.rows(t.datasets, t.datasets.c.ns_id == namespace_id("b"))
    }
    assert shown_to["table"] is None
    assert _history_of(reset, t.dataset_versions) == _history_of(never, t.dataset_versions)
    assert _history_of(reset, t.dataset_states) == _history_of(never, t.dataset_states)
    with reset.engine.connect() as conn, never.engine.connect() as other:
        table = [dataset_id("b", "table")]
        assert health.recent_writes(conn, None, 11) == health.recent_writes(other, None, 11)
        assert health.latest_writing_runs(conn, table) == health.latest_writing_runs(other, table)
        assert run_tree(conn, str(uuid.UUID(int=4)), None) == run_tree(
            other, str(uuid.UUID(int=4)), None
        )


@pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)
def test_other_namespaces_datasets_are_set_again_by_index(store: Store) -> None:
    """What the reset reads of other namespaces' datasets (their latest write, the versions
    and states its runs made) is read by index, and sets each from what remains."""
    schema = facet(fields=[{"name": "id", "type": "INT"}])
    for i in range(12):
        store.ingest(
            run_event(
                "COMPLETE",
                job=("b", f"writer{i % 3}"),
                time=at(i),
                inputs=[dataset("b", "src", schema=schema)],
                outputs=[dataset("b", f"o{i % 4}")],
            ),
            # a's run writes b's datasets last, and states b's source's schema first.
            run_event(
                "COMPLETE",
                job=("a", "writer"),
                time=at(i + 0.5),
                inputs=[dataset("b", "src", schema=schema)],
                outputs=[dataset("b", f"o{i % 4}")],
            ),
        )
    store.ingest(
        run_event(
            "COMPLETE",
            job=("a", "writer"),
            time=at(-1),
            inputs=[dataset("b", "src", schema=facet(fields=[{"name": "id", "type": "X"}]))],
        ),
        run_event(
            "COMPLETE",
            job=("b", "late"),
            time=at(20),
            inputs=[dataset("b", "src", schema=facet(fields=[{"name": "id", "type": "X"}]))],
        ),
    )
    statements = store.traced_statements(lambda: reset_namespace(store.engine, namespace_id("a")))
    seen, scans = store.full_scans(statements)
    assert scans == []
    assert any("feast_lineage_io_listings" in s and s.lstrip().startswith("SELECT") for s in seen)
    marks = {r["name"]: r["producer_rank"] for r in store.rows(t.datasets)}
    assert {name: mark[:1] for name, mark in marks.items()} == {
        "src": "0",
        "o0": "1",
        "o1": "1",
        "o2": "1",
        "o3": "1",
    }
    # Each names a stored event: b's.
    stored = {r["event_key"] for r in store.rows(t.events)}
    assert {event_key(event_rank(mark)) for mark in marks.values()} <= stored
    # The state a's run stated first goes, though b's late run stated it again (the store
    # keeps a state's earliest statement only: store/admin/reset_others.py).
    assert {r["time_us"] for r in store.rows(t.dataset_states)} == {parse_us(at(0))}
    assert (
        store.count(t.dataset_versions, t.dataset_versions.c.job_id == job_id("a", "writer")) == 0
    )
