"""The lineage graph as it stood at an instant (``as_of``).

The answer at ``T`` is today's rules on the events whose eventTime is at or
before ``T`` (docs/api.md). For input and output edges: a job's latest
event at or before ``T`` that listed inputs is the last of its
``feast_lineage_io_listings`` rows with a rank below :func:`rank_bound`
(ranks start with the event time), and an input edge is current then when
that listing's run had listed the dataset by ``T`` (``run_io.first_us``);
outputs likewise. Parent and root edges count from the earliest event that
stated them.
A job or dataset exists at ``T`` when its ``created_us``, the least event
time that named it, is at or before ``T``; a dataset node's ``written`` is
whether an event by then wrote or declared it (:mod:`.writes_as_of`).

A symlink is current at ``T`` by :func:`.aliases_as_of.symlink_at` (the
dataset's last symlinks statement by then); the walk crosses it as the
current walk does. An explicit edge is current at ``T`` by
:func:`.explicit_as_of.explicit_at` (its owner's last statement of the
facet by then names its payload); the walk follows it, and the answers
list and count it, as the current graph's do. Every statement is
filtered by the visible namespaces, as the current graph's (:mod:`.graph`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Connection,
    FromClause,
    Integer,
    Table,
    and_,
    bindparam,
    case,
    exists,
    func,
    literal_column,
    select,
    union_all,
)

from feast_lineage.consumer.lineage_model import Way
from feast_lineage.consumer.store.read import dataset_versions as dv
from feast_lineage.consumer.store.read import filtered_walk
from feast_lineage.consumer.store.read import graph as graph_reads
from feast_lineage.consumer.store.read.aliases_as_of import symlink_at
from feast_lineage.consumer.store.read.common import NsIds
from feast_lineage.consumer.store.read.explicit import (
    ExplicitEdgeRead,
    count_explicit_edges,
    explicit_edges_among,
    visible_explicit_edges,
)
from feast_lineage.consumer.store.read.explicit_as_of import explicit_at
from feast_lineage.consumer.store.read.graph import (
    FOLLOWED_EDGES,
    EdgeRow,
    NodeRow,
    SymlinkRow,
    _node_selects,
    count_symlinks,
)
from feast_lineage.consumer.store.read.writes_as_of import written_among
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import SORT_OFFSET

_CHUNK = 2000


@dataclass(frozen=True, slots=True)
class Instant:
    """An instant the graph is asked at, in microseconds, and the rank bound of its events."""

    time_us: int

    @property
    def rank_bound(self) -> str:
        return rank_bound(self.time_us)

    def params(self) -> dict[str, int | str]:
        return {"as_of_us": self.time_us, "as_of_rank": self.rank_bound}


def rank_bound(time_us: int) -> str:
    """The least rank of an event later than ``time_us`` (ranks start with the event time)."""
    return f"{time_us + SORT_OFFSET + 1:020d}"


def _as_of_us() -> Any:
    return bindparam("as_of_us", type_=BigInteger)


def _latest_listed_run(job: Any, direction: str, name: str) -> Any:
    """The run of ``job``'s latest listing of ``direction`` ranked before ``as_of_rank``.

    A correlated backward seek of ``io_listings`` (aliased ``name``), one row.
    """
    lst = t.io_listings.alias(name)
    return (
        select(lst.c.run_key)
        .where(
            lst.c.job_id == job,
            lst.c.direction == direction,
            lst.c.rank < bindparam("as_of_rank"),
        )
        .order_by(lst.c.rank.desc())
        .limit(1)
        .correlate_except(lst)
        .scalar_subquery()
    )


def edge_at(edges: FromClause) -> ColumnElement[bool]:
    """Whether an edge of ``edges`` (the edges table or an alias) was current at ``as_of_us``.

    Input and output edges: a backward seek of the job's listings and a
    primary-key lookup of the listing run's input (output); parent and root
    edges: stored by then.
    """
    e = edges.c

    def listed(job_end: Any, dataset_end: Any, direction: str) -> ColumnElement[bool]:
        io = t.run_io.alias(f"at_{direction}_io")
        latest = _latest_listed_run(job_end, direction, f"at_{direction}_listing")
        return (
            exists()
            .where(
                io.c.run_id == latest,
                io.c.dataset_id == dataset_end,
                io.c.direction == direction,
                io.c.first_us <= _as_of_us(),
            )
            .correlate_except(io)
        )

    return case(
        (e.edge_type == "input", listed(e.dst_id, e.src_id, "input")),
        (e.edge_type == "output", listed(e.src_id, e.dst_id, "output")),
        else_=e.created_us <= _as_of_us(),
    )


def _ids(name: str = "ids") -> Any:
    return bindparam(name, expanding=True)


def _existed(table: Any) -> ColumnElement[bool]:
    return table.c.created_us <= _as_of_us()  # type: ignore[no-any-return]


def _scope(ns_ids: NsIds) -> dict[str, Any]:
    return {} if ns_ids is None else {"ns_ids": sorted(ns_ids)}


@lru_cache(maxsize=4)
def _node_statements(scoped: bool) -> tuple[Any, Any]:
    # (shown the producer and update time of none: an answer as of T has neither)
    jobs, datasets = _node_selects("ns_ids" if scoped else None)
    jobs = jobs.where(_existed(t.jobs))
    datasets = datasets.where(_existed(t.datasets))
    if scoped:
        jobs = jobs.where(t.jobs.c.ns_id.in_(_ids("ns_ids")))
        datasets = datasets.where(t.datasets.c.ns_id.in_(_ids("ns_ids")))
    return jobs, datasets


def count_nodes(conn: Connection, ns_ids: NsIds, at: Instant) -> int:
    """The jobs and datasets visible and existing at ``at``."""
    if ns_ids is not None and not ns_ids:
        return 0
    jobs, datasets = _node_statements(ns_ids is not None)
    total = 0
    for part in (jobs, datasets):
        stmt = select(func.count()).select_from(part.subquery())
        total += int(conn.execute(stmt, {**at.params(), **_scope(ns_ids)}).scalar_one())
    return total


@lru_cache(maxsize=4)
def _page_statement(scoped: bool) -> Any:
    jobs, datasets = _node_statements(scoped)
    keys: list[Any] = [literal_column(k) for k in ("namespace", "name", "kind")]
    return (
        union_all(jobs, datasets)
        .order_by(*keys)
        .limit(bindparam("limit", type_=Integer))
        .offset(bindparam("offset", type_=Integer))
    )


def node_page(
    conn: Connection, ns_ids: NsIds, at: Instant, offset: int, limit: int
) -> list[NodeRow]:
    """Nodes existing at ``at``, sorted by (namespace, name, kind)."""
    if ns_ids is not None and not ns_ids:
        return []
    params = {"limit": limit, "offset": offset, **at.params(), **_scope(ns_ids)}
    rows = [NodeRow(*row) for row in conn.execute(_page_statement(ns_ids is not None), params)]
    return _written_then(conn, rows, at)


def _written_then(conn: Connection, rows: list[NodeRow], at: Instant) -> list[NodeRow]:
    """``rows`` (read with ``written`` as of now) with ``written`` as of ``at``: one
    statement for those written now (:func:`.writes_as_of.written_among`)."""
    now = [r.id for r in rows if r.written]
    if not now:
        return rows
    then = written_among(conn, now, at.params())
    return [r._replace(written=r.id in then) if r.written else r for r in rows]


@lru_cache(maxsize=4)
def _all_statement(scoped: bool) -> Any:
    return union_all(*_node_statements(scoped))


def all_nodes(conn: Connection, ns_ids: NsIds, at: Instant) -> list[NodeRow]:
    """Every visible job and dataset existing at ``at``, in no order."""
    if ns_ids is not None and not ns_ids:
        return []
    params = {**at.params(), **_scope(ns_ids)}
    rows = [NodeRow(*row) for row in conn.execute(_all_statement(ns_ids is not None), params)]
    return _written_then(conn, rows, at)


@lru_cache(maxsize=4)
def _by_id_statement(scoped: bool) -> Any:
    jobs, datasets = _node_statements(scoped)
    return union_all(
        jobs.where(t.jobs.c.id.in_(_ids())), datasets.where(t.datasets.c.id.in_(_ids()))
    )


def nodes_by_id(conn: Connection, ids: Iterable[int], ns_ids: NsIds, at: Instant) -> list[NodeRow]:
    """The visible jobs and datasets among ``ids`` that existed at ``at``."""
    if ns_ids is not None and not ns_ids:
        return []
    ordered = sorted(set(ids))
    out: list[NodeRow] = []
    for start in range(0, len(ordered), _CHUNK):
        params = {"ids": ordered[start : start + _CHUNK], **at.params(), **_scope(ns_ids)}
        out.extend(
            NodeRow(*row) for row in conn.execute(_by_id_statement(ns_ids is not None), params)
        )
    return _written_then(conn, out, at)


def edges_among(conn: Connection, ids: set[int], at: Instant) -> list[EdgeRow]:
    """Every edge current at ``at`` whose two ends are both in ``ids``.

    Input and output edges per job of ``ids``, as :func:`edges_at` reads them (the
    ``run_io`` rows of its latest listing's run, joined to their stored edges), kept
    when the dataset is in ``ids``: testing each stored edge of ``ids`` with
    :func:`edge_at` read the edges of all their history. Parent and root edges: those
    stored by then.
    """
    ordered = sorted(ids)
    out: list[EdgeRow] = []
    for start in range(0, len(ordered), _CHUNK):
        params = {"ids": ordered[start : start + _CHUNK], **at.params()}
        for stmt in _among_statements():
            out.extend(
                EdgeRow(*row)
                for row in conn.execute(stmt, params)
                if row.src_id in ids and row.dst_id in ids
            )
    others = filtered_walk.edges_among(conn, ids, _run_tree_edge_at, at.params())
    return out + others


def _run_tree_edge_at(edges: FromClause) -> ColumnElement[bool]:
    """Whether an edge of ``edges`` is a parent or root edge stored by ``as_of_us``."""
    e = edges.c
    return and_(e.edge_type.in_(_RUN_TREE_EDGES), e.created_us <= _as_of_us())


@lru_cache(maxsize=1)
def _among_statements() -> tuple[Any, Any]:
    """The input and output edges current at ``as_of_us`` of the jobs ``ids``."""
    return (
        _listed_edges("input", False, False, among=True),
        _listed_edges("output", False, False, among=True),
    )


def _selected(e: Any, counted: bool) -> list[Any]:
    """What a statement of :func:`_current_statements` selects: a count, or :class:`EdgeRow`'s."""
    if counted:
        return [func.count()]
    c = e.c
    return [c.src_id, c.dst_id, c.edge_type, c.src_kind, c.dst_kind, c.created_us]


def _listed_edges(direction: str, scoped: bool, counted: bool, among: bool = False) -> Any:
    """The input (output) edges current at ``as_of_us``: each job's latest listed run's, joined.

    Scoped, only the visible jobs are sought (an edge needs both ends visible);
    ``among``, only the jobs ``ids``.
    """
    j = t.jobs.c
    latest = _latest_listed_run(j.id, direction, f"count_{direction}_listing")
    # Grouped, so that no database flattens it into a per-edge subquery again.
    # Only the jobs that existed then can have listed by then: no seek for the others.
    jobs = select(j.id.label("job_id"), latest.label("run_key")).where(j.created_us <= _as_of_us())
    if scoped:  # both ends visible: no seek for a job the caller cannot see
        jobs = jobs.where(j.ns_id.in_(_ids("ns_ids")))
    if among:
        jobs = jobs.where(j.id.in_(_ids()))
    listed = jobs.group_by(j.id).subquery(f"{direction}_run")
    io = t.run_io.alias(f"count_{direction}_io")
    e = t.lineage_edges.alias(f"count_{direction}_edge")
    if direction == "input":
        ends = (e.c.src_id == io.c.dataset_id) & (e.c.dst_id == listed.c.job_id)
    else:
        ends = (e.c.src_id == listed.c.job_id) & (e.c.dst_id == io.c.dataset_id)
    stmt = select(*_selected(e, counted)).select_from(
        listed.join(
            io,
            (io.c.run_id == listed.c.run_key)
            & (io.c.direction == direction)
            & (io.c.first_us <= _as_of_us()),
        ).join(e, ends & (e.c.edge_type == direction))
    )
    if scoped:
        stmt = stmt.where(e.c.src_ns_id.in_(_ids("ns_ids")), e.c.dst_ns_id.in_(_ids("ns_ids")))
    return stmt


# The edges that are neither input nor output: a range each of the (edge_type, created_us) index.
_RUN_TREE_EDGES = ("parent", "root")


@lru_cache(maxsize=8)
def _current_statements(scoped: bool, counted: bool) -> tuple[Any, ...]:
    """The edges current at ``as_of_us``, counted per job rather than tested per edge.

    An input (output) edge is current when the job's latest listing then
    names a run whose ``run_io`` row for the dataset was listed by then
    (:func:`edge_at`): so the current input edges are, for each job, the
    ``run_io`` rows of that one run, each joined to its stored edge. One
    backward seek of the listings per job and direction, not one per edge.
    Parent and root edges count from the earliest event that stated them. ``counted``:
    each statement counts its edges, else it selects them (as :class:`EdgeRow`).
    """
    c = t.lineage_edges.c
    others = (
        select(*_selected(t.lineage_edges, counted))
        .select_from(t.lineage_edges)
        .where(c.edge_type.in_(_RUN_TREE_EDGES), c.created_us <= _as_of_us())
    )
    if scoped:
        others = others.where(c.src_ns_id.in_(_ids("ns_ids")), c.dst_ns_id.in_(_ids("ns_ids")))
    return (
        _listed_edges("input", scoped, counted),
        _listed_edges("output", scoped, counted),
        others,
    )


def count_edges(conn: Connection, ns_ids: NsIds, at: Instant) -> int:
    """Edges (and symlinks) current at ``at`` with both ends visible."""
    if ns_ids is not None and not ns_ids:
        return 0
    params = {**at.params(), **_scope(ns_ids)}
    stored = sum(
        int(conn.execute(stmt, params).scalar_one())
        for stmt in _current_statements(ns_ids is not None, True)
    )
    explicit = count_explicit_edges(conn, ns_ids, explicit_at, at.params())
    return stored + explicit + count_symlinks(conn, ns_ids, symlink_at, at.params(), _existed)


def explicit_among(conn: Connection, ids: set[int], at: Instant) -> list[ExplicitEdgeRead]:
    """Every explicit edge current at ``at`` whose two ends are both in ``ids``."""
    return explicit_edges_among(conn, ids, explicit_at, at.params())


def explicit_edges_at(conn: Connection, ns_ids: NsIds, at: Instant) -> list[ExplicitEdgeRead]:
    """Every explicit edge current at ``at`` with both ends visible: the whole graph's."""
    return visible_explicit_edges(conn, ns_ids, explicit_at, at.params())


def edges_at(conn: Connection, ns_ids: NsIds, at: Instant) -> list[EdgeRow]:
    """Every edge current at ``at`` with both ends visible: the whole graph's, by job."""
    if ns_ids is not None and not ns_ids:
        return []
    params = {**at.params(), **_scope(ns_ids)}
    return [
        EdgeRow(*row)
        for stmt in _current_statements(ns_ids is not None, False)
        for row in conn.execute(stmt, params)
    ]


def symlinks_touching(
    conn: Connection, dataset_ids: set[int], ns_ids: NsIds, at: Instant
) -> list[SymlinkRow]:
    """The symlinks current at ``at`` from or to ``dataset_ids``, both ends visible."""
    return graph_reads.symlinks_touching(conn, dataset_ids, ns_ids, symlink_at, at.params())


def symlinks_at(conn: Connection, ns_ids: NsIds, at: Instant) -> list[SymlinkRow]:
    """Every symlink current at ``at`` between datasets existing then, both visible."""
    return graph_reads.symlinks_between_stored(conn, ns_ids, symlink_at, at.params(), _existed)


_HOW: filtered_walk.How = ("walk_at", edge_at, FOLLOWED_EDGES, symlink_at, explicit_at)


def walk(
    conn: Connection,
    start: int,
    direction: Way,
    depth: int,
    ns_ids: NsIds,
    at: Instant,
    *,
    aliases: bool = False,
) -> dict[int, int]:
    """Node id -> distance from ``start`` of every node within ``depth`` steps at ``at``
    (``aliases``: :func:`.filtered_walk.walk`'s)."""
    return filtered_walk.walk(
        conn, start, direction, depth, ns_ids, _HOW, at.params(), aliases=aliases
    )


def _rows_at_latest_time(table: Table, name: str, *columns: str) -> Any:
    """``columns`` of each dataset's rows of ``table`` at its latest time at or before
    ``as_of_us``, for the datasets ``ids``.

    Driven by the datasets table, so the bound (a correlated backward seek
    of ``table``'s (dataset_id, time_us) key or index) is known before the
    rows are read, and a dataset with many rows sends its last ones only.
    """
    d = t.datasets.c
    rows = table.alias(name)
    seek = table.alias(f"{name}_seek")
    latest = (
        select(seek.c.time_us)
        .where(seek.c.dataset_id == d.id, seek.c.time_us <= _as_of_us())
        .order_by(seek.c.time_us.desc())
        .limit(1)
        .correlate_except(seek)
        .scalar_subquery()
    )
    on = (rows.c.dataset_id == d.id) & (rows.c.time_us == latest)
    return (
        select(*(rows.c[c] for c in columns))
        .select_from(t.datasets.join(rows, on))
        .where(d.id.in_(_ids()))
    )


@lru_cache(maxsize=1)
def _latest_made_statement() -> Any:
    """Each dataset's made rows at the latest time at or before ``as_of_us``."""
    columns = ("dataset_id", "time_us", "id", "writes", "lifecycle_id", "schema_id")
    return _rows_at_latest_time(t.dataset_versions, "made", *columns)


@lru_cache(maxsize=1)
def _stated_statement() -> Any:
    """Each dataset's state rows at its latest state time at or before ``as_of_us``
    (the ``(dataset_id, time_us)`` index, migration 0023)."""
    return _rows_at_latest_time(t.dataset_states, "stated", "dataset_id", "time_us", "id")


def dataset_versions_at(
    conn: Connection, dataset_ids: Iterable[int], at: Instant
) -> dict[int, dv.CurrentVersion]:
    """Dataset id -> its version current at ``at``: the last of its versions until then.

    A made row (a write or a lifecycle change) is always a version, so when
    a dataset's latest row at or before ``at`` is a made row that states a
    schema, that row is the answer: one index seek. A dataset whose latest
    row then is a state row (only read so far, or stated anew since its last
    write) or whose latest write states no schema is walked in full by
    :func:`.dataset_versions.current_at` (the rows decide against the values
    before them).
    """
    ordered = sorted(set(dataset_ids))
    out: dict[int, dv.CurrentVersion] = {}
    walk: list[int] = []
    for start in range(0, len(ordered), _CHUNK):
        chunk = ordered[start : start + _CHUNK]
        params: dict[str, Any] = {"ids": chunk, **at.params()}
        made: dict[int, tuple[int, int, Any]] = {}
        for ds, time_us, vid, writes, lifecycle, schema in conn.execute(
            _latest_made_statement(), params
        ):
            key = (int(time_us), int(vid))
            # Every made row is a version; one that is not leaves the dataset to the walk.
            versioned = bool(writes) or lifecycle is not None
            if int(ds) not in made or key > made[int(ds)][:2]:
                made[int(ds)] = (*key, schema if versioned else None)
        stated: dict[int, tuple[int, int]] = {}
        for ds, time_us, sid in conn.execute(_stated_statement(), params):
            stated[int(ds)] = max(stated.get(int(ds), (-(2**63), 0)), (int(time_us), int(sid)))
        for ds in chunk:
            row = made.get(ds)
            if row is not None and row[2] is not None and stated.get(ds, (-(2**63), 0)) < row[:2]:
                out[ds] = dv.CurrentVersion(row[1], row[2])
            elif row is not None or ds in stated:
                walk.append(ds)
    out.update(dv.current_at(conn, walk, at.time_us) if walk else {})
    return out


def schema_texts(conn: Connection, versions: Mapping[int, dv.CurrentVersion]) -> dict[str, str]:
    """The schema facet texts the versions point at, by blob id."""
    return dv.blob_texts(conn, (v.schema_id for v in versions.values()))
