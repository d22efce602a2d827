"""Upserts on MySQL: assignments ordered so none reads a column already assigned."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import case
from sqlalchemy.dialects import mysql

from feast_lineage.consumer.store.engine.dialect import _assignment_order
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.write.merge_rules import DATASETS, FACETS, JOB_FACETS, JOBS, RUNS
from feast_lineage.consumer.store.write.upserts import assignments


def order(table: Any, builder: Any) -> list[str]:
    stmt = mysql.insert(table)
    return [name for name, _ in _assignment_order(table, builder(table.c, stmt.inserted))]


def before(names: list[str], first: str, *then: str) -> bool:
    return all(names.index(first) < names.index(other) for other in then)


def test_each_column_is_assigned_before_the_columns_its_neighbours_read() -> None:
    runs = order(t.runs, assignments(RUNS))
    assert before(runs, "state", "state_rank")
    assert before(runs, "ended_us", "state_rank")
    assert before(runs, "started_us", "start_event_us", "first_event_us")
    jobs = order(t.jobs, assignments(JOBS))
    assert before(jobs, "producer", "updated_us")
    assert before(jobs, "input_run", "input_rank")
    assert before(jobs, "output_run", "output_rank")
    datasets = order(t.datasets, assignments(DATASETS))
    assert before(datasets, "datasource_uri", "uri_rank")
    assert before(datasets, "uri_id", "uri_rank")
    assert before(order(t.job_facets, assignments(JOB_FACETS)), "blob_id", "rank")
    # A dataset facet's bound reads the stored rank and payload before either moves.
    assert before(order(t.dataset_facets, assignments(FACETS)), "other_rank", "blob_id", "rank")


def test_a_cycle_cannot_be_ordered() -> None:
    def crossed(c: Any, x: Any) -> dict[str, Any]:
        return {
            "rank": case((x.blob_id > c.blob_id, x.rank), else_=c.rank),
            "blob_id": case((x.rank > c.rank, x.blob_id), else_=c.blob_id),
        }

    with pytest.raises(ValueError, match="cycle"):
        order(t.job_facets, crossed)
