"""What the events stored since an assessment touched: the nodes whose health inputs changed.

A kept assessment (``services/health_cache``) is brought up to date from
the events stored after it (the events table's ids only grow between two
store generations) rather than read again whole: the jobs and datasets
those events name, the datasets their runs listed, and the ends of the
explicit edges they own. Everything here is an index range or a primary
key lookup.

Ids are handed out before a transaction commits, so on PostgreSQL and
MariaDB an event can become visible after one with a higher id. The ids
missing below the highest one read (within :data:`WINDOW` of it) are
therefore kept as *gaps* and read again the next time: a late commit is
seen then. A gap from a rolled-back transaction (or a duplicate that took
a sequence value) stays a gap until it falls out of the window.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import Connection, select, union_all

from feast_lineage.consumer.store.read.common import chunks
from feast_lineage.consumer.store.schema import tables as t

WINDOW = 10_000  # ids below the highest read whose absence is kept as a gap


@dataclass(frozen=True, slots=True)
class Seen:
    """The events an assessment has read: every id up to ``high`` but the ``gaps``."""

    high: int
    gaps: frozenset[int]


@dataclass(frozen=True, slots=True)
class Touched:
    """What the events after a :class:`Seen` name, and what has been read once they are."""

    jobs: frozenset[int]
    datasets: frozenset[int]
    seen: Seen


def _gaps(present: Collection[int], low: int, high: int) -> frozenset[int]:
    """The ids in (``low``, ``high``] not in ``present``, within :data:`WINDOW` of ``high``."""
    start = max(low, high - WINDOW)
    return frozenset(i for i in range(start + 1, high + 1) if i not in present)


def seen_now(conn: Connection, high: int) -> Seen:
    """What a whole read at store marker ``high`` has seen: every id up to ``high`` present
    now (the missing ones near it, above the lowest present, may be transactions still to
    commit; below it, ids a reset or prune removed)."""
    e = t.events.c
    start = max(0, high - WINDOW)
    present = set(conn.scalars(select(e.id).where(e.id > start, e.id <= high)).all())
    return Seen(high, _gaps(present, min(present, default=high + 1) - 1, high))


def touched_since(conn: Connection, seen: Seen) -> Touched:
    """The jobs and datasets the events not yet ``seen`` name (their subjects, the datasets
    their runs or job events listed, the jobs' parent and root jobs, the ends of the
    explicit edges their nodes own)."""
    e = t.events.c
    low = min(seen.gaps, default=seen.high + 1) - 1
    rows = conn.execute(
        select(e.id, e.kind, e.subject_id, e.run_id, e.event_key).where(e.id > low)
    ).all()
    jobs: set[int] = set()
    datasets: set[int] = set()
    keys: set[str] = set()
    present: set[int] = set()
    high = seen.high
    for row_id, kind, subject, run_id, event_key in rows:
        row_id = int(row_id)
        present.add(row_id)
        high = max(high, row_id)
        if row_id <= seen.high and row_id not in seen.gaps:
            continue  # read before
        (datasets if kind == "dataset" else jobs).add(int(subject))
        keys.add(run_id if run_id is not None else event_key)
    io = t.run_io.c
    for chunk in chunks(keys):
        datasets.update(
            int(d) for d in conn.scalars(select(io.dataset_id).where(io.run_id.in_(chunk))).all()
        )
    jobs |= _parents(conn, jobs)  # a parent or root job a run names is a node from then on
    ends = explicit_ends(conn, jobs | datasets)
    gaps = {g for g in seen.gaps if g not in present} | _gaps(present, seen.high, high)
    kept = frozenset(g for g in gaps if g > high - WINDOW)
    return Touched(
        jobs=frozenset(jobs | {n for n, kind in ends if kind == "job"}),
        datasets=frozenset(datasets | {n for n, kind in ends if kind != "job"}),
        seen=Seen(high, kept),
    )


def _parents(conn: Connection, jobs: Collection[int]) -> set[int]:
    """The parent and root jobs of ``jobs`` (their edges to them; a root edge is no step)."""
    e = t.lineage_edges.c
    out: set[int] = set()
    for chunk in chunks(jobs):
        stmt = select(e.src_id).where(e.dst_id.in_(chunk), e.edge_type.in_(("parent", "root")))
        out.update(int(n) for n in conn.scalars(stmt).all())
    return out


def explicit_ends(conn: Connection, owners: Collection[int]) -> set[tuple[int, str]]:
    """(node, kind) at either end of an explicit edge ``owners`` stated, in any report
    (edges of earlier reports stay stored: they are the ones a new report may end)."""
    x = t.explicit_edges.c
    out: set[tuple[int, str]] = set()
    for chunk in chunks(owners):
        stmt = union_all(
            select(x.src_id, x.src_kind).where(x.owner_id.in_(chunk)),
            select(x.dst_id, x.dst_kind).where(x.owner_id.in_(chunk)),
        )
        out.update((int(n), str(kind)) for n, kind in conn.execute(stmt).all())
    return out


__all__ = ["WINDOW", "Seen", "Touched", "explicit_ends", "seen_now", "touched_since"]
