"""A dataset's versions, derived from its observation rows in (event time, id) order.

The rows (:mod:`feast_lineage.consumer.store.write.dataset_versions`) are
what events made of the dataset (writes, lifecycle changes) and the
earliest statement of each state it was stated with; :func:`versions`
walks them oldest first and keeps those that are versions:

* a write (a COMPLETE run listed the dataset as an output) always is one;
* a row stating a ``lifecycleStateChange`` is one (each states an action);
* a row whose ``schema``, ``version`` (``datasetVersion``) or ``symlinks``
  differs from the latest value the rows before it stated is one.

A version's schema and symlinks are its own row's, else the latest before
it (a write that states no schema keeps the schema it had). Walking the
rows in (event time, id) order makes the answer the same whatever order
the events arrived in. After a prune (:mod:`..admin.dataset_versions`)
the rows older than the horizon that remain are the last version before
it and the rows stating the values it carries: only that version of them
is answered.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from sqlalchemy import Connection, Integer, Row, Select, literal, null, select, union_all

from feast_lineage.consumer.store.engine.meta import read_meta
from feast_lineage.consumer.store.schema import tables as t

_EVENT_TYPE_NAMES = {code: name for name, code in t.VERSION_EVENT_TYPES.items()}

# The meta key of the versions' retention horizon (µs): versions older than
# it were pruned, but for each dataset's last one before it.
HORIZON_KEY = "dataset_versions_horizon"


@dataclass(frozen=True, slots=True)
class ObservationRow:
    """One stored row of ``feast_lineage_dataset_versions``."""

    id: int
    time_us: int
    run_id: str | None
    job_id: int | None
    event_type: str | None
    writes: int
    schema_id: str | None
    lifecycle_id: str | None
    dataset_version: str | None
    symlinks_id: str | None
    row_count: int | None
    byte_count: int | None
    file_count: int | None
    facets_digest: int  # of a statement: its state's id
    stated: bool = False  # a state row (feast_lineage_dataset_states), not an event's


@dataclass(frozen=True, slots=True)
class DatasetVersion:
    """A version of a dataset: its row, what it holds, and what made it one."""

    row: ObservationRow
    number: int  # 1 for the oldest answered version (Feast's ``version``)
    schema_id: str | None  # its schema's facet blob (its own, or the latest before it)
    symlinks_id: str | None
    changes: tuple[str, ...]  # write, schema, lifecycle, version, symlinks
    previous_id: int | None  # the version before it


_MADE = tuple(
    getattr(t.dataset_versions.c, name) for name in ObservationRow.__slots__ if name != "stated"
)
_STATED = tuple(
    t.dataset_states.c.id if name == "facets_digest" else getattr(t.dataset_states.c, name, None)
    for name in ObservationRow.__slots__
    if name != "stated"
)


def made_rows_query(dataset: int) -> Select[Any]:
    """The statement of ``dataset``'s made rows (writes, lifecycle changes), to refine."""
    return select(*_MADE).where(t.dataset_versions.c.dataset_id == dataset)


def made_row(row: Row[tuple[object, ...]]) -> ObservationRow:
    """A row of :func:`made_rows_query` as an observation."""
    return _row(row, False)


def state_rows(
    conn: Connection, dataset: int, ids: Iterable[int] | None = None
) -> list[ObservationRow]:
    """``dataset``'s state rows (those of ``ids`` only, when given), oldest first (time, id)."""
    s = t.dataset_states.c
    stmt = select(*(c if c is not None else null() for c in _STATED)).where(s.dataset_id == dataset)
    if ids is not None:
        stmt = stmt.where(s.id.in_(sorted(set(ids))))
    out = [_row(row, True) for row in conn.execute(stmt)]
    out.sort(key=lambda row: (row.time_us, row.id))
    return out


class StateKey(NamedTuple):
    """A state row's place in the history (event time, id) and what it states: no other column."""

    time_us: int
    id: int
    schema_id: str | None
    dataset_version: str | None
    symlinks_id: str | None


def state_keys(conn: Connection, dataset: int) -> list[StateKey]:
    """``dataset``'s states, oldest first, each as its key and stated values only.

    What deciding which states are versions needs, without building a whole
    row for each (the page then reads whole rows of its own states only).
    """
    s = t.dataset_states.c
    stmt = select(s.time_us, s.id, s.schema_id, s.dataset_version, s.symlinks_id).where(
        s.dataset_id == dataset
    )
    out = [StateKey(*row) for row in conn.execute(stmt)]
    out.sort()  # by (time, id): ids are unique in a dataset, so no tie reaches the rest
    return out


def observations(conn: Connection, dataset: int) -> list[ObservationRow]:
    """Every row of ``dataset`` (made and stated), oldest first (event time, then id)."""
    out = [made_row(row) for row in conn.execute(made_rows_query(dataset))]
    out.extend(state_rows(conn, dataset))
    out.sort(key=lambda row: (row.time_us, row.id))
    return out


def _uuid_text(value: bytes) -> str:
    """16 bytes as a hyphenated UUID (``str(uuid.UUID(bytes=value))``, without the object)."""
    h = value.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _row(row: Row[Any], stated: bool) -> ObservationRow:
    values = list(row)
    run, kind = values[2], values[4]
    values[2] = _uuid_text(bytes(run)) if run is not None else None
    values[4] = _EVENT_TYPE_NAMES.get(kind) if kind is not None else None
    if stated:
        values[5] = 0  # writes: the state table has no such column
    values.append(stated)
    return ObservationRow(*values)


def horizon(conn: Connection) -> int | None:
    """The retention horizon of versions (µs), when a prune has removed some."""
    value = read_meta(conn, HORIZON_KEY)
    return int(value) if value is not None else None


def versions(rows: Iterable[ObservationRow], horizon_us: int | None = None) -> list[DatasetVersion]:
    """The versions among ``rows`` (oldest first), numbered from 1.

    With ``horizon_us``, of the versions older than it only the latest is
    kept (the others were pruned; their rows that remain only carry values).
    """
    found: list[DatasetVersion] = []
    schema: str | None = None
    version: str | None = None
    symlinks: str | None = None
    for row in rows:
        changes: list[str] = []
        if row.writes:
            changes.append("write")
        if row.schema_id is not None and row.schema_id != schema:
            changes.append("schema")
        if row.lifecycle_id is not None:
            changes.append("lifecycle")
        if row.dataset_version is not None and row.dataset_version != version:
            changes.append("version")
        if row.symlinks_id is not None and row.symlinks_id != symlinks:
            changes.append("symlinks")
        schema = row.schema_id or schema
        version = row.dataset_version or version
        symlinks = row.symlinks_id or symlinks
        if not changes:
            continue
        before = found[-1] if found else None
        found.append(
            DatasetVersion(
                row=row,
                number=0,
                schema_id=schema,
                symlinks_id=symlinks,
                changes=tuple(changes),
                previous_id=before.row.id if before else None,
            )
        )
    if horizon_us is not None:
        older = [v for v in found if v.row.time_us < horizon_us]
        if len(older) > 1:
            found = found[len(older) - 1 :]
            found[0] = replace(found[0], previous_id=None)
    return [replace(v, number=i) for i, v in enumerate(found, start=1)]


def blob_texts(conn: Connection, ids: Iterable[str | None]) -> dict[str, str]:
    """Facet blob id -> its canonical JSON text."""
    wanted = sorted({i for i in ids if i is not None})
    out: dict[str, str] = {}
    b = t.facet_blobs.c
    for start in range(0, len(wanted), 2000):
        stmt = select(b.id, b.payload).where(b.id.in_(wanted[start : start + 2000]))
        out.update({row.id: row.payload for row in conn.execute(stmt)})
    return out


def job_names(conn: Connection, ids: Iterable[int | None]) -> dict[int, tuple[str, str, int]]:
    """Job id -> (namespace, name, namespace id)."""
    wanted = sorted({i for i in ids if i is not None})
    if not wanted:
        return {}
    j = t.jobs.c
    stmt = select(j.id, j.namespace, j.name, j.ns_id).where(j.id.in_(wanted))
    return {row.id: (row.namespace, row.name, row.ns_id) for row in conn.execute(stmt)}


def dataset_known(conn: Connection, dataset: int) -> bool:
    d = t.datasets.c
    return conn.execute(select(d.id).where(d.id == dataset)).first() is not None


@dataclass(frozen=True, slots=True)
class CurrentVersion:
    """A dataset's version current at an instant: its row's id and the schema it holds."""

    id: int
    schema_id: str | None


def current_at(
    conn: Connection, datasets: Iterable[int], time_us: int
) -> dict[int, CurrentVersion]:
    """Dataset id -> its version current at ``time_us``: the last of :func:`versions` until then.

    Walks each dataset's rows at or before the instant, oldest first, with
    :func:`versions`' rules on the columns that decide them only (one
    statement per 2,000 datasets): the cost is the number of those rows.
    """
    v, s = t.dataset_versions.c, t.dataset_states.c
    ordered = sorted(set(datasets))
    out: dict[int, CurrentVersion] = {}
    for start in range(0, len(ordered), 2000):
        chunk = ordered[start : start + 2000]
        made = select(
            v.dataset_id,
            v.time_us,
            v.id,
            v.writes,
            v.schema_id,
            v.lifecycle_id,
            v.dataset_version,
            v.symlinks_id,
        ).where(v.dataset_id.in_(chunk), v.time_us <= time_us)
        stated = select(
            s.dataset_id,
            s.time_us,
            s.id,
            literal(0, Integer),
            s.schema_id,
            null(),
            s.dataset_version,
            s.symlinks_id,
        ).where(s.dataset_id.in_(chunk), s.time_us <= time_us)
        rows = union_all(made, stated).subquery()
        stmt = select(*(c for c in rows.c if c.name != "time_us")).order_by(
            rows.c.dataset_id, rows.c.time_us, rows.c.id
        )
        dataset = -1
        schema = version = symlinks = None
        for row in conn.execute(stmt):
            owner, vid, writes, s_id, lifecycle, d_version, l_id = row
            if owner != dataset:
                dataset, schema, version, symlinks = owner, None, None, None
            changed = (
                writes
                or lifecycle is not None
                or (s_id is not None and s_id != schema)
                or (d_version is not None and d_version != version)
                or (l_id is not None and l_id != symlinks)
            )
            schema, version, symlinks = s_id or schema, d_version or version, l_id or symlinks
            if changed:
                out[dataset] = CurrentVersion(vid, schema)
    return out
