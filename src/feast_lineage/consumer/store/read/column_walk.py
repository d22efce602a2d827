"""The column lineage walk as one recursive query per direction.

A node of the walk is a field of a dataset: (dataset id, field hash), or
(dataset id, :data:`EVERY_FIELD`) for every field of the asked dataset (the walk of all its
columns). From a node, one step goes

* along a current column edge whose near end is the node (one level deeper);
* for every field of the asked dataset, along any current edge into (out
  of) it (one level deeper);
* upstream from a field, along the dataset-level inputs of its dataset
  (edges into the whole dataset, field hash 0), unless indirect edges are
  left out (one level deeper);
* across a current symlink (at an instant: :func:`.aliases_as_of.symlink_at`),
  either way, to the same field of an alias (same level: aliases are one dataset).

The query stops a level at ``depth``; UNION (not UNION ALL) keeps each
(node, level) once, so a cycle costs at most ``depth`` rounds. Steps never
reach a node of a namespace outside ``ns_ids`` (neither end of a symlink
may be hidden). The answer is every current edge whose near end the walk
reached below ``depth``, with the least level at which it did: the edges
the level-by-level walk of :mod:`feast_lineage.consumer.services.columns`
would meet. Every step is an index lookup: edges by their primary key's
prefix (into a field) or by ``ix_ol_column_edges_src`` (out of one), the
pointer, the job and its run's output by their primary keys, symlinks by
``dataset_id`` or ``alias_id``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal, NamedTuple

from sqlalchemy import (
    CTE,
    BigInteger,
    CompoundSelect,
    Connection,
    FromClause,
    Integer,
    Select,
    and_,
    bindparam,
    cast,
    exists,
    func,
    literal,
    literal_column,
    select,
    union_all,
)

from feast_lineage.column_lineage import WHOLE_DATASET
from feast_lineage.consumer.lineage_model import Way
from feast_lineage.consumer.store.read.aliases import alias_steps, current_symlink
from feast_lineage.consumer.store.read.aliases_as_of import symlink_at
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.columns import (
    ColumnEdgeRead,
    current_column_edge,
    edge_columns,
)
from feast_lineage.consumer.store.read.columns_as_of import column_edge_at
from feast_lineage.consumer.store.read.columns_window import column_edge_in_window
from feast_lineage.consumer.store.read.columns_window import params as window_params
from feast_lineage.consumer.store.read.common import NsIds
from feast_lineage.consumer.store.read.walk import Step, recursive_walk
from feast_lineage.consumer.store.read.window import Window, symlinks_instant
from feast_lineage.consumer.store.schema import tables as t

_Row = tuple[Any, ...]  # a ColumnEdgeRead and the depth of its near end
_Kind = Literal["field", "every", "whole"]  # the edges out of a field, every field, the dataset
# Which edges count: current ones, those current at an instant, those stated in a window.
_When = Literal["now", "at", "window"]
EVERY_FIELD = -1  # the walk's seed for every field of a dataset (field hashes are >= 0)
_WIDEST = literal_column("9223372036854775807", BigInteger)


class WalkedEdge(NamedTuple):
    edge: ColumnEdgeRead
    depth: int  # the level of its near end: the far end is one deeper


def _ends(e: Any, way: Way) -> tuple[Any, Any, Any, Any, Any]:
    """(near dataset, near field, far dataset, far field, far namespace) of an edge."""
    c = e.c
    if way == "upstream":
        return c.dst_dataset_id, c.dst_field_id, c.src_dataset_id, c.src_field_id, c.src_ns_id
    return c.src_dataset_id, c.src_field_id, c.dst_dataset_id, c.dst_field_id, c.dst_ns_id


def _pointed(e: Any, at: _When, name: str) -> tuple[Any, Any]:
    """The table saying which payload counts (pointers, or listings at T or in a window), joined."""
    if at == "at":
        p = t.column_listings.alias(name)
        return p, column_edge_at(e, p)
    if at == "window":
        p = t.column_listings.alias(name)
        return p, column_edge_in_window(e, p)
    p = t.column_lineage.alias(name)
    return p, current_column_edge(e, p)


def _followed(e: Any, way: Way, indirect: bool, scoped: bool, at: _When) -> Any:
    """What an edge must be to be walked: current, its far end visible, direct if asked."""
    p, current = _pointed(e, at, f"{e.name}_pointer")
    cond = [exists().where(current).correlate_except(p)]
    if scoped:
        cond.append(_ends(e, way)[4].in_(bindparam("ns_ids", expanding=True)))
    if not indirect:  # dataset-level inputs count as indirect, typed or not
        cond += [e.c.indirect == 0, e.c.dst_field_id != WHOLE_DATASET]
    return and_(*cond)


def _walk_steps(w: FromClause, way: Way, indirect: bool, scoped: bool, at: _When) -> list[Step]:
    """From a field: along its edges, every field's edges, the dataset-level inputs, aliases."""
    by_field = t.column_edges.alias("by_field")
    every = t.column_edges.alias("every_field")
    near0, nearf0, far0, farf0, _ = _ends(by_field, way)
    near1, _, far1, farf1, _ = _ends(every, way)
    on_field = and_(
        near0 == w.c.ds, nearf0 == w.c.fld, _followed(by_field, way, indirect, scoped, at)
    )
    on_every = and_(
        w.c.fld == EVERY_FIELD, near1 == w.c.ds, _followed(every, way, indirect, scoped, at)
    )
    steps = [
        Step(by_field, on_field, (far0, farf0), far0, deeper=True),
        Step(every, on_every, (far1, farf1), far1, deeper=True),
    ]
    if way == "upstream" and indirect:
        whole = t.column_edges.alias("whole")
        _, _, far2, farf2, _ = _ends(whole, "upstream")
        on_whole = and_(
            w.c.fld != EVERY_FIELD,
            whole.c.dst_dataset_id == w.c.ds,
            whole.c.dst_field_id == WHOLE_DATASET,
            _followed(whole, "upstream", indirect, scoped, at),
        )
        steps.append(Step(whole, on_whole, (far2, farf2), far2, deeper=True))
    links = current_symlink if at == "now" else symlink_at  # a window's: before its end
    return [*steps, *alias_steps(w.c.ds, lambda found: (found, w.c.fld), scoped, links)]


@lru_cache(maxsize=16)
def _walk_statement(way: Way, indirect: bool, scoped: bool, at: _When) -> CompoundSelect[*_Row]:
    """The walk as one statement, built once: parameters start, field, depth, ns_ids (as_of)."""
    seed = select(
        cast(bindparam("start", type_=BigInteger), BigInteger).label("ds"),
        # MariaDB types a recursive query's columns by its seed's values: the
        # largest 64-bit number in the expression keeps the field column BIGINT.
        (cast(bindparam("field", type_=BigInteger), BigInteger) + 0 * _WIDEST).label("fld"),
        cast(literal(0), Integer).label("depth"),
    )
    walked = recursive_walk(
        "column_walk", seed, lambda w: _walk_steps(w, way, indirect, scoped, at)
    )
    reached = (
        select(walked.c.ds, walked.c.fld, func.min(walked.c.depth).label("depth"))
        .group_by(walked.c.ds, walked.c.fld)
        .cte("reached")
    )
    kinds: list[_Kind] = ["field", "every"]
    if way == "upstream" and indirect:
        kinds.append("whole")
    return union_all(*(_edges_from(reached, way, (indirect, scoped, at), kind) for kind in kinds))


def _edges_from(
    reached: CTE, way: Way, how: tuple[bool, bool, _When], kind: _Kind
) -> Select[*_Row]:
    """The current edges out of the reached nodes below ``depth``, each with its near level."""
    indirect, scoped, at = how
    e = t.column_edges.alias(f"out_{kind}")
    p, current = _pointed(e, at, f"out_{kind}_pointer")
    r = reached.alias(f"near_{kind}")
    near, near_field, _, _, far_ns = _ends(e, way if kind != "whole" else "upstream")
    if kind == "field":
        on = and_(near == r.c.ds, near_field == r.c.fld)
    elif kind == "every":
        on = and_(near == r.c.ds, r.c.fld == EVERY_FIELD)
    else:
        # ``+ 0``: no index on the reached nodes, so SQLite looks the edges up
        # by the reached nodes rather than scanning every edge for them.
        on = and_(
            e.c.dst_dataset_id == r.c.ds + 0,
            e.c.dst_field_id == WHOLE_DATASET,
            r.c.fld != EVERY_FIELD,
        )
    stmt = (
        select(*edge_columns(e, p), r.c.depth)
        .select_from(r.join(e, on).join(p, current))
        .where(r.c.depth < bindparam("depth", type_=Integer))
    )
    if scoped:
        stmt = stmt.where(far_ns.in_(bindparam("ns_ids", expanding=True)))
    if not indirect:
        stmt = stmt.where(e.c.indirect == 0, e.c.dst_field_id != WHOLE_DATASET)
    return stmt


def walk_columns(
    conn: Connection,
    start: int,
    field_id: int | None,
    way: Way,
    depth: int,
    indirect: bool,
    ns_ids: NsIds,
    at: Instant | Window | None = None,
) -> list[WalkedEdge]:
    """Every current column edge within ``depth`` levels of the field (or every field) asked.

    Each edge once, with the least level of its near end; the edges of
    symlinked aliases are met as the asked dataset's (the caller groups
    aliases into one node). With an instant: the edges and symlinks current
    then; with a window: the edges stated in it (:mod:`.columns_window`) and
    the symlinks current before its end.
    """
    if depth <= 0 or (ns_ids is not None and not ns_ids):
        return []
    field = EVERY_FIELD if field_id is None else field_id
    params: dict[str, Any] = {"start": start, "field": field, "depth": depth}
    if ns_ids is not None:
        params["ns_ids"] = sorted(ns_ids)
    when: _When = "now"
    if isinstance(at, Instant):
        when = "at"
        params.update(at.params())
    elif isinstance(at, Window):
        when = "window"
        params.update(window_params(conn, at))
        params.update(symlinks_instant(at).params())
    stmt = _walk_statement(way, indirect, ns_ids is not None, when)
    best: dict[tuple[Any, ...], WalkedEdge] = {}
    for row in conn.execute(stmt, params):
        edge = ColumnEdgeRead(*row[:-1])
        # The primary key less the digest: one payload of an (output, job, origin) is current.
        key = (
            edge.dst_dataset_id,
            edge.dst_field_id,
            edge.job_id,
            edge.origin,
            edge.src_dataset_id,
            edge.src_field_id,
        )
        level = int(row[-1])
        old = best.get(key)
        if old is None or old.depth > level:
            best[key] = WalkedEdge(edge, level)
    return list(best.values())
