"""Symlinks as they stood at an instant (``as_of``).

A dataset's symlinks facet is stated anew by every event that carries it
(``feast_lineage_symlink_statements``, one row per event and dataset, by
the event's rank): the aliases it had at ``T`` are those its last
statement ranked at or before ``T`` lists (``symlink_listings``), by the
rule of :func:`.aliases.current_symlink` on that statement: a payload whose
aliases were not recorded (stored before migration 0005) keeps every link
stored by then. A dataset with no statement by ``T`` had no symlinks then.
A dataSource link (equal URIs) counts from its time (when both datasets had
named the URI, as the batch that made it shows: :mod:`..write.uri_links`)
while the URIs are equal now: the store keeps no history of a dataset's URI
(docs/performance.md). One backward seek of the statements' key and a
primary key lookup of the listing a link.

A window follows the symlinks stated before its end
(:func:`.window.symlinks_instant`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    FromClause,
    and_,
    bindparam,
    case,
    exists,
    or_,
    select,
)

from feast_lineage.consumer.store.read.aliases import same_uri
from feast_lineage.consumer.store.schema import tables as t


def _as_of_us() -> Any:
    return bindparam("as_of_us", type_=BigInteger)


def symlink_at(links: FromClause) -> ColumnElement[bool]:
    """Whether a symlink of ``links`` (the symlinks table or an alias) was current at ``as_of``.

    The dataset's latest statement by then is read once (one correlated
    subquery whose listing lookups answer for it): it lists the alias, or
    its aliases were not recorded and the link was stored by then.
    """
    s = links.c
    st = t.symlink_statements.alias("link_stated")
    listed = t.symlink_listings.alias("link_listed_at")
    marked = t.symlink_listings.alias("link_marked_at")
    lists_it = (
        exists()
        .where(listed.c.blob_id == st.c.blob_id, listed.c.alias_id == s.alias_id)
        .correlate_except(listed)
    )
    recorded = (
        exists()
        .where(marked.c.blob_id == st.c.blob_id, marked.c.alias_id == t.LISTED)
        .correlate_except(marked)
    )
    unrecorded = and_(~recorded, s.created_us <= _as_of_us())
    latest_keeps = (
        select(case((or_(lists_it, unrecorded), 1), else_=0))
        .where(st.c.dataset_id == s.dataset_id, st.c.rank < bindparam("as_of_rank"))
        .order_by(st.c.rank.desc())
        .limit(1)
        .correlate_except(st)
        .scalar_subquery()
    )
    return case(
        (s.source == "datasource", and_(same_uri(links), s.created_us <= _as_of_us())),
        else_=latest_keeps == 1,
    )
