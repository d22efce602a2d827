"""A job's versions before an instant ``until``: each run counted under the version it ran then.

The store keeps each run's final version (:mod:`..store.write.job_versions`).
A run that had started before ``until`` and has events since (under way
then, or its START late) may have run another version then: the one its
events before ``until`` define, which a store fed only those events holds.
Those runs (:func:`..store.read.runs_then.under_way`: a handful, found by
index ranges) are replayed from their stored events
(:func:`..intake.run_version.version_content`, ingest's own derivation),
each counted under the version its events then define, with its start and
state then; every other run is read as stored. A version's id is the
digest of the job and its content, so the id is the one that store mints,
whether or not this store still holds a version of that content (a run's
partial version goes once no run runs it).

Without such a run, the store's reads answer as they are
(:func:`..store.read.job_versions.version_page`); with one, every version
of the job then is read as a group (id, time, runs) and merged with the
replayed runs in Python, and only the page's versions are read whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Connection

from feast_lineage.consumer.intake.run_version import version_content
from feast_lineage.consumer.store.read import job_versions as reads
from feast_lineage.consumer.store.read import runs_then
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.schema.job_version_content import (
    VersionContent,
    text_version_id,
)


@dataclass(frozen=True, slots=True)
class RunThen:
    """A run replayed from its events before ``until``: its start, version and state then."""

    key: str
    started_us: int
    version_id: str
    content: str  # the version's content text (:class:`.VersionContent`)
    state: str


def replayed_runs(conn: Connection, job: int, until_us: int) -> list[RunThen]:
    """The runs of job ``job`` whose version before ``until_us`` is read from their events.

    A run whose events before ``until_us`` are all pruned is left as stored.
    """
    spans = runs_then.under_way(conn, job, until_us)
    if not spans:
        return []
    events = runs_then.events_before(conn, [s.run_id for s in spans], until_us)
    out: list[RunThen] = []
    for span in spans:
        kept = events[span.run_id]
        version = _version_of(job, span.run_id, kept)
        state = runs_then.state_then((e.event_type, e.time_us, e.event_key) for e in kept)
        if version is None or state is None:
            continue
        vid, content = version
        out.append(RunThen(span.run_id, span.started_us, vid, content, state[0]))
    return out


def _version_of(
    job: int, run_key: str, kept: list[runs_then.StoredEvent]
) -> tuple[str, str] | None:
    """(id, content) of the version run ``run_key``'s events ``kept`` define; None: none is
    the run's."""
    content = version_content(((e.kind, e.time_us, e.payload) for e in kept), run_key)
    return None if content is None else (text_version_id(job, content), content)


@dataclass(slots=True)
class VersionThen:
    """A version as it stood before ``until``: its time, runs, and latest replayed run."""

    id: str
    first_us: int
    run_count: int
    stored: bool  # some run read as stored ran it
    replayed: RunThen | None = None  # the latest of its replayed runs


def versions_then(
    conn: Connection, job: int, until_us: int, replayed: list[RunThen]
) -> list[VersionThen]:
    """Every version of job ``job`` run before ``until_us``, newest first (time, then id)."""
    leave_out = {r.key for r in replayed}
    found = {
        g.id: VersionThen(g.id, g.first_us, g.run_count, stored=True)
        for g in reads.version_groups(conn, job, until_us, leave_out)
    }
    for run in replayed:
        v = found.setdefault(
            run.version_id, VersionThen(run.version_id, run.started_us, 0, stored=False)
        )
        v.first_us = min(v.first_us, run.started_us)
        v.run_count += 1
        if v.replayed is None or (run.started_us, run.key) > (
            v.replayed.started_us,
            v.replayed.key,
        ):
            v.replayed = run
    return sorted(found.values(), key=lambda v: (v.first_us, v.id), reverse=True)


def rows_then(
    conn: Connection,
    job: int,
    until_us: int,
    versions: list[VersionThen],
    replayed: Iterable[RunThen],
) -> list[reads.JobVersionRow]:
    """The rows of ``versions`` (of :func:`versions_then`): contents and latest runs then."""
    leave_out = {r.key for r in replayed}
    stored_ids = [v.id for v in versions if v.stored]
    latest_stored = reads.latest_keys(conn, job, stored_ids, until_us, leave_out)
    picks: dict[str, tuple[int, str]] = {}
    for v in versions:
        stored = latest_stored.get(v.id)
        mine = (v.replayed.started_us, v.replayed.key) if v.replayed is not None else None
        if stored is not None and (mine is None or stored > mine):
            picks[v.id] = stored
    runs = reads.latest_runs(conn, [key for _, key in picks.values()], until_us)
    contents = reads.version_contents(conn, stored_ids)
    out = []
    for v in versions:
        latest: reads.LatestRun | None = None
        if v.id in picks:
            latest = runs.get(picks[v.id][1])
        elif v.replayed is not None:
            latest = reads.LatestRun(v.replayed.key, v.replayed.started_us, v.replayed.state)
        content = contents.get(v.id)
        if content is None and v.replayed is not None:
            content = VersionContent.from_json(v.replayed.content)
        if content is None:
            continue  # a version deleted since it was read (a prune meanwhile)
        out.append(reads.JobVersionRow(v.id, v.first_us, v.run_count, latest, content))
    return out


def page_then(
    conn: Connection,
    job: int,
    since_us: int | None,
    until_us: int,
    offset: int,
    limit: int,
) -> tuple[int, list[reads.JobVersionRow]]:
    """A page of job ``job``'s versions first run in [since, until), as they stood then."""
    replayed = replayed_runs(conn, job, until_us)
    if not replayed:
        return reads.version_page(conn, job, since_us, until_us, offset, limit)
    versions = versions_then(conn, job, until_us, replayed)
    if since_us is not None:
        versions = [v for v in versions if v.first_us >= since_us]
    page = versions[offset : offset + limit]
    return len(versions), rows_then(conn, job, until_us, page, replayed)


def one_then(
    conn: Connection, job: int, vid: str, until_us: int
) -> tuple[reads.JobVersionRow | None, reads.JobVersionRow | None]:
    """Version ``vid`` as it stood before ``until_us`` (None: not run then), and the one before."""
    replayed = replayed_runs(conn, job, until_us)
    if not replayed:
        row = reads.one_version(conn, job, vid, until_us)
        before = reads.previous_version(conn, job, row, until_us) if row is not None else None
        return row, before
    versions = versions_then(conn, job, until_us, replayed)
    at = next((i for i, v in enumerate(versions) if v.id == vid), None)
    if at is None:
        return None, None
    found = rows_then(conn, job, until_us, versions[at : at + 2], replayed)
    if not found or found[0].id != vid:
        return None, None
    return found[0], found[1] if len(found) > 1 else None


def job_versions_at(conn: Connection, job_ids: Iterable[int], at: Instant) -> dict[int, str]:
    """Job id -> the version its latest run (or JobEvent) started by ``at`` ran then.

    That run's stored version, unless it has events since: then the version
    its events up to ``at`` define.
    """
    until_us = at.time_us + 1
    latest = runs_then.latest_then(conn, job_ids, until_us)
    going = [run for run in latest.values() if run.goes_on]
    events = runs_then.events_before(conn, [run.key for run in going], until_us)
    out = {job: run.version_id for job, run in latest.items() if run.version_id is not None}
    for run in going:
        version = _version_of(run.job_id, run.key, events[run.key])
        if version is not None:
            out[run.job_id] = version[0]
    return out
