"""FROZEN at migration 0009 (used by 0009 and 0010): never change this module.

The rows of one ``columnLineage`` facet of one output dataset: the pointer
that makes its payload current and one edge per (input field, output
field). Copied as they were when migration 0009 was written from
``feast_lineage/column_lineage.py`` (reading the facet in every version
producers send), ``consumer/store/write/column_rows.py`` (the rows) and
``consumer/store/write/rows.py`` (their types). Why frozen, and why ``duplicates``
lists this beside its sources: see ``frozen/__init__.py``.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypedDict

from feast_lineage.consumer.store.schema.migrations.frozen.ids_0009 import (
    dataset_id,
    namespace_id,
    text_id,
)
from feast_lineage.consumer.store.schema.migrations.frozen.payloads_0009 import dumps_str

OBSERVED = "observed"  # stated by a columnLineage facet
NO_JOB = 0  # the job id of a DatasetEvent's column lineage
WHOLE_DATASET = 0  # the field hash of a whole dataset (a ``dataset`` entry's output)

# (dataset, job, origin) and (dst dataset, dst field, job, origin, digest, src dataset, src field)
ColumnKey = tuple[int, int, str]
ColumnEdgeKey = tuple[int, int, int, str, str, int, int]


class ColumnLineageRow(TypedDict):
    dataset_id: int
    job_id: int
    origin: str
    rank: str
    digest: str
    run_id: str | None
    ns_id: int


class ColumnEdgeRow(TypedDict):
    dst_dataset_id: int
    dst_field_id: int
    job_id: int
    origin: str
    digest: str
    src_dataset_id: int
    src_field_id: int
    dst_ns_id: int
    dst_field: str | None
    src_ns_id: int
    src_namespace: str
    src_name: str
    src_field: str
    indirect: int
    transformations: str
    created_us: int


# --- reading the facet ----------------------------------------------------------


class Transformation(NamedTuple):
    type: str
    subtype: str | None
    description: str | None
    masking: bool | None


class FieldEdge(NamedTuple):
    output_field: str | None  # None: the whole output dataset
    namespace: str  # of the input dataset
    name: str
    field: str
    transformations: tuple[Transformation, ...]


def field_hash(field: str | None) -> int:
    return WHOLE_DATASET if field is None else text_id(field)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _transformations(value: Any) -> tuple[Transformation, ...]:
    if not isinstance(value, list):
        return ()
    out: list[Transformation] = []
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            continue
        masking = item.get("masking")
        out.append(
            Transformation(
                item["type"],
                _text(item.get("subtype")),
                _text(item.get("description")),
                masking if isinstance(masking, bool) else None,
            )
        )
    return tuple(out)


def _legacy(spec: dict[str, Any]) -> tuple[Transformation, ...]:
    kind = _text(spec.get("transformationType")) or None
    description = _text(spec.get("transformationDescription")) or None
    if kind is None and description is None:
        return ()
    return (Transformation("DIRECT", kind, description, True if kind == "MASKED" else None),)


def _inputs(
    output_field: str | None, items: Any, legacy: tuple[Transformation, ...]
) -> list[FieldEdge]:
    if not isinstance(items, list):
        return []
    out: list[FieldEdge] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        ns, name, field = item.get("namespace"), item.get("name"), item.get("field")
        if not (isinstance(ns, str) and isinstance(name, str) and isinstance(field, str)):
            continue
        if not ns or not name or not field:
            continue
        own = _transformations(item.get("transformations"))
        out.append(FieldEdge(output_field, ns, name, field, own or legacy))
    return out


def field_edges(facet: Any) -> list[FieldEdge]:
    """Every (input field, output field) edge a columnLineage facet states, deduplicated."""
    if not isinstance(facet, dict):
        return []
    found: dict[tuple[str | None, str, str, str], FieldEdge] = {}

    def add(edge: FieldEdge) -> None:
        key = (edge.output_field, edge.namespace, edge.name, edge.field)
        old = found.get(key)
        if old is None:
            found[key] = edge
        else:  # one input listed twice: one edge with the transformations of both
            extra = tuple(x for x in edge.transformations if x not in old.transformations)
            found[key] = old._replace(transformations=old.transformations + extra)

    fields = facet.get("fields")
    if isinstance(fields, dict):
        for output_field, spec in fields.items():
            if isinstance(spec, dict) and output_field:
                for edge in _inputs(output_field, spec.get("inputFields"), _legacy(spec)):
                    add(edge)
    for edge in _inputs(None, facet.get("dataset"), ()):
        add(edge)
    return list(found.values())


def is_indirect(transformations: tuple[Transformation, ...]) -> bool:
    """An edge is indirect when it has transformations and every one is INDIRECT."""
    return bool(transformations) and all(t.type == "INDIRECT" for t in transformations)


# --- the rows -------------------------------------------------------------------


def column_rows(
    *,
    dataset: int,
    namespace: str,
    job: int,
    origin: str,
    digest: str,
    run_id: str | None,
    rank: str,
    facet: Any,
    time_us: int,
) -> tuple[ColumnLineageRow, dict[ColumnEdgeKey, ColumnEdgeRow]]:
    """The pointer row and the edge rows ``facet`` states for ``dataset`` written by ``job``."""
    ns_id = namespace_id(namespace)
    pointer: ColumnLineageRow = {
        "dataset_id": dataset,
        "job_id": job,
        "origin": origin,
        "rank": rank,
        "digest": digest,
        "run_id": run_id,
        "ns_id": ns_id,
    }
    edges: dict[ColumnEdgeKey, ColumnEdgeRow] = {}
    for edge in field_edges(facet):
        src = dataset_id(edge.namespace, edge.name)
        dst_field_id, src_field_id = field_hash(edge.output_field), field_hash(edge.field)
        edges[(dataset, dst_field_id, job, origin, digest, src, src_field_id)] = {
            "dst_dataset_id": dataset,
            "dst_field_id": dst_field_id,
            "job_id": job,
            "origin": origin,
            "digest": digest,
            "src_dataset_id": src,
            "src_field_id": src_field_id,
            "dst_ns_id": ns_id,
            "dst_field": edge.output_field,
            "src_ns_id": namespace_id(edge.namespace),
            "src_namespace": edge.namespace,
            "src_name": edge.name,
            "src_field": edge.field,
            "indirect": 1 if is_indirect(edge.transformations) else 0,
            "transformations": dumps_str([x._asdict() for x in edge.transformations]),
            "created_us": time_us,
        }
    return pointer, edges
