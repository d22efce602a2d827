"""Whether a dataset had been written by an instant (``as_of``).

A dataset is written (:func:`.common.written`) when some event listed it as
an output (a RunEvent of any type, or a JobEvent) or declared it (a
DatasetEvent). At ``T`` it had been when one of those events is at or
before ``T``: what a store fed only the events up to ``T`` says. Three
things the store keeps tell it, whatever order the events arrived in:

* the rank of the dataset's latest write (``producer_rank``): a dataset
  whose latest write is by ``T`` had been written then (no seek: the row
  is read anyway);
* each output edge (job -> dataset), from the earliest event that listed
  it (``feast_lineage_edges.created_us``, a minimum; retention keeps the
  graph): the edges into a dataset are its outputs only (an input edge
  runs from the dataset to its job, parent and root edges join jobs), one
  seek of the edges' ``dst_id`` index and a row lookup per job writing it;
* its DatasetEvents (``subject_id`` is the dataset's id): one seek of
  ``ix_ol_events_subject_time`` up to ``T``.

A dataset not written now never was. One case reads as not written though
it was: a dataset declared before the retention horizon by DatasetEvents
only (a prune deleted them) and written again after ``T``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Connection,
    FromClause,
    Select,
    String,
    and_,
    bindparam,
    exists,
    literal,
    or_,
    select,
)

from feast_lineage.consumer.store.read.common import written
from feast_lineage.consumer.store.schema import tables as t

_CHUNK = 2000
# What a write's producer rank starts with (store/write/producer_rank.py), then the event's rank.
_WRITE = "1"


def _as_of_us() -> Any:
    return bindparam("as_of_us", type_=BigInteger)


def written_at(datasets: FromClause) -> ColumnElement[bool]:
    """Whether a dataset of ``datasets`` (the table or an alias) had been written or
    declared at ``as_of_us`` (``as_of_rank``: the least rank of a later event)."""
    d = datasets.c
    edge, event = t.lineage_edges.alias("written_edge"), t.events.alias("written_event")
    latest_by_then = d.producer_rank < literal(_WRITE, String).concat(
        bindparam("as_of_rank", type_=String)
    )
    # No test of edge_type: every edge into a dataset is an output, and SQLite would seek
    # (edge_type, created_us) instead, every output edge up to T.
    output_by_then = (
        exists()
        .where(edge.c.dst_id == d.id, edge.c.created_us <= _as_of_us())
        .correlate_except(edge)
    )
    declared_by_then = (
        exists()
        .where(
            event.c.subject_id == d.id,
            event.c.event_time_us <= _as_of_us(),
            event.c.kind == "dataset",
        )
        .correlate_except(event)
    )
    return and_(written(datasets), or_(latest_by_then, output_by_then, declared_by_then))


@lru_cache(maxsize=1)
def _among_statement() -> Select[int]:
    d = t.datasets.c
    stmt: Select[int] = select(d.id).where(
        d.id.in_(bindparam("ids", expanding=True)), written_at(t.datasets)
    )
    return stmt


def written_among(conn: Connection, ids: Iterable[int], params: Mapping[str, object]) -> set[int]:
    """The datasets of ``ids`` written by the instant of ``params`` (``Instant.params()``).

    One statement per 2,000 datasets; give it those written now (the others never were).
    """
    wanted = sorted(set(ids))
    out: set[int] = set()
    for start in range(0, len(wanted), _CHUNK):
        chunk = {"ids": wanted[start : start + _CHUNK], **params}
        out.update(int(i) for i in conn.execute(_among_statement(), chunk).scalars())
    return out
