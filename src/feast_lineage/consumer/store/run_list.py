"""Runs in any order the Runs list offers (newest first is :func:`.reads.runs_list`'s)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Connection, func, select

from feast_lineage.consumer.store import tables as t
from feast_lineage.consumer.store.positions import Page
from feast_lineage.consumer.store.reads import RunFilter, run_columns, run_where
from feast_lineage.consumer.store.sorting import Sort, ordering


def _sort_values(sort: Sort) -> tuple[ColumnElement[Any], ...]:
    r, j = t.runs.c, t.jobs.c
    return {
        "started": (r.started_us,),
        "ended": (r.ended_us,),
        "duration": (r.ended_us - r.started_us,),
        "state": (r.state,),
        "job": (j.namespace, j.name),
        "updated": (r.last_event_us,),
    }[sort.key]


def sorted_runs(conn: Connection, f: RunFilter, sort: Sort, offset: int, limit: int) -> Page:
    """Runs ``offset`` to ``offset + limit`` of those matching ``f``, in ``sort`` order."""
    where = run_where(f)
    total = int(conn.execute(select(func.count()).select_from(t.runs).where(*where)).scalar_one())
    if offset >= total:
        return Page(total, [])
    stmt = (
        run_columns()
        .where(*where)
        .order_by(*ordering(_sort_values(sort), sort, (t.runs.c.run_id,)))
        .limit(limit)
        .offset(offset)
    )
    return Page(total, list(conn.execute(stmt).all()))
