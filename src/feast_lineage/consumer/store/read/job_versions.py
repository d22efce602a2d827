"""A job's versions: which definitions it ran, first seen when, by how many runs.

Versions are read from ``feast_lineage_run_versions`` (which version each
run and JobEvent ran) grouped by version: a version's time is the earliest
of them (the start of the first run that ran it), its runs are counted,
and its latest run is the one that started last (run id breaks ties). The
job's *current* version is the one its latest run (or JobEvent) ran.
Newest first: by time, then id, descending. A page ``until`` an instant
reads only the runs (and JobEvents) started before it: a version's count
and latest run are those of then, the latest run in its state then
(``RUNNING`` when it ended at or after the instant). A run whose version
then was not its final one (:mod:`.runs_then`) is left out by the caller
(``leave_out``), which counts it under its version then
(:mod:`feast_lineage.consumer.services.job_versions_then`).
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


def _before(until_us: int | None, leave_out: Collection[str] = ()) -> list[Any]:
    """The runs (and JobEvents) started before ``until_us`` (all when None), less ``leave_out``."""
    rv = t.run_versions.c
    kept = [rv.run_key.not_in(sorted(leave_out))] if leave_out else []
    return kept + ([] if until_us is None else [rv.time_us < until_us])


def _grouped(job: int, until_us: int | None = None, leave_out: Collection[str] = ()) -> Any:
    rv = t.run_versions.c
    return (
        select(
            rv.version_id.label("vid"),
            func.min(rv.time_us).label("first_us"),
            func.sum(rv.is_run).label("runs"),
        )
        .where(rv.job_id == job, *_before(until_us, leave_out))
        .group_by(rv.version_id)
    )


def _latest_run_key(
    job: int, vid: Any, until_us: int | None, leave_out: Collection[str] = ()
) -> Any:
    rv = t.run_versions.c
    return (
        select(rv.run_key)
        .where(
            rv.job_id == job,
            rv.version_id == vid,
            rv.is_run == 1,
            *_before(until_us, leave_out),
        )
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
    latest = latest_runs(conn, [row[4] for row in found if row[4] is not None], until_us)
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


def latest_runs(
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


def one_version(
    conn: Connection, job: int, vid: str, until_us: int | None = None
) -> JobVersionRow | None:
    """Version ``vid`` of job ``job``, if a run of it started before ``until_us`` ran it."""
    grouped = _grouped(job, until_us).where(t.run_versions.c.version_id == vid)
    found = _rows(conn, job, grouped, offset=0, limit=1, until_us=until_us)
    return found[0] if found else None


def previous_version(
    conn: Connection, job: int, row: JobVersionRow, until_us: int | None = None
) -> JobVersionRow | None:
    """The version before ``row`` (the newest first seen before it; the id breaks ties)."""
    grouped = _grouped(job, until_us)
    first = func.min(t.run_versions.c.time_us)
    rv = t.run_versions.c
    grouped = grouped.having(
        or_(first < row.first_us, and_(first == row.first_us, rv.version_id < row.id))
    )
    found = _rows(conn, job, grouped, offset=0, limit=1, until_us=until_us)
    return found[0] if found else None


@dataclass(frozen=True, slots=True)
class VersionGroup:
    """A version's runs (and JobEvents) among those read: its time, how many runs."""

    id: str
    first_us: int
    run_count: int


def version_groups(
    conn: Connection, job: int, until_us: int, leave_out: Collection[str]
) -> list[VersionGroup]:
    """Every version of job ``job`` run before ``until_us`` by a run not in ``leave_out``."""
    found = conn.execute(_grouped(job, until_us, leave_out)).all()
    return [VersionGroup(vid, int(first), int(runs or 0)) for vid, first, runs in found]


def latest_keys(
    conn: Connection, job: int, vids: Collection[str], until_us: int, leave_out: Collection[str]
) -> dict[str, tuple[int, str]]:
    """Version id -> (start, key) of its latest run before ``until_us`` not in ``leave_out``."""
    if not vids:
        return {}
    jv = t.job_versions.c
    latest = t.run_versions.alias("latest")
    stmt = (
        select(jv.id, latest.c.time_us, latest.c.run_key)
        .select_from(
            t.job_versions.join(
                latest, latest.c.run_key == _latest_run_key(job, jv.id, until_us, leave_out)
            )
        )
        .where(jv.id.in_(sorted(vids)))
    )
    return {vid: (int(time), str(key)) for vid, time, key in conn.execute(stmt)}


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
