"""Dataset versions in the store: the rule on rows, and one answer whatever the order."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feast_lineage.consumer.store.read.dataset_versions import (
    ObservationRow,
    observations,
    versions,
)
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.identity import dataset_id
from tests.factories import at, dataset, dataset_event, facet, run_event, schema_facet
from tests.store_helpers import Store, ingest_shuffled

NS, NAME = "lake", "t"


def row(i: int, **values: Any) -> ObservationRow:
    base: dict[str, Any] = {
        "id": i,
        "time_us": i,
        "run_id": None,
        "job_id": None,
        "event_type": None,
        "writes": 0,
        "schema_id": None,
        "lifecycle_id": None,
        "dataset_version": None,
        "symlinks_id": None,
        "row_count": None,
        "byte_count": None,
        "file_count": None,
        "facets_digest": 0,
    }
    return ObservationRow(**{**base, **values})


def test_writes_and_changes_are_versions_and_repeats_are_not() -> None:
    rows = [
        row(1, schema_id="a"),  # first schema: a change
        row(2, schema_id="a"),  # same: nothing
        row(3, writes=1),  # a write: keeps schema a
        row(4, schema_id="b", dataset_version="1"),
        row(5, dataset_version="1", symlinks_id="s"),
        row(6, lifecycle_id="l"),
        row(7, lifecycle_id="l"),  # each lifecycle change is one
    ]
    found = versions(rows)
    assert [(v.row.time_us, v.changes) for v in found] == [
        (1, ("schema",)),
        (3, ("write",)),
        (4, ("schema", "version")),
        (5, ("symlinks",)),
        (6, ("lifecycle",)),
        (7, ("lifecycle",)),
    ]
    assert [v.number for v in found] == [1, 2, 3, 4, 5, 6]
    assert [v.schema_id for v in found] == ["a", "a", "b", "b", "b", "b"]
    assert found[1].previous_id == found[0].row.id
    assert found[0].previous_id is None


def test_past_the_horizon_only_the_last_older_version_is_answered() -> None:
    rows = [row(1, schema_id="a"), row(2, writes=1), row(3, schema_id="b"), row(9, writes=1)]
    found = versions(rows, horizon_us=5)
    assert [(v.row.time_us, v.number, v.previous_id) for v in found] == [
        (3, 1, None),
        (9, 2, rows[2].id),
    ]


# --- order and duplication ------------------------------------------------------

_SCHEMAS = [schema_facet("a"), schema_facet("a", "b"), schema_facet("b")]
_STEPS = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["run", "run", "run", "dataset", "reader"]),
        "type": st.sampled_from(["START", "RUNNING", "COMPLETE", "FAIL"]),
        "schema": st.sampled_from([None, 0, 1, 2]),
        "rows": st.sampled_from([None, 10, 20]),
        "version": st.sampled_from([None, "1", "2"]),
        "lifecycle": st.booleans(),
        "run": st.integers(0, 2),
        "time": st.integers(0, 5),  # equal times: ties go by id
    }
)


def _event(step: dict[str, Any], i: int) -> dict[str, Any]:
    facets: dict[str, Any] = {}
    if step["schema"] is not None:
        facets["schema"] = _SCHEMAS[step["schema"]]
    if step["version"] is not None:
        facets["version"] = facet(datasetVersion=step["version"])
    if step["lifecycle"]:
        facets["lifecycleStateChange"] = facet(lifecycleStateChange="OVERWRITE")
    time = at(step["time"] + i / 10)
    if step["kind"] == "dataset":
        return dataset_event(NS, NAME, time, **facets)
    ds = dataset(NS, NAME, **facets)
    if step["rows"] is not None:
        ds["outputFacets"] = {"outputStatistics": facet(rowCount=step["rows"], size=1)}
    run_id = str(uuid.UUID(int=step["run"] + 1))
    if step["kind"] == "reader":
        return run_event(step["type"], run_id=run_id, job=("spark", "r"), time=time, inputs=[ds])
    return run_event(step["type"], run_id=run_id, job=("spark", "w"), time=time, outputs=[ds])


def _answer(store: Store) -> list[tuple[Any, ...]]:
    with store.engine.connect() as conn:
        found = versions(observations(conn, dataset_id(NS, NAME)))
    return [(v.row, v.number, v.schema_id, v.symlinks_id, v.changes, v.previous_id) for v in found]


@pytest.mark.slow
def test_versions_do_not_depend_on_order_or_duplication(two_stores: tuple[Store, Store]) -> None:
    """Runs writing and reading one dataset with changing schemas, statistics and versions."""
    a, b = two_stores
    examples = 40 if a.dialect == "sqlite" else 10

    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.lists(_STEPS, min_size=1, max_size=8), st.data())
    def check(steps: list[dict[str, Any]], data: st.DataObject) -> None:
        a.reset()
        b.reset()
        events = [_event(step, i) for i, step in enumerate(steps)]
        for event in sorted(events, key=lambda e: e["eventTime"]):
            a.ingest(event)
        ingest_shuffled(b, events, data, max_dups=3)
        assert _answer(a) == _answer(b)
        assert sorted(a.rows(t.dataset_versions), key=repr) == sorted(
            b.rows(t.dataset_versions), key=repr
        )

    check()


def test_a_version_points_at_the_stored_schema_blob(store: Store) -> None:
    schema = schema_facet("x", "y")
    for i in range(3):  # three runs writing one schema: one blob
        store.ingest(run_event("COMPLETE", time=at(i), outputs=[dataset(NS, NAME, schema=schema)]))
    rows = store.rows(t.dataset_versions)
    assert len(rows) == 3
    assert len({r["schema_id"] for r in rows}) == 1
    blob = store.one(t.facet_blobs, t.facet_blobs.c.id == rows[0]["schema_id"])
    assert blob is not None
    assert '"fields"' in blob["payload"]
