"""Administration of the store: statistics, retention pruning and reset.

Deletes run in bounded chunks (``chunk`` rows of the driving table per
transaction), each in its own write transaction, so a prune of millions of
rows never holds the store's write lock for long and ingest keeps flowing
between chunks. Every transaction that deletes bumps the store generation
first (:func:`~.meta.bump_generation`): writers drop their caches of rows
they believe stored, and on PostgreSQL the bump waits for in-flight writers,
so a facet blob is never deleted under a writer that is about to point at it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, and_, delete, exists, func, or_, select, union

from feast_lineage.consumer.store.admin import job_versions
from feast_lineage.consumer.store.engine.meta import (
    bump_generation,
    ensure_meta,
    read_meta,
    write_meta,
)
from feast_lineage.consumer.store.engine.transactions import write_transaction
from feast_lineage.consumer.store.read.common import NsIds, count, in_ids, where_all
from feast_lineage.consumer.store.read.run_facets import superseded_events
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.schema.migrations.naming import RENAMED

DEFAULT_CHUNK = 5000


# Keys of the meta table that retention keeps, shared by every process.
PRUNE_CLAIM_KEY = "prune_claimed_us"
LAST_PRUNE_KEY = "last_prune"


def claim_prune(engine: Engine, now_us: int, min_gap_us: int) -> bool:
    """Whether this process should run the scheduled prune due at ``now_us``.

    Every worker of a server (and every server on one store) runs the
    retention schedule; the first to claim it within ``min_gap_us`` prunes
    and the others skip. Claims are write transactions, so they take turns.
    """
    with write_transaction(engine) as conn:
        claimed = read_meta(conn, PRUNE_CLAIM_KEY)
        if claimed is not None and now_us - int(claimed) < min_gap_us:
            return False
        write_meta(conn, PRUNE_CLAIM_KEY, str(now_us))
        return True


def last_prune_claim(engine: Engine) -> int | None:
    """When the last scheduled prune was claimed (µs), by any process."""
    with engine.connect() as conn:
        claimed = read_meta(conn, PRUNE_CLAIM_KEY)
    return int(claimed) if claimed is not None else None


def _bump(conn: Connection) -> None:
    ensure_meta(conn)  # a store no writer has started yet has no generation row
    bump_generation(conn)


# --- statistics ---------------------------------------------------------------


@dataclass
class StoreStats:
    rows: dict[str, int]
    oldest_event_us: int | None
    newest_event_us: int | None
    oldest_run_us: int | None
    oldest_job_us: int | None = None  # the least recently updated job
    oldest_dataset_us: int | None = None


def stats(conn: Connection, ns_ids: NsIds) -> StoreStats:
    """Row counts and time bounds of what ``ns_ids`` may see."""
    e, r, j, d = t.events.c, t.runs.c, t.jobs.c, t.datasets.c
    edges, links = t.lineage_edges.c, t.dataset_symlinks.c
    owner = t.datasets.alias("owner")
    rows = {
        "events": count(conn, t.events, *where_all(in_ids(e.ns_id, ns_ids))),
        "runs": count(conn, t.runs, *where_all(in_ids(r.ns_id, ns_ids))),
        "jobs": count(conn, t.jobs, *where_all(in_ids(j.ns_id, ns_ids))),
        "datasets": count(conn, t.datasets, *where_all(in_ids(d.ns_id, ns_ids))),
        "edges": count(
            conn,
            t.lineage_edges,
            *where_all(in_ids(edges.src_ns_id, ns_ids), in_ids(edges.dst_ns_id, ns_ids)),
        ),
        "symlinks": int(
            conn.execute(
                select(func.count())
                .select_from(t.dataset_symlinks)
                .join(owner, owner.c.id == links.dataset_id)
                .where(*where_all(in_ids(owner.c.ns_id, ns_ids), in_ids(links.alias_ns_id, ns_ids)))
            ).scalar_one()
        ),
    }
    if ns_ids is None:
        rows["run_io"] = count(conn, t.run_io)
        rows["facets"] = sum(count(conn, table) for table in (t.job_facets, t.dataset_facets))
        rows["facet_blobs"] = count(conn, t.facet_blobs)
    bounds = conn.execute(
        select(func.min(e.event_time_us), func.max(e.event_time_us)).where(
            *where_all(in_ids(e.ns_id, ns_ids))
        )
    ).one()
    oldest_run = conn.execute(
        select(func.min(r.started_us)).where(*where_all(in_ids(r.ns_id, ns_ids)))
    ).scalar()
    # A job only named by a parent facet has no update time (0).
    oldest_job, oldest_dataset = (
        conn.execute(
            select(func.min(table.c.updated_us)).where(
                table.c.updated_us > 0, *where_all(in_ids(table.c.ns_id, ns_ids))
            )
        ).scalar()
        for table in (t.jobs, t.datasets)
    )
    return StoreStats(rows, bounds[0], bounds[1], oldest_run, oldest_job, oldest_dataset)


# --- deleting -----------------------------------------------------------------


# The name of each table's rows in the API: the table's name before 0008.
API_NAMES = {new: old for old, new in RENAMED.items()}
# Tables added after 0008 are named in the API without the prefix.
API_NAMES.update(
    {
        t.column_lineage.name: "column_lineage",
        t.column_edges.name: "column_edges",
        t.explicit_lineage.name: "explicit_lineage",
        t.explicit_edges.name: "explicit_edges",
        **job_versions.API_NAMES,
    }
)


@dataclass
class Removed:
    """Rows removed, by kind of row.

    The kinds are the API's names (the prune and reset answers), which are
    the tables' names before migration 0008 renamed the tables: a table is
    not an API contract.
    """

    counts: dict[str, int] = field(default_factory=dict)

    def add(self, table: str, n: int) -> None:
        if n > 0:
            self.counts[table] = self.counts.get(table, 0) + n

    def get(self, table: str) -> int:
        return self.counts.get(table, 0)


def _delete(conn: Connection, table: Any, *where: Any) -> int:
    return int(conn.execute(delete(table).where(*where)).rowcount or 0)


def _unreferenced_blobs(conn: Connection, candidates: set[str], removed: Removed) -> None:
    b = t.facet_blobs.c
    refs = [exists().where(table.c.blob_id == b.id) for table in (t.job_facets, t.dataset_facets)]
    ordered = sorted(candidates)
    for start in range(0, len(ordered), 2000):
        chunk = ordered[start : start + 2000]
        n = _delete(conn, t.facet_blobs, b.id.in_(chunk), *(~ref for ref in refs))
        removed.add("openlineage_facet_blobs", n)
        listed = t.symlink_listings.c
        used = exists().where(t.dataset_facets.c.blob_id == listed.blob_id)
        n = _delete(conn, t.symlink_listings, listed.blob_id.in_(chunk), ~used)
        removed.add("openlineage_symlink_listings", n)


def _delete_runs(conn: Connection, run_ids: list[str], removed: Removed) -> None:
    """Delete runs with their inputs/outputs."""
    removed.add("openlineage_run_io", _delete(conn, t.run_io, t.run_io.c.run_id.in_(run_ids)))
    removed.add("openlineage_runs", _delete(conn, t.runs, t.runs.c.run_id.in_(run_ids)))


def _current_io_run(r: Any) -> Any:
    """Run ``r`` is its job's latest that listed inputs or outputs (its current edges)."""
    j = t.jobs.c
    return exists().where(j.id == r.job_id, or_(j.input_run == r.run_id, j.output_run == r.run_id))


def _job_event_io(conn: Connection, rows: Sequence[Any], removed: Removed) -> None:
    """Delete the inputs/outputs of deleted JobEvents, unless their job's current ones."""
    keys = {row.event_key: row.subject_id for row in rows if row.kind == "job"}
    if not keys:
        return
    j = t.jobs.c
    current = conn.execute(
        select(j.input_run, j.output_run).where(j.id.in_(set(keys.values())))
    ).all()
    gone = set(keys) - {run for pair in current for run in pair}
    if gone:
        removed.add("openlineage_run_io", _delete(conn, t.run_io, t.run_io.c.run_id.in_(gone)))


def _chunked(
    engine: Engine,
    columns: tuple[Any, ...],
    where: Any,
    chunk: int,
    handle: Callable[[Connection, Sequence[Any]], None],
) -> None:
    """Hand the rows ``where`` selects to ``handle``, ``chunk`` rows a write transaction.

    Rows come in the order of ``columns``' first two (a unique pair), and a
    cursor past the last chunk keeps rows that ``where`` skips (those that
    are kept) from being read again by every chunk.
    """
    first, second = columns[0], columns[1]
    after: tuple[Any, Any] | None = None
    while True:
        with write_transaction(engine) as conn:
            stmt = select(*columns).where(where)
            if after is not None:
                stmt = stmt.where(or_(first > after[0], and_(first == after[0], second > after[1])))
            rows = conn.execute(stmt.order_by(first, second).limit(chunk)).all()
            if not rows:
                return
            _bump(conn)
            handle(conn, rows)
            after = (rows[-1][0], rows[-1][1])
        if len(rows) < chunk:
            return


def _chunked_events(engine: Engine, where: Any, chunk: int, removed: Removed) -> None:
    """Delete the events ``where`` selects, in (event time, id) order."""
    e = t.events.c

    def handle(conn: Connection, rows: Sequence[Any]) -> None:
        ids = [row.id for row in rows]
        removed.add("openlineage_events", _delete(conn, t.events, e.id.in_(ids)))
        _job_event_io(conn, rows, removed)

    columns = (e.event_time_us, e.id, e.event_key, e.kind, e.subject_id)
    _chunked(engine, columns, where, chunk, handle)


def _chunked_runs(engine: Engine, where: Any, chunk: int, removed: Removed) -> None:
    """Delete the runs ``where`` selects, in (start time, run id) order."""
    r = t.runs.c

    def handle(conn: Connection, rows: Sequence[Any]) -> None:
        _delete_runs(conn, [row.run_id for row in rows], removed)

    _chunked(engine, (r.started_us, r.run_id), where, chunk, handle)


def prune(engine: Engine, cutoff_us: int, *, chunk: int = DEFAULT_CHUNK) -> Removed:
    """Delete runs whose last event is older than ``cutoff_us``, and older events.

    A run goes whole: while a run is kept, its older events that still hold
    the latest value of one of its facets stay with it, because its facets
    are read from its events (:mod:`.run_facets`). The graph (jobs,
    datasets, edges, symlinks and their facets) stays, and so does each
    job's latest run that listed inputs or outputs (and a JobEvent's
    inputs and outputs that are its job's latest): they tell which of its
    edges are current.
    """
    removed = Removed()
    e, r = t.events.c, t.runs.c
    kept_run = exists().where(
        r.run_id == e.run_id, or_(r.last_event_us >= cutoff_us, _current_io_run(r))
    )
    old_events = and_(e.event_time_us < cutoff_us, or_(e.run_id.is_(None), ~kept_run))
    _chunked_events(engine, old_events, chunk, removed)
    # A run starts no later than its last event: the start-time index finds them.
    expired = and_(r.started_us < cutoff_us, r.last_event_us < cutoff_us, ~_current_io_run(r))
    _chunked_runs(engine, expired, chunk, removed)
    _thin_kept_runs(engine, cutoff_us, chunk, removed)
    job_versions.prune(engine, cutoff_us, chunk, removed.add, _bump)
    return removed


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
                _bump(conn)
                part = ids[first : first + chunk]
                removed.add("openlineage_events", _delete(conn, t.events, e.id.in_(part)))


_EVERYTHING = (
    *job_versions.TABLES,
    t.explicit_edges,
    t.explicit_lineage,
    t.column_edges,
    t.column_lineage,
    t.events,
    t.run_io,
    t.runs,
    t.lineage_edges,
    t.dataset_symlinks,
    t.symlink_listings,
    t.job_facets,
    t.dataset_facets,
    t.jobs,
    t.datasets,
    t.facet_blobs,
)


def reset_all(engine: Engine) -> Removed:
    """Delete every lineage row (the schema and the generation stay)."""
    removed = Removed()
    with write_transaction(engine) as conn:
        _bump(conn)
        for table in _EVERYTHING:
            removed.add(API_NAMES[table.name], _delete(conn, table))
    return removed


def reset_namespace(engine: Engine, ns_id: int, *, chunk: int = DEFAULT_CHUNK) -> Removed:
    """Delete a namespace and all that belongs only to it.

    Its events and its jobs' runs (in chunks), then in one transaction its
    jobs and datasets with their facets, every edge (column edge, explicit edge) touching
    them or stated by them, symlinks
    from its datasets or to its namespace, and other runs' inputs/outputs
    that name its datasets.
    """
    removed = Removed()
    _chunked_events(engine, t.events.c.ns_id == ns_id, chunk, removed)
    _chunked_runs(engine, t.runs.c.ns_id == ns_id, chunk, removed)
    j, d = t.jobs.c, t.datasets.c
    its_jobs = select(j.id).where(j.ns_id == ns_id)
    its_datasets = select(d.id).where(d.ns_id == ns_id)
    with write_transaction(engine) as conn:
        _bump(conn)
        jf, df = t.job_facets.c, t.dataset_facets.c
        blobs = set(conn.execute(select(jf.blob_id).where(jf.owner_id.in_(its_jobs))).scalars())
        blobs.update(
            conn.execute(select(df.blob_id).where(df.owner_id.in_(its_datasets))).scalars()
        )
        removed.add(
            "openlineage_job_facets", _delete(conn, t.job_facets, jf.owner_id.in_(its_jobs))
        )
        removed.add(
            "openlineage_dataset_facets",
            _delete(conn, t.dataset_facets, df.owner_id.in_(its_datasets)),
        )
        # Other runs' inputs/outputs that name its datasets, found through
        # the jobs its datasets have edges with (every stored input or output
        # has its edge): their runs, their JobEvents, and the JobEvents kept as
        # their current inputs or outputs. Then its own jobs' kept JobEvents.
        e, io, r, ev = t.lineage_edges.c, t.run_io.c, t.runs.c, t.events.c
        touching = union(
            select(e.dst_id).where(e.src_id.in_(its_datasets)),
            select(e.src_id).where(e.dst_id.in_(its_datasets)),
        )
        their_runs = union(
            select(r.run_id).where(r.job_id.in_(touching)),
            select(ev.event_key).where(ev.subject_id.in_(touching), ev.kind == "job"),
            select(j.input_run).where(j.id.in_(touching)),
            select(j.output_run).where(j.id.in_(touching)),
        )
        own_runs = union(
            select(j.input_run).where(j.ns_id == ns_id),
            select(j.output_run).where(j.ns_id == ns_id),
        )
        for where in (
            and_(io.run_id.in_(their_runs), io.dataset_id.in_(its_datasets)),
            io.run_id.in_(own_runs),
        ):
            removed.add("openlineage_run_io", _delete(conn, t.run_io, where))
        removed.add(
            "openlineage_lineage_edges",
            _delete(conn, t.lineage_edges, or_(e.src_ns_id == ns_id, e.dst_ns_id == ns_id)),
        )
        # Column edges into or out of its datasets, or stated by its jobs
        # (found through their pointers), then those pointers.
        ce, cl = t.column_edges.c, t.column_lineage.c
        written_by_its_jobs = select(cl.dataset_id).where(cl.job_id.in_(its_jobs))
        for where in (
            ce.dst_dataset_id.in_(its_datasets),
            ce.src_ns_id == ns_id,
            and_(ce.dst_dataset_id.in_(written_by_its_jobs), ce.job_id.in_(its_jobs)),
        ):
            removed.add("column_edges", _delete(conn, t.column_edges, where))
        for where in (cl.dataset_id.in_(its_datasets), cl.job_id.in_(its_jobs)):
            removed.add("column_lineage", _delete(conn, t.column_lineage, where))
        # Explicit edges touching it or stated by its jobs and datasets, then their pointers.
        xe, xl = t.explicit_edges.c, t.explicit_lineage.c
        its_owners = select(xl.owner_id).where(xl.ns_id == ns_id)
        for where in (
            or_(xe.src_ns_id == ns_id, xe.dst_ns_id == ns_id),
            xe.owner_id.in_(its_owners),
        ):
            removed.add("explicit_edges", _delete(conn, t.explicit_edges, where))
        removed.add("explicit_lineage", _delete(conn, t.explicit_lineage, xl.ns_id == ns_id))
        s = t.dataset_symlinks.c
        removed.add(
            "openlineage_dataset_symlinks",
            _delete(
                conn,
                t.dataset_symlinks,
                or_(s.alias_ns_id == ns_id, s.dataset_id.in_(its_datasets)),
            ),
        )
        job_versions.reset_namespace(conn, ns_id, its_jobs, removed.add)
        removed.add("openlineage_jobs", _delete(conn, t.jobs, j.ns_id == ns_id))
        removed.add("openlineage_datasets", _delete(conn, t.datasets, d.ns_id == ns_id))
        _unreferenced_blobs(conn, blobs, removed)
    return removed
