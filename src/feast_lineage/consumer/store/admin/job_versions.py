"""Retention and reset of job versions.

Retention deletes the run -> version rows (each holding its run's parts)
of runs (and JobEvents) it pruned, and the versions no remaining run ran,
except each job's *current* version: the row of the job's latest run (or
JobEvent) stays even when that run went, so the current version is always
kept with its latest run named. Source facet payloads stay (one per
distinct payload of a job: they grow with changes, not runs). A namespace
reset deletes its jobs' versions through their job index.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import ColumnElement, Connection, Engine, Select, Table, delete, exists, select

from feast_lineage.consumer.store.engine.transactions import write_transaction
from feast_lineage.consumer.store.schema import tables as t

# Removed rows are counted under these names (the API's).
API_NAMES = {
    t.job_sources.name: "job_sources",
    t.run_versions.name: "run_versions",
    t.job_versions.name: "job_versions",
}
# In the order a full reset deletes them.
TABLES = (t.job_sources, t.run_versions, t.job_versions)

Count = Callable[[str, int], None]


def _delete(conn: Connection, table: Table, *where: ColumnElement[bool]) -> int:
    return int(conn.execute(delete(table).where(*where)).rowcount or 0)


def _forget_runs(conn: Connection, keys: list[str], count: Count) -> None:
    """Delete the run -> version rows of ``keys`` (with their parts), then orphaned versions."""
    rv, jv = t.run_versions.c, t.job_versions.c
    versions = {
        (job, vid)
        for job, vid in conn.execute(select(rv.job_id, rv.version_id).where(rv.run_key.in_(keys)))
    }
    count(API_NAMES[t.run_versions.name], _delete(conn, t.run_versions, rv.run_key.in_(keys)))
    ran = exists().where(rv.job_id == jv.job_id, rv.version_id == jv.id)
    for job, vid in sorted(versions):
        n = _delete(conn, t.job_versions, jv.id == vid, jv.job_id == job, ~ran)
        count(API_NAMES[t.job_versions.name], n)


def prune(
    engine: Engine, cutoff_us: int, chunk: int, count: Count, bump: Callable[[Connection], None]
) -> None:
    """After runs and events before ``cutoff_us`` went: forget their versions, chunk by chunk."""
    rv, r, e = t.run_versions.c, t.runs.c, t.events.c
    after = ""
    while True:
        with write_transaction(engine) as conn:
            rows = conn.execute(
                select(rv.run_key, rv.job_id, rv.is_run)
                .where(rv.run_key > after, rv.time_us < cutoff_us)
                .order_by(rv.run_key)
                .limit(chunk)
            ).all()
            if not rows:
                return
            after = rows[-1].run_key
            keys = [row.run_key for row in rows]
            runs = set(conn.execute(select(r.run_id).where(r.run_id.in_(keys))).scalars())
            events = set(conn.execute(select(e.event_key).where(e.event_key.in_(keys))).scalars())
            gone = [row for row in rows if row.run_key not in (runs if row.is_run else events)]
            current = {_current_key(conn, job) for job in {row.job_id for row in gone}}
            keys = [row.run_key for row in gone if row.run_key not in current]
            if keys:
                bump(conn)
                _forget_runs(conn, keys, count)
        if len(rows) < chunk:
            return


def _current_key(conn: Connection, job: int) -> str | None:
    rv = t.run_versions.c
    return conn.execute(
        select(rv.run_key)
        .where(rv.job_id == job)
        .order_by(rv.time_us.desc(), rv.run_key.desc())
        .limit(1)
    ).scalar()


def reset_namespace(
    conn: Connection, ns_id: int, its_jobs: Select[tuple[int]], count: Count
) -> None:
    """Delete the versions of a namespace's jobs, inside the reset's transaction."""
    rv = t.run_versions.c
    # Through the (job, version) index: ingest keeps one index fewer per run.
    count(API_NAMES[t.run_versions.name], _delete(conn, t.run_versions, rv.job_id.in_(its_jobs)))
    jv, s = t.job_versions.c, t.job_sources.c
    count(API_NAMES[t.job_versions.name], _delete(conn, t.job_versions, jv.ns_id == ns_id))
    count(API_NAMES[t.job_sources.name], _delete(conn, t.job_sources, s.job_id.in_(its_jobs)))
