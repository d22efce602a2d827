"""Column lineage as it stood at an instant (``as_of``).

A column edge is current at ``T`` when its payload is the one the latest
listing of its (output dataset, job, origin) at or before ``T`` names
(``feast_lineage_column_listings``, one row per event that stated column
lineage, keyed by the event's rank), and the job still wrote the dataset
then: the run of the job's latest event at or before ``T`` that listed
outputs had listed the dataset by ``T`` (``io_listings``, ``run_io.first_us``,
as :func:`.as_of.edge_at`). A DatasetEvent's edges (job 0) and a job's with
no output listing by then are current while their listing names them.

:func:`column_edge_at` is the join condition of an edge with its listing,
the counterpart of :func:`.columns.current_column_edge` with the pointers;
the walk (:mod:`.column_walk`) takes either. Statements read every
namespace: the service drops what the caller may not see.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Connection,
    FromClause,
    and_,
    bindparam,
    exists,
)

from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.columns import (
    ColumnEdgeRead,
    Side,
    datasets_with_edges,
    edges_statement,
    has_edges_statement,
    read_edges,
)
from feast_lineage.consumer.store.read.common import NsIds
from feast_lineage.consumer.store.schema import tables as t

_CHUNK = 2000


def _rank() -> Any:
    return bindparam("as_of_rank")


def column_edge_at(edges: FromClause, listings: FromClause) -> ColumnElement[bool]:
    """The join condition of a column edge with its listing, when the edge is current at T.

    "The latest listing at or before T" is stated as "no later one before T"
    and the job's latest output listing likewise: comparisons of columns only,
    since MariaDB refuses a scalar subquery where it flattens an EXISTS.
    """
    e, lc = edges.c, listings.c
    later = t.column_listings.alias("later_column_listing")
    superseded = (
        exists()
        .where(
            later.c.dataset_id == lc.dataset_id,
            later.c.job_id == lc.job_id,
            later.c.origin == lc.origin,
            later.c.rank > lc.rank,
            later.c.rank < _rank(),
        )
        .correlate_except(later)
    )
    return and_(
        lc.dataset_id == e.dst_dataset_id,
        lc.job_id == e.job_id,
        lc.origin == e.origin,
        lc.digest == e.digest,
        lc.rank < _rank(),
        ~superseded,
        ~_stopped_at(edges),
    )


def _stopped_at(edges: FromClause) -> ColumnElement[bool]:
    """Whether the job's latest output listing at T had not listed the edge's output by then."""
    e = edges.c
    lst = t.io_listings.alias("column_out_listing")
    later = t.io_listings.alias("column_later_out")
    io = t.run_io.alias("column_out_io")
    superseded = (
        exists()
        .where(
            later.c.job_id == lst.c.job_id,
            later.c.direction == "output",
            later.c.rank > lst.c.rank,
            later.c.rank < _rank(),
        )
        .correlate_except(later)
    )
    wrote = (
        exists()
        .where(
            io.c.run_id == lst.c.run_key,
            io.c.dataset_id == e.dst_dataset_id,
            io.c.direction == "output",
            io.c.first_us <= bindparam("as_of_us", type_=BigInteger),
        )
        .correlate_except(io)
    )
    return (
        exists()
        .where(
            lst.c.job_id == e.job_id,
            lst.c.direction == "output",
            lst.c.rank < _rank(),
            ~superseded,
            ~wrote,
        )
        .correlate_except(lst)
    )


@lru_cache(maxsize=8)
def _edges_statement(side: Side, by_field: bool) -> Any:
    return edges_statement(side, by_field, t.column_listings.alias("cl"), column_edge_at)


def column_edges_at(
    conn: Connection,
    side: Side,
    dataset_ids: Collection[int],
    field_ids: Collection[int] | None,
    at: Instant,
) -> list[ColumnEdgeRead]:
    """Column edges current at ``at`` into (or out of) the datasets, of the given fields if any.

    The result holds every pair of the two lists; the caller keeps the pairs it means.
    """
    stmt = _edges_statement(side, field_ids is not None)
    return read_edges(conn, stmt, dataset_ids, field_ids, at.params())


@lru_cache(maxsize=4)
def _has_statement(side: Side, scoped: bool) -> Any:
    return has_edges_statement(side, scoped, t.column_listings.alias("hl"), column_edge_at)


def with_column_lineage_at(
    conn: Connection, dataset_ids: Iterable[int], ns_ids: NsIds, at: Instant
) -> set[int]:
    """The datasets among ``dataset_ids`` with a column edge current at ``at``, its far end seen."""
    return datasets_with_edges(conn, _has_statement, dataset_ids, ns_ids, at.params())
