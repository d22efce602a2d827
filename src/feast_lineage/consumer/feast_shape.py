"""Feast 0.67's lineage API shapes: Feast's fields of an answer, computed from our values.

The rule (docs/api.md, "Feast's shapes"): every endpoint that Feast 0.67's
``feast serve_lineage`` also serves answers with Feast's keys, field names
and value types; what we add (totals, paging, counts, ids, derived edges)
sits beside them under keys of its own. Where a key collides, Feast's value
and type win and ours moves to a documented key of its own. Times are the
one systematic case: Feast sends integer milliseconds since the epoch under
``updated_at``, ``event_time``..., so every such key is milliseconds here
too, and the ISO 8601 string is beside it as ``<key>_iso``.

A new endpoint Feast also serves (column lineage, dataset versions, run
trees) follows the same rule: its response model declares Feast's fields
first, and the service fills them with these helpers (:func:`ms` for times,
:func:`facets_json` for Feast's JSON-text columns, :func:`node_fields` for
the ``*_type``/``*_namespace``/``*_name`` triples of an edge).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple, overload

from feast_lineage.canonical_json import dumps_str


@overload
def ms(us: int) -> int: ...
@overload
def ms(us: None) -> None: ...
@overload
def ms(us: int | None) -> int | None: ...
def ms(us: int | None) -> int | None:
    """A stored time (integer microseconds) as Feast sends times: integer milliseconds."""
    return None if us is None else us // 1000


def facets_json(facets: Mapping[str, Any] | None) -> str | None:
    """Facets as Feast's ``facets_json``: the object as JSON text, or null when there are none."""
    return dumps_str(dict(facets)) if facets else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _facet(facets: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = facets.get(name)
    return value if isinstance(value, Mapping) else {}


class JobFields(NamedTuple):
    """What Feast reports of a job beyond its name, from the job's facets."""

    job_type: str | None  # feast_jobKind's kind, else jobType's processingType or integration
    description: str | None  # documentation's description


def job_fields(facets: Mapping[str, Any]) -> JobFields:
    kind = _text(_facet(facets, "feast_jobKind").get("kind"))
    job_type = _facet(facets, "jobType")
    if kind is None:
        kind = _text(job_type.get("processingType")) or _text(job_type.get("integration"))
    return JobFields(kind, _text(_facet(facets, "documentation").get("description")))


class DatasetFields(NamedTuple):
    """What Feast reports of a dataset beyond its name, from the dataset's facets."""

    source_type: str | None  # dataSource's name
    description: str | None  # documentation's description
    schema_json: str | None  # the schema facet as JSON text
    owner_name: str | None  # ownership's first owner
    owner_type: str | None
    lifecycle_state: str | None  # lifecycleStateChange's state


def dataset_fields(facets: Mapping[str, Any]) -> DatasetFields:
    owners = _facet(facets, "ownership").get("owners")
    first = owners[0] if isinstance(owners, list) and owners else None
    owner = first if isinstance(first, Mapping) else {}
    schema = facets.get("schema")
    return DatasetFields(
        source_type=_text(_facet(facets, "dataSource").get("name")),
        description=_text(_facet(facets, "documentation").get("description")),
        schema_json=dumps_str(schema) if isinstance(schema, Mapping) else None,
        owner_name=_text(owner.get("name")),
        owner_type=_text(owner.get("type")),
        lifecycle_state=_text(_facet(facets, "lifecycleStateChange").get("lifecycleStateChange")),
    )


class NodeRef(NamedTuple):
    """One end of an edge as Feast names it: ``{side}_type``, ``_namespace``, ``_name``."""

    type: str
    namespace: str
    name: str


def node_fields(side: str, node: NodeRef) -> dict[str, str]:
    """Feast's three keys of one end of an edge, e.g. ``source_type``, ``source_namespace``."""
    return {
        f"{side}_type": node.type,
        f"{side}_namespace": node.namespace,
        f"{side}_name": node.name,
    }


def link_type(source: str, alias_type: str | None) -> str:
    """Feast's ``link_type`` of an alias: the symlink's type, or ``dataSource_uri``."""
    if source == "datasource":
        return "dataSource_uri"
    return alias_type or "symlink"
