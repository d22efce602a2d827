"""Two bounds on the stored runs, kept in meta for the reads of the past.

* ``max_run_us``, the longest run (end minus start) the store has held.
  A run overlaps a window [since, until) when it started before ``until``
  and has no end or ended at or after ``since``; nothing there bounds its
  start from below. The window reads (:mod:`..read.window`) bound it: every
  run that ended at or after ``since`` started at or after
  ``since - max_run_us``.
* ``max_start_lead_us``, the longest a run's START came after its first
  event (its stored start minus its first event; 0 when START came first
  or never). A job's latest run at an instant ``T`` is the one started last
  by then, and a run whose START came after ``T`` had started then at its
  first event: the as-of reads (:mod:`..read.catalog_as_of`) find those
  among the runs stored as started in (T, T + max_start_lead_us].

Each bound must never be below a stored run's value, whatever order events
arrive in: after each transaction's run upserts, the writer reads the
merged rows of the batch's runs (one statement, a primary-key lookup each)
and raises a meta value when a run's is higher. A run's value can also
shrink (a late START after its first event shortens its duration, an
earlier START its lead): the bound is then above the truth, which keeps
answers exact and only widens a scan. Ingest never lowers them; a prune or
a reset sets them from the runs kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import BindParameter, Connection, case, func, select, update

from feast_lineage.consumer.store.engine.dialect import insert_ignore
from feast_lineage.consumer.store.engine.meta import MAX_LEAD_KEY, MAX_RUN_KEY
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.write.cache import WriteCache

Fetch = Callable[[str, Callable[[list[BindParameter[Any]]], Any], Sequence[Any]], list[Any]]
# The meta keys, in the order of the aggregates of _bounds (and of their row locks).
_KEYS = (MAX_RUN_KEY, MAX_LEAD_KEY)


def _aggregates() -> tuple[Any, Any]:
    r = t.runs.c
    longest = func.max(case((r.ended_us.is_not(None), r.ended_us - r.started_us)))
    return longest, func.max(r.started_us - r.first_event_us)


def _bounds(ids: list[BindParameter[Any]]) -> Any:
    return select(*_aggregates()).where(t.runs.c.run_id.in_(ids))


def _raised(found: Sequence[Any], cache: WriteCache) -> dict[str, int]:
    """The bounds among ``found`` above what this writer knows stored."""
    out: dict[str, int] = {}
    for key, value in zip(_KEYS, found, strict=True):
        known = cache.run_bounds.get(key)
        if value is not None and (known is None or int(value) > known):
            out[key] = max(int(value), 0)
    return out


def note_run_bounds(
    conn: Connection, fetch: Fetch, run_ids: Sequence[str], cache: WriteCache
) -> None:
    """Raise meta's run bounds to the batch's runs, as stored now."""
    cache.pending_run_bounds = {}
    rows = fetch("run_bounds", _bounds, sorted(set(run_ids)))
    raised = _raised(rows[0], cache) if rows else {}
    if not raised:
        return
    m = t.meta.c
    # Locked until commit, in key order: two writers raising at once keep the higher.
    stmt = select(m.key, m.value).where(m.key.in_(sorted(raised))).order_by(m.key)
    if conn.dialect.name != "sqlite":
        stmt = stmt.with_for_update()
    stored = {str(k): int(v) for k, v in conn.execute(stmt)}
    if len(stored) < len(raised):  # a store made before the migration that added a row
        missing = [{"key": k, "value": "0"} for k in raised if k not in stored]
        conn.execute(insert_ignore(conn, t.meta, ["key"]), missing)
        stored = {str(k): int(v) for k, v in conn.execute(stmt)}
    for key, value in raised.items():
        if value > stored[key]:
            conn.execute(update(t.meta).where(m.key == key).values(value=str(value)))
        cache.pending_run_bounds[key] = max(value, stored[key])


def remember_run_bounds(cache: WriteCache) -> None:
    """After a commit: the values raised are now known stored."""
    for key, value in cache.pending_run_bounds.items():
        cache.run_bounds[key] = max(cache.run_bounds.get(key, 0), value)
    cache.pending_run_bounds = {}


def recompute_run_bounds(conn: Connection) -> None:
    """Set the run bounds from the runs stored now (after a prune or reset).

    The caller bumps the generation first in the same transaction: that
    waits for in-flight writers and makes every writer drop its cached
    values, so none skips raising one on a stale, higher value.
    """
    r = t.runs.c
    longest, lead = _aggregates()
    found = (
        conn.execute(select(longest).where(r.ended_us.is_not(None))).scalar_one_or_none(),
        conn.execute(select(lead).where(r.started_us > r.first_event_us)).scalar_one_or_none(),
    )
    for key, value in zip(_KEYS, found, strict=True):
        text = str(max(int(value or 0), 0))
        conn.execute(insert_ignore(conn, t.meta, ["key"]), [{"key": key, "value": text}])
        conn.execute(update(t.meta).where(t.meta.c.key == key).values(value=text))
