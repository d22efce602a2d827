"""Retention pruning: old runs and events go, in chunks; the current graph stays."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, and_, exists, or_, select

from feast_lineage.consumer.store.admin import deletes, job_versions
from feast_lineage.consumer.store.admin.dataset_versions import prune_versions, raise_horizon
from feast_lineage.consumer.store.admin.deletes import DEFAULT_CHUNK, Removed
from feast_lineage.consumer.store.admin.io_listings import listed_run_kept, prune_listings
from feast_lineage.consumer.store.engine.transactions import write_transaction
from feast_lineage.consumer.store.read.run_facets import superseded_events
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.write.run_durations import recompute_run_bounds


def _current_io_run(r: Any) -> Any:
    """Run ``r`` is its job's latest that listed inputs or outputs (its current edges)."""
    j = t.jobs.c
    return exists().where(j.id == r.job_id, or_(j.input_run == r.run_id, j.output_run == r.run_id))


def _latest_started_run(r: Any, cutoff_us: int) -> ColumnElement[bool]:
    """Run ``r`` is its job's run started last (ties: highest id) of those ended by the cutoff.

    Whatever it listed: for an instant from the cutoff on, a job's latest run
    then (:func:`..read.catalog_as_of.latest_runs_at`) is this one or a run
    whose last event is at or after the cutoff, both kept.
    """
    later = t.runs.alias("later_run")
    return ~exists().where(
        later.c.job_id == r.job_id,
        later.c.last_event_us < cutoff_us,
        or_(
            later.c.started_us > r.started_us,
            and_(later.c.started_us == r.started_us, later.c.run_id > r.run_id),
        ),
    )


def prune(engine: Engine, cutoff_us: int, *, chunk: int = DEFAULT_CHUNK) -> Removed:
    """Delete runs whose last event is older than ``cutoff_us``, and older events.

    A run goes whole: while a run is kept, its older events that still hold
    the latest value of one of its facets stay with it, because its facets
    are read from its events (:mod:`.run_facets`). The graph (jobs,
    datasets, edges, symlinks and their facets) stays, and so does each
    job's latest run that listed inputs or outputs (and a JobEvent's
    inputs and outputs that are its job's latest): they tell which of its
    edges are current; its latest listings before the cutoff, with which
    ``as_of`` answers every instant from the cutoff on (:mod:`.io_listings`);
    and its run started last before the cutoff, whatever it listed: its
    latest run at any instant from the cutoff on, until another starts.

    The cutoff becomes the retention horizon (the oldest instant answered)
    only when the prune may remove history: when an event older than it is
    stored (raised first), or when it removed anything after all.
    """
    removed = Removed()
    with write_transaction(engine) as conn:  # first: no answer reads below it from now on
        raised = _history_before(conn, cutoff_us)
        if raised:
            raise_horizon(conn, cutoff_us)
    e, r = t.events.c, t.runs.c
    runs = t.runs
    kept_run = exists().where(
        r.run_id == e.run_id,
        or_(
            r.last_event_us >= cutoff_us,
            _current_io_run(r),
            listed_run_kept(runs, cutoff_us),
            _latest_started_run(r, cutoff_us),
        ),
    )
    # Listings first: the JobEvents whose inputs and outputs a kept listing
    # names keep them (:func:`.deletes.chunked_events`).
    removed.add("io_listings", prune_listings(engine, cutoff_us))
    old_events = and_(e.event_time_us < cutoff_us, or_(e.run_id.is_(None), ~kept_run))
    deletes.chunked_events(engine, old_events, chunk, removed)
    # A run starts no later than its last event: the start-time index finds them.
    expired = and_(
        r.started_us < cutoff_us,
        r.last_event_us < cutoff_us,
        ~_current_io_run(r),
        ~listed_run_kept(runs, cutoff_us),
        ~_latest_started_run(r, cutoff_us),
    )
    deletes.chunked_runs(engine, expired, chunk, removed)
    _thin_kept_runs(engine, cutoff_us, chunk, removed)
    removed.add("dataset_versions", prune_versions(engine, cutoff_us, chunk=chunk))
    job_versions.prune(engine, cutoff_us, chunk, removed.add, deletes.bump)
    with write_transaction(engine) as conn:  # the run bounds of the runs kept
        deletes.bump(conn)
        recompute_run_bounds(conn)
        if not raised and any(removed.counts.values()):
            # An event older than the cutoff came while the prune ran, and went.
            raise_horizon(conn, cutoff_us)
    return removed


def _history_before(conn: Connection, cutoff_us: int) -> bool:
    """Whether any event is older than the cutoff: only then may a prune remove history.

    Every row of history (runs, versions, listings, statements) has the time
    of an event that made it, so on a store whose events are all at or after
    the cutoff (a young store's first scheduled prune) nothing can go, and the
    horizon stays where it was: every instant is still answered.
    """
    e = t.events.c
    return (
        conn.execute(select(e.id).where(e.event_time_us < cutoff_us).limit(1)).first() is not None
    )


def _thin_kept_runs(engine: Engine, cutoff_us: int, chunk: int, removed: Removed) -> None:
    """Delete the older events of kept runs that reading the run no longer needs.

    A run that goes on for months (a streaming job reporting RUNNING every
    minute) keeps only the older events that still hold the latest value of
    one of its facets; the others go like any expired event.
    """
    e = t.events.c
    with engine.connect() as conn:
        stmt = select(e.run_id).where(e.event_time_us < cutoff_us, e.run_id.is_not(None))
        run_ids = sorted(conn.execute(stmt.distinct()).scalars())
    for start in range(0, len(run_ids), 100):
        with engine.connect() as conn:
            ids = superseded_events(conn, run_ids[start : start + 100], cutoff_us)
        for first in range(0, len(ids), chunk):
            with write_transaction(engine) as conn:
                deletes.bump(conn)
                part = ids[first : first + chunk]
                removed.add(
                    "openlineage_events", deletes.delete_rows(conn, t.events, e.id.in_(part))
                )
