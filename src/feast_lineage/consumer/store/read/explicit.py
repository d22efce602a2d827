"""Explicit lineage reads: current explicit edges among nodes, and how many there are.

An explicit edge is current when its payload is the one its (owner, facet,
origin) pointer names (:data:`~.tables.explicit_lineage`): the latest
declaration (or observation) of that facet wins, whatever the arrival
order, and earlier payloads' edges stay stored as history. One primary key
lookup an edge. The walk (:mod:`.graph`) follows these edges too.
Statements read every namespace unless given ``ns_ids``; callers pass only
visible node ids, so both ends of what they get back are visible.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, Connection, FromClause, bindparam, exists, func, select

from feast_lineage.consumer.lineage_model import EdgeType, Origin
from feast_lineage.consumer.store.read.common import NsIds, in_ids, where_all
from feast_lineage.consumer.store.schema import tables as t

_CHUNK = 2000


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


@lru_cache(maxsize=1)
def _from_statement() -> Any:
    x = t.explicit_edges.alias("xe")
    c = x.c
    return (
        select(
            c.src_id,
            c.dst_id,
            c.edge_type,
            c.src_kind,
            c.dst_kind,
            c.origin,
            func.min(c.created_us),
        )
        .where(c.src_id.in_(bindparam("ids", expanding=True)), current_explicit_edge(x))
        .group_by(c.src_id, c.dst_id, c.edge_type, c.src_kind, c.dst_kind, c.origin)
    )


def explicit_edges_among(conn: Connection, ids: Iterable[int]) -> list[ExplicitEdgeRead]:
    """Every current explicit edge whose two ends are in ``ids``, one per (ends, type, origin)."""
    wanted = set(ids)
    ordered = sorted(wanted)
    out: list[ExplicitEdgeRead] = []
    for start in range(0, len(ordered), _CHUNK):
        rows = conn.execute(_from_statement(), {"ids": ordered[start : start + _CHUNK]}).all()
        out.extend(ExplicitEdgeRead(*row) for row in rows if row[1] in wanted)
    return out


def count_explicit_edges(conn: Connection, ns_ids: NsIds) -> int:
    """Current explicit edges (one per ends, type and origin) with both ends visible."""
    x = t.explicit_edges.alias("xc")
    c = x.c
    distinct = (
        select(c.src_id, c.dst_id, c.edge_type, c.origin)
        .where(
            current_explicit_edge(x),
            *where_all(in_ids(c.src_ns_id, ns_ids), in_ids(c.dst_ns_id, ns_ids)),
        )
        .distinct()
        .subquery()
    )
    return int(conn.execute(select(func.count()).select_from(distinct)).scalar_one())
