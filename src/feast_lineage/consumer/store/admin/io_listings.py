"""Retention of the io listings that ``as_of`` answers from (:mod:`..read.as_of`).

A prune keeps, per job and direction, the latest listing before the cutoff
and every later one, and keeps the runs those name with their inputs and
outputs: every instant from the cutoff on is then answered exactly as if
nothing was pruned (a JobEvent's inputs and outputs stay while a listing
names it, :func:`.deletes.chunked_events`). Older listings go; an instant
before the cutoff (the versions' horizon,
:func:`..read.dataset_versions.horizon`) is refused.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Engine, FromClause, and_, delete, exists, select

from feast_lineage.consumer.store.engine.transactions import write_transaction
from feast_lineage.consumer.store.read.as_of import rank_bound
from feast_lineage.consumer.store.schema import tables as t


def _latest_before(listing: Any, cutoff_us: int) -> ColumnElement[bool]:
    """Whether ``listing`` is its job's latest of its direction before ``cutoff_us``."""
    later = t.io_listings.alias("later_listing")
    return ~exists().where(
        later.c.job_id == listing.c.job_id,
        later.c.direction == listing.c.direction,
        later.c.rank > listing.c.rank,
        later.c.rank < rank_bound(cutoff_us - 1),
    )


def listed_run_kept(runs: FromClause, cutoff_us: int) -> ColumnElement[bool]:
    """Whether a run of ``runs`` is named by a listing the prune keeps (its job's latest then)."""
    kept = t.io_listings.alias("kept_listing")
    return exists().where(
        kept.c.job_id == runs.c.job_id,
        kept.c.run_key == runs.c.run_id,
        kept.c.rank < rank_bound(cutoff_us - 1),
        _latest_before(kept, cutoff_us),
    )


def prune_listings(engine: Engine, cutoff_us: int) -> int:
    """Delete the listings before ``cutoff_us`` but each job's latest; the number deleted.

    By 500 jobs at a time, each a range of the listings' key (job, direction, rank).
    """
    lst, j = t.io_listings, t.jobs.c
    deleted, after = 0, -(2**63)
    while True:
        with write_transaction(engine) as conn:
            ids = list(
                conn.execute(select(j.id).where(j.id > after).order_by(j.id).limit(500)).scalars()
            )
            if not ids:
                return deleted
            after = ids[-1]
            for direction in ("input", "output"):
                gone = and_(
                    lst.c.job_id.in_(ids),
                    lst.c.direction == direction,
                    lst.c.rank < rank_bound(cutoff_us - 1),
                    ~_latest_before(lst, cutoff_us),
                )
                deleted += int(conn.execute(delete(lst).where(gone)).rowcount or 0)
