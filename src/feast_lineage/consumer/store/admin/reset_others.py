"""What a namespace reset leaves of other namespaces' datasets: as if its events never came.

A namespace's jobs write and read datasets of other namespaces, and its
events made rows of theirs that outlive its runs unless the reset tends to
them (the reset keeps those datasets: they are another namespace's):

* **The latest-write marker** (``producer_rank`` and ``producer``: whether
  a dataset was written, the graph's ``written``, who produced it) may be an
  event of the namespace. :func:`marked` finds those datasets: the marker's
  ``producer_ns_id`` names the namespace (migration 0029), or, on a row
  stored before that, the marker's rank names one of its events still
  stored. The reset runs in several transactions (its io listings, its
  events and runs in chunks, the rest), so its first notes the namespace on
  each of them (:func:`note_marked`, a fact of each) while its events are
  stored: a reset stopped between any two (a crash, a restart, an error)
  and asked again finds them still, once the events are gone. Its last
  transaction sets each from the events that remain (:func:`remark`, by
  :func:`.latest_mark.latest_mark`).
* **History rows its runs made** (:func:`forget_history`): the versions its
  runs made (writes, lifecycle changes: a row per event) and the states they
  stated first (schema, ``datasetVersion``, symlinks) go. A state row keeps
  only the earliest statement of a state, so one another namespace's run
  stated again later goes too: finding that statement would read every
  event since of every job that listed the dataset (on the 1M-event store,
  minutes for a namespace of 31,000 events), and the store has no index
  of runs by dataset (migration 0007 dropped it).

What else its events set on those datasets stays (their facets,
``created_us``, ``updated_us`` and whose event set it, ``updated_ns_id``):
a scoped caller who may not see the namespace is still shown no update time.
Run trees need nothing: a run of another namespace whose parent was one of
its runs names it in its own events, and answers as a parent that never
arrived. Edges, column and explicit lineage touching it are deleted by the
reset itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import CompoundSelect, Connection, Select, select, union

from feast_lineage.consumer.store.admin.deletes import delete_rows
from feast_lineage.consumer.store.admin.latest_mark import event_key, latest_mark
from feast_lineage.consumer.store.read.common import chunks
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.write.producer_rank import event_rank


def _reached(ns_id: int, jobs: Select[Any], owners: Select[Any]) -> CompoundSelect[Any]:
    """Other namespaces' datasets its jobs wrote or read, or its explicit lineage named."""
    e, x = t.lineage_edges.c, t.explicit_edges.c
    return union(
        select(e.dst_id).where(e.src_id.in_(jobs), e.edge_type == "output", e.dst_ns_id != ns_id),
        select(e.src_id).where(e.dst_id.in_(jobs), e.edge_type == "input", e.src_ns_id != ns_id),
        select(x.src_id).where(
            x.owner_id.in_(owners), x.src_kind == "dataset", x.src_ns_id != ns_id
        ),
        select(x.dst_id).where(
            x.owner_id.in_(owners), x.dst_kind == "dataset", x.dst_ns_id != ns_id
        ),
    )


def marked(conn: Connection, ns_id: int, jobs: Select[Any], owners: Select[Any]) -> set[int]:
    """Other namespaces' datasets whose marker is an event of namespace ``ns_id`` (its
    ``jobs``; ``owners``: its owners of explicit lineage): its ``producer_ns_id`` says so, or
    its rank names one of the namespace's events still stored."""
    d, ev = t.datasets.c, t.events.c
    reached = list(conn.execute(_reached(ns_id, jobs, owners)).scalars())
    found: set[int] = set()
    by_key: dict[str, set[int]] = {}  # one event marks all it wrote
    for chunk in chunks(reached):
        rows = conn.execute(
            select(d.id, d.producer_rank, d.producer_ns_id).where(
                d.id.in_(chunk), d.producer_rank.is_not(None)
            )
        )
        for did, mark, whose in rows:
            if whose == ns_id:
                found.add(int(did))
            else:  # null before migration 0029 (or after a reset set it again)
                by_key.setdefault(event_key(event_rank(mark)), set()).add(int(did))
    for chunk in chunks(by_key):
        stmt = select(ev.event_key).where(ev.event_key.in_(chunk), ev.ns_id == ns_id)
        for key in conn.execute(stmt).scalars():
            found.update(by_key[key])
    return found


def note_marked(conn: Connection, ns_id: int, jobs: Select[Any], owners: Select[Any]) -> None:
    """Note namespace ``ns_id`` as whose event set the marker of each dataset it :func:`marked`
    (``producer_ns_id``, true of each), while its events are stored: a reset stopped once they
    are gone finds them by it."""
    d = t.datasets
    for chunk in chunks(marked(conn, ns_id, jobs, owners)):
        conn.execute(d.update().where(d.c.id.in_(chunk)).values(producer_ns_id=ns_id))


def remark(conn: Connection, dataset_ids: Iterable[int]) -> None:
    """Set each dataset's marker from the events that remain (after the reset's deletes)."""
    d = t.datasets
    for did in sorted(set(dataset_ids)):
        mark = latest_mark(conn, did)
        conn.execute(
            d.update()
            .where(d.c.id == did)
            .values(
                producer_rank=mark.rank if mark else None,
                producer=mark.producer if mark else None,
                # whose event it is is not kept with the mark: unknown, so a scoped caller
                # sees no producer until an event sets it again (access fails closed)
                producer_ns_id=None,
            )
        )


def forget_history(conn: Connection, ns_id: int, jobs: Select[Any]) -> int:
    """Delete the versions and states its ``jobs`` made of other namespaces' datasets (before
    their edges are deleted); the number of rows."""
    e, v, s = t.lineage_edges.c, t.dataset_versions.c, t.dataset_states.c
    # A run makes versions of its outputs (writes) and of its inputs (lifecycle changes).
    touched = union(
        select(e.dst_id).where(e.src_id.in_(jobs), e.edge_type == "output", e.dst_ns_id != ns_id),
        select(e.src_id).where(e.dst_id.in_(jobs), e.edge_type == "input", e.src_ns_id != ns_id),
    )
    n = delete_rows(conn, t.dataset_versions, v.dataset_id.in_(touched), v.job_id.in_(jobs))
    return n + delete_rows(conn, t.dataset_states, s.dataset_id.in_(touched), s.job_id.in_(jobs))
