"""What changed between two instants (issue 40): the difference of two ``as_of`` answers.

The diff of ``from`` and ``to`` is defined on the two answers
:mod:`.graph_history` gives as of each instant (the whole graph, or the
subgraph around a centre): nodes and edges in one answer and not the other;
datasets of both whose schema differs (the field-level diff of
:func:`.dataset_versions.schema_diff`); jobs of both whose job version
differs, with what differs between the two versions. The answers are
access-filtered, so a hidden namespace appears in neither, nor in the diff.

Column edges: those into or out of each answer's datasets as of its
instant (:func:`.columns.column_edges_of_datasets_at`), both ends in the
answer, compared by (source field, target field, job, origin).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection

from feast_lineage.consumer.errors import LineageError, NotFound
from feast_lineage.consumer.lineage_model import Direction, NodeId
from feast_lineage.consumer.schemas import (
    DiffTotals,
    GraphEdge,
    GraphNode,
    JobChange,
    JobChangeKind,
    LineageDiff,
    SchemaChange,
)
from feast_lineage.consumer.services import not_found
from feast_lineage.consumer.services.dataset_versions import flat_fields, schema_diff
from feast_lineage.consumer.services.graph_history import subgraph_at, whole_graph_at
from feast_lineage.consumer.services.graph_outline import (
    JobPair,
    Side,
    column_edges_among,
    names_of,
    side,
    trimmed_sides,
)
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.services.when import before_horizon
from feast_lineage.consumer.store.read import dataset_versions as dv
from feast_lineage.consumer.store.read import job_versions as jv
from feast_lineage.consumer.store.read import runs as run_reads
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.graph import NodeKind
from feast_lineage.consumer.store.schema.job_version_content import VersionContent
from feast_lineage.event_time import to_iso

# A centred side keeps at most this many nodes, the nearest first (as a subgraph's limit).
SIDE_LIMIT = 10_000
SOURCE_FACETS: tuple[JobChangeKind, ...] = ("sourceCode", "sql", "sourceCodeLocation", "jobType")


@dataclass(frozen=True, slots=True)
class Moment:
    """One side as asked: an instant (microseconds) or a run (as of its end)."""

    parameter: str  # the query parameter that named it, for the errors
    time_us: int | None = None
    run_id: str | None = None


def moment(names: tuple[str, str], time_us: int | None, run_id: str | None) -> Moment:
    """Exactly one of an instant and a run; else a 400 naming both parameters."""
    if (time_us is None) == (run_id is None):
        raise LineageError(
            f"pass exactly one of {names[0]!r} (an ISO 8601 instant) and {names[1]!r} "
            "(a run id: as of that run's end)",
            code="invalid_parameter",
        )
    if time_us is not None:
        return Moment(names[0], time_us=time_us)
    return Moment(names[1], run_id=run_id)


@dataclass(frozen=True, slots=True)
class Centre:
    kind: NodeKind
    namespace: str
    name: str
    depth: int
    direction: Direction


def _instant(conn: Connection, read: StoreReader, asked: Moment, now_us: int) -> Instant:
    """The instant a side is asked at: a run's end (a running run: now); a future one is now."""
    if asked.run_id is None:
        assert asked.time_us is not None
        when = asked.time_us
    else:
        run = run_reads.get_run(conn, asked.run_id, read.scope.ns_ids)
        if run is None:
            raise NotFound(
                f"{asked.parameter}: no run {asked.run_id!r} (or it is not visible); "
                + not_found.RUNS
            )
        when = run.ended_us if run.ended_us is not None else now_us
    at = Instant(min(when, now_us))
    horizon = dv.horizon(conn)
    if horizon is not None and at.time_us < horizon:
        raise before_horizon(
            asked.parameter,
            f"{asked.parameter}: {to_iso(at.time_us)} is before the retention horizon; the "
            f"oldest instant still answered is {to_iso(horizon)}",
            horizon,
        )
    return at


def _side(read: StoreReader, centre: Centre | None, at: Instant) -> Side | None:
    """The ``as_of`` answer at ``at``; None when the centre did not exist then."""
    if centre is None:
        page = whole_graph_at(read, at=at)
        return side(page["nodes"], page["edges"])
    try:
        sub = subgraph_at(
            read,
            kind=centre.kind,
            namespace=centre.namespace,
            name=centre.name,
            depth=centre.depth,
            direction=centre.direction,
            limit=SIDE_LIMIT,
            at=at,
        )
    except NotFound:
        return None
    return side(sub["nodes"], sub["edges"], sub["truncated"])


def schema_changes(before: Side, after: Side) -> list[SchemaChange]:
    """Datasets of both answers whose schema fields differ, with the field-level diff."""
    out = []
    for key in sorted(before.nodes.keys() & after.nodes.keys()):
        old, new = before.nodes[key], after.nodes[key]
        if new["type"] != "dataset":
            continue
        diff = schema_diff(flat_fields(old["schema"]), flat_fields(new["schema"]))
        if not (diff.added or diff.removed or diff.type_changed or diff.description_changed):
            continue
        diff.previous_id = old.get("version")
        out.append(
            SchemaChange(
                node=key,
                namespace=new["namespace"],
                name=new["name"],
                from_version=old.get("version"),
                to_version=new.get("version"),
                diff=diff,
            )
        )
    return out


def _changed(
    read: StoreReader, old: VersionContent | None, new: VersionContent | None
) -> list[JobChangeKind]:
    """What differs between two job versions, counting only the visible tables."""
    empty = VersionContent(inputs=(), outputs=(), sources=())
    a, b = old or empty, new or empty
    sources_a, sources_b = dict(a.sources), dict(b.sources)
    found: list[JobChangeKind] = [f for f in SOURCE_FACETS if sources_a.get(f) != sources_b.get(f)]

    def visible(tables: tuple[tuple[str, str], ...]) -> set[tuple[str, str]]:
        return {t for t in tables if read.scope.allows(t[0])}

    if visible(a.inputs) != visible(b.inputs):
        found.append("inputs")
    if visible(a.outputs) != visible(b.outputs):
        found.append("outputs")
    return found


def version_pairs(before: Side, after: Side) -> list[JobPair]:
    """The jobs of both answers whose job version differs."""
    out = []
    for key in sorted(before.nodes.keys() & after.nodes.keys()):
        old, new = before.nodes[key], after.nodes[key]
        if new["type"] == "job" and old.get("version") != new.get("version"):
            out.append(
                JobPair(key, new["namespace"], new["name"], old.get("version"), new.get("version"))
            )
    return out


def job_changes(read: StoreReader, pairs: list[JobPair]) -> list[JobChange]:
    """Of the jobs whose job version differs, those whose versions differ in what is visible."""
    if not pairs:
        return []
    with read.engine.connect() as conn:
        contents = jv.version_contents(conn, {v for p in pairs for v in (p.old, p.new) if v})
    out = []
    for pair in pairs:
        changed = _changed(read, contents.get(pair.old or ""), contents.get(pair.new or ""))
        if changed:  # a change in hidden tables only is no change to this caller
            out.append(
                JobChange(
                    node=pair.node,
                    namespace=pair.namespace,
                    name=pair.name,
                    from_version=pair.old,
                    to_version=pair.new,
                    changed=changed,
                )
            )
    return out


def column_edges(read: StoreReader, answer: Side, at: Instant) -> Side:
    """The answer with the column edges into or out of its datasets as of ``at``.

    An edge is kept when both its datasets are in the answer (the scope);
    :func:`.graph_outline.column_edges_among` says how they are keyed.
    """
    datasets, jobs = names_of(answer.nodes.values())
    found = column_edges_among(read, datasets, jobs, at)
    return Side(answer.nodes, answer.edges, answer.truncated, found)


def _only(a: Side, b: Side) -> tuple[list[GraphNode], list[GraphEdge]]:
    """The nodes and edges of ``a`` that ``b`` lacks, sorted by id."""
    nodes = [a.nodes[k] for k in sorted(a.nodes.keys() - b.nodes.keys())]
    edges = [a.edges[k] for k in sorted(a.edges.keys() - b.edges.keys())]
    return nodes, edges


def difference(
    read: StoreReader,
    before: Side,
    after: Side,
    instants: tuple[Instant, Instant],
    pairs: list[JobPair] | None = None,
) -> LineageDiff:
    """The diff of two answers (the centre and depth are the caller's to set).

    ``pairs``: the jobs whose version differs, when the sides do not hold
    them (:func:`.graph_outline.trimmed_sides`); else read from the nodes.
    """
    added, edges_added = _only(after, before)
    removed, edges_removed = _only(before, after)
    old, new = before.columns or {}, after.columns or {}
    columns_added = [new[k] for k in sorted(new.keys() - old.keys())]
    columns_removed = [old[k] for k in sorted(old.keys() - new.keys())]
    schemas = schema_changes(before, after)
    jobs = job_changes(read, version_pairs(before, after) if pairs is None else pairs)
    return {
        "from": to_iso(instants[0].time_us) or "",
        "to": to_iso(instants[1].time_us) or "",
        "center": None,
        "depth": None,
        "direction": None,
        "within": None,
        "truncated": before.truncated or after.truncated,
        "nodes_added": added,
        "nodes_removed": removed,
        "edges_added": edges_added,
        "edges_removed": edges_removed,
        "schema_changes": schemas,
        "column_edges_added": columns_added,
        "column_edges_removed": columns_removed,
        "job_changes": jobs,
        "totals": DiffTotals(
            nodes_added=len(added),
            nodes_removed=len(removed),
            edges_added=len(edges_added),
            edges_removed=len(edges_removed),
            schema_changes=len(schemas),
            column_edges_added=len(columns_added),
            column_edges_removed=len(columns_removed),
            job_changes=len(jobs),
        ),
    }


def sides(
    read: StoreReader, centre: Centre | None, instants: tuple[Instant, Instant]
) -> tuple[Side, Side]:
    """The two ``as_of`` answers with their column edges: the diff's definition.

    A 404 when the centre existed at neither instant.
    """
    before, after = _side(read, centre, instants[0]), _side(read, centre, instants[1])
    if before is None and after is None:
        assert centre is not None
        raise NotFound(
            f"no {centre.kind} named {centre.name!r} in namespace {centre.namespace!r} at either "
            "instant; " + not_found.nodes(centre.kind)
        )
    nothing = side([], [])
    before = column_edges(read, before or nothing, instants[0])
    after = column_edges(read, after or nothing, instants[1])
    return before, after


def lineage_diff(
    read: StoreReader,
    *,
    start: Moment,
    end: Moment,
    centre: Centre | None,
    now_us: int,
    within: str | None = None,
) -> LineageDiff:
    """The diff between the answers as of ``start`` and as of ``end``.

    The whole graph's is computed from the two instants' outlines
    (:mod:`.graph_outline`: full nodes and edges only where they differ),
    a centred one from the two answers. ``within``: the whole graph's in
    that namespace only, as the graph page narrows to one (a namespace the
    caller may not see: nothing); a run named by ``from_run`` or ``to_run``
    may be of another namespace.
    """
    with read.engine.connect() as conn:
        instants = (_instant(conn, read, start, now_us), _instant(conn, read, end, now_us))
    pairs = None
    if centre is None:
        # ``within`` narrows which nodes and edges are compared, not what the caller may
        # see of them: nodes are redacted, and jobs' changes counted, with its own scope.
        selected = read.scope.narrow(within)  # (none: the caller's own)
        before, after, pairs = trimmed_sides(read, instants, selected.ns_ids)
    else:
        before, after = sides(read, centre, instants)
    diff = difference(read, before, after, instants, pairs)
    diff["within"] = within
    if centre is not None:
        diff["center"] = str(NodeId(centre.kind, centre.namespace, centre.name))
        diff["depth"] = centre.depth
        diff["direction"] = centre.direction
    return diff
