"""The lineage graph as it stood at an instant (``as_of``).

The answer at ``T`` is today's rules on the events whose eventTime is at or
before ``T`` (docs/api.md). For input and output edges: a job's latest
event at or before ``T`` that listed inputs is the last of its
``feast_lineage_io_listings`` rows with a rank below :func:`rank_bound`
(ranks start with the event time), and an input edge is current then when
that listing's run had listed the dataset by ``T`` (``run_io.first_us``);
outputs likewise. Parent and root edges count from their first stored time.
A job or dataset exists at ``T`` when its ``created_us``, the least event
time that named it, is at or before ``T``.

A symlink is current at ``T`` by :func:`.aliases_as_of.symlink_at` (the
dataset's last symlinks statement by then); the walk crosses it as the
current walk does. Explicit lineage is not followed in an ``as_of`` answer
yet (docs/performance.md says what is missing). Every statement is
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
from feast_lineage.consumer.store.read.graph import (
    FOLLOWED_EDGES,
    EdgeRow,
    NodeRow,
    SymlinkRow,
    _node_selects,
    count_symlinks,
)
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


def edge_at(edges: FromClause) -> ColumnElement[bool]:
    """Whether an edge of ``edges`` (the edges table or an alias) was current at ``as_of_us``.

    Input and output edges: a backward seek of the job's listings and a
    primary-key lookup of the listing run's input (output); parent and root
    edges: stored by then.
    """
    e = edges.c

    def listed(job_end: Any, dataset_end: Any, direction: str) -> ColumnElement[bool]:
        lst = t.io_listings.alias(f"at_{direction}_listing")
        io = t.run_io.alias(f"at_{direction}_io")
        latest = (
            select(lst.c.run_key)
            .where(
                lst.c.job_id == job_end,
                lst.c.direction == direction,
                lst.c.rank < bindparam("as_of_rank"),
            )
            .order_by(lst.c.rank.desc())
            .limit(1)
            .correlate_except(lst)
            .scalar_subquery()
        )
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
    jobs, datasets = _node_selects(None)
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
    return [NodeRow(*row) for row in conn.execute(_page_statement(ns_ids is not None), params)]


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
    return out


def edges_among(conn: Connection, ids: set[int], at: Instant) -> list[EdgeRow]:
    """Every edge current at ``at`` whose two ends are both in ``ids``."""
    return filtered_walk.edges_among(conn, ids, edge_at, at.params())


def count_edges(conn: Connection, ns_ids: NsIds, at: Instant) -> int:
    """Edges (and symlinks) current at ``at`` with both ends visible."""
    if ns_ids is not None and not ns_ids:
        return 0
    e = t.lineage_edges.c
    stmt = select(func.count()).select_from(t.lineage_edges).where(edge_at(t.lineage_edges))
    if ns_ids is not None:
        stmt = stmt.where(e.src_ns_id.in_(_ids("ns_ids")), e.dst_ns_id.in_(_ids("ns_ids")))
    stored = int(conn.execute(stmt, {**at.params(), **_scope(ns_ids)}).scalar_one())
    return stored + count_symlinks(conn, ns_ids, symlink_at, at.params(), _existed)


def symlinks_touching(
    conn: Connection, dataset_ids: set[int], ns_ids: NsIds, at: Instant
) -> list[SymlinkRow]:
    """The symlinks current at ``at`` from or to ``dataset_ids``, both ends visible."""
    return graph_reads.symlinks_touching(conn, dataset_ids, ns_ids, symlink_at, at.params())


_HOW: filtered_walk.How = ("walk_at", edge_at, FOLLOWED_EDGES, symlink_at)


def walk(
    conn: Connection, start: int, direction: Way, depth: int, ns_ids: NsIds, at: Instant
) -> dict[int, int]:
    """Node id -> distance from ``start`` of every node within ``depth`` steps at ``at``."""
    return filtered_walk.walk(conn, start, direction, depth, ns_ids, _HOW, at.params())


@lru_cache(maxsize=1)
def _latest_made_statement() -> Any:
    """Each dataset's made rows at the latest time at or before ``as_of_us``: an index seek.

    Driven by the datasets table, so the seek's bound (a correlated backward
    seek of the (dataset, time) key) is known before the rows are read.
    """
    d = t.datasets.c
    m = t.dataset_versions.alias("made")
    seek = t.dataset_versions.alias("seek")
    latest = (
        select(seek.c.time_us)
        .where(seek.c.dataset_id == d.id, seek.c.time_us <= _as_of_us())
        .order_by(seek.c.time_us.desc())
        .limit(1)
        .correlate_except(seek)
        .scalar_subquery()
    )
    return (
        select(m.c.dataset_id, m.c.time_us, m.c.id, m.c.writes, m.c.lifecycle_id, m.c.schema_id)
        .select_from(t.datasets.join(m, (m.c.dataset_id == d.id) & (m.c.time_us == latest)))
        .where(d.id.in_(_ids()))
    )


@lru_cache(maxsize=1)
def _stated_statement() -> Any:
    s = t.dataset_states.c
    return select(s.dataset_id, s.time_us, s.id).where(
        s.dataset_id.in_(_ids()), s.time_us <= _as_of_us()
    )


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


def job_versions_at(conn: Connection, job_ids: Iterable[int], at: Instant) -> dict[int, str]:
    """Job id -> the version its latest run (or JobEvent) started at or before ``at`` ran."""
    rv = t.run_versions.alias("rv")
    j = t.jobs.c
    latest = (
        select(rv.c.version_id)
        .where(rv.c.job_id == j.id, rv.c.time_us <= _as_of_us())
        .order_by(rv.c.time_us.desc(), rv.c.run_key.desc())
        .limit(1)
        .correlate_except(rv)
        .scalar_subquery()
    )
    ordered = sorted(set(job_ids))
    out: dict[int, str] = {}
    for start in range(0, len(ordered), _CHUNK):
        stmt = select(j.id, latest).where(j.id.in_(ordered[start : start + _CHUNK]))
        for row in conn.execute(stmt, at.params()):
            if row[1] is not None:
                out[int(row[0])] = str(row[1])
    return out


def schema_texts(conn: Connection, versions: Mapping[int, dv.CurrentVersion]) -> dict[str, str]:
    """The schema facet texts the versions point at, by blob id."""
    return dv.blob_texts(conn, (v.schema_id for v in versions.values()))
