"""The longest run the store has held, kept in meta for window answers.

A run overlaps a window [since, until) when it started before ``until`` and
has no end or ended at or after ``since``; nothing there bounds its start
from below. The window reads (:mod:`..read.window`) bound it with
``max_run_us``: the longest run (end minus start) the store has held, so
every run that ended at or after ``since`` started at or after
``since - max_run_us``. The bound must never be below a stored run's
duration, whatever order events arrive in: after each transaction's run
upserts, the writer reads the merged rows of the batch's ended runs (a
primary-key lookup each) and raises the meta value when one is longer. A
run's duration can also shrink (a late START after its first event): the
value is then above the truth, which keeps answers exact and only widens
the scan. It is never lowered, neither by a prune nor by a reset.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import BindParameter, Connection, func, select, update

from feast_lineage.consumer.store.engine.dialect import insert_ignore
from feast_lineage.consumer.store.engine.meta import MAX_RUN_KEY
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.write.cache import WriteCache

Fetch = Callable[[str, Callable[[list[BindParameter[Any]]], Any], Sequence[Any]], list[Any]]


def _longest(ids: list[BindParameter[Any]]) -> Any:
    r = t.runs.c
    return select(func.max(r.ended_us - r.started_us)).where(
        r.run_id.in_(ids), r.ended_us.is_not(None)
    )


def note_longest_run(
    conn: Connection, fetch: Fetch, run_ids: Sequence[str], cache: WriteCache
) -> None:
    """Raise meta's ``max_run_us`` to the longest of the batch's runs, as stored now."""
    cache.pending_max_run_us = None
    rows = fetch("longest_run", _longest, sorted(set(run_ids)))
    longest = rows[0][0] if rows else None
    if longest is None or (cache.max_run_us is not None and longest <= cache.max_run_us):
        return
    longest = max(int(longest), 0)
    m = t.meta.c
    # Locked until commit: two writers raising it at once keep the higher.
    stmt = select(m.value).where(m.key == MAX_RUN_KEY)
    if conn.dialect.name != "sqlite":
        stmt = stmt.with_for_update()
    value = conn.execute(stmt).scalar_one_or_none()
    if value is None:  # a store made before migration 0019's row: add it, then lock it
        conn.execute(insert_ignore(conn, t.meta, ["key"]), [{"key": MAX_RUN_KEY, "value": "0"}])
        value = conn.execute(stmt).scalar_one()
    stored = int(value)
    if longest > stored:
        conn.execute(update(t.meta).where(m.key == MAX_RUN_KEY).values(value=str(longest)))
    cache.pending_max_run_us = max(longest, stored)


def remember_longest_run(cache: WriteCache) -> None:
    """After a commit: the value raised is now known stored."""
    if cache.pending_max_run_us is not None:
        cache.max_run_us = max(cache.max_run_us or 0, cache.pending_max_run_us)
        cache.pending_max_run_us = None


def recompute_longest_run(conn: Connection) -> None:
    """Set ``max_run_us`` to the longest run stored now (after a prune or reset).

    The caller bumps the generation first in the same transaction: that
    waits for in-flight writers and makes every writer drop its cached
    value, so none skips raising it on a stale, higher one.
    """
    r = t.runs.c
    longest = conn.execute(
        select(func.max(r.ended_us - r.started_us)).where(r.ended_us.is_not(None))
    ).scalar_one_or_none()
    value = str(max(int(longest or 0), 0))
    conn.execute(insert_ignore(conn, t.meta, ["key"]), [{"key": MAX_RUN_KEY, "value": value}])
    conn.execute(update(t.meta).where(t.meta.c.key == MAX_RUN_KEY).values(value=value))
