"""FROZEN at migration 0010: never change this module.

Explicit lineage as migration 0010 derives it from stored events: the
``lineage`` job and dataset facets and the ``jobDependencies`` run facet
read into statements, and each statement's rows (the pointer, the entity
edges, the column rows of its field-level entries), merged per event as
ingest merged them. Copied as they were when migration 0010 was written
from ``feast_lineage/explicit_lineage.py``, ``consumer/store/write/explicit_rows.py``
and ``consumer/store/write/rows.py`` (the rows, their types, the keep-latest
rules); ``insert_ignore`` from ``consumer/store/engine/dialect.py``. Why frozen,
and why ``duplicates`` lists this beside its sources: see ``frozen/__init__.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, TypedDict

from sqlalchemy import Connection, Table
from sqlalchemy.dialects import mysql, postgresql, sqlite
from sqlalchemy.sql.dml import Insert

from feast_lineage.consumer.store.schema.migrations.frozen.column_rows_0009 import (
    NO_JOB,
    ColumnEdgeKey,
    ColumnEdgeRow,
    ColumnKey,
    ColumnLineageRow,
    column_rows,
)
from feast_lineage.consumer.store.schema.migrations.frozen.ids_0009 import namespace_id, node_id
from feast_lineage.consumer.store.schema.migrations.frozen.payloads_0009 import digest, dumps

Kind = Literal["job", "dataset"]
EdgeType = Literal["input", "output", "job_to_job", "dataset_to_dataset"]
JOB_LINEAGE = "job_lineage"
DATASET_LINEAGE = "dataset_lineage"
JOB_DEPENDENCIES = "job_dependencies"

DECLARED = "declared"  # a JobEvent or a DatasetEvent
OBSERVED = "observed"  # a RunEvent

# (owner, facet, origin) and (owner, facet, origin, digest, src, dst, edge type)
ExplicitKey = tuple[int, str, str]
ExplicitEdgeKey = tuple[int, str, str, str, int, int, str]


class ExplicitLineageRow(TypedDict):
    owner_id: int
    facet: str
    origin: str
    rank: str
    digest: str
    ns_id: int


class ExplicitEdgeRow(TypedDict):
    owner_id: int
    facet: str
    origin: str
    digest: str
    src_id: int
    dst_id: int
    edge_type: str
    src_kind: str
    dst_kind: str
    src_ns_id: int
    dst_ns_id: int
    created_us: int


# --- reading the facets -----------------------------------------------------------


class Node(NamedTuple):
    kind: Kind
    namespace: str
    name: str


class EntityEdge(NamedTuple):
    src: Node
    dst: Node
    edge_type: EdgeType


class Statement(NamedTuple):
    """What one facet of one event states about its owner (a job or a dataset)."""

    facet: str
    owner: Node
    origin: str
    payload: Any
    edges: tuple[EntityEdge, ...]
    columns: tuple[tuple[Node, dict[str, Any]], ...]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _job(ref: dict[str, Any], own: Node | None) -> Node | None:
    ns, name = ref.get("namespace"), ref.get("name")
    if ns is None and name is None:
        return own
    ns, name = _text(ns), _text(name)
    return Node("job", ns, name) if ns is not None and name is not None else None


def _node(ref: Any, own: Node | None) -> Node | None:
    if not isinstance(ref, dict):
        return None
    kind = ref.get("type")
    if kind == "JOB":
        return _job(ref, own)
    if kind == "DATASET":
        ns, name = _text(ref.get("namespace")), _text(ref.get("name"))
        return Node("dataset", ns, name) if ns is not None and name is not None else None
    return None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _sources(entry: dict[str, Any]) -> list[Any]:
    fields = entry.get("fields")
    out = list(_list(entry.get("inputs")))
    if isinstance(fields, dict):
        for spec in fields.values():
            if isinstance(spec, dict):
                out.extend(_list(spec.get("inputs")))
    return out


def _column_input(item: Any) -> dict[str, Any] | None:
    if not isinstance(item, dict) or item.get("type") != "DATASET":
        return None
    ns, name, field = (
        _text(item.get("namespace")),
        _text(item.get("name")),
        _text(item.get("field")),
    )
    if ns is None or name is None or field is None:
        return None
    out: dict[str, Any] = {"namespace": ns, "name": name, "field": field}
    if isinstance(item.get("transformations"), list):
        out["transformations"] = item["transformations"]
    return out


def _columns(entry: dict[str, Any]) -> dict[str, Any] | None:
    fields: dict[str, Any] = {}
    raw = entry.get("fields")
    if isinstance(raw, dict):
        for target_field, spec in raw.items():
            if not target_field or not isinstance(spec, dict):
                continue
            inputs = [x for x in map(_column_input, _list(spec.get("inputs"))) if x]
            if inputs:
                fields[target_field] = {"inputFields": inputs}
    whole = [x for x in map(_column_input, _list(entry.get("inputs"))) if x]
    if not fields and not whole:
        return None
    facet: dict[str, Any] = {"fields": fields}
    if whole:
        facet["dataset"] = whole
    return facet


def _into(target: Node, source: Node, own: Node | None, direct: bool) -> list[EntityEdge]:
    if source == target:
        return []
    if target.kind == "job":
        kind: EdgeType = "input" if source.kind == "dataset" else "job_to_job"
        return [EntityEdge(source, target, kind)]
    if source.kind == "job":
        return [EntityEdge(source, target, "output")]
    if direct:
        return [EntityEdge(source, target, "dataset_to_dataset")]
    if own is None:
        return []
    return [EntityEdge(source, own, "input"), EntityEdge(own, target, "output")]


def _entry_edges(
    target: Node, entry: dict[str, Any], own: Node | None, direct: bool
) -> list[EntityEdge]:
    out: list[EntityEdge] = []
    for item in _sources(entry):
        source = _node(item, own)
        if source is not None:
            out.extend(_into(target, source, own, direct))
    return out


def _unique(edges: list[EntityEdge]) -> tuple[EntityEdge, ...]:
    return tuple(dict.fromkeys(edges))


def _job_facet(facet: Any, own: Node, origin: str) -> Statement | None:
    if not isinstance(facet, dict) or not isinstance(facet.get("entries"), list):
        return None
    edges: list[EntityEdge] = []
    columns: list[tuple[Node, dict[str, Any]]] = []
    for entry in facet["entries"]:
        target = _node(entry, own)
        if target is None:
            continue
        edges.extend(_entry_edges(target, entry, own, direct=False))
        if target.kind == "dataset":
            stated = _columns(entry)
            if stated is not None:
                columns.append((target, stated))
    return Statement(JOB_LINEAGE, own, origin, facet, _unique(edges), tuple(columns))


def _dataset_facet(facet: Any, target: Node, own: Node | None, origin: str) -> Statement | None:
    if not isinstance(facet, dict) or "entries" in facet:
        return None
    edges = _entry_edges(target, facet, own, direct=True)
    stated = _columns(facet)
    columns = ((target, stated),) if stated is not None else ()
    return Statement(DATASET_LINEAGE, target, origin, facet, _unique(edges), columns)


def _dependencies_facet(facet: Any, own: Node, origin: str) -> Statement | None:
    if not isinstance(facet, dict):
        return None
    edges: list[EntityEdge] = []
    for side in ("upstream", "downstream"):
        for item in _list(facet.get(side)):
            job = item.get("job") if isinstance(item, dict) else None
            other = _job(job, None) if isinstance(job, dict) else None
            if other is None or other == own:
                continue
            pair = (other, own) if side == "upstream" else (own, other)
            edges.append(EntityEdge(pair[0], pair[1], "job_to_job"))
    return Statement(JOB_DEPENDENCIES, own, origin, facet, _unique(edges), ())


def _facet(facets: Any, name: str) -> Any:
    return facets.get(name) if isinstance(facets, dict) else None


def event_statements(event: dict[str, Any]) -> list[Statement]:
    """Every explicit lineage statement of a stored event, in a stable order."""
    out: list[Statement | None] = []
    job = event.get("job")
    run = event.get("run")
    origin = OBSERVED if isinstance(run, dict) else DECLARED
    own: Node | None = None
    if isinstance(job, dict):
        own = Node("job", job["namespace"], job["name"])
        out.append(_job_facet(_facet(job.get("facets"), "lineage"), own, origin))
    if isinstance(run, dict) and own is not None:
        out.append(_dependencies_facet(_facet(run.get("facets"), "jobDependencies"), own, origin))
    datasets = [event["dataset"]] if isinstance(event.get("dataset"), dict) else []
    datasets += _list(event.get("inputs")) + _list(event.get("outputs"))
    for ds in datasets:
        facet = _facet(ds.get("facets"), "lineage")
        if facet is not None:
            target = Node("dataset", ds["namespace"], ds["name"])
            out.append(_dataset_facet(facet, target, own, origin))
    return [s for s in out if s is not None]


# --- the rows of an event -----------------------------------------------------------


@dataclass
class EventRows:
    """The explicit lineage rows of one event (the part of ingest's batch 0010 writes)."""

    explicit_lineage: dict[ExplicitKey, ExplicitLineageRow] = field(default_factory=dict)
    explicit_edges: dict[ExplicitEdgeKey, ExplicitEdgeRow] = field(default_factory=dict)
    column_lineage: dict[ColumnKey, ColumnLineageRow] = field(default_factory=dict)
    column_edges: dict[ColumnEdgeKey, ColumnEdgeRow] = field(default_factory=dict)


class ExplicitRows(NamedTuple):
    pointer: ExplicitLineageRow
    edges: dict[ExplicitEdgeKey, ExplicitEdgeRow]
    column_pointers: list[ColumnLineageRow]
    column_edges: dict[ColumnEdgeKey, ColumnEdgeRow]


def node_key(node: Node) -> int:
    return node_id(node.kind, node.namespace, node.name)


def explicit_rows(
    statement: Statement, *, rank: str, time_us: int, run_id: str | None, job: Node | None
) -> ExplicitRows:
    """The rows ``statement`` states; ``job`` is the event's job (None for a DatasetEvent)."""
    owner = node_key(statement.owner)
    payload_digest = digest(dumps(statement.payload))
    facet, origin = statement.facet, statement.origin
    pointer: ExplicitLineageRow = {
        "owner_id": owner,
        "facet": facet,
        "origin": origin,
        "rank": rank,
        "digest": payload_digest,
        "ns_id": namespace_id(statement.owner.namespace),
    }
    edges: dict[ExplicitEdgeKey, ExplicitEdgeRow] = {}
    for edge in statement.edges:
        src, dst = node_key(edge.src), node_key(edge.dst)
        edges[(owner, facet, origin, payload_digest, src, dst, edge.edge_type)] = {
            "owner_id": owner,
            "facet": facet,
            "origin": origin,
            "digest": payload_digest,
            "src_id": src,
            "dst_id": dst,
            "edge_type": edge.edge_type,
            "src_kind": edge.src.kind,
            "dst_kind": edge.dst.kind,
            "src_ns_id": namespace_id(edge.src.namespace),
            "dst_ns_id": namespace_id(edge.dst.namespace),
            "created_us": time_us,
        }
    writer = job if statement.facet == DATASET_LINEAGE else statement.owner
    writer_id = node_key(writer) if writer is not None else NO_JOB
    column_pointers: list[ColumnLineageRow] = []
    column_edges: dict[ColumnEdgeKey, ColumnEdgeRow] = {}
    for target, stated in statement.columns:
        column_pointer, stated_edges = column_rows(
            dataset=node_key(target),
            namespace=target.namespace,
            job=writer_id,
            origin=origin,
            digest=digest(dumps(stated)),
            run_id=run_id,
            rank=rank,
            facet=stated,
            time_us=time_us,
        )
        column_pointers.append(column_pointer)
        column_edges.update(stated_edges)
    return ExplicitRows(pointer, edges, column_pointers, column_edges)


def add_explicit_rows(out: EventRows, rows: ExplicitRows) -> None:
    """Add one statement's rows to its event's; the event's own columnLineage facet wins."""
    pointer = rows.pointer
    key = (pointer["owner_id"], pointer["facet"], pointer["origin"])
    old = out.explicit_lineage.get(key)
    if old is None or pointer["rank"] > old["rank"]:
        out.explicit_lineage[key] = pointer
    for edge_key, edge in rows.edges.items():
        out.explicit_edges.setdefault(edge_key, edge)
    for column_pointer in rows.column_pointers:
        column_key = (
            column_pointer["dataset_id"],
            column_pointer["job_id"],
            column_pointer["origin"],
        )
        stated = out.column_lineage.get(column_key)
        if stated is not None and stated["digest"] != column_pointer["digest"]:
            continue
        if stated is None or column_pointer["rank"] > stated["rank"]:
            out.column_lineage[column_key] = column_pointer
        payload = (*column_key, column_pointer["digest"])
        for edge_key_, column_edge in rows.column_edges.items():
            if (edge_key_[0], edge_key_[2], edge_key_[3], edge_key_[4]) == payload:
                out.column_edges.setdefault(edge_key_, column_edge)


def insert_ignore(conn: Connection, table: Table, keys: Sequence[str]) -> Insert:
    """``INSERT`` that leaves a row already stored under the same key as it is."""
    name = conn.dialect.name
    if name == "sqlite":
        return sqlite.insert(table).on_conflict_do_nothing(index_elements=list(keys))
    if name == "postgresql":
        return postgresql.insert(table).on_conflict_do_nothing(index_elements=list(keys))
    if name in {"mysql", "mariadb"}:
        return mysql.insert(table).prefix_with("IGNORE")
    raise NotImplementedError(f"database {name!r} is not supported")
