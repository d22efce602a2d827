"""The rows an event adds to a dataset's history: writes and lifecycle changes, and states."""

from __future__ import annotations

import uuid

import pytest

from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.write.dataset_versions import state_rank, version_rows
from feast_lineage.event_time import parse_us
from tests.factories import at, dataset, dataset_event, facet, run_event, schema_facet
from tests.store_helpers import Store

NS, NAME = "lake", "t"
SCHEMA = schema_facet("a", "b")


def _reader(run: int, kind: str, seconds: float) -> dict[str, object]:
    return run_event(
        kind,
        run_id=str(uuid.UUID(int=run)),
        job=("spark", f"reader_{run}"),
        time=at(seconds),
        inputs=[dataset(NS, NAME, schema=SCHEMA)],
    )


def test_an_earlier_statement_ranks_higher_and_ties_go_by_run_then_type() -> None:
    run_a, run_b = uuid.UUID(int=1).bytes, uuid.UUID(int=2).bytes
    assert state_rank(1, run_a, 1) > state_rank(2, run_a, 1)
    assert state_rank(-5, None, None) > state_rank(0, None, None)  # before 1970 too
    assert state_rank(1, run_b, 1) > state_rank(1, run_a, 1)
    assert state_rank(1, run_a, 3) > state_rank(1, run_a, 1)


def test_a_write_and_a_lifecycle_change_are_made_rows_and_a_read_is_a_state() -> None:
    run_id = str(uuid.UUID(int=7))
    event = run_event(
        "COMPLETE",
        run_id=run_id,
        inputs=[dataset(NS, "in", schema=SCHEMA)],
        outputs=[
            dataset(NS, "out", schema=SCHEMA),
            dataset(NS, "truncated", lifecycleStateChange=facet(lifecycleStateChange="TRUNCATE")),
        ],
    )
    rows = version_rows(event, "run", event_key="k", time_us=5, run_id=run_id)
    assert sorted(r["writes"] for r in rows.made.values()) == [1, 1]  # COMPLETE outputs
    (state,) = rows.states.values()
    assert state["time_us"] == 5
    assert state["run_id"] == uuid.UUID(run_id).bytes
    assert state["schema_id"] is not None
    start = run_event("START", run_id=run_id, outputs=[dataset(NS, "out", schema=SCHEMA)])
    rows = version_rows(start, "run", event_key="k2", time_us=4, run_id=run_id)
    assert rows.made == {}  # a START announces its output: a statement, not a write
    assert len(rows.states) == 1


@pytest.mark.parametrize("order", [[0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1]])
def test_readers_stating_one_schema_keep_one_row_of_the_earliest(
    store: Store, order: list[int]
) -> None:
    """Two runs' START and COMPLETE: one row, whatever order they arrive in."""
    events = [_reader(1, "START", 10), _reader(1, "COMPLETE", 11)]
    events += [_reader(2, "START", 3), _reader(2, "COMPLETE", 12)]
    for i in order:
        store.ingest(events[i])
    (row,) = store.rows(t.dataset_states)
    assert row["time_us"] == parse_us(at(3))
    assert row["run_id"] == uuid.UUID(int=2).bytes
    assert store.rows(t.dataset_versions) == []


def test_a_restatement_the_writer_knows_stored_sends_no_statement(store: Store) -> None:
    if store.dialect != "sqlite":
        pytest.skip("SQLite's trace callback shows the statements; the cache is the same")
    store.ingest(_reader(1, "START", 1))
    sql = store.traced_statements(lambda: store.ingest(_reader(2, "START", 2)))
    # the store's connections were replaced, not the writer's cache of ranks
    assert not [s for s in sql if t.dataset_states.name in s]
    sql = store.traced_statements(lambda: store.ingest(_reader(3, "START", 0)))
    assert [s for s in sql if t.dataset_states.name in s]  # an earlier one is sent
    (row,) = store.rows(t.dataset_states)
    assert row["time_us"] == parse_us(at(0))


def test_a_dataset_event_states_without_a_run(store: Store) -> None:
    store.ingest(dataset_event(NS, NAME, at(1), schema=SCHEMA, version=facet(datasetVersion="2")))
    (row,) = store.rows(t.dataset_states)
    assert (row["run_id"], row["job_id"], row["event_type"]) == (None, None, None)
    assert row["dataset_version"] == "2"
