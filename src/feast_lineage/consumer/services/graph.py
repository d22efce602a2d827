"""The lineage graph: pages of the whole graph and subgraphs around one node.

Responses are built as plain JSON-ready dicts in the shape of
:class:`~feast_lineage.consumer.schemas.GraphPage` and
:class:`~feast_lineage.consumer.schemas.Subgraph` (tests validate them against
those models): a page holds thousands of facets, and building pydantic
objects for them costs more than the queries.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from sqlalchemy import Connection

from feast_lineage.consumer import redaction
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.errors import NotFound
from feast_lineage.consumer.feast_objects import feast_object
from feast_lineage.consumer.feast_shape import (
    NodeRef,
    dataset_fields,
    job_fields,
    link_type,
    ms,
    node_fields,
)
from feast_lineage.consumer.services.bounds import (
    MAX_GRAPH_PAGE,
    Clamped,
    clamp_depth,
    clamp_limit,
)
from feast_lineage.consumer.services.columns import has_column_lineage
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.read import common as read_common
from feast_lineage.consumer.store.read import graph as g
from feast_lineage.consumer.store.read.explicit import count_explicit_edges, explicit_edges_among
from feast_lineage.consumer.store.read.jobs import latest_run_states
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import to_iso
from feast_lineage.identity import dataset_id, job_id

NodeKind = Literal["job", "dataset"]
DirectionParam = Literal["upstream", "downstream", "both"]
# A job reading m datasets and writing n makes m * n derived edges.
_MAX_DERIVED = 50_000


def node_key(kind: str, namespace: str, name: str) -> str:
    return f"{kind}:{namespace}:{name}"


Json = dict[str, Any]


@dataclass
class _Built:
    nodes: list[Json]
    edges: list[Json]
    derived: list[Json]
    symlinks: list[Json]


def _schema(facet: Any) -> list[Json] | None:
    fields = facet.get("fields") if isinstance(facet, dict) else None
    if not isinstance(fields, list):
        return None
    out: list[Json] = []
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


# Formatting times is a visible share of a 500-node page; node times repeat
# from page to page.
_iso = lru_cache(maxsize=1 << 16)(to_iso)

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
    r: Any,
    key: str,
    shown: Json,
    parsed: Json,
    mapping: Mapping[str, str],
    depths: Mapping[int, int] | None,
    with_columns: bool,
) -> Json:
    """A node: Feast's fields, then ours (:mod:`..feast_shape`)."""
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
        "created_at": ms(r.created_us),
        "created_at_iso": _iso(r.created_us),
        "updated_at": ms(r.updated_us) if r.updated_us else None,
        "updated_at_iso": _iso(r.updated_us) if r.updated_us else None,
        "datasource_uri": r.datasource_uri,
        "schema_fields": _schema(schema),
        "feast": feast,
        "depth": depths.get(r.id) if depths is not None else None,
        "has_column_lineage": with_columns,
    }


def _edge(
    source: NodeRef, target: NodeRef, kind: str, created_us: int, origin: str | None = None
) -> Json:
    """An edge: Feast's fields, then ours."""
    return {
        **node_fields("source", source),
        **node_fields("target", target),
        "edge_type": kind,
        "updated_at": ms(created_us),
        "source": node_key(*source),
        "target": node_key(*target),
        "type": kind,
        "origin": origin,
    }


def _build(
    conn: Connection,
    rows: Iterable[Any],
    scope: Scope,
    mapping: Mapping[str, str],
    depths: Mapping[int, int] | None = None,
) -> _Built:
    rows = list(rows)
    job_ids = {r.id for r in rows if r.kind == "job"}
    dataset_ids = {r.id for r in rows if r.kind == "dataset"}
    with_columns = has_column_lineage(conn, dataset_ids, scope)
    states = latest_run_states(conn, job_ids)
    job_facets = read_common.facets_of(conn, t.job_facets, job_ids, raw=True)
    dataset_facets = read_common.facets_of(conn, t.dataset_facets, dataset_ids, raw=True)
    keys: dict[int, str] = {}
    refs: dict[int, NodeRef] = {}
    nodes: list[Json] = []
    for r in rows:
        stored = (job_facets if r.kind == "job" else dataset_facets).get(r.id, {})
        shown, parsed = redaction.stored_facets(stored, scope, _READ_FACETS)
        key = node_key(r.kind, r.namespace, r.name)
        keys[r.id] = key
        refs[r.id] = NodeRef(r.kind, r.namespace, r.name)
        node = _node(r, key, shown, parsed, mapping, depths, r.id in with_columns)
        node["latest_run_state"] = states.get(r.id)
        nodes.append(node)
    ids = set(keys)
    edges: list[Json] = []
    # job -> {dataset: when the edge was first seen}
    inputs: dict[int, dict[int, int]] = {}
    outputs: dict[int, dict[int, int]] = {}

    def seen(ends: dict[int, dict[int, int]], job: int, dataset: int, created_us: int) -> None:
        known = ends.setdefault(job, {})
        known[dataset] = min(created_us, known.get(dataset, created_us))

    for e in g.edges_among(conn, ids):
        edges.append(_edge(refs[e.src_id], refs[e.dst_id], e.edge_type, e.created_us))
        if e.edge_type == "input":
            seen(inputs, e.dst_id, e.src_id, e.created_us)
        elif e.edge_type == "output":
            seen(outputs, e.src_id, e.dst_id, e.created_us)
    for x in explicit_edges_among(conn, ids):
        edges.append(_edge(refs[x.src_id], refs[x.dst_id], x.edge_type, x.created_us, x.origin))
        if x.edge_type == "input":
            seen(inputs, x.dst_id, x.src_id, x.created_us)
        elif x.edge_type == "output":
            seen(outputs, x.src_id, x.dst_id, x.created_us)
    derived: list[Json] = []
    # Feast's "derived" edges: one per (source, target), whatever job links them,
    # first seen when both of the job's edges had been.
    pairs: dict[tuple[int, int], int] = {}
    for job, sources in sorted(inputs.items()):
        for src, read_us in sorted(sources.items()):
            for dst, wrote_us in sorted(outputs.get(job, {}).items()):
                if src != dst and len(derived) < _MAX_DERIVED:
                    derived.append({"source": keys[src], "target": keys[dst], "via": keys[job]})
                    both_us = max(read_us, wrote_us)
                    pairs[(src, dst)] = min(both_us, pairs.get((src, dst), both_us))
    for (src, dst), created_us in pairs.items():
        edges.append(_edge(refs[src], refs[dst], "derived", created_us))
    symlinks: list[Json] = []
    for s in g.symlinks_touching(conn, dataset_ids, scope.ns_ids):
        alias_key = node_key("dataset", s.alias_namespace, s.alias_name)
        owner_key = node_key("dataset", s.namespace, s.name)
        symlinks.append(
            {
                "dataset_namespace": s.namespace,
                "dataset_name": s.name,
                "linked_namespace": s.alias_namespace,
                "linked_name": s.alias_name,
                "link_type": link_type(s.source, s.alias_type),
                "updated_at": ms(s.created_us),
                "dataset": owner_key,
                "alias": alias_key,
                "alias_namespace": s.alias_namespace,
                "alias_name": s.alias_name,
                "alias_type": s.alias_type,
                "source": s.source,
            }
        )
        if s.dataset_id in ids and s.alias_id in ids:
            edges.append(_edge(refs[s.dataset_id], refs[s.alias_id], "symlink", s.created_us))
    edges.sort(key=lambda e: (e["source"], e["target"], e["type"], e["origin"] or ""))
    return _Built(nodes, edges, derived, symlinks)


def graph_page(read: StoreReader, *, namespace: str | None, limit: int, offset: int) -> Json:
    """A page of ``limit`` nodes (0, Feast's "no limit", and past the most: the most)."""
    clamped: list[Clamped] = []
    limit = clamp_limit(limit, MAX_GRAPH_PAGE, clamped)
    scope, mapping = read.scope, read.namespace_mapping
    ns_ids = scope.narrow(namespace).ns_ids
    with read.engine.connect() as conn:
        total = g.count_nodes(conn, ns_ids)
        rows = g.node_page(conn, ns_ids, total, offset, limit)
        built = _build(conn, rows, scope, mapping)
        total_edges = g.count_edges(conn, ns_ids) + count_explicit_edges(conn, ns_ids)
    return {
        "nodes": built.nodes,
        "edges": built.edges,
        "derived_edges": built.derived,
        "symlinks": built.symlinks,
        "total_nodes": total,
        "total_edges": total_edges,
        "limit": limit,
        "offset": offset,
        "clamped": clamped,
    }


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
    if g.find_node(conn, kind, node_id, scope.ns_ids) is not None:
        return node_id
    return g.alias_owner(conn, node_id, scope.ns_ids) if kind == "dataset" else None


def subgraph(
    read: StoreReader,
    *,
    kind: NodeKind,
    namespace: str,
    name: str,
    depth: int,
    direction: DirectionParam,
    limit: int,
) -> Json:
    clamped: list[Clamped] = []
    depth = clamp_depth(depth, clamped)
    scope, mapping = read.scope, read.namespace_mapping
    start = job_id(namespace, name) if kind == "job" else dataset_id(namespace, name)
    with read.engine.connect() as conn:
        node = _visible_start(conn, kind, start, namespace, scope)
        if node is None:
            raise NotFound(
                f"no {kind} named {name!r} in namespace {namespace!r}; "
                "list them with GET /api/v1/lineage/openlineage/"
                + ("jobs" if kind == "job" else "datasets")
            )
        start = node
        depths: dict[int, int] = {}
        for way in ("upstream", "downstream") if direction == "both" else (direction,):
            for node, level in g.walk(conn, start, way, depth, scope.ns_ids).items():
                if node not in depths or level < depths[node]:
                    depths[node] = level
        # Aliases that were never seen as datasets are in reach but are not
        # nodes: look at a few more than ``limit`` ids to fill the page.
        nearest = sorted(depths, key=lambda n: (depths[n], n))
        considered = nearest[: 2 * limit + 16]
        rows = g.nodes_by_id(conn, considered, scope.ns_ids)
        rows.sort(key=lambda r: (depths[r.id], r.namespace, r.name, r.kind))
        truncated = len(rows) > limit or len(considered) < len(nearest)
        rows = rows[:limit]
        built = _build(conn, rows, scope, mapping, depths)
    return {
        "center": node_key(kind, namespace, name),
        "depth": depth,
        "direction": direction,
        "nodes": built.nodes,
        "edges": built.edges,
        "derived_edges": built.derived,
        "symlinks": built.symlinks,
        "truncated": truncated,
        "limit": limit,
        "clamped": clamped,
    }
