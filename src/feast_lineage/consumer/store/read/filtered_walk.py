"""Walks and edge reads over the edges one predicate keeps: at an instant, or over a window.

:mod:`.as_of` and :mod:`.window` differ only in which stored edges count
(an edge current at the instant, an edge some run observed in the window);
everything else, the recursive walk from a node, the namespace filter and
the edges among a set of nodes, is here once. The predicate is a function
of the edges table (or an alias of it); statements are built once per
predicate and cached, so the function must be a module-level one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Connection,
    FromClause,
    Integer,
    Select,
    and_,
    bindparam,
    cast,
    func,
    literal,
    select,
)

from feast_lineage.consumer.lineage_model import Way
from feast_lineage.consumer.store.read.aliases import LinkFilter, alias_steps
from feast_lineage.consumer.store.read.common import NsIds
from feast_lineage.consumer.store.read.graph import EdgeRow
from feast_lineage.consumer.store.read.walk import Step, recursive_walk
from feast_lineage.consumer.store.schema import tables as t

EdgeFilter = Callable[[FromClause], ColumnElement[bool]]
# (the walk's name, the edge predicate, the edge types followed, the symlink
# predicate, the explicit edge predicate)
How = tuple[str, EdgeFilter, tuple[str, ...], LinkFilter | None, EdgeFilter | None]

_CHUNK = 2000


def _ids(name: str = "ids") -> Any:
    return bindparam(name, expanding=True)


def _steps(w: FromClause, how: How, direction: Way, scoped: bool) -> list[Step]:
    _name, keep, types, links, explicit = how
    e = t.lineage_edges.alias("e")
    if direction == "upstream":
        near, far, far_ns = e.c.dst_id, e.c.src_id, e.c.src_ns_id
    else:
        near, far, far_ns = e.c.src_id, e.c.dst_id, e.c.dst_ns_id
    on = and_(near == w.c.node_id, e.c.edge_type.in_(types), keep(e))
    if scoped:
        on = and_(on, far_ns.in_(_ids("ns_ids")))
    steps = [Step(e, on, (far,), far, deeper=True)]
    if links is not None:  # across a symlink either way, same level (aliases are one dataset)
        steps.extend(alias_steps(w.c.node_id, lambda found: (found,), scoped, links))
    if explicit is not None:  # along an explicit edge of any type, as the current walk
        steps.append(_explicit_step(w, explicit, direction, scoped))
    return steps


def _explicit_step(w: FromClause, keep: EdgeFilter, direction: Way, scoped: bool) -> Step:
    x = t.explicit_edges.alias("x")
    if direction == "upstream":
        near, far, far_ns = x.c.dst_id, x.c.src_id, x.c.src_ns_id
    else:
        near, far, far_ns = x.c.src_id, x.c.dst_id, x.c.dst_ns_id
    on = and_(near == w.c.node_id, keep(x))
    if scoped:
        on = and_(on, far_ns.in_(_ids("ns_ids")))
    return Step(x, on, (far,), far, deeper=True)


@lru_cache(maxsize=16)
def _walk_statement(how: How, direction: Way, scoped: bool) -> Select[int, int]:
    seed = select(
        cast(bindparam("start", type_=BigInteger), BigInteger).label("node_id"),
        cast(literal(0), Integer).label("depth"),
    )
    walked = recursive_walk(how[0], seed, lambda w: _steps(w, how, direction, scoped))
    return select(walked.c.node_id, func.min(walked.c.depth)).group_by(walked.c.node_id)


def walk(
    conn: Connection,
    start: int,
    direction: Way,
    depth: int,
    ns_ids: NsIds,
    how: How,
    params: Mapping[str, object],
    *,
    aliases: bool = False,
) -> dict[int, int]:
    """Node id -> distance from ``start`` of every node within ``depth`` kept edges.

    ``how`` is (the walk's name, the edge predicate, the edge types followed,
    the symlink predicate or None: no symlinks followed, the explicit edge
    predicate or None: no explicit edges followed); ``params`` binds what
    the predicates name. ``aliases``: at ``depth`` 0 too, ``start``'s aliases (at its own
    level, 0, as a deeper walk has them; without it, ``start`` alone).
    """
    if (depth <= 0 and not (aliases and how[3] is not None)) or (ns_ids is not None and not ns_ids):
        return {start: 0}
    bound: dict[str, Any] = {"start": start, "depth": max(depth, 0), **params}
    if ns_ids is not None:
        bound["ns_ids"] = sorted(ns_ids)
    stmt = _walk_statement(how, direction, ns_ids is not None)
    return {int(node): int(level) for node, level in conn.execute(stmt, bound).all()}


@lru_cache(maxsize=4)
def _edges_from_statement(keep: EdgeFilter) -> Any:
    e = t.lineage_edges.c
    return select(e.src_id, e.dst_id, e.edge_type, e.src_kind, e.dst_kind, e.created_us).where(
        e.src_id.in_(_ids()), keep(t.lineage_edges)
    )


def edges_among(
    conn: Connection, ids: set[int], keep: EdgeFilter, params: Mapping[str, object]
) -> list[EdgeRow]:
    """Every kept edge whose two ends are both in ``ids``."""
    ordered = sorted(ids)
    out: list[EdgeRow] = []
    for start in range(0, len(ordered), _CHUNK):
        bound = {"ids": ordered[start : start + _CHUNK], **params}
        rows = conn.execute(_edges_from_statement(keep), bound).all()
        out.extend(EdgeRow(*row) for row in rows if row.dst_id in ids)
    return out
