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
    or_,
    select,
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


def _latest(table: Any, keys: list[tuple[str, Any]], name: str, picked: str) -> Any:
    """``picked`` of the last row of ``table`` (an alias ``name``) by rank before ``as_of_rank``.

    ``keys`` pairs the table's key columns (by name) with the values they
    must equal: a correlated backward seek of the primary key, one row.
    """
    a = table.alias(name)
    return (
        select(a.c[picked])
        .where(*(a.c[k] == v for k, v in keys), a.c.rank < _rank())
        .order_by(a.c.rank.desc())
        .limit(1)
        .correlate_except(a)
        .scalar_subquery()
    )


def column_edge_at(edges: FromClause, listings: FromClause) -> ColumnElement[bool]:
    """The join condition of a column edge with its listing, when the edge is current at T.

    The listing is the latest of the edge's (output, job, origin) ranked
    before T, found by one backward seek of the listings' primary key, and
    must name the edge's payload; the job's latest output listing by then
    (another backward seek) must have listed the output by T.

    The seek is compared with ``>=`` (and ``< T``), not ``==``: MariaDB turns
    an EXISTS into an IN and refuses a subquery in the IN's left side, where
    an equality with an outer row would go.
    """
    e, lc = edges.c, listings.c
    key = [("dataset_id", e.dst_dataset_id), ("job_id", e.job_id), ("origin", e.origin)]
    return and_(
        lc.dataset_id == e.dst_dataset_id,
        lc.job_id == e.job_id,
        lc.origin == e.origin,
        lc.rank >= _latest(t.column_listings, key, "latest_column_listing", "rank"),
        lc.rank < _rank(),
        lc.digest == e.digest,
        _still_written_at(edges),
    )


def _still_written_at(edges: FromClause) -> ColumnElement[bool]:
    """Whether the job had no output listing by T, or its latest one had listed the edge's output.

    The latest listing is the one at or after the backward seek's rank (see
    :func:`column_edge_at` on ``>=``); a primary-key lookup of its run's
    output then.
    """
    e = edges.c
    keys = [("job_id", e.job_id), ("direction", "output")]
    any_listing = t.io_listings.alias("column_any_out")
    listed = (
        exists()
        .where(
            any_listing.c.job_id == e.job_id,
            any_listing.c.direction == "output",
            any_listing.c.rank < _rank(),
        )
        .correlate_except(any_listing)
    )
    lst = t.io_listings.alias("column_out_listing")
    io = t.run_io.alias("column_out_io")
    wrote = (
        exists()
        .where(
            lst.c.job_id == e.job_id,
            lst.c.direction == "output",
            lst.c.rank >= _latest(t.io_listings, keys, "column_latest_out", "rank"),
            lst.c.rank < _rank(),
            io.c.run_id == lst.c.run_key,
            io.c.dataset_id == e.dst_dataset_id,
            io.c.direction == "output",
            io.c.first_us <= bindparam("as_of_us", type_=BigInteger),
        )
        .correlate_except(lst, io)
    )
    return or_(~listed, wrote)


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


def _last_schema(table: Any, column: str) -> Any:
    """``column`` of a dataset's last row of ``table`` by then that named a schema.

    A backward seek of the version rows' primary key (dataset, time, id),
    and of the state rows' ``(dataset_id, time_us)`` index (migration 0023;
    before it, a scan of the dataset's state rows in the database).
    """
    v = table.alias(f"schema_{table.name[14:]}_{column}")
    return (
        select(v.c[column])
        .where(
            v.c.dataset_id == t.datasets.c.id,
            v.c.time_us <= bindparam("as_of_us", type_=BigInteger),
            v.c.schema_id.is_not(None),
        )
        .order_by(v.c.time_us.desc(), v.c.id.desc())
        .limit(1)
        .correlate(t.datasets)
        .scalar_subquery()
    )


@lru_cache(maxsize=1)
def _schema_statement() -> Any:
    columns = ("time_us", "id", "schema_id")
    return select(
        t.datasets.c.id,
        *(_last_schema(t.dataset_versions, c) for c in columns),
        *(_last_schema(t.dataset_states, c) for c in columns),
    ).where(t.datasets.c.id.in_(bindparam("datasets", expanding=True)))


def schema_ids_at(conn: Connection, dataset_ids: Iterable[int], at: Instant) -> dict[int, str]:
    """Dataset id -> the schema blob of its version current at ``at`` (datasets with one).

    That version's schema is the last schema the dataset's rows at or
    before ``at`` name, in (time, id) order over what events made
    (``dataset_versions``) and stated (``dataset_states``): the rules of
    :func:`.dataset_versions.current_at` carry a schema forward and count
    another one as a change. So one row per dataset, the last of each
    table's, not a walk of every version until then.
    """
    stmt = _schema_statement()
    ordered = sorted(set(dataset_ids))
    out: dict[int, str] = {}
    for start in range(0, len(ordered), _CHUNK):
        params = {"datasets": ordered[start : start + _CHUNK], "as_of_us": at.time_us}
        for owner, *last in conn.execute(stmt, params):
            made, stated = last[:3], last[3:]
            found = [row for row in (made, stated) if row[2] is not None]
            if found:
                out[int(owner)] = str(max(found, key=lambda r: (int(r[0]), int(r[1])))[2])
    return out
