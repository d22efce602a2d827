"""Statistics of the store: row counts and time bounds of what a caller may see."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, func, select

from feast_lineage.consumer.store.read.common import NsIds, count, in_ids, where_all
from feast_lineage.consumer.store.schema import tables as t


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
    # A job only named by a parent facet has no update time (0). A dataset's may be
    # a hidden job's: a scoped caller counts those the caller may see whose event set it.
    oldest_job, oldest_dataset = (
        conn.execute(
            select(func.min(table.c.updated_us)).where(
                table.c.updated_us > 0, *where_all(in_ids(table.c.ns_id, ns_ids), *also)
            )
        ).scalar()
        for table, also in (
            (t.jobs, ()),
            (t.datasets, (in_ids(t.datasets.c.updated_ns_id, ns_ids),)),
        )
    )
    return StoreStats(rows, bounds[0], bounds[1], oldest_run, oldest_job, oldest_dataset)
