"""Reading the ``columnLineage`` dataset facet, in every version producers send.

A :class:`ColumnLineageDatasetFacet` maps each output field to the input
fields it is computed from. Versions differ in where the transformation is:

* 1-0-x: one ``transformationType`` (IDENTITY or MASKED) and
  ``transformationDescription`` per output field, for all its inputs;
* 1-1-0 and 1-2-0: ``transformations`` on each input field, each with a
  ``type`` (DIRECT or INDIRECT), a ``subtype`` (IDENTITY, TRANSFORMATION,
  AGGREGATION, FILTER, JOIN, GROUP_BY, SORT, WINDOW, CONDITIONAL, ...), a
  ``description`` and ``masking``;
* 1-2-0 adds ``dataset``: input fields that affect the whole output dataset
  (filters, joins, grouping), with no output field.

:func:`field_edges` turns a facet into one :class:`FieldEdge` per (input
field, output field) pair, the output field None for a ``dataset`` entry.
A 1-0-x field-level type becomes a DIRECT transformation whose subtype is
that type (MASKED sets ``masking``). Entries that are not well formed
(no namespace, name or field) are skipped; the facet is stored as it is
elsewhere. Shared by ingest and the migration that derives column edges
from stored events, so both read a facet the same way.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from feast_lineage.identity import text_id

# The field hash of a whole dataset (a ``dataset`` entry's output).
WHOLE_DATASET = 0


class Transformation(NamedTuple):
    type: str  # DIRECT or INDIRECT (as sent; other values are kept)
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
    """The id a field name is indexed by (its dataset's id completes the key)."""
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
    # Clients that model the deprecated fields as required may send them empty.
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


def is_indirect(transformations: tuple[Transformation, ...] | list[Any]) -> bool:
    """An edge is indirect when it has transformations and every one is INDIRECT."""
    return bool(transformations) and all(
        (t.type if isinstance(t, Transformation) else t.get("type")) == "INDIRECT"
        for t in transformations
    )
