"""Reset: every lineage row, or one namespace and all that belongs only to it."""

from __future__ import annotations

from sqlalchemy import Connection, Engine, and_, exists, or_, select, union

from feast_lineage.consumer.store.admin import job_versions, reset_others
from feast_lineage.consumer.store.admin.dataset_versions import VERSIONED_FACETS
from feast_lineage.consumer.store.admin.deletes import (
    API_NAMES,
    DEFAULT_CHUNK,
    Removed,
    bump,
    chunked_events,
    chunked_runs,
    delete_rows,
)
from feast_lineage.consumer.store.engine.transactions import write_transaction
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.write.run_durations import recompute_run_bounds

_EVERYTHING = (
    *job_versions.TABLES,
    t.dataset_versions,
    t.dataset_states,
    t.explicit_edges,
    t.explicit_statements,
    t.explicit_lineage,
    t.column_edges,
    t.column_lineage,
    t.column_listings,
    t.events,
    t.io_listings,
    t.run_io,
    t.runs,
    t.lineage_edges,
    t.dataset_symlinks,
    t.symlink_statements,
    t.symlink_listings,
    t.job_facets,
    t.dataset_facets,
    t.dataset_facet_values,
    t.jobs,
    t.datasets,
    t.facet_blobs,
)


def reset_all(engine: Engine) -> Removed:
    """Delete every lineage row (the schema and the generation stay)."""
    removed = Removed()
    with write_transaction(engine) as conn:
        bump(conn)
        for table in _EVERYTHING:
            removed.add(API_NAMES[table.name], delete_rows(conn, table))
        recompute_run_bounds(conn)
    return removed


def namespace_stored(engine: Engine, ns_id: int) -> bool:
    """Whether anything of namespace ``ns_id`` is stored (an event, run, job, dataset or alias)."""
    probes = [
        select(t.events.c.id).where(t.events.c.ns_id == ns_id),
        select(t.runs.c.run_id).where(t.runs.c.ns_id == ns_id),
        select(t.jobs.c.id).where(t.jobs.c.ns_id == ns_id),
        select(t.datasets.c.id).where(t.datasets.c.ns_id == ns_id),
        select(t.dataset_symlinks.c.dataset_id).where(t.dataset_symlinks.c.alias_ns_id == ns_id),
    ]
    with engine.connect() as conn:
        return any(conn.execute(probe.limit(1)).first() is not None for probe in probes)


def reset_namespace(engine: Engine, ns_id: int, *, chunk: int = DEFAULT_CHUNK) -> Removed:
    """Delete a namespace and all that belongs only to it.

    Its events and its jobs' runs (in chunks), then in one transaction its
    jobs and datasets with their facets, every edge (column edge, explicit
    edge) touching them or stated by them, symlinks from its datasets or to
    its namespace, and other runs' inputs/outputs that name its datasets.
    Other namespaces' datasets it wrote or read are left as if its events
    never came (:mod:`.reset_others`), in that same transaction. Stopped
    between any two transactions and asked again, it finishes the same.
    """
    removed = Removed()
    its = _Namespace(ns_id)
    with write_transaction(engine) as conn:  # first: JobEvents' io outlives no listing
        bump(conn)
        # While its events are stored: whose latest-write marker is one of them, noted on each.
        reset_others.note_marked(conn, ns_id, its.jobs, its.owners)
        lst = t.io_listings
        removed.add("io_listings", delete_rows(conn, lst, lst.c.job_id.in_(its.jobs)))
    chunked_events(engine, t.events.c.ns_id == ns_id, chunk, removed)
    chunked_runs(engine, t.runs.c.ns_id == ns_id, chunk, removed)
    with write_transaction(engine) as conn:
        bump(conn)
        marked = reset_others.marked(conn, ns_id, its.jobs, its.owners)  # before their edges go
        removed.add("dataset_versions", reset_others.forget_history(conn, ns_id, its.jobs))
        blobs = _delete_facets(conn, its, removed)
        _delete_run_io(conn, its, removed)
        e = t.lineage_edges.c
        removed.add(
            "openlineage_lineage_edges",
            delete_rows(conn, t.lineage_edges, or_(e.src_ns_id == ns_id, e.dst_ns_id == ns_id)),
        )
        _delete_column_lineage(conn, its, removed)
        _delete_explicit_lineage(conn, its, removed)
        s = t.dataset_symlinks.c
        removed.add(
            "openlineage_dataset_symlinks",
            delete_rows(
                conn,
                t.dataset_symlinks,
                or_(s.alias_ns_id == ns_id, s.dataset_id.in_(its.datasets)),
            ),
        )
        job_versions.reset_namespace(conn, ns_id, its.jobs, removed.add)
        statements = t.symlink_statements
        where = statements.c.dataset_id.in_(its.datasets)
        removed.add("symlink_statements", delete_rows(conn, statements, where))
        for dv in (t.dataset_versions, t.dataset_states):
            removed.add(
                "dataset_versions", delete_rows(conn, dv, dv.c.dataset_id.in_(its.datasets))
            )
        removed.add("openlineage_jobs", delete_rows(conn, t.jobs, t.jobs.c.ns_id == ns_id))
        removed.add(
            "openlineage_datasets", delete_rows(conn, t.datasets, t.datasets.c.ns_id == ns_id)
        )
        _unreferenced_blobs(conn, blobs, removed)
        reset_others.remark(conn, marked)
    return removed


class _Namespace:
    """A namespace being reset: its id, and the queries of its jobs' and datasets' ids."""

    def __init__(self, ns_id: int) -> None:
        self.id = ns_id
        self.jobs = select(t.jobs.c.id).where(t.jobs.c.ns_id == ns_id)
        self.datasets = select(t.datasets.c.id).where(t.datasets.c.ns_id == ns_id)
        # The jobs and datasets that stated explicit lineage (every statement's owner has a
        # pointer).
        xl = t.explicit_lineage.c
        self.owners = select(xl.owner_id).where(xl.ns_id == ns_id)


def _delete_facets(conn: Connection, its: _Namespace, removed: Removed) -> set[str]:
    """Delete its jobs' and datasets' facets; the blobs they pointed at."""
    jf, df = t.job_facets.c, t.dataset_facets.c
    blobs = set(conn.execute(select(jf.blob_id).where(jf.owner_id.in_(its.jobs))).scalars())
    # Dataset versions of any namespace may point at the blobs of the facets
    # they follow (the same schema is one blob): those stay.
    followed = df.name.not_in(VERSIONED_FACETS)
    blobs.update(
        conn.execute(select(df.blob_id).where(df.owner_id.in_(its.datasets), followed)).scalars()
    )
    removed.add(
        "openlineage_job_facets", delete_rows(conn, t.job_facets, jf.owner_id.in_(its.jobs))
    )
    removed.add(
        "openlineage_dataset_facets",
        delete_rows(conn, t.dataset_facets, df.owner_id.in_(its.datasets)),
    )
    values = t.dataset_facet_values.c  # each payload a facet was stated with
    removed.add(
        "openlineage_dataset_facets",
        delete_rows(conn, t.dataset_facet_values, values.owner_id.in_(its.datasets)),
    )
    return blobs


def _delete_run_io(conn: Connection, its: _Namespace, removed: Removed) -> None:
    """Delete other runs' inputs/outputs that name its datasets, and its jobs' kept ones.

    Other runs are found through the jobs its datasets have edges with (every
    stored input or output has its edge): their runs, their JobEvents, and
    the JobEvents kept as their current inputs or outputs. Then its own
    jobs' kept JobEvents.
    """
    e, io, r, ev, j = t.lineage_edges.c, t.run_io.c, t.runs.c, t.events.c, t.jobs.c
    touching = union(
        select(e.dst_id).where(e.src_id.in_(its.datasets)),
        select(e.src_id).where(e.dst_id.in_(its.datasets)),
    )
    their_runs = union(
        select(r.run_id).where(r.job_id.in_(touching)),
        select(ev.event_key).where(ev.subject_id.in_(touching), ev.kind == "job"),
        select(j.input_run).where(j.id.in_(touching)),
        select(j.output_run).where(j.id.in_(touching)),
    )
    own_runs = union(
        select(j.input_run).where(j.ns_id == its.id),
        select(j.output_run).where(j.ns_id == its.id),
    )
    for where in (
        and_(io.run_id.in_(their_runs), io.dataset_id.in_(its.datasets)),
        io.run_id.in_(own_runs),
    ):
        removed.add("openlineage_run_io", delete_rows(conn, t.run_io, where))


def _delete_column_lineage(conn: Connection, its: _Namespace, removed: Removed) -> None:
    """Column edges into or out of its datasets, or stated by its jobs, then their pointers."""
    ce, cl = t.column_edges.c, t.column_lineage.c
    # The jobs' edges are found through their pointers.
    written_by_its_jobs = select(cl.dataset_id).where(cl.job_id.in_(its.jobs))
    for where in (
        ce.dst_dataset_id.in_(its.datasets),
        ce.src_ns_id == its.id,
        and_(ce.dst_dataset_id.in_(written_by_its_jobs), ce.job_id.in_(its.jobs)),
    ):
        removed.add("column_edges", delete_rows(conn, t.column_edges, where))
    for where in (cl.dataset_id.in_(its.datasets), cl.job_id.in_(its.jobs)):
        removed.add("column_lineage", delete_rows(conn, t.column_lineage, where))
    lc = t.column_listings.c
    for where in (lc.dataset_id.in_(its.datasets), lc.job_id.in_(its.jobs)):
        removed.add("column_listings", delete_rows(conn, t.column_listings, where))


def _delete_explicit_lineage(conn: Connection, its: _Namespace, removed: Removed) -> None:
    """Explicit edges touching it or stated by its jobs and datasets, their statements, then
    their pointers (every statement's owner has a pointer)."""
    xe, xl, xs = t.explicit_edges.c, t.explicit_lineage.c, t.explicit_statements.c
    its_owners = select(xl.owner_id).where(xl.ns_id == its.id)
    for where in (
        or_(xe.src_ns_id == its.id, xe.dst_ns_id == its.id),
        xe.owner_id.in_(its_owners),
    ):
        removed.add("explicit_edges", delete_rows(conn, t.explicit_edges, where))
    stated = xs.owner_id.in_(its_owners)
    removed.add("explicit_statements", delete_rows(conn, t.explicit_statements, stated))
    removed.add("explicit_lineage", delete_rows(conn, t.explicit_lineage, xl.ns_id == its.id))


def _unreferenced_blobs(conn: Connection, candidates: set[str], removed: Removed) -> None:
    """Delete the ``candidates`` blobs no facet points at any more, and their listings."""
    b = t.facet_blobs.c
    refs = [exists().where(table.c.blob_id == b.id) for table in (t.job_facets, t.dataset_facets)]
    ordered = sorted(candidates)
    for start in range(0, len(ordered), 2000):
        chunk = ordered[start : start + 2000]
        n = delete_rows(conn, t.facet_blobs, b.id.in_(chunk), *(~ref for ref in refs))
        removed.add("openlineage_facet_blobs", n)
        listed = t.symlink_listings.c
        used = exists().where(t.dataset_facets.c.blob_id == listed.blob_id)
        stated = exists().where(t.symlink_statements.c.blob_id == listed.blob_id)
        n = delete_rows(conn, t.symlink_listings, listed.blob_id.in_(chunk), ~used, ~stated)
        removed.add("openlineage_symlink_listings", n)
