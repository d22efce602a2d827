"""Column lineage reads: current column edges into or out of fields, and which datasets have any.

A column edge is current when it belongs to the payload its (output
dataset, job, origin) pointer names (:data:`~.tables.column_lineage`) and
the job still writes the dataset: the run of its latest event that listed
outputs wrote it (as for dataset edges, :func:`.graph.current_edge`);
a DatasetEvent's edges (job 0) and a job's that recorded no such run are
current while their pointer names them. Each lookup is by an index: edges
by (output dataset, output field), the primary key's prefix, or by (input
dataset, input field); the pointer by its primary key; the job and its
run's output by theirs.

Statements read every namespace: the service drops what the caller may not
see, and must know what it drops (a transformation description is shown
only when all inputs of the field are visible).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from sqlalchemy import (
    ColumnElement,
    Connection,
    Executable,
    FromClause,
    and_,
    bindparam,
    exists,
    select,
)

from feast_lineage.consumer.store.read.common import NsIds
from feast_lineage.consumer.store.schema import tables as t

Side = Literal["into", "from"]
_CHUNK = 2000


class ColumnEdgeRead(NamedTuple):
    dst_dataset_id: int
    dst_field_id: int
    dst_field: str | None
    dst_ns_id: int
    src_dataset_id: int
    src_field_id: int
    src_namespace: str
    src_name: str
    src_field: str
    src_ns_id: int
    job_id: int
    origin: str
    run_id: str | None
    indirect: int
    transformations: str  # canonical JSON
    created_us: int


# The join of a column edge with what says it counts: its pointer (now) or its listing (at T).
EdgeJoin = Callable[[FromClause, FromClause], ColumnElement[bool]]


def current_column_edge(edges: FromClause, pointers: FromClause) -> ColumnElement[bool]:
    """The join condition of a column edge with its pointer, when the edge is current."""
    e, p = edges.c, pointers.c
    j = t.jobs.alias("column_job")
    io = t.run_io.alias("column_io")
    wrote = (
        exists()
        .where(
            io.c.run_id == j.c.output_run,
            io.c.dataset_id == e.dst_dataset_id,
            io.c.direction == "output",
        )
        .correlate_except(io)
    )
    stopped = (
        exists().where(j.c.id == e.job_id, j.c.output_run.is_not(None), ~wrote).correlate_except(j)
    )
    return and_(
        p.dataset_id == e.dst_dataset_id,
        p.job_id == e.job_id,
        p.origin == e.origin,
        p.digest == e.digest,
        ~stopped,
    )


def edge_columns(e: FromClause, p: FromClause) -> tuple[ColumnElement[object], ...]:
    """What a read of column edge ``e`` with its pointer ``p`` selects (:class:`ColumnEdgeRead`)."""
    return (
        e.c.dst_dataset_id,
        e.c.dst_field_id,
        e.c.dst_field,
        e.c.dst_ns_id,
        e.c.src_dataset_id,
        e.c.src_field_id,
        e.c.src_namespace,
        e.c.src_name,
        e.c.src_field,
        e.c.src_ns_id,
        e.c.job_id,
        e.c.origin,
        p.c.run_id,
        e.c.indirect,
        e.c.transformations,
        e.c.created_us,
    )


def edges_statement(
    side: Side, by_field: bool, pointers: FromClause, joined: EdgeJoin
) -> Executable:
    """Column edges into (or out of) ``:datasets`` (of ``:fields``), joined to ``pointers``.

    ``joined(edge, pointers)`` says which edges count: the current ones (the
    pointers' table) or those of an instant (the column listings').
    """
    e = t.column_edges.alias("ce")
    dataset, field = (
        (e.c.dst_dataset_id, e.c.dst_field_id)
        if side == "into"
        else (e.c.src_dataset_id, e.c.src_field_id)
    )
    stmt = (
        select(*edge_columns(e, pointers))
        .select_from(e.join(pointers, joined(e, pointers)))
        .where(dataset.in_(bindparam("datasets", expanding=True)))
    )
    if by_field:
        stmt = stmt.where(field.in_(bindparam("fields", expanding=True)))
    return stmt


@lru_cache(maxsize=8)
def _edges_statement(side: Side, by_field: bool) -> Any:
    return edges_statement(side, by_field, t.column_lineage.alias("cp"), current_column_edge)


def read_edges(
    conn: Connection,
    stmt: Executable,
    dataset_ids: Collection[int],
    field_ids: Collection[int] | None,
    extra: Mapping[str, int | str] | None = None,
) -> list[ColumnEdgeRead]:
    """``stmt``'s edges for the datasets (and fields), in chunks of bound parameters."""
    out: list[ColumnEdgeRead] = []
    if not dataset_ids or (field_ids is not None and not field_ids):
        return out
    fields: list[int | None] = [*sorted(set(field_ids))] if field_ids is not None else [None]
    ordered = sorted(set(dataset_ids))
    for start in range(0, len(ordered), _CHUNK):
        for f_start in range(0, len(fields), _CHUNK):
            params: dict[str, Any] = {"datasets": ordered[start : start + _CHUNK], **(extra or {})}
            if field_ids is not None:
                params["fields"] = fields[f_start : f_start + _CHUNK]
            out.extend(ColumnEdgeRead(*row) for row in conn.execute(stmt, params))
    return out


def column_edges(
    conn: Connection,
    side: Side,
    dataset_ids: Collection[int],
    field_ids: Collection[int] | None,
) -> list[ColumnEdgeRead]:
    """Current column edges into (or out of) the given datasets, of the given fields if any.

    The result holds every pair of the two lists; the caller keeps the pairs it means.
    """
    stmt = _edges_statement(side, field_ids is not None)
    return read_edges(conn, stmt, dataset_ids, field_ids)


def with_column_lineage(conn: Connection, dataset_ids: Iterable[int], ns_ids: NsIds) -> set[int]:
    """The datasets among ``dataset_ids`` with a current column edge whose other end is visible."""
    return datasets_with_edges(conn, _has_statement, dataset_ids, ns_ids)


def datasets_with_edges(
    conn: Connection,
    statement: Callable[[Side, bool], Executable],
    dataset_ids: Iterable[int],
    ns_ids: NsIds,
    extra: Mapping[str, int | str] | None = None,
) -> set[int]:
    """The datasets among ``dataset_ids`` with an edge of ``statement(side, scoped)`` either way."""
    wanted = sorted(set(dataset_ids))
    if not wanted or (ns_ids is not None and not ns_ids):
        return set()
    found: set[int] = set()
    for side in ("into", "from"):
        stmt = statement(side, ns_ids is not None)
        for start in range(0, len(wanted), _CHUNK):
            params: dict[str, Any] = {"ids": wanted[start : start + _CHUNK], **(extra or {})}
            if ns_ids is not None:
                params["ns_ids"] = sorted(ns_ids)
            found.update(int(i) for i in conn.execute(stmt, params).scalars())
    return found


def has_edges_statement(
    side: Side, scoped: bool, pointers: FromClause, joined: EdgeJoin
) -> Executable:
    """Which of ``:ids`` have an edge (``joined(edge, pointers)``) whose far end is visible."""
    d = t.datasets.c
    e = t.column_edges.alias("he")
    near, far_ns = (
        (e.c.dst_dataset_id, e.c.src_ns_id)
        if side == "into"
        else (e.c.src_dataset_id, e.c.dst_ns_id)
    )
    inner = (
        select(e.c.job_id).select_from(e.join(pointers, joined(e, pointers))).where(near == d.id)
    )
    if scoped:
        inner = inner.where(far_ns.in_(bindparam("ns_ids", expanding=True)))
    return select(d.id).where(
        d.id.in_(bindparam("ids", expanding=True)), exists(inner.correlate(t.datasets))
    )


@lru_cache(maxsize=4)
def _has_statement(side: Side, scoped: bool) -> Any:
    return has_edges_statement(side, scoped, t.column_lineage.alias("hp"), current_column_edge)


class DatasetName(NamedTuple):
    id: int
    ns_id: int
    namespace: str
    name: str


def dataset_names(conn: Connection, ids: Iterable[int]) -> dict[int, DatasetName]:
    d = t.datasets.c
    out: dict[int, DatasetName] = {}
    ordered = sorted(set(ids))
    for start in range(0, len(ordered), _CHUNK):
        stmt = select(d.id, d.ns_id, d.namespace, d.name).where(
            d.id.in_(ordered[start : start + _CHUNK])
        )
        out.update({row.id: DatasetName(*row) for row in conn.execute(stmt)})
    return out


def job_names(conn: Connection, ids: Iterable[int]) -> dict[int, tuple[str, str]]:
    j = t.jobs.c
    out: dict[int, tuple[str, str]] = {}
    ordered = sorted(set(ids))
    for start in range(0, len(ordered), _CHUNK):
        stmt = select(j.id, j.namespace, j.name).where(j.id.in_(ordered[start : start + _CHUNK]))
        out.update({row.id: (row.namespace, row.name) for row in conn.execute(stmt)})
    return out


def schema_payloads(conn: Connection, ids: Iterable[int]) -> dict[int, str]:
    """Dataset id -> its latest schema facet (stored JSON text)."""
    f, b = t.dataset_facets.c, t.facet_blobs.c
    out: dict[int, str] = {}
    ordered = sorted(set(ids))
    for start in range(0, len(ordered), _CHUNK):
        stmt = (
            select(f.owner_id, b.payload)
            .join(t.facet_blobs, b.id == f.blob_id)
            .where(f.owner_id.in_(ordered[start : start + _CHUNK]), f.name == "schema")
        )
        out.update({int(owner): payload for owner, payload in conn.execute(stmt)})
    return out
