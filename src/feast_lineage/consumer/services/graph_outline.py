"""The whole graph at two instants as ids, and the two sides of their diff built where they differ.

A whole-graph diff (:mod:`.lineage_diff`, no centre) is defined on the two
whole ``as_of`` answers, but building them costs a full node (its schema
parsed and redacted, Feast's fields) for every node at both instants, when
only what differs is answered. An :class:`Outline` is one instant read as
ids only: each node's row with its version then (and a dataset's schema
blob id), and the edges at the instant (explicit lineage's included).
:func:`trimmed_sides` compares two outlines and builds full nodes, edges
and column edges only where they differ: the nodes of one instant and not
the other, the datasets of both whose schema *blob* differs (the same blob
is the same schema, whatever version holds it; the ``schema`` facet stated
by then, when there is one, is compared by its blob too), the jobs of both
whose job version differs. Those
trimmed sides give :func:`.lineage_diff.difference` the same diff as the
whole answers (``tests/consumer/services/test_graph_outline.py`` compares
them byte for byte on the three databases).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from sqlalchemy import Connection

from feast_lineage.consumer import redaction
from feast_lineage.consumer.lineage_model import EdgeType, NodeId, Origin
from feast_lineage.consumer.schemas import ColumnEdge, GraphEdge, GraphNode, JobRef
from feast_lineage.consumer.services import job_versions_then
from feast_lineage.consumer.services.columns import column_edges_of_datasets_at
from feast_lineage.consumer.services.dataset_versions import FieldRow, field_rows, version_key
from feast_lineage.consumer.services.graph import (
    Ends,
    NodeRef,
    derived_pairs,
    graph_edge,
    node_ref,
    seen,
)
from feast_lineage.consumer.services.graph_history import _nodes
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.services.when import answerable
from feast_lineage.consumer.store.read import as_of as at_reads
from feast_lineage.consumer.store.read import catalog_as_of
from feast_lineage.consumer.store.read import dataset_versions as dv
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.common import NsIds
from feast_lineage.consumer.store.read.graph import NodeRow
from feast_lineage.identity import dataset_id, job_id

EdgeKey = tuple[str, str, str, str]
Names = Mapping[int, tuple[str, str]]  # node id -> (namespace, name)
# source id, target id, type, first seen (µs), origin (explicit lineage's, else None)
EdgeIds = tuple[int, int, EdgeType, int, Origin | None]


class JobPair(NamedTuple):
    """A job of both answers whose job version differs: its node id, names and two versions."""

    node: str
    namespace: str
    name: str
    old: str | None
    new: str | None


@dataclass(frozen=True, slots=True)
class Side:
    """One ``as_of`` answer, as the diff reads it (or the part of it that differs)."""

    nodes: dict[str, GraphNode]
    edges: dict[EdgeKey, GraphEdge]
    truncated: bool = False
    columns: dict[EdgeKey, ColumnEdge] | None = None


def edge_key(e: GraphEdge) -> EdgeKey:
    return e["source"], e["target"], e["type"], e["origin"] or ""


def side(nodes: Iterable[GraphNode], edges: Iterable[GraphEdge], truncated: bool = False) -> Side:
    return Side({n["id"]: n for n in nodes}, {edge_key(e): e for e in edges}, truncated)


def column_edges_among(
    read: StoreReader, datasets: Names, jobs: Names, at: Instant
) -> dict[EdgeKey, ColumnEdge]:
    """The column edges into or out of ``datasets`` as of ``at`` whose two datasets are in it.

    Keyed by (source field, target field, job node id, origin); an edge whose job is not
    among the answer's names no run to a caller of a limited scope; transformations carry
    no description (whether every input of the field is visible is not
    asked here: withheld, as a hidden input would).
    """
    found: dict[EdgeKey, ColumnEdge] = {}
    for r in column_edges_of_datasets_at(read, datasets.values(), at):
        if r.dst_dataset_id not in datasets or r.src_dataset_id not in datasets:
            continue
        dst = datasets[r.dst_dataset_id]
        source = str(NodeId.of_field(r.src_namespace, r.src_name, r.src_field))
        target = str(NodeId.of_field(dst[0], dst[1], r.dst_field))
        job = jobs.get(r.job_id)
        origin: Origin = "declared" if r.origin == "declared" else "observed"
        # the job by its node id: its name escaped, so two jobs never key alike
        key = (source, target, str(NodeId.job(*job)) if job else "", origin)
        found[key] = {
            "source": source,
            "target": target,
            "job": JobRef(namespace=job[0], name=job[1]) if job else None,
            # the run of a job not in the answer may be a hidden job's: named to a caller
            # who sees every namespace only
            "run_id": r.run_id if job or read.scope.is_everything else None,
            "origin": origin,
            "indirect": bool(r.indirect),
            "transformations": [],
        }
    return found


def names_of(nodes: Iterable[GraphNode]) -> tuple[dict[int, tuple[str, str]], Names]:
    """(dataset id -> (namespace, name), job id -> (namespace, name)) of an answer's nodes."""
    datasets: dict[int, tuple[str, str]] = {}
    jobs: dict[int, tuple[str, str]] = {}
    for n in nodes:
        if n["type"] == "dataset":
            datasets[dataset_id(n["namespace"], n["name"])] = (n["namespace"], n["name"])
        elif n["type"] == "job":
            jobs[job_id(n["namespace"], n["name"])] = (n["namespace"], n["name"])
    return datasets, jobs


@dataclass(frozen=True, slots=True)
class Outline:
    """The whole visible graph at one instant, as ids.

    ``datasets`` maps a dataset to (its version's key then, its schema blob
    id) and ``jobs`` a job to its job version then, for the nodes that had
    one; ``schema_facets`` a dataset to the blob of its ``schema`` facet
    when that facet's latest statement is by then (a node's schema is that
    facet's, else its version's: :mod:`.graph_history`); ``edges`` are the
    answer's edges (derived ones included), keyed as the diff compares them.
    """

    at: Instant
    rows: dict[int, NodeRow]
    refs: dict[int, NodeRef]
    datasets: dict[int, tuple[str, str | None]]
    schema_facets: dict[int, str]
    jobs: dict[int, str]
    edges: dict[EdgeKey, EdgeIds]


def outline(conn: Connection, read: StoreReader, at: Instant, ns_ids: NsIds) -> Outline:
    """The whole graph at ``at`` as ids: no node is built, no schema read.

    ``ns_ids``: the namespaces whose nodes it holds (the caller's visible ones, or
    fewer); the nodes are built and redacted later with the caller's own scope.
    """
    answerable(conn, at)
    rows = {r.id: r for r in at_reads.all_nodes(conn, ns_ids, at)}
    refs = {i: node_ref(r.kind, r.namespace, r.name) for i, r in rows.items()}
    versions = at_reads.dataset_versions_at(
        conn, (i for i, r in rows.items() if r.kind == "dataset"), at
    )
    datasets = {i: (version_key(v.id), v.schema_id) for i, v in versions.items()}
    stated = catalog_as_of.dataset_facet_blobs_at(
        conn, (i for i, r in rows.items() if r.kind == "dataset"), "schema", at
    )
    jobs = job_versions_then.job_versions_at(
        conn, (i for i, r in rows.items() if r.kind == "job"), at
    )
    edges = _edge_ids(conn, refs, ns_ids, at)
    return Outline(at, rows, refs, datasets, stated, jobs, edges)


def _edge_ids(
    conn: Connection, refs: Mapping[int, NodeRef], ns_ids: NsIds, at: Instant
) -> dict[EdgeKey, EdgeIds]:
    """The answer's edges at ``at`` by key: explicit, derived and symlink ones as
    :mod:`.graph_history` adds them (explicit inputs and outputs count for derived edges)."""
    inputs: Ends = {}
    outputs: Ends = {}
    found: dict[EdgeKey, EdgeIds] = {}
    keys = {i: ref.key for i, ref in refs.items()}
    stated: list[tuple[int, int, EdgeType, int, Origin | None]] = [
        (e.src_id, e.dst_id, e.edge_type, e.created_us, None)
        for e in at_reads.edges_at(conn, ns_ids, at)
    ]
    stated += [
        (x.src_id, x.dst_id, x.edge_type, x.created_us, x.origin)
        for x in at_reads.explicit_edges_at(conn, ns_ids, at)
    ]
    for src, dst, kind, created_us, origin in stated:
        if src not in keys or dst not in keys:
            continue  # an end that did not exist then (a parent edge to a later job)
        found[(keys[src], keys[dst], kind, origin or "")] = (src, dst, kind, created_us, origin)
        if kind == "input":
            seen(inputs, dst, src, created_us)
        elif kind == "output":
            seen(outputs, src, dst, created_us)
    for (src, dst), created_us in derived_pairs(inputs, outputs)[1].items():
        found[(keys[src], keys[dst], "derived", "")] = (src, dst, "derived", created_us, None)
    for s in at_reads.symlinks_at(conn, ns_ids, at):
        if s.dataset_id in keys and s.alias_id in keys:  # as graph.add_symlinks
            key = (keys[s.dataset_id], keys[s.alias_id], "symlink", "")
            found[key] = (s.dataset_id, s.alias_id, "symlink", s.created_us, None)
    return found


def _built_edges(found: Outline, keys: Iterable[EdgeKey]) -> dict[EdgeKey, GraphEdge]:
    refs = found.refs
    out: dict[EdgeKey, GraphEdge] = {}
    for key in keys:
        src, dst, kind, created_us, origin = found.edges[key]
        out[key] = graph_edge(refs[src], refs[dst], kind, created_us, origin)
    return out


def _full_nodes(
    conn: Connection, read: StoreReader, found: Outline, ids: Iterable[int]
) -> dict[str, GraphNode]:
    """The nodes of ``ids`` at the outline's instant, built as :mod:`.graph_history` does."""
    rows = [found.rows[i] for i in sorted(set(ids))]
    datasets = {r.id: found.datasets[r.id] for r in rows if r.id in found.datasets}
    schemas = dv.blob_texts(conn, (schema for _, schema in datasets.values()))
    versions: dict[int, tuple[str, str | None]] = {
        node: (version, schemas.get(schema or "")) for node, (version, schema) in datasets.items()
    }
    versions.update({r.id: (found.jobs[r.id], None) for r in rows if r.id in found.jobs})
    mapping = read.namespace_mapping
    _, built = _nodes(conn, rows, read.scope, mapping, None, found.at, versions)
    return {n["id"]: n for n in built["nodes"]}


def _names(found: Outline, kind: str) -> dict[int, tuple[str, str]]:
    return {i: (r.namespace, r.name) for i, r in found.rows.items() if r.kind == kind}


def _schema(found: Outline, dataset: int) -> str | None:
    """The blob a dataset's schema then is read from: its ``schema`` facet stated by then,
    else its version's (as :mod:`.graph_history` builds the node); the same blob, the same
    schema."""
    return found.schema_facets.get(dataset) or found.datasets.get(dataset, ("", None))[1]


def _schemas_differ(
    conn: Connection, read: StoreReader, before: Outline, after: Outline, both: set[int]
) -> set[int]:
    """The datasets of both instants whose schema, as the caller sees it, differs.

    Compared by blob first; two blobs are then compared by the fields the diff
    compares (:func:`.lineage_diff.schema_changes`: each field's path, type and
    description, after redaction), so a schema stated again with other
    ``_producer`` or ``_schemaURL`` builds no node. A blob that cannot be read is
    taken to differ (its nodes are built, and the diff decides on them).
    """
    pairs = {
        i: (_schema(before, i), _schema(after, i)) for i in both if before.rows[i].kind == "dataset"
    }
    pairs = {i: pair for i, pair in pairs.items() if pair[0] != pair[1]}
    texts = dv.blob_texts(conn, (blob for pair in pairs.values() for blob in pair))
    fields: dict[str | None, list[FieldRow] | None] = {None: []}
    for blob, text in texts.items():
        shown = redaction.stored_facets({"schema": text}, read.scope, ("schema",))[1]
        schema = shown.get("schema")
        fields[blob] = field_rows(schema if isinstance(schema, dict) else None)
    return {
        i
        for i, (old, new) in pairs.items()
        if fields.get(old) is None or fields.get(new) is None or fields[old] != fields[new]
    }


def trimmed_sides(
    read: StoreReader, instants: tuple[Instant, Instant], ns_ids: NsIds
) -> tuple[Side, Side, list[JobPair]]:
    """The two whole-graph sides, each holding only what the diff can name.

    Each side keeps the nodes the other lacks, and of the datasets of both
    those whose schema blob differs; the edges and column edges the other
    lacks. The jobs of both whose job version differs come as pairs of
    versions: what :func:`.lineage_diff.job_changes` reads of them (their
    full nodes are never answered). :func:`.lineage_diff.difference` of
    these is the diff of the two whole answers. ``ns_ids``: the namespaces
    whose nodes and edges it compares (the caller's visible ones, or fewer).
    """
    with read.engine.connect() as conn:
        before, after = (outline(conn, read, at, ns_ids) for at in instants)
        both = before.rows.keys() & after.rows.keys()
        datasets = _schemas_differ(conn, read, before, after, both)
        old = _full_nodes(conn, read, before, (before.rows.keys() - both) | datasets)
        new = _full_nodes(conn, read, after, (after.rows.keys() - both) | datasets)
    jobs = [
        JobPair(before.refs[i].key, row.namespace, row.name, before.jobs.get(i), after.jobs.get(i))
        for i, row in after.rows.items()
        if i in both and row.kind == "job" and before.jobs.get(i) != after.jobs.get(i)
    ]
    jobs.sort()
    old_columns = column_edges_among(
        read, _names(before, "dataset"), _names(before, "job"), before.at
    )
    new_columns = column_edges_among(read, _names(after, "dataset"), _names(after, "job"), after.at)

    def only(a: Mapping[EdgeKey, object], b: Mapping[EdgeKey, object]) -> set[EdgeKey]:
        return a.keys() - b.keys()

    return (
        Side(
            old,
            _built_edges(before, only(before.edges, after.edges)),
            False,
            {k: old_columns[k] for k in only(old_columns, new_columns)},
        ),
        Side(
            new,
            _built_edges(after, only(after.edges, before.edges)),
            False,
            {k: new_columns[k] for k in only(new_columns, old_columns)},
        ),
        jobs,
    )
