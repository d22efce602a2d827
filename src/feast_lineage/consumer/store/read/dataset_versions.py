"""A dataset's versions, derived from its observation rows in (event time, id) order.

The rows (:mod:`feast_lineage.consumer.store.write.dataset_versions`) are
what events said of the dataset; :func:`versions` walks them oldest first
and keeps those that are versions:

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

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Connection, select

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
    facets_digest: int


@dataclass(frozen=True, slots=True)
class DatasetVersion:
    """A version of a dataset: its row, what it holds, and what made it one."""

    row: ObservationRow
    number: int  # 1 for the oldest answered version (Feast's ``version``)
    schema_id: str | None  # its schema's facet blob (its own, or the latest before it)
    symlinks_id: str | None
    changes: tuple[str, ...]  # write, schema, lifecycle, version, symlinks
    previous_id: int | None  # the version before it


_OBSERVATION_COLUMNS = tuple(
    getattr(t.dataset_versions.c, name) for name in ObservationRow.__slots__
)


def _observation(row: Sequence[Any]) -> ObservationRow:
    """An :class:`ObservationRow` from the values of :data:`_OBSERVATION_COLUMNS`."""
    values = list(row)
    run, kind = values[2], values[4]
    values[2] = str(uuid.UUID(bytes=bytes(run))) if run is not None else None
    values[4] = _EVENT_TYPE_NAMES.get(kind) if kind is not None else None
    return ObservationRow(*values)


def observations(conn: Connection, dataset: int) -> list[ObservationRow]:
    """Every row of ``dataset``, oldest first (event time, then id)."""
    v = t.dataset_versions.c
    stmt = select(*_OBSERVATION_COLUMNS).where(v.dataset_id == dataset).order_by(v.time_us, v.id)
    return [_observation(row) for row in conn.execute(stmt)]


def observations_until(
    conn: Connection, datasets: Iterable[int], time_us: int
) -> dict[int, list[ObservationRow]]:
    """Dataset id -> its rows with an event time at or before ``time_us``, oldest first."""
    v = t.dataset_versions.c
    ordered = sorted(set(datasets))
    out: dict[int, list[ObservationRow]] = {}
    for start in range(0, len(ordered), 2000):
        stmt = (
            select(v.dataset_id, *_OBSERVATION_COLUMNS)
            .where(v.dataset_id.in_(ordered[start : start + 2000]), v.time_us <= time_us)
            .order_by(v.dataset_id, v.time_us, v.id)
        )
        for row in conn.execute(stmt):
            out.setdefault(int(row[0]), []).append(_observation(row[1:]))
    return out


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
    v = t.dataset_versions.c
    ordered = sorted(set(datasets))
    out: dict[int, CurrentVersion] = {}
    for start in range(0, len(ordered), 2000):
        stmt = (
            select(
                v.dataset_id,
                v.id,
                v.writes,
                v.schema_id,
                v.lifecycle_id,
                v.dataset_version,
                v.symlinks_id,
            )
            .where(v.dataset_id.in_(ordered[start : start + 2000]), v.time_us <= time_us)
            .order_by(v.dataset_id, v.time_us, v.id)
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
