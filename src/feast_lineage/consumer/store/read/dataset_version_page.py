"""A page of a dataset's versions, read in proportion to the page, not to the history.

The answer is :func:`..dataset_versions.versions`' (the rule is there), read
without walking every row. It rests on two facts of the rows
(:mod:`feast_lineage.consumer.store.write.dataset_versions`):

* every row an event *made* (a write, a lifecycle change) is a version, so
  the made rows of a page are an index range of
  ``feast_lineage_dataset_versions`` (dataset, time, id), newest first,
  and their number a count over that range;
* the *state* rows are few (one per state a dataset was stated with, not
  one per event), so their keys and stated values are read whole (whole
  rows only for the states a page answers), and whether each is a version
  (it states a value other than the one carried before it) is decided
  with one indexed lookup per facet it states: the latest made row before
  it stating that facet.

A version's carried values (a write stating no schema keeps the one
before it) and what changed are then found by walking the page's own
versions, oldest first, from the values carried before the oldest: the
versions in between change nothing else (a state row that is not a
version states what was carried already).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from sqlalchemy import ColumnElement, Connection, and_, func, or_, select

from feast_lineage.consumer.store.read.dataset_versions import (
    DatasetVersion,
    ObservationRow,
    StateKey,
    made_row,
    made_rows_query,
    state_keys,
    state_rows,
)
from feast_lineage.consumer.store.schema import tables as t

Key = tuple[int, int]  # (event time µs, id): the order of a dataset's rows
_FACETS = ("schema_id", "dataset_version", "symlinks_id")
_CHANGE = {"schema_id": "schema", "dataset_version": "version", "symlinks_id": "symlinks"}


def _key(row: ObservationRow | StateKey) -> Key:
    return row.time_us, row.id


def _before(key: Key) -> ColumnElement[bool]:
    v = t.dataset_versions.c
    return or_(v.time_us < key[0], and_(v.time_us == key[0], v.id < key[1]))


def _at_or_after(key: Key) -> ColumnElement[bool]:
    v = t.dataset_versions.c
    return or_(v.time_us > key[0], and_(v.time_us == key[0], v.id >= key[1]))


@dataclass(frozen=True, slots=True)
class _Stated:
    """A state row that is a version (its key and stated values), with what it changed."""

    row: StateKey
    changes: tuple[str, ...]


class History:
    """One dataset's versions, for pages and single versions (``horizon_us``: see ``versions``)."""

    def __init__(
        self, conn: Connection, dataset: int, horizon_us: int | None, lookups: int = 32
    ) -> None:
        self.conn, self.dataset = conn, dataset
        self.states = state_keys(conn, dataset)  # oldest first: keys and stated values only
        self.whole_rows: dict[int, ObservationRow] = {}  # the state rows read whole, by id
        self.state_keys = [_key(row) for row in self.states]  # sorted: bisect them
        if len(self.states) <= lookups:
            found = [self._stated(row) for row in self.states]
        else:  # many states (a datasetVersion stated every run): one pass is cheaper
            found = self._stated_in_one_pass()
        self.stated = [s for s in found if s is not None]
        self.stated_keys = [_key(s.row) for s in self.stated]
        self.low = self._low(horizon_us)

    def _stated_between(self, low: Key | None, until_us: int | None) -> list[_Stated]:
        """The state versions with key at or after ``low`` and time before ``until_us``."""
        start = bisect_left(self.stated_keys, low) if low is not None else 0
        end = (
            bisect_left(self.stated_keys, (until_us, -(2**63)))
            if until_us is not None
            else len(self.stated)
        )
        return self.stated[start:end]

    def rows_of(self, stated: list[_Stated]) -> list[ObservationRow]:
        """The whole rows of ``stated`` (read once, in one statement, then kept)."""
        wanted = [s.row.id for s in stated if s.row.id not in self.whole_rows]
        for start in range(0, len(wanted), 500):
            for row in state_rows(self.conn, self.dataset, wanted[start : start + 500]):
                self.whole_rows[row.id] = row
        return [self.whole_rows[s.row.id] for s in stated]

    def _stated_in_one_pass(self) -> list[_Stated | None]:
        """Whether each state row is a version, walking the made rows' stated values once."""
        v = t.dataset_versions.c
        stmt = (
            select(v.time_us, v.id, *(getattr(v, c) for c in _FACETS))
            .where(v.dataset_id == self.dataset)
            .order_by(v.time_us, v.id)
        )
        made = self.conn.execute(stmt).all()
        schema = version = symlinks = None  # the values carried
        out: list[_Stated | None] = []
        at = 0
        for row in self.states:
            key = (row.time_us, row.id)
            while at < len(made) and (made[at][0], made[at][1]) < key:
                _, _, new_schema, new_version, new_symlinks = made[at]
                schema, version = new_schema or schema, new_version or version
                symlinks = new_symlinks or symlinks
                at += 1
            changes = []
            if row.schema_id is not None and row.schema_id != schema:
                changes.append("schema")
            if row.dataset_version is not None and row.dataset_version != version:
                changes.append("version")
            if row.symlinks_id is not None and row.symlinks_id != symlinks:
                changes.append("symlinks")
            out.append(_Stated(row, tuple(changes)) if changes else None)
            schema, version = row.schema_id or schema, row.dataset_version or version
            symlinks = row.symlinks_id or symlinks
        return out

    def _latest_made(self, before: Key, column: str | None = None) -> ObservationRow | None:
        """The newest made row before ``before`` (stating ``column``, when given)."""
        v = t.dataset_versions.c
        stmt = made_rows_query(self.dataset).where(_before(before))
        if column is not None:
            stmt = stmt.where(getattr(v, column).is_not(None))
        stmt = stmt.order_by(v.time_us.desc(), v.id.desc()).limit(1)
        found = self.conn.execute(stmt).first()
        return made_row(found) if found is not None else None

    def carried(self, before: Key, columns: tuple[str, ...] = _FACETS) -> dict[str, str | None]:
        """The value of each facet the rows before ``before`` last stated."""
        out: dict[str, str | None] = {}
        for column in columns:
            made = self._latest_made(before, column)
            best = (_key(made), getattr(made, column)) if made is not None else None
            for at in range(bisect_left(self.state_keys, before) - 1, -1, -1):
                row = self.states[at]
                if best is not None and self.state_keys[at] < best[0]:
                    break
                if getattr(row, column) is not None:
                    best = (self.state_keys[at], getattr(row, column))
                    break
            out[column] = best[1] if best is not None else None
        return out

    def _stated(self, row: StateKey) -> _Stated | None:
        stating = tuple(c for c in _FACETS if getattr(row, c) is not None)
        before = self.carried(_key(row), stating)
        changes = tuple(_CHANGE[c] for c in stating if getattr(row, c) != before[c])
        return _Stated(row, changes) if changes else None

    def _low(self, horizon_us: int | None) -> Key | None:
        """The oldest version answered: past a prune, the last one before the horizon."""
        if horizon_us is None:
            return None
        made = self._latest_made((horizon_us, -1))
        found = [_key(made)] if made is not None else []
        at = bisect_left(self.stated_keys, (horizon_us, -1))
        found += [self.stated_keys[at - 1]] if at > 0 else []
        return max(found) if found else None

    def count(self, since: Key | None, until_us: int | None) -> int:
        """The versions answered with key at or after ``since`` and time before ``until_us``."""
        low = max((k for k in (since, self.low) if k is not None), default=None)
        v = t.dataset_versions.c
        stmt = (
            select(func.count()).select_from(t.dataset_versions).where(v.dataset_id == self.dataset)
        )
        if low is not None:
            stmt = stmt.where(_at_or_after(low))
        if until_us is not None:
            stmt = stmt.where(v.time_us < until_us)
        made = int(self.conn.execute(stmt).scalar_one())
        return made + len(self._stated_between(low, until_us))

    def newest(
        self, since: Key | None, until_us: int | None, n: int, skip: int = 0
    ) -> list[ObservationRow]:
        """The ``n`` newest versions' rows in the window, newest first, less the first ``skip``.

        Only the state rows kept are read whole.
        """
        low = max((k for k in (since, self.low) if k is not None), default=None)
        v = t.dataset_versions.c
        stmt = made_rows_query(self.dataset)
        if low is not None:
            stmt = stmt.where(_at_or_after(low))
        if until_us is not None:
            stmt = stmt.where(v.time_us < until_us)
        stmt = stmt.order_by(v.time_us.desc(), v.id.desc()).limit(n)
        made = [made_row(row) for row in self.conn.execute(stmt)]
        stated = self._stated_between(low, until_us)[-n:]
        keys = sorted([_key(row) for row in made] + [_key(s.row) for s in stated], reverse=True)
        kept = set(keys[skip:n])
        rows = [row for row in made if _key(row) in kept]
        rows += self.rows_of([s for s in stated if _key(s.row) in kept])
        rows.sort(key=_key, reverse=True)
        return rows

    def previous(self, key: Key) -> ObservationRow | None:
        """The version answered just before ``key``."""
        made = self._latest_made(key)
        found = [made] if made is not None else []
        at = bisect_left(self.stated_keys, key)
        if at > 0 and (made is None or _key(made) < self.stated_keys[at - 1]):
            found = self.rows_of([self.stated[at - 1]])  # read whole only when it is the one
        best = max(found, key=_key, default=None)
        if best is None or (self.low is not None and _key(best) < self.low):
            return None
        return best

    def walk(self, rows: list[ObservationRow], first_number: int) -> list[DatasetVersion]:
        """``rows`` (consecutive versions, oldest first), numbered from ``first_number``."""
        if not rows:
            return []
        first = _key(rows[0])
        carried = self.carried(first)
        before = self.previous(first)
        changed = {_key(s.row): s.changes for s in self._stated_between(first, None)}
        out: list[DatasetVersion] = []
        for number, row in enumerate(rows, start=first_number):
            changes = changed.get(_key(row)) if row.stated else _made_changes(row, carried)
            for column in _FACETS:
                carried[column] = getattr(row, column) or carried[column]
            out.append(
                DatasetVersion(
                    row=row,
                    number=number,
                    schema_id=carried["schema_id"],
                    symlinks_id=carried["symlinks_id"],
                    changes=changes or (),
                    previous_id=before.id if before is not None else None,
                )
            )
            before = row
        return out


def _made_changes(row: ObservationRow, carried: dict[str, str | None]) -> tuple[str, ...]:
    changes = ["write"] if row.writes else []
    if row.schema_id is not None and row.schema_id != carried["schema_id"]:
        changes.append("schema")
    if row.lifecycle_id is not None:
        changes.append("lifecycle")
    if row.dataset_version is not None and row.dataset_version != carried["dataset_version"]:
        changes.append("version")
    if row.symlinks_id is not None and row.symlinks_id != carried["symlinks_id"]:
        changes.append("symlinks")
    return tuple(changes)


def page(
    history: History, since_us: int | None, until_us: int | None, offset: int, limit: int
) -> tuple[int, list[DatasetVersion]]:
    """The total of versions made in [since, until) and a page of them, newest first."""
    since = (since_us, -(2**63)) if since_us is not None else None
    total = history.count(since, until_us)
    if offset >= total:
        return total, []
    newest = history.newest(since, until_us, offset + limit, offset)
    newest.reverse()
    up_to = history.count(None, until_us)  # the number of the newest in the window
    first_number = up_to - offset - len(newest) + 1
    found = history.walk(newest, first_number)
    found.reverse()
    return total, found


def one(history: History, version: int) -> tuple[DatasetVersion, DatasetVersion | None] | None:
    """Version ``version`` (an id) with the version before it, if it is answered."""
    row = _find(history, version)
    if row is None or (history.low is not None and _key(row) < history.low):
        return None
    before = history.previous(_key(row))
    rows = [before, row] if before is not None else [row]
    number = history.count(None, None) - history.count((row.time_us, row.id + 1), None)
    found = history.walk(rows, number - len(rows) + 1)
    return found[-1], (found[0] if before is not None else None)


def _find(history: History, version: int) -> ObservationRow | None:
    for stated in history.stated:
        if stated.row.id == version:
            return history.rows_of([stated])[0]
    v = t.dataset_versions.c
    stmt = made_rows_query(history.dataset).where(v.id == version)
    found = history.conn.execute(stmt).first()
    return made_row(found) if found is not None else None
