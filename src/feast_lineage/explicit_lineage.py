"""Reading explicit lineage: the ``lineage`` facet (LineageFacet 1-0-0) and ``jobDependencies``.

An event can state lineage outright instead of listing inputs and outputs:

* a ``lineage`` **job** facet (LineageJobFacet) lists entries, each a target
  dataset or job with the datasets and jobs that feed it (a job entry or
  input without namespace and name is the event's own job);
* a ``lineage`` **dataset** facet (LineageDatasetFacet) lists what feeds that
  dataset, with no job in between;
* a ``jobDependencies`` **run** facet (JobDependenciesRunFacet) lists the
  jobs a run waits for (``upstream``) and those it starts (``downstream``).

:func:`event_statements` turns an event into :class:`Statement` values: the
entity edges each facet states and, for dataset targets, its field-level
entries in the shape of a ``columnLineage`` facet (so column lineage reads
them as it reads that facet). How an entry becomes edges:

========================  ===============  ==========================================
target                    source           edges
========================  ===============  ==========================================
dataset (job facet)       dataset S        S -input-> own job -output-> target
dataset (any facet)       job J            J -output-> target
dataset (dataset facet)   dataset S        S -dataset_to_dataset-> target
job J2                    dataset S        S -input-> J2
job J2                    job J1           J1 -job_to_job-> J2
========================  ===============  ==========================================

A target's sources are its entity-level inputs and the inputs of its
fields. Entries that are not well formed (a job with only one of namespace
and name, a dataset without both) are skipped, and so are self loops.
Pure functions, shared by ingest and migration 0010, so both read a facet
the same way.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

Kind = Literal["job", "dataset"]
EdgeType = Literal["input", "output", "job_to_job", "dataset_to_dataset"]
# Which facet a statement comes from: a stored facet keeps one current statement each.
JOB_LINEAGE = "job_lineage"
DATASET_LINEAGE = "dataset_lineage"
JOB_DEPENDENCIES = "job_dependencies"

DECLARED = "declared"  # a JobEvent or a DatasetEvent
OBSERVED = "observed"  # a RunEvent


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

    facet: str  # JOB_LINEAGE, DATASET_LINEAGE or JOB_DEPENDENCIES
    owner: Node
    origin: str  # DECLARED or OBSERVED
    payload: Any  # the facet as sent (its digest keys the statement's edges)
    edges: tuple[EntityEdge, ...]
    # (target dataset, columnLineage-shaped facet) of its field-level entries
    columns: tuple[tuple[Node, dict[str, Any]], ...]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _job(ref: dict[str, Any], own: Node | None) -> Node | None:
    """A job reference; no namespace and no name is the event's own job."""
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
    """A dataset field input as a columnLineage ``inputFields`` item."""
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
    """A dataset target's field-level entries as a columnLineage (1-2-0) facet, or None."""
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
    """The edges of ``source`` feeding ``target``."""
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


def job_facet(facet: Any, own: Node, origin: str) -> Statement | None:
    """A LineageJobFacet of the event's job ``own``."""
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


def dataset_facet(facet: Any, target: Node, own: Node | None, origin: str) -> Statement | None:
    """A LineageDatasetFacet of ``target`` (``own``: the event's job, if any)."""
    if not isinstance(facet, dict) or "entries" in facet:
        return None
    edges = _entry_edges(target, facet, own, direct=True)
    stated = _columns(facet)
    columns = ((target, stated),) if stated is not None else ()
    return Statement(DATASET_LINEAGE, target, origin, facet, _unique(edges), columns)


def dependencies_facet(facet: Any, own: Node, origin: str) -> Statement | None:
    """A JobDependenciesRunFacet of a run of ``own``."""
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
    """Every explicit lineage statement of a validated event, in a stable order."""
    out: list[Statement | None] = []
    job = event.get("job")
    run = event.get("run")
    origin = OBSERVED if isinstance(run, dict) else DECLARED
    own: Node | None = None
    if isinstance(job, dict):
        own = Node("job", job["namespace"], job["name"])
        out.append(job_facet(_facet(job.get("facets"), "lineage"), own, origin))
    if isinstance(run, dict) and own is not None:
        out.append(dependencies_facet(_facet(run.get("facets"), "jobDependencies"), own, origin))
    datasets = [event["dataset"]] if isinstance(event.get("dataset"), dict) else []
    datasets += _list(event.get("inputs")) + _list(event.get("outputs"))
    for ds in datasets:
        facet = _facet(ds.get("facets"), "lineage")
        if facet is not None:
            target = Node("dataset", ds["namespace"], ds["name"])
            out.append(dataset_facet(facet, target, own, origin))
    return [s for s in out if s is not None]
