"""Graph queries: node pages, edges among nodes, symlinks, and the lineage walk.

The walk (:func:`walk`) is one recursive query, the same SQL on SQLite and
PostgreSQL. Each step goes from a node either along a lineage edge (one
level deeper) or across a symlink to an alias of the same dataset (same
level: aliases are one dataset). Only edges in the walk's direction are
followed, so going upstream through an alias never turns downstream. The
walk follows ``input``, ``output`` and ``parent`` edges; ``root`` edges
repeat what parent edges already say and would shorten depths. It also
follows current explicit lineage edges (:mod:`.explicit`). It never
steps onto a node outside ``ns_ids``, so nothing hidden connects what it
returns. Every step is an index lookup (edges by ``src_id``/``dst_id``,
symlinks by ``dataset_id``/``alias_id``, the job of an edge by its id).

Every read here sees current edges and symlinks only (:func:`current_edge`,
:func:`current_symlink`): an input or output edge that the job's latest run
no longer lists among its inputs (or outputs), or an alias that the
dataset's latest symlinks facet no longer names, stays stored, as history,
but is not part of the graph.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Connection,
    FromClause,
    Integer,
    Select,
    String,
    and_,
    bindparam,
    case,
    cast,
    exists,
    false,
    func,
    literal,
    literal_column,
    select,
    true,
    union_all,
)

from feast_lineage.consumer.lineage_model import EdgeType, Way
from feast_lineage.consumer.store.read.aliases import LinkFilter, alias_steps
from feast_lineage.consumer.store.read.aliases import current_symlink as current_symlink
from feast_lineage.consumer.store.read.common import (
    NsIds,
    chunks,
    count,
    in_ids,
    seen_by,
    where_all,
    written,
)
from feast_lineage.consumer.store.read.explicit import current_explicit_edge
from feast_lineage.consumer.store.read.walk import Step, recursive_walk
from feast_lineage.consumer.store.schema import tables as t

NodeKind = Literal["job", "dataset"]


class NodeRow(NamedTuple):
    """A job or a dataset of the graph."""

    kind: NodeKind
    id: int
    ns_id: int
    namespace: str
    name: str
    producer: str | None
    created_us: int
    updated_us: int | None
    datasource_uri: str | None  # datasets only
    feast_type: str | None  # datasets only
    # a dataset some event wrote or declared (:func:`.common.written`); as of an instant, by then
    written: bool


class EdgeRow(NamedTuple):
    """A current lineage edge (input, output, parent or root)."""

    src_id: int
    dst_id: int
    edge_type: EdgeType  # input, output, parent or root
    src_kind: str
    dst_kind: str
    created_us: int


class SymlinkRow(NamedTuple):
    """A current symlink: the dataset ``dataset_id`` (``namespace``, ``name``) names an alias."""

    dataset_id: int
    alias_id: int
    alias_ns_id: int
    alias_namespace: str
    alias_name: str
    alias_type: str | None
    source: Literal["symlink", "datasource"]
    created_us: int
    namespace: str
    name: str


FOLLOWED_EDGES = ("input", "output", "parent")


def _node_selects(visible: str | None) -> tuple[Any, Any]:
    """The jobs' and the datasets' node columns, for a caller of a finite scope (``visible``:
    the expanding parameter of the namespace ids it may see) or an unlimited one (None).

    A job's producer and update time are its own events': of its namespace. A
    dataset's may be a hidden job's: a scoped caller gets null for them unless it
    may see the namespace of the event that set them (:func:`.common.seen_by`).
    """
    j, d = t.jobs.c, t.datasets.c
    none_text = literal(None, String)

    def shown(set_by: Any) -> Any:
        return set_by.in_(_ids_param(visible)) if visible is not None else None

    jobs = select(
        literal("job", String).label("kind"),
        j.id,
        j.ns_id,
        j.namespace,
        j.name,
        j.producer,
        j.created_us,
        j.updated_us,
        none_text.label("datasource_uri"),
        none_text.label("feast_type"),
        false().label("written"),
    )
    datasets = select(
        literal("dataset", String).label("kind"),
        d.id,
        d.ns_id,
        d.namespace,
        d.name,
        seen_by(d.producer, shown(d.producer_ns_id)).label("producer"),
        d.created_us,
        seen_by(d.updated_us, shown(d.updated_ns_id)).label("updated_us"),
        d.datasource_uri,
        d.feast_type,
        written(t.datasets).label("written"),
    )
    return jobs, datasets


def count_nodes(conn: Connection, ns_ids: NsIds) -> int:
    return count(conn, t.jobs, *where_all(in_ids(t.jobs.c.ns_id, ns_ids))) + count(
        conn, t.datasets, *where_all(in_ids(t.datasets.c.ns_id, ns_ids))
    )


def current_edge(edges: FromClause) -> ColumnElement[bool]:
    """Whether an edge of ``edges`` (the edges table or an alias) is part of the current graph.

    Parent and root edges always are. An input edge is when the run of its
    job's latest event that listed inputs read the dataset too (for a
    JobEvent, the event itself), an output edge likewise; and every edge of a
    job that has recorded no such run (stored before migration 0004). Two
    primary key lookups an edge: the job, then the run's input or output.
    """
    e = edges.c
    j = t.jobs.alias("edge_job")
    io = t.run_io.alias("edge_io")

    def stale(job_end: Any, dataset_end: Any, run: Any, direction: str) -> Any:
        listed = (
            exists()
            .where(io.c.run_id == run, io.c.dataset_id == dataset_end, io.c.direction == direction)
            .correlate_except(io)
        )
        return exists().where(j.c.id == job_end, run.is_not(None), ~listed).correlate_except(j)

    return case(
        (e.edge_type == "input", ~stale(e.dst_id, e.src_id, j.c.input_run, "input")),
        (e.edge_type == "output", ~stale(e.src_id, e.dst_id, j.c.output_run, "output")),
        else_=true(),
    )


def _ids_param(name: str = "ids") -> Any:
    return bindparam(name, expanding=True)


def _scope_params(ns_ids: NsIds) -> dict[str, Any]:
    return {} if ns_ids is None else {"ns_ids": sorted(ns_ids)}


@lru_cache(maxsize=16)
def _node_page_statement(scoped: bool, backwards: bool, masked: bool) -> Any:
    # A compound ORDER BY lets SQLite merge the two (namespace, name) indexes.
    jobs, datasets = _node_selects("visible" if masked else None)
    if scoped:
        jobs = jobs.where(t.jobs.c.ns_id.in_(_ids_param("ns_ids")))
        datasets = datasets.where(t.datasets.c.ns_id.in_(_ids_param("ns_ids")))
    keys: list[Any] = [literal_column(k) for k in ("namespace", "name", "kind")]
    order = [k.desc() for k in keys] if backwards else keys
    return (
        union_all(jobs, datasets)
        .order_by(*order)
        .limit(bindparam("limit", type_=Integer))
        .offset(bindparam("offset", type_=Integer))
    )


def node_page(
    conn: Connection, ns_ids: NsIds, total: int, offset: int, limit: int, *, visible: NsIds
) -> list[NodeRow]:
    """Nodes of ``ns_ids`` sorted by (namespace, name, kind), read from the nearer end.

    ``visible``: the namespaces the caller may see (``ns_ids`` may be fewer, a filter),
    which decide what it is shown of a dataset's producer and update time.
    """
    if offset >= total or (ns_ids is not None and not ns_ids):
        return []
    scope = _scope_params(ns_ids)
    if visible is not None:
        scope["visible"] = sorted(visible)
    masked = visible is not None
    tail = total - offset - limit
    if tail < offset:
        stmt = _node_page_statement(ns_ids is not None, True, masked)
        params = {"limit": min(limit, total - offset), "offset": max(tail, 0), **scope}
        return [NodeRow(*row) for row in reversed(conn.execute(stmt, params).all())]
    stmt = _node_page_statement(ns_ids is not None, False, masked)
    params = {"limit": limit, "offset": offset, **scope}
    return [NodeRow(*row) for row in conn.execute(stmt, params)]


@lru_cache(maxsize=8)
def _nodes_by_id_statement(scoped: bool, masked: bool) -> Any:
    jobs, datasets = _node_selects("visible" if masked else None)
    if scoped:
        jobs = jobs.where(t.jobs.c.ns_id.in_(_ids_param("ns_ids")))
        datasets = datasets.where(t.datasets.c.ns_id.in_(_ids_param("ns_ids")))
    return union_all(
        jobs.where(t.jobs.c.id.in_(_ids_param())),
        datasets.where(t.datasets.c.id.in_(_ids_param())),
    )


def nodes_by_id(
    conn: Connection, ids: Iterable[int], ns_ids: NsIds, *, visible: NsIds
) -> list[NodeRow]:
    """The stored jobs and datasets of ``ns_ids`` among ``ids``.

    ``visible``: the namespaces the caller may see (``ns_ids`` may be fewer, a filter),
    which decide what it is shown of a dataset's producer and update time
    (:func:`_node_selects`), as :func:`node_page`'s.
    """
    if ns_ids is not None and not ns_ids:
        return []
    stmt = _nodes_by_id_statement(ns_ids is not None, visible is not None)
    shown = {} if visible is None else {"visible": sorted(visible)}
    out: list[NodeRow] = []
    for chunk in chunks(ids):
        params = {"ids": chunk, **_scope_params(ns_ids), **shown}
        out.extend(NodeRow(*row) for row in conn.execute(stmt, params))
    return out


def has_node(conn: Connection, kind: NodeKind, node_id: int, ns_ids: NsIds) -> bool:
    """Whether the job (or dataset) ``node_id`` is stored and visible."""
    table = t.jobs if kind == "job" else t.datasets
    stmt = select(table.c.id).where(
        table.c.id == node_id, *where_all(in_ids(table.c.ns_id, ns_ids))
    )
    return conn.execute(stmt).first() is not None


def alias_owner(conn: Connection, alias_id: int, ns_ids: NsIds) -> int | None:
    """The visible dataset whose current symlinks name ``alias_id``, if one does.

    A name known only as an alias (Feast's own name of an imported object, a
    table behind a file) is answered as the dataset that lists it; with
    several, the one of the lowest id, so the answer never varies.
    """
    s = t.dataset_symlinks.c
    owner = t.datasets.alias("alias_owner")
    stmt = (
        select(func.min(owner.c.id))
        .select_from(t.dataset_symlinks)
        .join(owner, owner.c.id == s.dataset_id)
        .where(
            s.alias_id == alias_id,
            current_symlink(t.dataset_symlinks),
            *where_all(in_ids(owner.c.ns_id, ns_ids), in_ids(s.alias_ns_id, ns_ids)),
        )
    )
    found = conn.execute(stmt).scalar()
    return int(found) if found is not None else None


@lru_cache(maxsize=1)
def _edges_from_statement() -> Any:
    e = t.lineage_edges.c
    return select(e.src_id, e.dst_id, e.edge_type, e.src_kind, e.dst_kind, e.created_us).where(
        e.src_id.in_(_ids_param()), current_edge(t.lineage_edges)
    )


def edges_among(conn: Connection, ids: set[int]) -> list[EdgeRow]:
    """Every current edge whose two ends are both in ``ids``."""
    out: list[EdgeRow] = []
    for chunk in chunks(ids):
        rows = conn.execute(_edges_from_statement(), {"ids": chunk}).all()
        out.extend(EdgeRow(*row) for row in rows if row.dst_id in ids)
    return out


def count_edges(conn: Connection, ns_ids: NsIds) -> int:
    """Current edges plus current symlink edges between stored datasets, both ends visible."""
    e = t.lineage_edges.c
    stored = count(
        conn,
        t.lineage_edges,
        current_edge(t.lineage_edges),
        *where_all(in_ids(e.src_ns_id, ns_ids), in_ids(e.dst_ns_id, ns_ids)),
    )
    return stored + count_symlinks(conn, ns_ids)


def _between_stored(
    columns: Callable[[FromClause], tuple[Any, ...]],
    ns_ids: NsIds,
    current: LinkFilter,
    existed: Callable[[FromClause], ColumnElement[bool]] | None,
) -> Any:
    """``columns`` (of the links, given as a subquery) of the symlinks ``current`` keeps
    between stored datasets, both visible (and, with ``existed``, both existing then).

    The links between stored datasets are picked first, in a ``DISTINCT``
    subquery (their key makes it a no-op) that no database flattens into
    the outer query: ``current``'s lookups then run for those only. Flat,
    SQLite ran them for every stored link, before the join to the alias,
    when most aliases are no stored dataset (a table's other names: 277 of
    10,128 links on the 1M history store).
    """
    s = t.dataset_symlinks
    owner = t.datasets.alias("owner")
    alias = t.datasets.alias("alias")
    links = (
        select(*s.c, owner.c.namespace.label("owner_namespace"), owner.c.name.label("owner_name"))
        .select_from(s)
        .join(owner, owner.c.id == s.c.dataset_id)
        .join(alias, alias.c.id == s.c.alias_id)
        # The alias's namespace from the link's own column: filtered on the aliases' ns index
        # instead, SQLite paired every visible dataset with every other (1.25M probes for
        # one namespace of 1,119 datasets at 1M events: 275 ms against 16 unscoped).
        .where(*where_all(in_ids(owner.c.ns_id, ns_ids), in_ids(s.c.alias_ns_id, ns_ids)))
    )
    if existed is not None:
        links = links.where(existed(owner), existed(alias))
    between = links.distinct().subquery("between_stored")
    return select(*columns(between)).where(current(between))


def count_symlinks(
    conn: Connection,
    ns_ids: NsIds,
    current: LinkFilter = current_symlink,
    params: Mapping[str, object] | None = None,
    existed: Callable[[FromClause], ColumnElement[bool]] | None = None,
) -> int:
    """Symlinks between stored datasets that ``current`` keeps (with ``params``), both visible.

    ``existed``: whether a dataset existed then (as of an instant), both ends.
    """
    links = _between_stored(lambda _links: (func.count(),), ns_ids, current, existed)
    return int(conn.execute(links, dict(params or {})).scalar_one())


def _link_columns(links: FromClause, namespace: Any, name: Any) -> tuple[Any, ...]:
    """A :class:`SymlinkRow`'s columns: the link's, then its owner dataset's names."""
    s = links.c
    return (
        s.dataset_id,
        s.alias_id,
        s.alias_ns_id,
        s.alias_namespace,
        s.alias_name,
        s.alias_type,
        s.source,
        s.created_us,
        namespace,
        name,
    )


def symlinks_between_stored(
    conn: Connection,
    ns_ids: NsIds,
    current: LinkFilter,
    params: Mapping[str, object],
    existed: Callable[[FromClause], ColumnElement[bool]],
) -> list[SymlinkRow]:
    """Every symlink :func:`count_symlinks` counts: the whole graph's, in one read."""

    def columns(links: FromClause) -> tuple[Any, ...]:
        return _link_columns(links, links.c.owner_namespace, links.c.owner_name)

    stmt = _between_stored(columns, ns_ids, current, existed)
    rows = conn.execute(stmt, dict(params)).all()
    return sorted(SymlinkRow(*row) for row in rows)


@lru_cache(maxsize=8)
def _symlinks_statement(side: str, scoped: bool, current: LinkFilter) -> Any:
    s = t.dataset_symlinks.c
    owner = t.datasets.alias("owner")
    stmt = (
        select(*_link_columns(t.dataset_symlinks, owner.c.namespace, owner.c.name))
        .join(owner, owner.c.id == s.dataset_id)
        .where(s[side].in_(_ids_param()), current(t.dataset_symlinks))
    )
    if scoped:
        stmt = stmt.where(
            owner.c.ns_id.in_(_ids_param("ns_ids")), s.alias_ns_id.in_(_ids_param("ns_ids"))
        )
    return stmt


def symlinks_touching(
    conn: Connection,
    dataset_ids: set[int],
    ns_ids: NsIds,
    current: LinkFilter = current_symlink,
    params: Mapping[str, object] | None = None,
) -> list[SymlinkRow]:
    """Current symlinks from or to ``dataset_ids`` whose two ends are visible.

    ``current`` (with ``params``) says which links count: now, or at an instant.
    """
    if ns_ids is not None and not ns_ids:
        return []
    seen: dict[tuple[int, int], SymlinkRow] = {}
    for chunk in chunks(dataset_ids):
        # Two indexed lookups: an OR of the two IN lists would scan the table.
        for side in ("dataset_id", "alias_id"):
            stmt = _symlinks_statement(side, ns_ids is not None, current)
            bound = {"ids": chunk, **(params or {}), **_scope_params(ns_ids)}
            for row in conn.execute(stmt, bound).all():
                seen[(row.dataset_id, row.alias_id)] = SymlinkRow(*row)
    return [seen[k] for k in sorted(seen)]


def _walk_steps(w: FromClause, direction: Way, scoped: bool) -> list[Step]:
    """From a node: along a lineage edge, across a symlink either way, along an explicit edge."""
    e = t.lineage_edges.alias("e")
    x = t.explicit_edges.alias("x")
    if direction == "upstream":
        near, far, far_ns = e.c.dst_id, e.c.src_id, e.c.src_ns_id
        x_near, x_far, x_far_ns = x.c.dst_id, x.c.src_id, x.c.src_ns_id
    else:
        near, far, far_ns = e.c.src_id, e.c.dst_id, e.c.dst_ns_id
        x_near, x_far, x_far_ns = x.c.src_id, x.c.dst_id, x.c.dst_ns_id
    edge_on = and_(near == w.c.node_id, e.c.edge_type.in_(FOLLOWED_EDGES), current_edge(e))
    explicit_on = and_(x_near == w.c.node_id, current_explicit_edge(x))
    if scoped:
        edge_on = and_(edge_on, far_ns.in_(_ids_param("ns_ids")))
        explicit_on = and_(explicit_on, x_far_ns.in_(_ids_param("ns_ids")))
    to_alias, to_owner = alias_steps(w.c.node_id, lambda found: (found,), scoped)
    return [
        Step(e, edge_on, (far,), far, deeper=True),
        to_alias,
        to_owner,
        Step(x, explicit_on, (x_far,), x_far, deeper=True),
    ]


@lru_cache(maxsize=8)
def _walk_statement(direction: Way, scoped: bool) -> Select[int, int]:
    """The walk as one statement, built once: parameters ``start``, ``depth``, ``ns_ids``."""
    seed = select(
        cast(bindparam("start", type_=BigInteger), BigInteger).label("node_id"),
        cast(literal(0), Integer).label("depth"),
    )
    walked = recursive_walk("walk", seed, lambda w: _walk_steps(w, direction, scoped))
    return select(walked.c.node_id, func.min(walked.c.depth)).group_by(walked.c.node_id)


def walk(
    conn: Connection,
    start: int,
    direction: Way,
    depth: int,
    ns_ids: NsIds,
    *,
    aliases: bool = False,
) -> dict[int, int]:
    """Node id -> distance from ``start`` of every node within ``depth`` steps.

    ``aliases``: at ``depth`` 0 too, ``start``'s aliases (at its own level, 0,
    as a deeper walk has them; without it, ``start`` alone).
    """
    if depth <= 0 and not aliases:
        return {start: 0}
    if ns_ids is not None and not ns_ids:
        return {start: 0}
    params: dict[str, Any] = {"start": start, "depth": max(depth, 0)}
    if ns_ids is not None:
        params["ns_ids"] = sorted(ns_ids)
    stmt = _walk_statement(direction, ns_ids is not None)
    return {int(node): int(level) for node, level in conn.execute(stmt, params).all()}
