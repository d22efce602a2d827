"""The lineage observed over a window of time (``since``/``until``).

Every run that overlapped the window [since, until) contributes its inputs
and outputs (``feast_lineage_run_io``): a run overlaps when it started
before ``until`` and has no end event or ended at or after ``since``. An
input edge (dataset -> job) is in the window when one of the job's
overlapping runs read the dataset; an output edge likewise; a parent edge
(parent job -> child job) when one of the child's overlapping runs named a
run of the parent (its parent facet) and the parent ran in the window too.

Nothing in that rule bounds a run's start from below, so the reads bound
it with the longest run the store has held (``max_run_us`` in the meta
table, raised at ingest, see :mod:`..write.run_durations`): a run that
ended at or after ``since`` started at or after ``since - longest``. The
overlapping runs are then those started in [since - longest, until) that
have no end or ended at or after ``since`` (a range of the
``(job_id, started_us)`` index), and the runs with no end that started
before ``since - longest`` (a run whose end never came: a job's by the
``(job_id, ended_us, started_us)`` index, every job's by state ``RUNNING``
or ``OTHER`` and the ``(state, started_us)`` index). The
walk's step tests both with a primary-key lookup of ``run_io`` per run;
:func:`edges_among` then counts, for the answer's edges, the runs that
listed each and when. JobEvents are
not runs: a window shows observed runs only. Explicit lineage is kept
when its payload was stated in the window (an event carrying the facet
ranked in it: :func:`.explicit_as_of.explicit_in_window`), JobEvents'
included; the walk follows those edges too. Every statement is filtered
by the visible namespaces, as the current graph's (:mod:`.graph`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache, partial
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
    true,
    union_all,
)

from feast_lineage.consumer.lineage_model import Way
from feast_lineage.consumer.store.engine.meta import MAX_RUN_KEY, read_meta
from feast_lineage.consumer.store.read import filtered_walk
from feast_lineage.consumer.store.read.aliases_as_of import symlink_at
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.common import NsIds
from feast_lineage.consumer.store.read.explicit import (
    ExplicitEdgeRead,
    explicit_edges_among,
    visible_explicit_edges,
)
from feast_lineage.consumer.store.read.explicit_as_of import explicit_in_window, explicit_params
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

    def params(self, longest_us: int = _LATEST) -> dict[str, int]:
        """The statements' parameters, given the longest run the store has held."""
        since = _EARLIEST if self.since_us is None else self.since_us
        until = _LATEST if self.until_us is None else self.until_us
        start_lo = max(since - max(longest_us, 0), _EARLIEST)
        # Open runs start before both (one bound: two ranges on one column
        # lead SQLite's planner to the other index).
        return {
            "since_us": since,
            "until_us": until,
            "start_lo_us": start_lo,
            "open_before_us": min(start_lo, until),
        }


# A run has no end while its highest-ranked event is not terminal.
_OPEN_STATES = ("RUNNING", "OTHER")


def longest_run_us(conn: Connection) -> int:
    """The longest run (end minus start) the store has held: an upper bound, never lowered."""
    value = read_meta(conn, MAX_RUN_KEY)
    return _LATEST if value is None else int(value)


def window_params(conn: Connection, window: Window) -> dict[str, int]:
    """The window statements' parameters (:meth:`Window.params` with the store's longest run)."""
    return window.params(longest_run_us(conn))


_resolved = window_params


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


def _param(name: str) -> Any:
    return bindparam(name, type_=BigInteger)


def overlaps_recent(runs: FromClause) -> ColumnElement[bool]:
    """Whether a run of ``runs`` started at or after ``since - longest`` overlapped the window."""
    r = runs.c
    return and_(
        r.started_us >= _param("start_lo_us"),
        r.started_us < _param("until_us"),
        or_(r.ended_us.is_(None), r.ended_us >= _param("since_us")),
    )


def overlaps_open(runs: FromClause, across_jobs: bool = False) -> ColumnElement[bool]:
    """Whether a run of ``runs`` with no end started before ``since - longest`` (and ``until``).

    A job's runs: one seek of the ``(job_id, ended_us, started_us)`` index.
    ``across_jobs``: the runs of every job, by the ``(state, started_us)``
    index (a run with no end is RUNNING or OTHER).
    """
    r = runs.c
    return and_(
        r.state.in_(_OPEN_STATES) if across_jobs else true(),
        r.ended_us.is_(None),
        r.started_us < _param("open_before_us"),
    )


def _overlapping(job_ids: bool, ns_ids: bool) -> Any:
    """The overlapping runs (run_id, job_id, last_event_us), the two kinds as one union."""
    r = t.runs.c
    parts = []
    for kind in (overlaps_recent, partial(overlaps_open, across_jobs=not job_ids)):
        part = select(r.run_id, r.job_id, r.last_event_us).where(kind(t.runs))
        if job_ids:
            part = part.where(r.job_id.in_(_ids()))
        if ns_ids:
            part = part.where(r.ns_id.in_(_ids("ns_ids")))
        parts.append(part)
    return union_all(*parts).subquery("overlapping")


def edge_in_window(edges: FromClause) -> ColumnElement[bool]:
    """Whether an edge of ``edges`` was observed by a run overlapping the window."""
    e = edges.c

    def observed(job_end: Any, dataset_end: Any, direction: str) -> ColumnElement[bool]:
        def by(kind: Any, name: str) -> ColumnElement[bool]:
            r = t.runs.alias(f"win_{direction}_{name}_run")
            io = t.run_io.alias(f"win_{direction}_{name}_io")
            return (
                exists()
                .where(
                    r.c.job_id == job_end,
                    kind(r),
                    io.c.run_id == r.c.run_id,
                    io.c.dataset_id == dataset_end,
                    io.c.direction == direction,
                )
                .correlate_except(r, io)
            )

        return or_(by(overlaps_recent, "recent"), by(overlaps_open, "open"))

    return case(
        (e.edge_type == "input", observed(e.dst_id, e.src_id, "input")),
        (e.edge_type == "output", observed(e.src_id, e.dst_id, "output")),
        else_=false(),
    )


def _ids(name: str = "ids") -> Any:
    return bindparam(name, expanding=True)


_HOW: filtered_walk.How = (
    "walk_window",
    edge_in_window,
    ("input", "output"),
    symlink_at,
    explicit_in_window,
)
# A window without an end follows the symlinks stated by any event.
_EVERY_STATEMENT = 2**62


def symlinks_instant(window: Window) -> Instant:
    """The instant whose symlinks a window follows: just before its end (its last event's)."""
    return Instant(_EVERY_STATEMENT if window.until_us is None else window.until_us - 1)


def walk_params(conn: Connection, window: Window) -> dict[str, int | str]:
    """The window walk's parameters: the window's, its symlinks instant's, its statements'."""
    return {
        **window_params(conn, window),
        **symlinks_instant(window).params(),
        **explicit_window_params(window),
    }


def explicit_window_params(window: Window) -> dict[str, str]:
    """The parameters of :func:`.explicit_as_of.explicit_in_window` for ``window``."""
    return explicit_params(window.since_us, window.until_us)


def explicit_among(conn: Connection, ids: set[int], window: Window) -> list[ExplicitEdgeRead]:
    """The explicit edges stated in the window whose two ends are both in ``ids``."""
    return explicit_edges_among(conn, ids, explicit_in_window, explicit_window_params(window))


def explicit_stated(conn: Connection, ns_ids: NsIds, window: Window) -> list[ExplicitEdgeRead]:
    """The explicit edges stated in the window with both ends visible."""
    params = explicit_window_params(window)
    return visible_explicit_edges(conn, ns_ids, explicit_in_window, params)


def walk(
    conn: Connection,
    start: int,
    direction: Way,
    depth: int,
    ns_ids: NsIds,
    window: Window,
    *,
    aliases: bool = False,
) -> dict[int, int]:
    """Node id -> distance from ``start`` of every node within ``depth`` steps in the window
    (``aliases``: :func:`.filtered_walk.walk`'s)."""
    return filtered_walk.walk(
        conn, start, direction, depth, ns_ids, _HOW, walk_params(conn, window), aliases=aliases
    )


def edges_among(
    conn: Connection, ids: set[int], window: Window
) -> tuple[list[EdgeRow], dict[tuple[int, int, Direction], EdgeStats]]:
    """Every edge observed in the window whose two ends are in ``ids``, with how.

    The window's runs of the jobs in ``ids`` are read once, grouped by what
    they listed among ``ids`` (:func:`_stats`), each group with its
    stored edge's time (a primary-key seek of the stored edge). Testing
    each stored edge with :func:`edge_in_window` instead read the window's
    runs again for every edge; reading every stored edge of ``ids`` and
    keeping those the runs listed read the edges of all their history.
    """
    found = _stats(conn, ids, window)
    rows = [
        EdgeRow(dataset, job, "input", "dataset", "job", created)
        if way == "input"
        else EdgeRow(job, dataset, "output", "job", "dataset", created)
        for (job, dataset, way), (_stats_of, created) in found.items()
        if created is not None
    ]
    return rows, {key: stats for key, (stats, _created) in found.items()}


def _named_parents(runs: Any) -> tuple[Any, Any, Any]:
    """``runs`` (overlapping runs) joined to the run each named as its parent and to the
    stored parent edge between their jobs: (from clause, the child run, the parent run).

    The stored edge is what the current graph lists: a run naming a run of its own job,
    or a parent facet whose job is not the named run's, makes none, and counts nowhere.
    """
    child = t.runs.alias("win_child_run")
    parent = t.runs.alias("win_parent_run")
    e = t.lineage_edges.alias("win_parent_edge")
    joined = (
        runs.join(child, child.c.run_id == runs.c.run_id)
        .join(parent, parent.c.run_id == child.c.parent_run_id)
        .join(
            e,
            and_(
                e.c.src_id == parent.c.job_id,
                e.c.dst_id == runs.c.job_id,
                e.c.edge_type == "parent",
            ),
        )
    )
    return joined, child, parent


@lru_cache(maxsize=1)
def _parent_statement() -> Any:
    """(parent job, child job, runs, first, last) of the window's runs that named a parent run."""
    runs = _overlapping(job_ids=True, ns_ids=False)
    joined, child, parent = _named_parents(runs)
    return (
        select(
            parent.c.job_id,
            runs.c.job_id,
            func.count(),
            func.min(child.c.first_event_us),
            func.max(runs.c.last_event_us),
        )
        .select_from(joined)
        .group_by(parent.c.job_id, runs.c.job_id)
    )


@lru_cache(maxsize=1)
def _ran_statement() -> Any:
    """The jobs of ``ids`` with a run overlapping the window."""
    return select(_overlapping(job_ids=True, ns_ids=False).c.job_id).distinct()


def parent_edges_among(
    conn: Connection, ids: set[int], window: Window
) -> tuple[list[EdgeRow], dict[tuple[int, int], EdgeStats]]:
    """The parent edges among ``ids`` the window observed, with how.

    A parent edge (parent job -> child job) is observed when a run of the
    child that overlapped the window named, in its parent facet, a run of the
    parent that the store holds; its stats count those runs of the child.
    """
    pairs: dict[tuple[int, int], EdgeStats] = {}
    ordered = sorted(ids)
    resolved = _resolved(conn, window)
    for start in range(0, len(ordered), _CHUNK):
        params = {"ids": ordered[start : start + _CHUNK], **resolved}
        for parent, child, runs, first, last in conn.execute(_parent_statement(), params):
            if int(parent) in ids:
                pairs[(int(parent), int(child))] = EdgeStats(int(runs), int(first), int(last))
    # The parent ran in the window too (as a page counts it: :func:`observed`).
    parents = sorted({parent for parent, _child in pairs})
    ran: set[int] = set()
    for start in range(0, len(parents), _CHUNK):
        params = {"ids": parents[start : start + _CHUNK], **resolved}
        ran.update(int(job) for job in conn.execute(_ran_statement(), params).scalars())
    pairs = {pair: stats for pair, stats in pairs.items() if pair[0] in ran}
    if not pairs:
        return [], {}
    ends = {job for pair in pairs for job in pair}
    rows = filtered_walk.edges_among(conn, ends, _parent, {})
    kept = [e for e in rows if (e.src_id, e.dst_id) in pairs]
    return kept, pairs


def _parent(edges: FromClause) -> ColumnElement[bool]:
    return edges.c.edge_type == "parent"


@lru_cache(maxsize=1)
def _stats_statement() -> Any:
    """(job, dataset, direction, runs, first, last, the stored edge's time) of what the
    window's runs of the jobs ``ids`` listed."""
    runs = _overlapping(job_ids=True, ns_ids=False)
    r, io = runs.c, t.run_io.c
    e = t.lineage_edges.alias("win_stats_edge")
    is_input = io.direction == "input"
    created = (
        select(e.c.created_us)
        .where(
            e.c.src_id == case((is_input, io.dataset_id), else_=r.job_id),
            e.c.dst_id == case((is_input, r.job_id), else_=io.dataset_id),
            e.c.edge_type == io.direction,
        )
        .correlate_except(e)
        .scalar_subquery()
    )
    return (
        select(
            r.job_id,
            io.dataset_id,
            io.direction,
            func.count(),
            func.min(io.first_us),
            func.max(r.last_event_us),
            created,
        )
        .select_from(runs.join(t.run_io, io.run_id == r.run_id))
        .group_by(r.job_id, io.dataset_id, io.direction)
    )


Direction = Literal["input", "output"]

_Found = dict[tuple[int, int, Direction], tuple[EdgeStats, int | None]]


def _stats(conn: Connection, ids: set[int], window: Window) -> _Found:
    """(job, dataset, direction) -> how the window's runs of the job observed that edge,
    and when its stored edge was created (None: none is stored), both ends in ``ids``."""
    ordered = sorted(ids)
    out: _Found = {}
    resolved = _resolved(conn, window)
    for start in range(0, len(ordered), _CHUNK):
        params = {"ids": ordered[start : start + _CHUNK], **resolved}
        for job, dataset, direction, runs, first, last, created in conn.execute(
            _stats_statement(), params
        ):
            if int(dataset) not in ids:
                continue
            way: Direction = "input" if direction == "input" else "output"
            stats = EdgeStats(int(runs), int(first or 0), int(last))
            out[(int(job), int(dataset), way)] = (stats, None if created is None else int(created))
    return out


def _observed(ns_ids: NsIds) -> Select[int, int, str]:
    """(job, dataset, direction) of every input and output of the window's runs, both visible."""
    runs = _overlapping(job_ids=False, ns_ids=ns_ids is not None)
    r, io, d = runs.c, t.run_io.c, t.datasets.c
    stmt = (
        select(r.job_id, io.dataset_id, io.direction)
        .select_from(
            runs.join(t.run_io, io.run_id == r.run_id).join(t.datasets, d.id == io.dataset_id)
        )
        .distinct()
    )
    if ns_ids is not None:
        stmt = stmt.where(d.ns_id.in_(_ids("ns_ids")))
    return stmt


def _params(conn: Connection, ns_ids: NsIds, window: Window) -> dict[str, Any]:
    scope = {} if ns_ids is None else {"ns_ids": sorted(ns_ids)}
    return {**_resolved(conn, window), **scope}


class Observed(NamedTuple):
    """What a window observed: the jobs that ran in it, their runs' inputs and outputs,
    and the parent edges (parent job, child job) between them its runs named."""

    jobs: frozenset[int]
    edges: frozenset[tuple[int, int, str]]  # (job, dataset, direction)
    parents: frozenset[tuple[int, int]]

    @property
    def nodes(self) -> set[int]:
        return set(self.jobs) | {dataset for _job, dataset, _way in self.edges}


def observed(conn: Connection, ns_ids: NsIds, window: Window) -> Observed:
    """The visible jobs that ran in the window, and the visible datasets their runs listed."""
    if ns_ids is not None and not ns_ids:
        return Observed(frozenset(), frozenset(), frozenset())
    jobs = select(_overlapping(job_ids=False, ns_ids=ns_ids is not None).c.job_id).distinct()
    params = _params(conn, ns_ids, window)
    found = frozenset(int(job) for job in conn.execute(jobs, params).scalars())
    edges = frozenset(
        (int(job), int(dataset), str(way))
        for job, dataset, way in conn.execute(_observed(ns_ids), params)
    )
    parents = frozenset(
        (int(parent), int(child))
        for parent, child in conn.execute(_observed_parents(ns_ids is not None), params)
        if int(parent) in found
    )
    return Observed(found, edges, parents)


@lru_cache(maxsize=2)
def _observed_parents(ns_ids: bool) -> Any:
    """(parent job, child job) of the window's runs (visible) that named a parent run."""
    runs = _overlapping(job_ids=False, ns_ids=ns_ids)
    joined, _child, parent = _named_parents(runs)
    return select(parent.c.job_id, runs.c.job_id).select_from(joined).distinct()
