"""The lineage graph at an instant (``as_of``) and over a window (``since``/``until``).

The same answers as :mod:`.graph` (a page of the graph, a subgraph), from
the history reads: :mod:`..store.read.as_of` and :mod:`..store.read.window`.
An ``as_of`` node carries the version current then (``version``) and that
version's schema; a window's nodes are as stored (their facets now), its
input and output edges carry how many of the window's runs listed them, and
when, and its parent edges how many of the child's runs named a run of the
parent. Explicit lineage edges are those current at the instant, or stated
in the window (:mod:`..store.read.explicit_as_of`). Health is known as of
now only: a node's ``state`` is ``unknown`` but for an ``as_of`` at or after
now (a :class:`.when.NowInstant`), whose nodes carry the current answer's
state and health. The current-graph answers never come here, so they cost
what they cost before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Connection

from feast_lineage.consumer import redaction
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.errors import NotFound
from feast_lineage.consumer.lineage_model import Direction, NodeId, Way
from feast_lineage.consumer.schemas import Clamped, GraphEdge, GraphPage, Subgraph
from feast_lineage.consumer.services import job_versions_then, not_found
from feast_lineage.consumer.services.bounds import MAX_GRAPH_PAGE, clamp_depth, clamp_limit
from feast_lineage.consumer.services.columns import has_column_lineage
from feast_lineage.consumer.services.dataset_versions import version_key
from feast_lineage.consumer.services.graph import (
    _READ_FACETS,
    Built,
    Ends,
    NodeRef,
    _node,
    add_derived,
    add_explicit,
    add_symlinks,
    build_now,
    graph_edge,
    nearest,
    node_ref,
    paint_health,
    seen,
)
from feast_lineage.consumer.services.health_cache import assess
from feast_lineage.consumer.services.health_states import Assessment
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.services.when import (
    History,
    NowInstant,
    When,
    answerable,
    echo,
    when,
)
from feast_lineage.consumer.store.read import as_of as at_reads
from feast_lineage.consumer.store.read import catalog_as_of
from feast_lineage.consumer.store.read import common as read_common
from feast_lineage.consumer.store.read import graph as g
from feast_lineage.consumer.store.read import window as window_reads
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.common import NsIds
from feast_lineage.consumer.store.read.graph import EdgeRow, NodeKind, NodeRow
from feast_lineage.consumer.store.read.window import Window
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import to_iso
from feast_lineage.identity import dataset_id, job_id

__all__ = ["History", "build", "graph_page_at", "history", "nodes_at", "subgraph_at", "walk_at"]


_echo = echo
_answerable = answerable
history = when


def _versions(conn: Connection, rows: list[NodeRow], at: Instant) -> dict[int, Any]:
    """Node id -> (version id, schema text or None) at ``at``."""
    datasets = at_reads.dataset_versions_at(conn, (r.id for r in rows if r.kind == "dataset"), at)
    schemas = at_reads.schema_texts(conn, datasets)
    out: dict[int, Any] = {
        node: (version_key(v.id), schemas.get(v.schema_id or "")) for node, v in datasets.items()
    }
    jobs = job_versions_then.job_versions_at(conn, (r.id for r in rows if r.kind == "job"), at)
    out.update({node: (version, None) for node, version in jobs.items()})
    return out


def _facets_then(
    conn: Connection, rows: list[NodeRow], at: Instant, details: bool
) -> tuple[dict[int, dict[str, str]], dict[int, str]]:
    """Node id -> its facets at ``at``; dataset id -> its ``dataSource`` URI then.

    A job's facets are exact; a dataset's are exact in a node's details (``details``:
    ``depth=0``), else those whose latest statement is by then
    (:func:`..read.catalog_as_of.dataset_facets_then`: exact is read from events).
    """
    jobs = [r.id for r in rows if r.kind == "job"]
    out = catalog_as_of.facets_at(conn, t.job_facets, jobs, at)
    datasets = catalog_as_of.dataset_facets_then(
        conn, [r.id for r in rows if r.kind == "dataset"], at, exact=details
    )
    out.update(datasets.facets)
    return out, datasets.uris


def _facets_now(conn: Connection, rows: list[NodeRow]) -> dict[int, dict[str, str]]:
    """Node id -> its stored facets (the current graph's)."""
    jobs = [r.id for r in rows if r.kind == "job"]
    out = read_common.facets_of(conn, t.job_facets, jobs, raw=True)
    datasets = [r.id for r in rows if r.kind == "dataset"]
    out.update(read_common.facets_of(conn, t.dataset_facets, datasets, raw=True))
    return out


def _columns_then(conn: Connection, rows: list[NodeRow], scope: Scope, at: Instant) -> set[int]:
    """The datasets of ``rows`` with column lineage current at ``at`` (theirs or an alias's)."""
    return has_column_lineage(conn, (r.id for r in rows if r.kind == "dataset"), scope, at)


def _runs_then(conn: Connection, rows: list[NodeRow], at: Instant) -> dict[int, str]:
    """Job id -> the state its latest run had at ``at``."""
    found = catalog_as_of.latest_runs_at(conn, (r.id for r in rows if r.kind == "job"), at)
    return {job: run.state for job, run in found.items()}


def _nodes(
    conn: Connection,
    rows: list[NodeRow],
    scope: Scope,
    mapping: Mapping[str, str],
    depths: Mapping[int, int] | None,
    at: History,
    versions: Mapping[int, Any] | None = None,
    details: bool = False,
    health: Assessment | None = None,
) -> tuple[dict[int, NodeRef], Built]:
    """The answer's nodes: an ``as_of`` node with its version then, a window's as stored.

    ``versions`` (node id -> (version id, schema text or None)), when the
    caller has read them, are not read again. ``details``: the answer is one
    node's details (``depth=0``), whose dataset facets then are read exactly.
    ``health``: now's assessment (an instant that is now), each node's state
    and health by it, as the current answer's; without it, ``unknown``.
    """
    if versions is None:
        versions = _versions(conn, rows, at) if isinstance(at, Instant) else {}
    # A window's nodes are as stored: their facets now (a job's Feast kind among them).
    owned, uris = (
        _facets_then(conn, rows, at, details)
        if isinstance(at, Instant)
        else (_facets_now(conn, rows), {})
    )
    runs = _runs_then(conn, rows, at) if isinstance(at, Instant) else {}
    with_columns = _columns_then(conn, rows, scope, at) if isinstance(at, Instant) else set()
    refs: dict[int, NodeRef] = {}
    built = Built(nodes=[], edges=[], derived_edges=[], symlinks=[])
    for r in rows:
        version, schema = versions.get(r.id, (None, None))
        stored = dict(owned.get(r.id, {}))
        if schema is not None and "schema" not in stored:  # stated again since: the version's
            stored["schema"] = schema
        facets = redaction.stored_facets(stored, scope, _READ_FACETS, stamped=r.kind == "job")
        ref = refs[r.id] = node_ref(r.kind, r.namespace, r.name)
        depth = depths.get(r.id) if depths is not None else None
        node = _node(r, ref.key, facets, mapping, depth, r.id in with_columns, runs.get(r.id))
        if isinstance(at, Instant):
            node["producer"] = None  # as stored: not known then (``written`` is, by the read)
            node["updated_at"] = node["updated_at_iso"] = None
            if r.kind == "dataset":
                node["datasource_uri"] = uris.get(r.id)
            node["version"] = version
        if health is not None:
            paint_health(node, r.id, health, scope)
        built["nodes"].append(node)
    return refs, built


def _symlinks(
    conn: Connection, refs: dict[int, NodeRef], built: Built, ns_ids: NsIds, at: History
) -> None:
    """The symlinks current at ``at`` (a window: before its end) touching the datasets."""
    instant = at if isinstance(at, Instant) else window_reads.symlinks_instant(at)
    datasets = {node for node, ref in refs.items() if ref.node.kind == "dataset"}
    add_symlinks(at_reads.symlinks_touching(conn, datasets, ns_ids, instant), refs, built)


def _edges(conn: Connection, refs: dict[int, NodeRef], built: Built, at: History) -> None:
    """The edges among the nodes at ``at`` (a window's with their runs), explicit edges
    current then (stated in the window), and derived edges."""
    ids = set(refs)
    rows: list[EdgeRow]
    stats: dict[tuple[int, int, window_reads.Direction], window_reads.EdgeStats] = {}
    parents: dict[tuple[int, int], window_reads.EdgeStats] = {}
    if isinstance(at, Instant):
        rows = at_reads.edges_among(conn, ids, at)
    else:
        rows, stats = window_reads.edges_among(conn, ids, at)
        parent_rows, parents = window_reads.parent_edges_among(conn, ids, at)
        rows += parent_rows
    inputs: Ends = {}
    outputs: Ends = {}
    for e in rows:
        edge = graph_edge(refs[e.src_id], refs[e.dst_id], e.edge_type, e.created_us)
        if e.edge_type == "input":
            seen(inputs, e.dst_id, e.src_id, e.created_us)
            _with_stats(edge, stats.get((e.dst_id, e.src_id, "input")))
        elif e.edge_type == "output":
            seen(outputs, e.src_id, e.dst_id, e.created_us)
            _with_stats(edge, stats.get((e.src_id, e.dst_id, "output")))
        elif e.edge_type == "parent":
            _with_stats(edge, parents.get((e.src_id, e.dst_id)))
        built["edges"].append(edge)
    if isinstance(at, Instant):
        explicit = at_reads.explicit_among(conn, ids, at)
    else:
        explicit = window_reads.explicit_among(conn, ids, at)
    add_explicit(explicit, refs, built, inputs, outputs)
    add_derived(inputs, outputs, refs, built)
    built["edges"].sort(key=lambda e: (e["source"], e["target"], e["type"], e["origin"] or ""))


def _with_stats(edge: GraphEdge, stats: window_reads.EdgeStats | None) -> None:
    if stats is not None:
        edge["run_count"] = stats.runs
        edge["first_seen"] = to_iso(stats.first_us) or ""
        edge["last_seen"] = to_iso(stats.last_us) or ""


def _build(
    conn: Connection,
    rows: list[NodeRow],
    read: StoreReader,
    depths: Mapping[int, int] | None,
    at: History,
    details: bool = False,
) -> Built:
    """The nodes and edges of ``rows``; ``details``: a node's details (:func:`_nodes`)."""
    health = _health(conn, read, at)
    mapping = read.namespace_mapping
    refs, built = _nodes(conn, rows, read.scope, mapping, depths, at, None, details, health)
    _symlinks(conn, refs, built, read.scope.ns_ids, at)
    _edges(conn, refs, built, at)
    return built


def _health(conn: Connection, read: StoreReader, at: History) -> Assessment | None:
    """Now's assessment, the current answer's, for an instant that is now; else None
    (health is known as of now only)."""
    if not isinstance(at, NowInstant):
        return None
    return assess(conn, read.freshness, read.clock(), read.health_cache)


def build(
    conn: Connection,
    rows: list[NodeRow],
    read: StoreReader,
    depths: Mapping[int, int] | None,
    at: When,
) -> Built:
    """The nodes of ``rows`` and the edges among them: now (None), at an instant, over a window."""
    if at is None:
        return build_now(conn, rows, read, depths)
    return _build(conn, rows, read, depths, at)


def nodes_at(conn: Connection, ids: Iterable[int], ns_ids: NsIds, at: When) -> list[NodeRow]:
    """The visible nodes among ``ids`` that existed at ``at`` (now and a window: stored)."""
    if isinstance(at, Instant):
        return at_reads.nodes_by_id(conn, ids, ns_ids, at)
    return g.nodes_by_id(conn, ids, ns_ids, visible=ns_ids)


def walk_at(
    conn: Connection,
    start: int,
    way: Way,
    depth: int,
    ns_ids: NsIds,
    at: When,
    *,
    aliases: bool = False,
) -> dict[int, int]:
    """Node id -> distance from ``start`` along ``way`` at ``at`` (None: the current graph).

    ``aliases``: at ``depth`` 0 too, ``start``'s aliases at its own level (a
    walk of one step or more always has them; without it, depth 0 is ``start``).
    """
    if isinstance(at, Instant):
        return at_reads.walk(conn, start, way, depth, ns_ids, at, aliases=aliases)
    if isinstance(at, Window):
        return window_reads.walk(conn, start, way, depth, ns_ids, at, aliases=aliases)
    return g.walk(conn, start, way, depth, ns_ids, aliases=aliases)


def _window_nodes(
    conn: Connection,
    ns_ids: NsIds,
    seen_then: window_reads.Observed,
    stated: set[int],
    visible: NsIds,
) -> list[NodeRow]:
    """Every node of ``ns_ids`` the window observed or its explicit lineage named
    (``stated``), sorted as the graph's pages; ``visible``: the caller's namespaces."""
    rows = g.nodes_by_id(conn, seen_then.nodes | stated, ns_ids, visible=visible)
    rows.sort(key=lambda r: (r.namespace, r.name, r.kind))
    return rows


def graph_page_at(
    read: StoreReader, *, namespace: str | None, limit: int, offset: int, at: History
) -> GraphPage:
    """A page of the graph as of an instant, or of what a window observed."""
    clamped: list[Clamped] = []
    limit = clamp_limit(limit, MAX_GRAPH_PAGE, clamped)
    ns_ids = read.scope.narrow(namespace).ns_ids
    with read.engine.connect() as conn:
        at = _answerable(conn, at)
        if isinstance(at, Instant):
            total = at_reads.count_nodes(conn, ns_ids, at)
            rows = at_reads.node_page(conn, ns_ids, at, offset, limit)
            total_edges = at_reads.count_edges(conn, ns_ids, at)
        else:
            seen_then = window_reads.observed(conn, ns_ids, at)
            stated = window_reads.explicit_stated(conn, ns_ids, at)
            ends = {end for x in stated for end in (x.src_id, x.dst_id)}
            everything = _window_nodes(conn, ns_ids, seen_then, ends, read.scope.ns_ids)
            total, rows = len(everything), everything[offset : offset + limit]
            total_edges = len(seen_then.edges) + len(seen_then.parents) + len(stated)
        built = _build(conn, rows, read, None, at)
    as_of, since, until = _echo(at)
    return GraphPage(
        **built,
        total_nodes=total,
        total_edges=total_edges,
        limit=limit,
        offset=offset,
        clamped=clamped,
        as_of=as_of,
        since=since,
        until=until,
    )


def _start(
    conn: Connection, kind: NodeKind, node: int, namespace: str, read: StoreReader, at: History
) -> bool:
    """Whether the caller may see the node and it existed at ``at`` (for a window: is stored)."""
    scope = read.scope
    if not scope.allows(namespace):
        return False
    if isinstance(at, Instant):
        return bool(at_reads.nodes_by_id(conn, [node], scope.ns_ids, at))
    return g.has_node(conn, kind, node, scope.ns_ids)


def _reach(
    conn: Connection, start: int, direction: Direction, depth: int, scope: Scope, at: History
) -> dict[int, int]:
    return nearest(direction, lambda way: walk_at(conn, start, way, depth, scope.ns_ids, at))


def subgraph_at(
    read: StoreReader,
    *,
    kind: NodeKind,
    namespace: str,
    name: str,
    depth: int,
    direction: Direction,
    limit: int,
    at: History,
) -> Subgraph:
    """The subgraph around one node as of an instant, or of what a window observed."""
    clamped: list[Clamped] = []
    depth = clamp_depth(depth, clamped)
    start = job_id(namespace, name) if kind == "job" else dataset_id(namespace, name)
    with read.engine.connect() as conn:
        at = _answerable(conn, at)
        if not _start(conn, kind, start, namespace, read, at):
            when = f"at {to_iso(at.time_us)}" if isinstance(at, Instant) else "(stored)"
            raise NotFound(
                f"no {kind} named {name!r} in namespace {namespace!r} {when}; "
                + not_found.nodes(kind)
            )
        depths = _reach(conn, start, direction, depth, read.scope, at)
        nearest = sorted(depths, key=lambda n: (depths[n], n))
        considered = nearest[: 2 * limit + 16]
        if isinstance(at, Instant):
            rows = at_reads.nodes_by_id(conn, considered, read.scope.ns_ids, at)
        else:
            rows = g.nodes_by_id(conn, considered, read.scope.ns_ids, visible=read.scope.ns_ids)
        rows.sort(key=lambda r: (depths[r.id], r.namespace, r.name, r.kind))
        truncated = len(rows) > limit or len(considered) < len(nearest)
        built = _build(conn, rows[:limit], read, depths, at, details=depth == 0)
    as_of, since, until = _echo(at)
    return Subgraph(
        center=str(NodeId(kind, namespace, name)),
        depth=depth,
        direction=direction,
        **built,
        truncated=truncated,
        limit=limit,
        clamped=clamped,
        as_of=as_of,
        since=since,
        until=until,
    )


def whole_graph_at(read: StoreReader, *, at: Instant) -> GraphPage:
    """Every visible node and edge as of ``at``: :func:`graph_page_at` in one page of all."""
    ns_ids = read.scope.ns_ids
    with read.engine.connect() as conn:
        _answerable(conn, at)
        total = at_reads.count_nodes(conn, ns_ids, at)
        rows = at_reads.node_page(conn, ns_ids, at, 0, max(total, 1))
        built = _build(conn, rows, read, None, at)
    return GraphPage(
        **built,
        total_nodes=total,
        total_edges=sum(1 for e in built["edges"] if e["type"] != "derived"),
        limit=max(total, 1),
        offset=0,
        clamped=[],
        as_of=to_iso(at.time_us),
        since=None,
        until=None,
    )
