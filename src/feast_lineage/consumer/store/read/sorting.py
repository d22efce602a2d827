"""Server-side sort orders of the job and run lists: the keys a caller may name.

A :class:`Sort` names one key and a direction. Each list's key maps to a
column expression; rows with no value for it (a job that never ran) come
last in either direction, and a unique tie-breaker (a job's namespace and
name, a run's id) follows, so every page of a sorted list is stable and no
row is skipped or shown twice, on SQLite, PostgreSQL and MySQL alike.
"""

from __future__ import annotations

from typing import NamedTuple, TypeVar

from sqlalchemy import ColumnElement, case

JOB_SORT_KEYS = (
    "name",
    "namespace",
    "producer",
    "updated",
    "latest_state",
    "latest_started",
    "latest_duration",
)
DATASET_SORT_KEYS = ("name", "namespace", "kind", "producer", "updated")
RUN_SORT_KEYS = ("started", "ended", "duration", "state", "job", "updated")


class Sort(NamedTuple):
    key: str
    descending: bool = False


# The types of a list's sort values and of its tie-breaker.
V = TypeVar("V")
K = TypeVar("K")


def ordering(
    values: tuple[ColumnElement[V], ...],
    sort: Sort,
    tie_breaker: tuple[ColumnElement[K], ...],
) -> list[ColumnElement[int] | ColumnElement[V] | ColumnElement[K]]:
    """ORDER BY terms: rows missing the first value last, the values, then the tie-breaker."""
    terms: list[ColumnElement[int] | ColumnElement[V] | ColumnElement[K]]
    terms = [case((values[0].is_(None), 1), else_=0)]
    terms.extend(v.desc() if sort.descending else v.asc() for v in values)
    terms.extend(c.desc() if sort.descending else c.asc() for c in tie_breaker)
    return terms
