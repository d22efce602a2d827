"""The lineage graph: pages of the whole graph and subgraphs around one node.

Answers are the TypedDicts of :mod:`~feast_lineage.consumer.schemas`
(:class:`~feast_lineage.consumer.schemas.GraphPage`,
:class:`~feast_lineage.consumer.schemas.Subgraph`), which the routes
declare: a page holds thousands of facets, and building a pydantic object
for each node and edge costs more than the queries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypedDict

from sqlalchemy import Connection

from feast_lineage.consumer import redaction
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.errors import NotFound
from feast_lineage.consumer.feast_objects import feast_object
from feast_lineage.consumer.feast_shape import dataset_fields, job_fields, link_type, ms
from feast_lineage.consumer.lineage_model import Direction, EdgeType, NodeId, Origin, Way, ways
from feast_lineage.consumer.schemas import (
    Clamped,
    DerivedEdge,
    GraphEdge,
    GraphNode,
    GraphPage,
    GraphSymlink,
    SchemaField,
    Subgraph,
)
from feast_lineage.consumer.services import not_found
from feast_lineage.consumer.services.bounds import (
    MAX_GRAPH_PAGE,
    clamp_depth,
    clamp_limit,
)
from feast_lineage.consumer.services.columns import has_column_lineage
from feast_lineage.consumer.services.health_cache import assess
from feast_lineage.consumer.services.health_states import Assessment
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.read import common as read_common
from feast_lineage.consumer.store.read import graph as g
from feast_lineage.consumer.store.read.explicit import (
    ExplicitEdgeRead,
    count_explicit_edges,
    explicit_edges_among,
)
from feast_lineage.consumer.store.read.graph import NodeKind, NodeRow
from feast_lineage.consumer.store.read.jobs import latest_run_states
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import to_iso
from feast_lineage.identity import dataset_id, job_id

# A job reading m datasets and writing n makes m * n derived edges.
_MAX_DERIVED = 50_000


class Built(TypedDict):
    """What a page and a subgraph share: the nodes, the edges among them, the symlinks."""

    nodes: list[GraphNode]
    edges: list[GraphEdge]
    derived_edges: list[DerivedEdge]
    symlinks: list[GraphSymlink]


def _schema(facet: object) -> list[SchemaField] | None:
    fields = facet.get("fields") if isinstance(facet, dict) else None
    if not isinstance(fields, list):
        return None
    out: list[SchemaField] = []
    for item in fields:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            kind, text = item.get("type"), item.get("description")
            out.append(
                {
                    "name": item["name"],
                    "type": kind if isinstance(kind, str) else None,
                    "description": text if isinstance(text, str) else None,
                }
            )
    return out


def node_key(kind: NodeKind, namespace: str, name: str) -> str:
    """The id of a job or a dataset in the API (:class:`.NodeId`)."""
    return str(NodeId(kind, namespace, name))


# Formatting times is a visible share of a 500-node page; node times repeat
# from page to page.
@lru_cache(maxsize=1 << 16)
def _iso(us: int) -> str:
    return to_iso(us) or ""


# Facets a node's summary reads; the others are passed through untouched.
_READ_FACETS = (
    "schema",
    "feast_job_kind",
    "feast_jobKind",
    "jobType",
    "documentation",
    "dataSource",
    "ownership",
    "lifecycleStateChange",
)


def _node(
    r: NodeRow,
    key: str,
    facets: tuple[dict[str, Any], dict[str, Any]],
    mapping: Mapping[str, str],
    depth: int | None,
    with_columns: bool,
    state: str | None,
) -> GraphNode:
    """A node: Feast's fields, then ours (:mod:`..feast_shape`)."""
    shown, parsed = facets
    feast = feast_object(r.kind, r.namespace, r.name, r.feast_type, parsed, mapping)
    dataset = dataset_fields(parsed) if r.kind == "dataset" else None
    job = job_fields(parsed) if r.kind == "job" else None
    schema = parsed.get("schema") if r.kind == "dataset" else None
    return {
        "type": r.kind,
        "namespace": r.namespace,
        "name": r.name,
        "producer": r.producer,
        "feast_object_type": feast["type"] if feast else None,
        "feast_object_name": feast["name"] if feast else None,
        "feast_project": feast["project"] if feast else None,
        "schema": schema if isinstance(schema, dict) else None,
        "job_type": job.job_type if job else None,
        "description": dataset.description if dataset else job.description if job else None,
        "source_type": dataset.source_type if dataset else None,
        "owner": dataset.owner_name if dataset else None,
        "owner_type": dataset.owner_type if dataset else None,
        "lifecycle_state": dataset.lifecycle_state if dataset else None,
        "current_version": None,
        "facets": shown,
        "id": key,
        "kind": r.kind,
        "created_at": r.created_us // 1000,
        "created_at_iso": _iso(r.created_us),
        "updated_at": ms(r.updated_us) if r.updated_us else None,
        "updated_at_iso": _iso(r.updated_us) if r.updated_us else None,
        "datasource_uri": r.datasource_uri,
        "schema_fields": _schema(schema),
        "feast": feast,
        "depth": depth,
        "has_column_lineage": with_columns,
        "latest_run_state": state,
        "written": bool(r.written),
        "state": "unknown",
    }


@dataclass(frozen=True, slots=True)
class NodeRef:
    """A node of the answer: its id and the string the API names it by."""

    node: NodeId
    key: str


@lru_cache(maxsize=1 << 16)
def node_ref(kind: NodeKind, namespace: str, name: str) -> NodeRef:
    """A node's ref (both frozen: one per node is shared, the whole graph's many times a diff)."""
    node = NodeId(kind, namespace, name)
    return NodeRef(node, str(node))


def graph_edge(
    source: NodeRef, target: NodeRef, kind: EdgeType, created_us: int, origin: Origin | None = None
) -> GraphEdge:
    """An edge: Feast's fields, then ours."""
    src, dst = source.node, target.node
    return {
        "source_type": src.kind if src.kind == "job" else "dataset",
        "source_namespace": src.namespace,
        "source_name": src.name,
        "target_type": dst.kind if dst.kind == "job" else "dataset",
        "target_namespace": dst.namespace,
        "target_name": dst.name,
        "edge_type": kind,
        "updated_at": created_us // 1000,
        "source": source.key,
        "target": target.key,
        "type": kind,
        "origin": origin,
    }


# job -> {dataset: when the edge was first seen}
Ends = dict[int, dict[int, int]]


def seen(ends: Ends, job: int, dataset: int, created_us: int) -> None:
    known = ends.setdefault(job, {})
    known[dataset] = min(created_us, known.get(dataset, created_us))


def _lineage_edges(conn: Connection, refs: dict[int, NodeRef], built: Built) -> None:
    """The current lineage and explicit edges among the nodes, and Feast's derived edges."""
    ids = set(refs)
    inputs: Ends = {}
    outputs: Ends = {}
    for e in g.edges_among(conn, ids):
        built["edges"].append(graph_edge(refs[e.src_id], refs[e.dst_id], e.edge_type, e.created_us))
        if e.edge_type == "input":
            seen(inputs, e.dst_id, e.src_id, e.created_us)
        elif e.edge_type == "output":
            seen(outputs, e.src_id, e.dst_id, e.created_us)
    add_explicit(explicit_edges_among(conn, ids), refs, built, inputs, outputs)
    add_derived(inputs, outputs, refs, built)


def add_explicit(
    rows: Iterable[ExplicitEdgeRead],
    refs: dict[int, NodeRef],
    built: Built,
    inputs: Ends,
    outputs: Ends,
) -> None:
    """The explicit edges (with their origin); their inputs and outputs count for derived edges."""
    for x in rows:
        src, dst = refs[x.src_id], refs[x.dst_id]
        built["edges"].append(graph_edge(src, dst, x.edge_type, x.created_us, x.origin))
        if x.edge_type == "input":
            seen(inputs, x.dst_id, x.src_id, x.created_us)
        elif x.edge_type == "output":
            seen(outputs, x.src_id, x.dst_id, x.created_us)


def derived_pairs(
    inputs: Ends, outputs: Ends, room: int = _MAX_DERIVED
) -> tuple[list[tuple[int, int, int]], dict[tuple[int, int], int]]:
    """Feast's "derived" edges as ids: (source, target, job) of each, at most ``room``; and
    one time per (source, target), whatever job links them: first seen when both of the
    job's edges had been (of the pairs counted).
    """
    via: list[tuple[int, int, int]] = []
    pairs: dict[tuple[int, int], int] = {}
    for job, sources in sorted(inputs.items()):
        for src, read_us in sorted(sources.items()):
            for dst, wrote_us in sorted(outputs.get(job, {}).items()):
                if src != dst and len(via) < room:
                    via.append((src, dst, job))
                    both_us = max(read_us, wrote_us)
                    pairs[(src, dst)] = min(both_us, pairs.get((src, dst), both_us))
    return via, pairs


def add_derived(inputs: Ends, outputs: Ends, refs: dict[int, NodeRef], built: Built) -> None:
    """Feast's "derived" edges: one per (source, target), whatever job links them.

    First seen when both of the job's edges had been.
    """
    via, pairs = derived_pairs(inputs, outputs, _MAX_DERIVED - len(built["derived_edges"]))
    for src, dst, job in via:
        built["derived_edges"].append(
            DerivedEdge(source=refs[src].key, target=refs[dst].key, via=refs[job].key)
        )
    for (src, dst), created_us in pairs.items():
        built["edges"].append(graph_edge(refs[src], refs[dst], "derived", created_us))


def _symlinks(
    conn: Connection, dataset_ids: set[int], refs: dict[int, NodeRef], scope: Scope, built: Built
) -> None:
    """The current symlinks touching the datasets, and a symlink edge where both are nodes."""
    add_symlinks(g.symlinks_touching(conn, dataset_ids, scope.ns_ids), refs, built)


def add_symlinks(rows: Iterable[g.SymlinkRow], refs: dict[int, NodeRef], built: Built) -> None:
    """The symlinks of ``rows`` in the answer, and a symlink edge where both ends are nodes."""
    for s in rows:
        built["symlinks"].append(
            {
                "dataset_namespace": s.namespace,
                "dataset_name": s.name,
                "linked_namespace": s.alias_namespace,
                "linked_name": s.alias_name,
                "link_type": link_type(s.source, s.alias_type),
                "updated_at": s.created_us // 1000,
                "dataset": str(NodeId.dataset(s.namespace, s.name)),
                "alias": str(NodeId.dataset(s.alias_namespace, s.alias_name)),
                "alias_namespace": s.alias_namespace,
                "alias_name": s.alias_name,
                "alias_type": s.alias_type,
                "source": s.source,
            }
        )
        if s.dataset_id in refs and s.alias_id in refs:
            owner, alias = refs[s.dataset_id], refs[s.alias_id]
            built["edges"].append(graph_edge(owner, alias, "symlink", s.created_us))


def build_nodes(
    conn: Connection,
    rows: list[NodeRow],
    read: StoreReader,
    depths: Mapping[int, int] | None = None,
    health: Assessment | None = None,
) -> tuple[list[GraphNode], dict[int, NodeRef]]:
    """The nodes of ``rows``, each with its state (``unknown`` without an assessment)."""
    scope, mapping = read.scope, read.namespace_mapping
    job_ids = {r.id for r in rows if r.kind == "job"}
    dataset_ids = {r.id for r in rows if r.kind == "dataset"}
    with_columns = has_column_lineage(conn, dataset_ids, scope)
    states = latest_run_states(conn, job_ids)
    job_facets = read_common.facets_of(conn, t.job_facets, job_ids, raw=True)
    dataset_facets = read_common.facets_of(conn, t.dataset_facets, dataset_ids, raw=True)
    refs: dict[int, NodeRef] = {}
    nodes: list[GraphNode] = []
    for r in rows:
        stored = (job_facets if r.kind == "job" else dataset_facets).get(r.id, {})
        facets = redaction.stored_facets(stored, scope, _READ_FACETS, stamped=r.kind == "job")
        ref = refs[r.id] = node_ref(r.kind, r.namespace, r.name)
        depth = depths.get(r.id) if depths is not None else None
        node = _node(r, ref.key, facets, mapping, depth, r.id in with_columns, states.get(r.id))
        if health is not None:
            paint_health(node, r.id, health, scope)
        nodes.append(node)
    return nodes, refs


def paint_health(node: GraphNode, node_id: int, health: Assessment, scope: Scope) -> None:
    """``node``'s state and health by ``health``, naming only what ``scope`` may see."""
    node["state"] = health.state(node_id)
    node["health"] = health.health(node_id, scope, lambda n: health_key(health, n))


def health_key(health: Assessment, node: int) -> str:
    """The API id of a node the assessment knows (kept: a node's id never changes its key)."""
    key = health.node_keys.get(node)
    if key is None:
        info = health.infos[node]
        key = health.node_keys[node] = node_key(info.kind, info.namespace, info.name)
    return key


def build_now(
    conn: Connection,
    rows: list[NodeRow],
    read: StoreReader,
    depths: Mapping[int, int] | None = None,
    health: Assessment | None = None,
) -> Built:
    """The nodes of ``rows`` as they are now, the current edges among them, their symlinks."""
    nodes, refs = build_nodes(conn, rows, read, depths, health)
    built = Built(nodes=nodes, edges=[], derived_edges=[], symlinks=[])
    dataset_ids = {r.id for r in rows if r.kind == "dataset"}
    _lineage_edges(conn, refs, built)
    _symlinks(conn, dataset_ids, refs, read.scope, built)
    built["edges"].sort(key=lambda e: (e["source"], e["target"], e["type"], e["origin"] or ""))
    return built


def graph_page(read: StoreReader, *, namespace: str | None, limit: int, offset: int) -> GraphPage:
    """A page of ``limit`` nodes (0, Feast's "no limit", and past the most: the most)."""
    clamped: list[Clamped] = []
    limit = clamp_limit(limit, MAX_GRAPH_PAGE, clamped)
    scope, _mapping = read.scope, read.namespace_mapping
    ns_ids = scope.narrow(namespace).ns_ids
    with read.engine.connect() as conn:
        total = g.count_nodes(conn, ns_ids)
        rows = g.node_page(conn, ns_ids, total, offset, limit, visible=scope.ns_ids)
        health = assess(conn, read.freshness, read.clock(), read.health_cache)
        built = build_now(conn, rows, read, health=health)
        total_edges = g.count_edges(conn, ns_ids) + count_explicit_edges(conn, ns_ids)
    return GraphPage(
        **built,
        total_nodes=total,
        total_edges=total_edges,
        limit=limit,
        offset=offset,
        clamped=clamped,
        as_of=None,
        since=None,
        until=None,
    )


def _visible_start(
    conn: Connection, kind: NodeKind, node_id: int, namespace: str, scope: Scope
) -> int | None:
    """The node a subgraph starts from, None when the caller may not see one.

    A hidden node is reported exactly like a missing one. A dataset's name
    that only a visible dataset's current symlinks list (Feast's own name of
    an imported object, say) starts from that dataset.
    """
    if not scope.allows(namespace):
        return None
    if g.has_node(conn, kind, node_id, scope.ns_ids):
        return node_id
    return g.alias_owner(conn, node_id, scope.ns_ids) if kind == "dataset" else None


def nearest(direction: Direction, walk: Callable[[Way], Mapping[int, int]]) -> dict[int, int]:
    """Node id -> its least distance in the walks of ``direction``'s ways (both for ``both``)."""
    depths: dict[int, int] = {}
    for way in ways(direction):
        for node, level in walk(way).items():
            if node not in depths or level < depths[node]:
                depths[node] = level
    return depths


def _reach(
    conn: Connection, start: int, direction: Direction, depth: int, scope: Scope
) -> dict[int, int]:
    """Node id -> its least distance from ``start`` of every node the walks reach."""
    return nearest(direction, lambda way: g.walk(conn, start, way, depth, scope.ns_ids))


def subgraph(
    read: StoreReader,
    *,
    kind: NodeKind,
    namespace: str,
    name: str,
    depth: int,
    direction: Direction,
    limit: int,
) -> Subgraph:
    clamped: list[Clamped] = []
    depth = clamp_depth(depth, clamped)
    scope, _mapping = read.scope, read.namespace_mapping
    start = job_id(namespace, name) if kind == "job" else dataset_id(namespace, name)
    with read.engine.connect() as conn:
        node = _visible_start(conn, kind, start, namespace, scope)
        if node is None:
            raise NotFound(
                f"no {kind} named {name!r} in namespace {namespace!r}; " + not_found.nodes(kind)
            )
        depths = _reach(conn, node, direction, depth, scope)
        # Aliases that were never seen as datasets are in reach but are not
        # nodes: look at a few more than ``limit`` ids to fill the page.
        nearest = sorted(depths, key=lambda n: (depths[n], n))
        considered = nearest[: 2 * limit + 16]
        rows = g.nodes_by_id(conn, considered, scope.ns_ids, visible=scope.ns_ids)
        rows.sort(key=lambda r: (depths[r.id], r.namespace, r.name, r.kind))
        truncated = len(rows) > limit or len(considered) < len(nearest)
        health = assess(conn, read.freshness, read.clock(), read.health_cache)
        built = build_now(conn, rows[:limit], read, depths, health)
    return Subgraph(
        center=str(NodeId(kind, namespace, name)),
        depth=depth,
        direction=direction,
        **built,
        truncated=truncated,
        limit=limit,
        clamped=clamped,
        as_of=None,
        since=None,
        until=None,
    )
