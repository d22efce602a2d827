"""Column lineage observed over a window of time (``since``/``until``).

A column edge is in the window [since, until) when one of its payload's
listings (``feast_lineage_column_listings``, one row per event that stated
column lineage) was stated by a run that overlapped the window, by the
rule of :mod:`.window` (started before ``until``, no end or ended at or
after ``since``), and that run listed the dataset among its outputs (as
the current rule asks the job's latest run to have): the union of the
column lineage of the window's runs. A DatasetEvent's listing (job 0, no
run) counts when its event time is in the window; a JobEvent's does not
(JobEvents are not runs: a window shows observed runs only, as the graph's
window does). The run and its output are primary key lookups.

:func:`column_edge_in_window` is the join condition of an edge with such a
listing, the counterpart of :func:`.columns_as_of.column_edge_at`; the walk
(:mod:`.column_walk`) takes either. An edge stated by several runs joins
several listings: the walk keeps each edge once. Statements read every
namespace: the service drops what the caller may not see.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from functools import lru_cache
from typing import Any

from sqlalchemy import ColumnElement, Connection, FromClause, and_, bindparam, exists, or_

from feast_lineage.consumer.store.read import window as window_reads
from feast_lineage.consumer.store.read.columns import (
    ColumnEdgeRead,
    Side,
    datasets_with_edges,
    edges_statement,
    has_edges_statement,
    read_edges,
)
from feast_lineage.consumer.store.read.common import NsIds
from feast_lineage.consumer.store.read.window import Window
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import SORT_OFFSET


def _rank_at(time_us: int) -> str:
    """The least rank of an event at ``time_us`` (ranks start with the event time)."""
    return f"{time_us + SORT_OFFSET:020d}"


def params(conn: Connection, window: Window) -> dict[str, int | str]:
    """The window statements' parameters: the runs' bounds, and the ranks of its two ends."""
    resolved: dict[str, int | str] = {**window_reads.window_params(conn, window)}
    resolved["since_rank"] = _rank_at(int(resolved["since_us"]))
    resolved["until_rank"] = _rank_at(int(resolved["until_us"]))
    return resolved


def column_edge_in_window(edges: FromClause, listings: FromClause) -> ColumnElement[bool]:
    """The join condition of a column edge with a listing of it stated in the window."""
    e, lc = edges.c, listings.c

    def by(kind: Any, name: str) -> ColumnElement[bool]:
        r = t.runs.alias(f"column_win_{name}_run")
        return exists().where(r.c.run_id == lc.run_id, kind(r)).correlate_except(r)

    io = t.run_io.alias("column_win_io")
    wrote = (
        exists()
        .where(
            io.c.run_id == lc.run_id,
            io.c.dataset_id == lc.dataset_id,
            io.c.direction == "output",
        )
        .correlate_except(io)
    )
    runless = and_(
        lc.run_id.is_(None),
        lc.job_id == 0,
        lc.rank >= bindparam("since_rank"),
        lc.rank < bindparam("until_rank"),
    )
    return and_(
        lc.dataset_id == e.dst_dataset_id,
        lc.job_id == e.job_id,
        lc.origin == e.origin,
        lc.digest == e.digest,
        or_(
            runless,
            and_(
                or_(
                    by(window_reads.overlaps_recent, "recent"),
                    by(window_reads.overlaps_open, "open"),
                ),
                wrote,
            ),
        ),
    )


@lru_cache(maxsize=8)
def _edges_statement(side: Side, by_field: bool) -> Any:
    return edges_statement(side, by_field, t.column_listings.alias("wl"), column_edge_in_window)


def column_edges_in_window(
    conn: Connection,
    side: Side,
    dataset_ids: Collection[int],
    field_ids: Collection[int] | None,
    window: Window,
) -> list[ColumnEdgeRead]:
    """Column edges into (or out of) the datasets stated in the window (an edge once a listing)."""
    stmt = _edges_statement(side, field_ids is not None)
    return read_edges(conn, stmt, dataset_ids, field_ids, params(conn, window))


@lru_cache(maxsize=4)
def _has_statement(side: Side, scoped: bool) -> Any:
    return has_edges_statement(side, scoped, t.column_listings.alias("wh"), column_edge_in_window)


def with_column_lineage_in_window(
    conn: Connection, dataset_ids: Iterable[int], ns_ids: NsIds, window: Window
) -> set[int]:
    """The datasets among ``dataset_ids`` with a column edge stated in the window."""
    return datasets_with_edges(conn, _has_statement, dataset_ids, ns_ids, params(conn, window))
