"""Explicit lineage as it stood at an instant (``as_of``), and as stated over a window.

Every event that carries an explicit lineage facet states its payload anew
(``feast_lineage_explicit_statements``, one row per (owner, facet, origin)
and event rank, naming the payload's digest). An explicit edge was current
at ``T`` when the statement of its (owner, facet, origin) ranked last at or
before ``T`` names its payload: a correlated backward seek of the
statements' primary key, ``LIMIT 1``, then a comparison of the digest. A
payload stated, replaced and stated again (A, B, A) is told apart by its
statements' ranks, whatever the order the events arrived in.

A window [since, until) keeps the edges of the payloads stated in it: a
statement of the edge's (owner, facet, origin) and digest whose rank falls
in the window (a range of the same key). Both predicates take the
parameters of :func:`explicit_params`; the reads of :mod:`.explicit` apply
them.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, FromClause, bindparam, exists, select

from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import SORT_OFFSET

# The times of a window without a bound (as :mod:`.window`'s).
_EARLIEST = -(2**62)
_LATEST = 2**62


def explicit_at(edges: FromClause) -> ColumnElement[bool]:
    """Whether an edge of ``edges`` (the explicit edges table or an alias) was current at T.

    T is given by ``as_of_rank`` (:meth:`.as_of.Instant.params`).
    """
    e = edges.c
    st = t.explicit_statements.alias("explicit_stated")
    latest = (
        select(st.c.digest)
        .where(
            st.c.owner_id == e.owner_id,
            st.c.facet == e.facet,
            st.c.origin == e.origin,
            st.c.rank < bindparam("as_of_rank"),
        )
        .order_by(st.c.rank.desc())
        .limit(1)
        .correlate_except(st)
        .scalar_subquery()
    )
    return latest == e.digest


def explicit_in_window(edges: FromClause) -> ColumnElement[bool]:
    """Whether an edge of ``edges`` belongs to a payload stated in the window.

    The window is given by ``x_since_rank`` and ``x_until_rank``
    (:func:`explicit_params`).
    """
    e = edges.c
    st = t.explicit_statements.alias("explicit_in_window")
    return (
        exists()
        .where(
            st.c.owner_id == e.owner_id,
            st.c.facet == e.facet,
            st.c.origin == e.origin,
            st.c.rank >= bindparam("x_since_rank"),
            st.c.rank < bindparam("x_until_rank"),
            st.c.digest == e.digest,
        )
        .correlate_except(st)
    )


def _least_rank(time_us: int) -> str:
    """The least rank of an event at ``time_us`` or later (ranks start with the event time)."""
    return f"{time_us + SORT_OFFSET:020d}"


def explicit_params(since_us: int | None, until_us: int | None) -> dict[str, str]:
    """:func:`explicit_in_window`'s parameters for the window [since_us, until_us)."""
    since = _EARLIEST if since_us is None else since_us
    until = _LATEST if until_us is None else until_us
    return {"x_since_rank": _least_rank(since), "x_until_rank": _least_rank(until)}
