"""The repository's read side: typed SQLAlchemy queries for the API.

Every function takes ``ns_ids``, the namespace ids the caller may see
(``None``: all of them), and never returns a row outside them. Graph
queries live in :mod:`.graph`, administration in :mod:`.maintenance`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson
from sqlalchemy import (
    ColumnElement,
    Connection,
    Select,
    bindparam,
    false,
    func,
    literal_column,
    select,
)

from feast_lineage.consumer.store import tables as t
from feast_lineage.consumer.store.meta import GENERATION_KEY
from feast_lineage.consumer.store.positions import OrderedList

NsIds = frozenset[int] | None

# On PostgreSQL ids are taken before commit: rows this far below the highest
# id may still be committing when a position index is built.
_ID_MARGIN = 50_000


def in_ids(column: Any, ids: Collection[Any] | None) -> ColumnElement[bool] | None:
    """``column IN ids``, None for "no limit", always false for an empty set."""
    if ids is None:
        return None
    if not ids:
        return false()
    return column.in_(sorted(ids))  # type: ignore[no-any-return]


def where_all(*conditions: ColumnElement[bool] | None) -> tuple[ColumnElement[bool], ...]:
    return tuple(c for c in conditions if c is not None)


def read_meta(conn: Connection, key: str) -> str | None:
    """A value of the store's meta table (generation, retention state)."""
    value: str | None = conn.execute(
        select(t.meta.c.value).where(t.meta.c.key == key)
    ).scalar_one_or_none()
    return value


def generation(conn: Connection) -> str:
    """The store generation (changes on every reset and prune)."""
    return read_meta(conn, GENERATION_KEY) or "0"


def count(conn: Connection, table: Any, *where: ColumnElement[bool]) -> int:
    return int(conn.execute(select(func.count()).select_from(table).where(*where)).scalar_one())


# --- facets --------------------------------------------------------------------


def load_facets(conn: Connection, table: Any, owner: Any) -> dict[str, Any]:
    return facets_of(conn, table, [owner]).get(owner, {})


@lru_cache(maxsize=8)
def _facets_statement(table: Any) -> Any:
    return (
        select(table.c.owner_id, table.c.name, t.facet_blobs.c.payload)
        .join(t.facet_blobs, t.facet_blobs.c.id == table.c.blob_id)
        .where(table.c.owner_id.in_(bindparam("owners", expanding=True)))
    )


def facets_of(
    conn: Connection, table: Any, owners: Iterable[Any], *, raw: bool = False
) -> dict[Any, dict[str, Any]]:
    """Owner -> {facet name: payload} for many owners, one query per 2000 owners.

    ``raw``: payloads as the stored JSON text, not decoded.
    """
    wanted = sorted(set(owners))
    out: dict[Any, dict[str, Any]] = {}
    stmt = _facets_statement(table)
    for start in range(0, len(wanted), 2000):
        rows = conn.execute(stmt, {"owners": wanted[start : start + 2000]}).all()
        for owner, name, payload in rows:
            out.setdefault(owner, {})[name] = payload if raw else orjson.loads(payload)
    return out


# --- events --------------------------------------------------------------------


@dataclass(frozen=True)
class EventFilter:
    ns_ids: NsIds = None
    subject_ids: frozenset[int] | None = None
    run_id: str | None = None
    event_type: str | None = None
    since_us: int | None = None
    until_us: int | None = None


def job_ids_named(conn: Connection, name: str, ns_ids: NsIds) -> frozenset[int]:
    j = t.jobs.c
    stmt = select(j.id).where(j.name == name, *where_all(in_ids(j.ns_id, ns_ids)))
    return frozenset(conn.execute(stmt).scalars().all())


def events_list(conn: Connection, f: EventFilter) -> OrderedList:
    e = t.events.c
    where = where_all(
        in_ids(e.ns_id, f.ns_ids),
        in_ids(e.subject_id, f.subject_ids),
        e.run_id == f.run_id if f.run_id is not None else None,
        e.event_type == f.event_type if f.event_type is not None else None,
        e.event_time_us >= f.since_us if f.since_us is not None else None,
        e.event_time_us < f.until_us if f.until_us is not None else None,
    )
    return OrderedList(
        key=("events", f),
        table=t.events,
        order=(e.event_time_us, e.id),
        where=where,
        watermark=e.id,
        margin=0 if conn.dialect.name == "sqlite" else _ID_MARGIN,
    )


def stored_event_keys(conn: Connection, keys: Collection[str]) -> set[str]:
    """Those of ``keys`` (dedup keys) whose event is stored."""
    found: set[str] = set()
    wanted = sorted(keys)
    for start in range(0, len(wanted), 2000):
        stmt = select(t.events.c.event_key).where(
            t.events.c.event_key.in_(wanted[start : start + 2000])
        )
        found.update(conn.execute(stmt).scalars().all())
    return found


def event_columns() -> Select[Any]:
    e = t.events.c
    return select(
        e.id, e.event_key, e.kind, e.event_type, e.event_time_us, e.received_us, e.run_id, e.payload
    )


# --- runs ----------------------------------------------------------------------


@dataclass(frozen=True)
class RunFilter:
    ns_ids: NsIds = None
    job_ids: frozenset[int] | None = None
    state: str | None = None
    since_us: int | None = None  # started at or after
    until_us: int | None = None  # started before


def run_where(f: RunFilter) -> tuple[ColumnElement[bool], ...]:
    r = t.runs.c
    return where_all(
        in_ids(r.ns_id, f.ns_ids),
        in_ids(r.job_id, f.job_ids),
        r.state == f.state if f.state is not None else None,
        r.started_us >= f.since_us if f.since_us is not None else None,
        r.started_us < f.until_us if f.until_us is not None else None,
    )


def job_ids_containing(conn: Connection, text: str, ns_ids: NsIds) -> frozenset[int]:
    """Ids of the jobs whose name contains ``text`` (any case)."""
    j = t.jobs.c
    stmt = select(j.id).where(
        j.name.icontains(text, autoescape=True), *where_all(in_ids(j.ns_id, ns_ids))
    )
    return frozenset(conn.execute(stmt).scalars().all())


def runs_list(conn: Connection, f: RunFilter) -> OrderedList:
    r = t.runs.c
    where = run_where(f)
    # Only SQLite has a rowid that grows with each new run; elsewhere runs
    # are paged directly.
    watermark: ColumnElement[Any] | None = (
        literal_column(f"{t.runs.name}.rowid") if conn.dialect.name == "sqlite" else None
    )
    return OrderedList(
        key=("runs", f),
        table=t.runs,
        order=(r.started_us, r.run_id),
        where=where,
        watermark=watermark,
    )


def run_columns() -> Select[Any]:
    r, j = t.runs.c, t.jobs.c
    return select(
        r.run_id,
        r.state,
        r.started_us,
        r.ended_us,
        r.last_event_us,
        r.parent_run_id,
        r.root_run_id,
        r.ns_id,
        j.namespace.label("job_namespace"),
        j.name.label("job_name"),
    ).select_from(t.runs.join(t.jobs, t.jobs.c.id == r.job_id))


def get_run(conn: Connection, run_id: str, ns_ids: NsIds) -> Any:
    r, j = t.runs.c, t.jobs.c
    stmt = (
        select(*r, j.namespace.label("job_namespace"), j.name.label("job_name"))
        .join(t.jobs, t.jobs.c.id == r.job_id)
        .where(r.run_id == run_id, *where_all(in_ids(r.ns_id, ns_ids)))
    )
    return conn.execute(stmt).first()


def run_io(conn: Connection, run_id: str, ns_ids: NsIds) -> list[Any]:
    io, d = t.run_io.c, t.datasets.c
    stmt = (
        select(io.direction, io.dataset_id, d.namespace, d.name)
        .join(t.datasets, t.datasets.c.id == io.dataset_id)
        .where(io.run_id == run_id, *where_all(in_ids(d.ns_id, ns_ids)))
        .order_by(io.direction, d.namespace, d.name)
    )
    return list(conn.execute(stmt).all())


def child_runs(conn: Connection, run_id: str, ns_ids: NsIds) -> list[str]:
    r = t.runs.c
    stmt = (
        select(r.run_id)
        .where(r.parent_run_id == run_id, *where_all(in_ids(r.ns_id, ns_ids)))
        .order_by(r.started_us, r.run_id)
    )
    return [row[0] for row in conn.execute(stmt).all()]


def run_visible(conn: Connection, run_id: str, ns_ids: NsIds) -> bool | None:
    """Whether a stored run is visible; None when it is not stored."""
    found = conn.execute(select(t.runs.c.ns_id).where(t.runs.c.run_id == run_id)).first()
    if found is None:
        return None
    return ns_ids is None or found[0] in ns_ids


# --- catalog -------------------------------------------------------------------


def namespaces(conn: Connection, ns_ids: NsIds) -> list[tuple[str, int, int]]:
    """(namespace, jobs, datasets) of every visible namespace, by name."""
    counts: dict[str, list[int]] = {}
    for slot, table in ((0, t.jobs), (1, t.datasets)):
        c = table.c
        stmt = (
            select(c.namespace, func.count())
            .where(*where_all(in_ids(c.ns_id, ns_ids)))
            .group_by(c.ns_id, c.namespace)
        )
        for namespace, n in conn.execute(stmt).all():
            counts.setdefault(namespace, [0, 0])[slot] += int(n)
    return sorted((ns, n[0], n[1]) for ns, n in counts.items())
