"""Fast pages anywhere in a long list: a cached index of checkpoint keys.

``OFFSET n`` and ``COUNT(*)`` walk n rows, which at a million events takes
tens of milliseconds on SQLite. :class:`PositionCache` instead remembers,
per list (a table, a filter and a descending sort key), the total and the
sort key of every ``every``-th row. A page at offset n then starts from the
nearest checkpoint (``WHERE key <= checkpoint ... OFFSET n - position``) and
walks fewer than ``every`` rows.

Rows added since the checkpoints were taken are found by a *watermark*
column that grows with every insert (the events' ``id``; the SQLite rowid
of runs). Each page reads those new rows' keys (few, through the primary
key) and shifts every checkpoint by the number of new rows sorting before
it, so totals and positions are exact. Deletes (prune, reset) bump the
store generation, which drops the cache. On PostgreSQL ids are handed out
before commit, so a build covers only rows ``margin`` ids below the
highest, and the rest count as new.

Entries are rebuilt when the generation changes, when more than
``max_new`` rows were added, or after ``max_age`` seconds (a run whose start
time moves when a late START arrives keeps its old position until then).
Lists shorter than ``min_rows``, or without a watermark, are paged directly:
a count, then ``OFFSET`` from whichever end is nearer.
"""

from __future__ import annotations

import threading
import time
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import ColumnElement, Connection, FromClause, Row, Select, func, select, tuple_

R = TypeVar("R")

# A row of a list's query, whatever its columns: the list's ``record`` types it.
AnyRow = Row[*tuple[Any, ...]]


@dataclass(frozen=True, slots=True)
class OrderedList(Generic[R]):
    """A list to page: rows of ``table`` matching ``where``, sorted by ``order`` descending.

    ``columns`` selects what a page shows from ``table`` (joins are fine) and
    ``record`` makes each of its rows the list's typed record: the one place
    the list's rows are mapped.
    """

    key: Hashable
    table: FromClause
    order: tuple[ColumnElement[Any], ...]
    where: tuple[ColumnElement[bool], ...]
    columns: Select[*tuple[Any, ...]]
    record: Callable[[AnyRow], R]
    watermark: ColumnElement[Any] | None = None
    margin: int = 0


@dataclass
class _Entry:
    generation: str
    watermark: int
    total: int
    checkpoints: list[tuple[Any, ...]]  # checkpoint i: key of the row at (i + 1) * every
    built: float


@dataclass(frozen=True, slots=True)
class Page(Generic[R]):
    """One page of a list: its records, and how many the whole list holds."""

    total: int
    rows: list[R]


class PositionCache:
    def __init__(
        self,
        *,
        every: int = 2000,
        min_rows: int = 20_000,
        max_new: int = 20_000,
        max_age: float = 120.0,
        max_entries: int = 64,
    ) -> None:
        self.every = every
        self.min_rows = min_rows
        self.max_new = max_new
        self.max_age = max_age
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def page(
        self,
        conn: Connection,
        spec: OrderedList[R],
        generation: str,
        *,
        offset: int,
        limit: int,
    ) -> Page[R]:
        """Records ``offset`` to ``offset + limit`` of ``spec``.

        This adds the filter, order, and bounds to ``spec.columns``.
        """
        entry = self._valid_entry(spec.key, generation)
        if entry is None and spec.watermark is not None:
            entry = self._build(conn, spec, generation)
        if entry is None:
            return self._direct(conn, spec, offset, limit)
        assert spec.watermark is not None
        new = self._new_keys(conn, spec, entry.watermark)
        if new is None:
            entry = self._build(conn, spec, generation, force=True)
            if entry is None:
                return self._direct(conn, spec, offset, limit)
            new = self._new_keys(conn, spec, entry.watermark) or []
        total = entry.total + len(new)
        if offset >= total:
            return Page(total, [])
        start, skip = self._start(entry, new, offset)
        stmt = spec.columns.where(*spec.where)
        if start is not None:
            stmt = stmt.where(tuple_(*spec.order) <= tuple_(*start))
        stmt = stmt.order_by(*(c.desc() for c in spec.order)).limit(limit).offset(skip)
        return Page(total, [spec.record(row) for row in conn.execute(stmt)])

    # --- internals ----------------------------------------------------------

    def _valid_entry(self, key: Hashable, generation: str) -> _Entry | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry.generation != generation or time.monotonic() - entry.built > self.max_age:
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return entry

    def _start(
        self, entry: _Entry, new: list[tuple[Any, ...]], offset: int
    ) -> tuple[tuple[Any, ...] | None, int]:
        """The checkpoint to start from and how many rows to skip after it."""
        ascending = sorted(new)

        def position(i: int) -> int:
            before = len(ascending) - bisect_right(ascending, entry.checkpoints[i])
            return (i + 1) * self.every + before

        lo, hi = 0, len(entry.checkpoints)  # find the last i with position(i) <= offset
        while lo < hi:
            mid = (lo + hi) // 2
            if position(mid) <= offset:
                lo = mid + 1
            else:
                hi = mid
        if lo == 0:
            return None, offset
        return entry.checkpoints[lo - 1], offset - position(lo - 1)

    def _new_keys(
        self, conn: Connection, spec: OrderedList[R], watermark: int
    ) -> list[tuple[Any, ...]] | None:
        assert spec.watermark is not None
        stmt = (
            select(*spec.order)
            .select_from(spec.table)
            .where(*spec.where, spec.watermark > watermark)
            .limit(self.max_new + 1)
        )
        rows = [tuple(r) for r in conn.execute(stmt).all()]
        return None if len(rows) > self.max_new else rows

    def _build(
        self, conn: Connection, spec: OrderedList[R], generation: str, *, force: bool = False
    ) -> _Entry | None:
        assert spec.watermark is not None
        high = conn.execute(select(func.max(spec.watermark)).select_from(spec.table)).scalar()
        mark = max(int(high or 0) - spec.margin, 0)
        # Without a margin (SQLite) the read transaction is a snapshot: every
        # row it sees is at or below the mark, and an unfiltered count can
        # use SQLite's fast whole-table count.
        covered = (*spec.where, spec.watermark <= mark) if spec.margin else spec.where
        total = int(
            conn.execute(select(func.count()).select_from(spec.table).where(*covered)).scalar_one()
        )
        if total < self.min_rows and not force:
            return None
        checkpoints: list[tuple[Any, ...]] = []
        desc = [c.desc() for c in spec.order]
        last: tuple[Any, ...] | None = None
        while True:
            stmt = select(*spec.order).select_from(spec.table).where(*covered)
            if last is None:
                stmt = stmt.order_by(*desc).limit(1).offset(self.every)
            else:
                stmt = stmt.where(tuple_(*spec.order) < tuple_(*last))
                stmt = stmt.order_by(*desc).limit(1).offset(self.every - 1)
            row = conn.execute(stmt).first()
            if row is None:
                break
            last = tuple(row)
            checkpoints.append(last)
        entry = _Entry(generation, mark, total, checkpoints, time.monotonic())
        with self._lock:
            self._entries[spec.key] = entry
            self._entries.move_to_end(spec.key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return entry

    def _direct(self, conn: Connection, spec: OrderedList[R], offset: int, limit: int) -> Page[R]:
        total = int(
            conn.execute(
                select(func.count()).select_from(spec.table).where(*spec.where)
            ).scalar_one()
        )
        rows = _read_window(conn, spec.columns.where(*spec.where), spec.order, total, offset, limit)
        return Page(total, [spec.record(row) for row in rows])


def _read_window(
    conn: Connection,
    query: Select[Any],
    order: Sequence[ColumnElement[Any]],
    total: int,
    offset: int,
    limit: int,
) -> list[AnyRow]:
    """Rows ``offset`` to ``offset + limit`` of ``query`` sorted by ``order`` descending.

    Reads from whichever end of the list is nearer, so the deepest page costs
    as little as the first.
    """
    if offset >= total:
        return []
    from_end = total - offset - limit
    if from_end < offset:
        take = min(limit, total - offset)
        stmt = query.order_by(*(c.asc() for c in order)).limit(take).offset(max(from_end, 0))
        return list(reversed(conn.execute(stmt).all()))
    stmt = query.order_by(*(c.desc() for c in order)).limit(limit).offset(offset)
    return list(conn.execute(stmt).all())
