"""Explicit lineage reads: current explicit edges among nodes, and how many there are.

An explicit edge is current when its payload is the one its (owner, facet,
origin) pointer names (:data:`~.tables.explicit_lineage`): the latest
declaration (or observation) of that facet wins, whatever the arrival
order, and earlier payloads' edges stay stored as history. One primary key
lookup an edge. The walk (:mod:`.graph`) follows these edges too. The reads
take the predicate that says which edges count, so :mod:`.explicit_as_of`
asks the same at an instant or over a window.
Statements read every namespace unless given ``ns_ids``; callers pass only
visible node ids, so both ends of what they get back are visible.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, Connection, FromClause, bindparam, exists, func, select

from feast_lineage.consumer.lineage_model import EdgeType, Origin
from feast_lineage.consumer.store.read.common import NsIds, in_ids, where_all
from feast_lineage.consumer.store.schema import tables as t

_CHUNK = 2000
# Which stored explicit edges count: now (:func:`current_explicit_edge`), at an
# instant or over a window (:mod:`.explicit_as_of`); a module-level function.
ExplicitFilter = Callable[[FromClause], ColumnElement[bool]]


class ExplicitEdgeRead(NamedTuple):
    src_id: int
    dst_id: int
    edge_type: EdgeType  # input, output, job_to_job or dataset_to_dataset
    src_kind: str
    dst_kind: str
    origin: Origin
    created_us: int  # when the earliest current payload stating it was seen


def current_explicit_edge(edges: FromClause) -> ColumnElement[bool]:
    """Whether an edge of ``edges`` (the explicit edges table or an alias) is current."""
    e = edges.c
    p = t.explicit_lineage.alias("explicit_pointer")
    return (
        exists()
        .where(
            p.c.owner_id == e.owner_id,
            p.c.facet == e.facet,
            p.c.origin == e.origin,
            p.c.digest == e.digest,
        )
        .correlate_except(p)
    )


def _one_per_edge(x: FromClause, *where: ColumnElement[bool]) -> Any:
    """The explicit edges of ``x`` kept by ``where``, one per (ends, type, origin), as
    :class:`ExplicitEdgeRead` (first seen: the least ``created_us``)."""
    c = x.c
    columns = (c.src_id, c.dst_id, c.edge_type, c.src_kind, c.dst_kind, c.origin)
    return select(*columns, func.min(c.created_us)).where(*where).group_by(*columns)


@lru_cache(maxsize=4)
def _from_statement(keep: ExplicitFilter) -> Any:
    x = t.explicit_edges.alias("xe")
    return _one_per_edge(x, x.c.src_id.in_(bindparam("ids", expanding=True)), keep(x))


def explicit_edges_among(
    conn: Connection,
    ids: Iterable[int],
    keep: ExplicitFilter = current_explicit_edge,
    params: Mapping[str, object] | None = None,
) -> list[ExplicitEdgeRead]:
    """Every kept explicit edge whose two ends are in ``ids``, one per (ends, type, origin).

    ``keep`` (with ``params``) says which edges count: the current ones, or
    those of an instant or a window (:mod:`.explicit_as_of`).
    """
    wanted = set(ids)
    ordered = sorted(wanted)
    out: list[ExplicitEdgeRead] = []
    for start in range(0, len(ordered), _CHUNK):
        bound = {"ids": ordered[start : start + _CHUNK], **(params or {})}
        rows = conn.execute(_from_statement(keep), bound).all()
        out.extend(ExplicitEdgeRead(*row) for row in rows if row[1] in wanted)
    return out


@lru_cache(maxsize=8)
def _visible_statement(keep: ExplicitFilter, scoped: bool) -> Any:
    """The kept explicit edges with both ends visible, one per (ends, type, origin)."""
    x = t.explicit_edges.alias("xc")
    c = x.c
    if not scoped:
        return _one_per_edge(x, keep(x))
    ns: Any = bindparam("ns_ids", expanding=True)
    return _one_per_edge(x, keep(x), c.src_ns_id.in_(ns), c.dst_ns_id.in_(ns))


def visible_explicit_edges(
    conn: Connection,
    ns_ids: NsIds,
    keep: ExplicitFilter = current_explicit_edge,
    params: Mapping[str, object] | None = None,
) -> list[ExplicitEdgeRead]:
    """Every kept explicit edge with both ends visible (the whole graph's), in no order."""
    if ns_ids is not None and not ns_ids:
        return []
    bound = {**(params or {}), **({} if ns_ids is None else {"ns_ids": sorted(ns_ids)})}
    stmt = _visible_statement(keep, ns_ids is not None)
    return [ExplicitEdgeRead(*row) for row in conn.execute(stmt, bound)]


def count_explicit_edges(
    conn: Connection,
    ns_ids: NsIds,
    keep: ExplicitFilter = current_explicit_edge,
    params: Mapping[str, object] | None = None,
) -> int:
    """Kept explicit edges (one per ends, type and origin) with both ends visible."""
    x = t.explicit_edges.alias("xc")
    c = x.c
    distinct = (
        select(c.src_id, c.dst_id, c.edge_type, c.origin)
        .where(
            keep(x),
            *where_all(in_ids(c.src_ns_id, ns_ids), in_ids(c.dst_ns_id, ns_ids)),
        )
        .distinct()
        .subquery()
    )
    stmt = select(func.count()).select_from(distinct)
    return int(conn.execute(stmt, dict(params or {})).scalar_one())
