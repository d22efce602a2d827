"""A job's versions: which definitions it ran, first seen when, by how many runs.

Versions are read from ``feast_lineage_run_versions`` (which version each
run and JobEvent ran) grouped by version: a version's time is the earliest
of them (the start of the first run that ran it), its runs are counted,
and its latest run is the one that started last (run id breaks ties). The
job's *current* version is the one its latest run (or JobEvent) ran.
Newest first: by time, then id, descending. A page ``until`` an instant
reads only the runs (and JobEvents) started before it: a version's count
and latest run are those of then, the latest run in its state then
(``RUNNING`` when it ended at or after the instant).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, func, or_, select

from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.schema.job_version_content import VersionContent


@dataclass(frozen=True, slots=True)
class LatestRun:
    run_id: str
    started_us: int
    state: str | None  # None once the run itself was pruned


@dataclass(frozen=True, slots=True)
class JobVersionRow:
    id: str
    first_us: int  # the version's time: when a run (or JobEvent) first ran it
    run_count: int
    latest_run: LatestRun | None
    content: VersionContent


def _before(until_us: int | None) -> list[Any]:
    """The runs (and JobEvents) started before ``until_us``: all of them when None."""
    return [] if until_us is None else [t.run_versions.c.time_us < until_us]


def _grouped(job: int, until_us: int | None = None) -> Any:
    rv = t.run_versions.c
    return (
        select(
            rv.version_id.label("vid"),
            func.min(rv.time_us).label("first_us"),
            func.sum(rv.is_run).label("runs"),
        )
        .where(rv.job_id == job, *_before(until_us))
        .group_by(rv.version_id)
    )


def _latest_run_key(job: int, vid: Any, until_us: int | None) -> Any:
    rv = t.run_versions.c
    return (
        select(rv.run_key)
        .where(rv.job_id == job, rv.version_id == vid, rv.is_run == 1, *_before(until_us))
        .order_by(rv.time_us.desc(), rv.run_key.desc())
        .limit(1)
        .scalar_subquery()
    )


def _rows(
    conn: Connection,
    job: int,
    grouped: Any,
    *,
    offset: int,
    limit: int,
    until_us: int | None = None,
) -> list[JobVersionRow]:
    g = grouped.subquery()
    jv = t.job_versions.c
    latest_key = _latest_run_key(job, g.c.vid, until_us)
    stmt = (
        select(g.c.vid, g.c.first_us, g.c.runs, jv.content, latest_key)
        .join(t.job_versions, jv.id == g.c.vid)
        .order_by(g.c.first_us.desc(), g.c.vid.desc())
        .limit(limit)
        .offset(offset)
    )
    found = conn.execute(stmt).all()
    latest = _latest_runs(conn, [row[4] for row in found if row[4] is not None], until_us)
    return [
        JobVersionRow(
            id=vid,
            first_us=int(first),
            run_count=int(runs or 0),
            latest_run=latest.get(key) if key is not None else None,
            content=VersionContent.from_json(content),
        )
        for vid, first, runs, content, key in found
    ]


def _latest_runs(
    conn: Connection, keys: Collection[str], until_us: int | None
) -> dict[str, LatestRun]:
    """Run key -> the run, in its state before ``until_us`` (now when None)."""
    if not keys:
        return {}
    rv, r = t.run_versions.c, t.runs.c
    stmt = (
        select(rv.run_key, rv.time_us, r.state, r.ended_us)
        .select_from(t.run_versions.outerjoin(t.runs, r.run_id == rv.run_key))
        .where(rv.run_key.in_(sorted(keys)))
    )
    found: dict[str, LatestRun] = {}
    for key, time, state, ended in conn.execute(stmt):
        later = until_us is not None and ended is not None and ended >= until_us
        found[key] = LatestRun(key, int(time), "RUNNING" if later and state else state)
    return found


def version_page(
    conn: Connection,
    job: int,
    since_us: int | None,
    until_us: int | None,
    offset: int,
    limit: int,
) -> tuple[int, list[JobVersionRow]]:
    """A page of ``job``'s versions first seen in [since, until), newest first; the total.

    With ``until``, each version as it stood then: the runs started before it.
    """
    grouped = _grouped(job, until_us)
    first = func.min(t.run_versions.c.time_us)
    if since_us is not None:
        grouped = grouped.having(first >= since_us)
    total = int(conn.execute(select(func.count()).select_from(grouped.subquery())).scalar_one())
    if offset >= total:
        return total, []
    return total, _rows(conn, job, grouped, offset=offset, limit=limit, until_us=until_us)


def one_version(conn: Connection, job: int, vid: str) -> JobVersionRow | None:
    """Version ``vid`` of job ``job``, if any run of the job ran it."""
    grouped = _grouped(job).where(t.run_versions.c.version_id == vid)
    found = _rows(conn, job, grouped, offset=0, limit=1)
    return found[0] if found else None


def previous_version(conn: Connection, job: int, row: JobVersionRow) -> JobVersionRow | None:
    """The version before ``row`` (the newest first seen before it; the id breaks ties)."""
    grouped = _grouped(job)
    first = func.min(t.run_versions.c.time_us)
    rv = t.run_versions.c
    grouped = grouped.having(
        or_(first < row.first_us, and_(first == row.first_us, rv.version_id < row.id))
    )
    found = _rows(conn, job, grouped, offset=0, limit=1)
    return found[0] if found else None


def current_version(conn: Connection, job: int) -> str | None:
    """The version job ``job``'s latest run (or JobEvent) ran."""
    rv = t.run_versions.c
    return conn.execute(
        select(rv.version_id)
        .where(rv.job_id == job)
        .order_by(rv.time_us.desc(), rv.run_key.desc())
        .limit(1)
    ).scalar()


def source_payloads(conn: Connection, job: int, digests: Collection[str]) -> dict[str, str]:
    """Digest -> the canonical JSON of job ``job``'s source facet payload."""
    if not digests:
        return {}
    s = t.job_sources.c
    stmt = select(s.digest, s.payload).where(s.job_id == job, s.digest.in_(sorted(digests)))
    found: dict[str, str] = {}
    for digest, payload in conn.execute(stmt):
        found[digest] = payload
    return found


def version_contents(conn: Connection, ids: Collection[str]) -> dict[str, VersionContent]:
    """Version id -> what defines it, for the versions among ``ids``."""
    jv = t.job_versions.c
    ordered = sorted(set(ids))
    found: dict[str, VersionContent] = {}
    for start in range(0, len(ordered), 2000):
        stmt = select(jv.id, jv.content).where(jv.id.in_(ordered[start : start + 2000]))
        for vid, content in conn.execute(stmt):
            found[vid] = VersionContent.from_json(content)
    return found
