"""The lineage observed over a window of time (``since``/``until``).

Every run that overlapped the window [since, until) contributes its inputs
and outputs (``feast_lineage_run_io``): a run overlaps when it started
before ``until`` and has no end event or ended at or after ``since``. An
input edge (dataset -> job) is in the window when one of the job's
overlapping runs read the dataset; an output edge likewise. The walk's
step tests that with the runs' ``(job_id, started_us)`` index and a
primary-key lookup of ``run_io`` per run; :func:`edge_stats` then counts,
for the answer's edges, the runs that listed each and when. JobEvents are
not runs: a window shows observed runs only. Every statement is filtered
by the visible namespaces, as the current graph's (:mod:`.graph`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Connection,
    FromClause,
    Select,
    and_,
    bindparam,
    case,
    exists,
    false,
    func,
    or_,
    select,
)

from feast_lineage.consumer.lineage_model import Way
from feast_lineage.consumer.store.read import filtered_walk
from feast_lineage.consumer.store.read.common import NsIds
from feast_lineage.consumer.store.read.graph import EdgeRow
from feast_lineage.consumer.store.schema import tables as t

_CHUNK = 2000
# A window without a bound: the earliest and latest times a store holds.
_EARLIEST = -(2**62)
_LATEST = 2**62


@dataclass(frozen=True, slots=True)
class Window:
    """The window [since_us, until_us), either end open (None)."""

    since_us: int | None
    until_us: int | None

    def params(self) -> dict[str, int]:
        return {
            "since_us": _EARLIEST if self.since_us is None else self.since_us,
            "until_us": _LATEST if self.until_us is None else self.until_us,
        }


def from_horizon(window: Window, horizon_us: int) -> Window:
    """``window``, starting at the retention horizon when it has no start.

    A prune removed the runs whose last event is older than the horizon
    (but for each job's latest listing runs, which ended before it): from
    the horizon on, every run that overlapped the window is kept.
    """
    return window if window.since_us is not None else Window(horizon_us, window.until_us)


class EdgeStats(NamedTuple):
    """How the window's runs observed an input or output edge."""

    runs: int
    first_us: int  # the earliest time one of them listed it
    last_us: int  # the latest event of one of them


def overlaps(runs: FromClause) -> ColumnElement[bool]:
    """Whether a run of ``runs`` overlapped the window (``since_us``, ``until_us`` parameters)."""
    r = runs.c
    return and_(
        r.started_us < bindparam("until_us", type_=BigInteger),
        or_(r.ended_us.is_(None), r.ended_us >= bindparam("since_us", type_=BigInteger)),
    )


def edge_in_window(edges: FromClause) -> ColumnElement[bool]:
    """Whether an edge of ``edges`` was observed by a run overlapping the window."""
    e = edges.c

    def observed(job_end: Any, dataset_end: Any, direction: str) -> ColumnElement[bool]:
        r = t.runs.alias(f"win_{direction}_run")
        io = t.run_io.alias(f"win_{direction}_io")
        return (
            exists()
            .where(
                r.c.job_id == job_end,
                overlaps(r),
                io.c.run_id == r.c.run_id,
                io.c.dataset_id == dataset_end,
                io.c.direction == direction,
            )
            .correlate_except(r, io)
        )

    return case(
        (e.edge_type == "input", observed(e.dst_id, e.src_id, "input")),
        (e.edge_type == "output", observed(e.src_id, e.dst_id, "output")),
        else_=false(),
    )


def _ids(name: str = "ids") -> Any:
    return bindparam(name, expanding=True)


_HOW = ("walk_window", edge_in_window, ("input", "output"))


def walk(
    conn: Connection, start: int, direction: Way, depth: int, ns_ids: NsIds, window: Window
) -> dict[int, int]:
    """Node id -> distance from ``start`` of every node within ``depth`` steps in the window."""
    return filtered_walk.walk(conn, start, direction, depth, ns_ids, _HOW, window.params())


def edges_among(conn: Connection, ids: set[int], window: Window) -> list[EdgeRow]:
    """Every edge observed in the window whose two ends are both in ``ids``."""
    return filtered_walk.edges_among(conn, ids, edge_in_window, window.params())


@lru_cache(maxsize=1)
def _stats_statement() -> Any:
    r, io = t.runs.c, t.run_io.c
    return (
        select(
            r.job_id,
            io.dataset_id,
            io.direction,
            func.count(),
            func.min(io.first_us),
            func.max(r.last_event_us),
        )
        .select_from(t.runs.join(t.run_io, io.run_id == r.run_id))
        .where(r.job_id.in_(_ids()), overlaps(t.runs))
        .group_by(r.job_id, io.dataset_id, io.direction)
    )


Direction = Literal["input", "output"]


def edge_stats(
    conn: Connection, job_ids: Iterable[int], window: Window
) -> dict[tuple[int, int, Direction], EdgeStats]:
    """(job, dataset, direction) -> how the window's runs of the job observed that edge."""
    ordered = sorted(set(job_ids))
    out: dict[tuple[int, int, Direction], EdgeStats] = {}
    for start in range(0, len(ordered), _CHUNK):
        params = {"ids": ordered[start : start + _CHUNK], **window.params()}
        for job, dataset, direction, runs, first, last in conn.execute(_stats_statement(), params):
            way: Direction = "input" if direction == "input" else "output"
            out[(int(job), int(dataset), way)] = EdgeStats(int(runs), int(first or 0), int(last))
    return out


def _observed(ns_ids: NsIds) -> Select[int, int, str]:
    """(job, dataset, direction) of every input and output of the window's runs, both visible."""
    r, io, d = t.runs.c, t.run_io.c, t.datasets.c
    stmt = (
        select(r.job_id, io.dataset_id, io.direction)
        .select_from(
            t.runs.join(t.run_io, io.run_id == r.run_id).join(t.datasets, d.id == io.dataset_id)
        )
        .where(overlaps(t.runs))
        .distinct()
    )
    if ns_ids is not None:
        stmt = stmt.where(r.ns_id.in_(_ids("ns_ids")), d.ns_id.in_(_ids("ns_ids")))
    return stmt


def _params(ns_ids: NsIds, window: Window) -> dict[str, Any]:
    return {**window.params(), **({} if ns_ids is None else {"ns_ids": sorted(ns_ids)})}


class Observed(NamedTuple):
    """What a window observed: the jobs that ran in it, their runs' inputs and outputs."""

    jobs: frozenset[int]
    edges: frozenset[tuple[int, int, str]]  # (job, dataset, direction)

    @property
    def nodes(self) -> set[int]:
        return set(self.jobs) | {dataset for _job, dataset, _way in self.edges}


def observed(conn: Connection, ns_ids: NsIds, window: Window) -> Observed:
    """The visible jobs that ran in the window, and the visible datasets their runs listed."""
    if ns_ids is not None and not ns_ids:
        return Observed(frozenset(), frozenset())
    r = t.runs.c
    jobs = select(r.job_id).where(overlaps(t.runs)).distinct()
    if ns_ids is not None:
        jobs = jobs.where(r.ns_id.in_(_ids("ns_ids")))
    params = _params(ns_ids, window)
    found = frozenset(int(job) for job in conn.execute(jobs, params).scalars())
    edges = frozenset(
        (int(job), int(dataset), str(way))
        for job, dataset, way in conn.execute(_observed(ns_ids), params)
    )
    return Observed(found, edges)
