"""Runs as they stood before an instant ``until``: those its later events changed, and their events.

What a store fed only the events before ``until`` holds of a run differs
from what this one holds only for a run with an event at or after
``until`` that had started before it. The reads here find those of a job
(:func:`under_way`) and return their events before ``until``
(:func:`events_before`), from which a run's state then (:func:`state_then`)
and its job version then are replayed.

A run's start then is its earliest START before ``until``, else its
earliest event (``start_event_us``, ``first_event_us``): a run whose START
came at or after ``until`` had started then at its first event, and is
stored as started at most the store's longest START lead
(``max_start_lead_us``, :mod:`..write.run_durations`) after ``until``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Connection,
    String,
    bindparam,
    cast,
    func,
    null,
    select,
    union_all,
)

from feast_lineage.consumer.lineage_model import (
    RUN_STATE_OF_TYPE,
    RUN_STATE_PRIORITY,
    TERMINAL_TYPES,
)
from feast_lineage.consumer.store.engine.meta import MAX_LEAD_KEY, MAX_RUN_KEY
from feast_lineage.consumer.store.schema import tables as t

# No bound stored (a store whose meta row is gone): every run is read.
_NO_BOUND = 2**62
_CHUNK = 1000


def _bound(key: str) -> ColumnElement[int]:
    """A run bound of meta, read in the statement itself (one snapshot with the runs)."""
    m = t.meta.c
    stored = select(cast(m.value, BigInteger)).where(m.key == key).scalar_subquery()
    return func.coalesce(stored, _NO_BOUND)


def lead_us() -> ColumnElement[int]:
    """The store's longest START lead (:mod:`..write.run_durations`), in the statement."""
    return _bound(MAX_LEAD_KEY)


def state_then(events: Iterable[tuple[str | None, int, str]]) -> tuple[str, int | None] | None:
    """A run's state and end from its events ``(event type, time, event key)``; None: none.

    By the rules ingest merges with (:mod:`..write.merge_rules`): a terminal
    event beats START/RUNNING, which beat OTHER; then the highest rank
    (the event time, then the key's content hash).
    """
    best: tuple[int, int, str] | None = None
    best_type = ""
    for event_type, time_us, key in events:
        kind = event_type if event_type is not None else "OTHER"
        rank = (RUN_STATE_PRIORITY.get(kind, 0), int(time_us), key[16:])
        if best is None or rank > best:
            best, best_type = rank, kind
    if best is None:
        return None
    return RUN_STATE_OF_TYPE.get(best_type, "OTHER"), best[
        1
    ] if best_type in TERMINAL_TYPES else None


@dataclass(frozen=True, slots=True)
class RunSpan:
    """A run with an event at or after ``until`` that had started before it."""

    run_id: str
    started_us: int  # its start then
    state: str  # as stored: its state now
    ended_us: int | None  # as stored


def _until() -> Any:
    return bindparam("until_us", type_=BigInteger)


@lru_cache(maxsize=1)
def _under_way_statement() -> Any:
    """The four kinds of run of job ``job`` whose events go on at or after ``until_us``.

    Each a range of an index of the runs: (1) ended at or after ``until_us``
    (the ``(job_id, started_us)`` index from ``until_us`` less the store's
    longest run); (2) not ended, with a later event (the ``(job_id,
    ended_us)`` index's null range); (3) its START at or after ``until_us``, its
    first event before (the ``(job_id, started_us)`` index, within the
    store's longest START lead); (4) the job's latest run then, ended before
    ``until_us`` with an event after its end (one seek of the run versions).
    """
    r, rv = t.runs.c, t.run_versions.c
    job = bindparam("job", type_=BigInteger)
    columns = (r.run_id, r.started_us, r.state, r.ended_us)
    ended_after = select(*columns).where(
        r.job_id == job,
        r.started_us >= _until() - _bound(MAX_RUN_KEY),
        r.started_us < _until(),
        r.ended_us >= _until(),
    )
    open_ = select(*columns).where(
        r.job_id == job,
        r.ended_us.is_(None),
        r.started_us < _until(),
        r.last_event_us >= _until(),
    )
    late = t.runs.alias("started_late")
    lc = late.c
    started_late = select(lc.run_id, lc.first_event_us, lc.state, lc.ended_us).where(
        lc.job_id == job,
        lc.started_us >= _until(),
        lc.started_us < _until() + lead_us(),
        lc.first_event_us < _until(),
    )
    latest_key = (
        select(rv.run_key)
        .where(rv.job_id == job, rv.time_us < _until())
        .order_by(rv.time_us.desc(), rv.run_key.desc())
        .limit(1)
        .scalar_subquery()
    )
    latest = select(*columns).where(
        r.run_id == latest_key, r.ended_us < _until(), r.last_event_us >= _until()
    )
    return union_all(ended_after, open_, started_late, latest)


def under_way(conn: Connection, job: int, until_us: int) -> list[RunSpan]:
    """The runs of job ``job`` that had started before ``until_us`` and have an event since.

    But a run that had ended before ``until_us`` and is not the job's latest
    run then (an event timed after its terminal event): not looked for, as
    no index bounds them.
    """
    found: dict[str, RunSpan] = {}
    for run_id, started, state, ended in conn.execute(
        _under_way_statement(), {"job": job, "until_us": until_us}
    ):
        found[str(run_id)] = RunSpan(
            str(run_id), int(started), str(state), None if ended is None else int(ended)
        )
    return [found[key] for key in sorted(found)]


class StoredEvent(NamedTuple):
    """A stored event of a run: what its replay needs."""

    kind: str  # run | job | dataset
    event_type: str | None
    time_us: int
    event_key: str
    payload: str  # canonical JSON


def events_before(
    conn: Connection, run_ids: Collection[str], until_us: int
) -> dict[str, list[StoredEvent]]:
    """Run id -> its stored events before ``until_us``, in the store's order (time, key)."""
    e = t.events.c
    ordered = sorted(set(run_ids))
    out: dict[str, list[StoredEvent]] = {run: [] for run in ordered}
    for start in range(0, len(ordered), _CHUNK):
        stmt = (
            select(e.run_id, e.kind, e.event_type, e.event_time_us, e.event_key, e.payload)
            .where(e.run_id.in_(ordered[start : start + _CHUNK]), e.event_time_us < until_us)
            .order_by(e.event_key)
        )
        for run_id, kind, event_type, time_us, key, payload in conn.execute(stmt):
            out[str(run_id)].append(
                StoredEvent(str(kind), event_type, int(time_us), str(key), str(payload))
            )
    return out


@dataclass(frozen=True, slots=True)
class LatestThen:
    """A candidate for a job's latest run (or JobEvent) before ``until``, with its start then."""

    job_id: int
    key: str  # the run id, or the JobEvent's event key
    started_us: int
    version_id: str | None  # its stored version; None for a run whose START came later
    goes_on: bool  # a run with an event at or after ``until``: its version then may differ


@lru_cache(maxsize=1)
def _latest_statement() -> Any:
    """Per job of ``ids``: its run (or JobEvent) stored as started last before ``until_us``,
    and its runs whose START came at or after ``until_us`` and first event before (they had
    started then at their first event; the store's longest START lead bounds them)."""
    rv, r, j = t.run_versions.c, t.runs.c, t.jobs.c
    ids: Any = bindparam("ids", expanding=True)
    latest_key = (
        select(rv.run_key)
        .where(rv.job_id == j.id, rv.time_us < _until())
        .order_by(rv.time_us.desc(), rv.run_key.desc())
        .limit(1)
        .correlate(t.jobs)
        .scalar_subquery()
    )
    stored = (
        select(j.id, rv.run_key, rv.time_us, rv.version_id, r.last_event_us)
        .select_from(
            t.jobs.join(t.run_versions, rv.run_key == latest_key).outerjoin(
                t.runs, r.run_id == rv.run_key
            )
        )
        .where(j.id.in_(ids))
    )
    late = t.runs.alias("started_late")
    lc = late.c
    started_late = select(
        lc.job_id, lc.run_id, lc.first_event_us, cast(null(), String(32)), lc.last_event_us
    ).where(
        lc.job_id.in_(ids),
        lc.started_us >= _until(),
        lc.started_us < _until() + lead_us(),
        lc.first_event_us < _until(),
    )
    return union_all(stored, started_late)


def latest_then(conn: Connection, job_ids: Iterable[int], until_us: int) -> dict[int, LatestThen]:
    """Job id -> its latest run (or JobEvent) before ``until_us``: the one started last then.

    Ties go to the highest key, as :func:`.job_versions.current_version` breaks them.
    """
    ordered = sorted(set(job_ids))
    best: dict[int, LatestThen] = {}
    for start in range(0, len(ordered), _CHUNK):
        params = {"ids": ordered[start : start + _CHUNK], "until_us": until_us}
        for job, key, started, vid, last in conn.execute(_latest_statement(), params):
            found = LatestThen(
                int(job),
                str(key),
                int(started),
                None if vid is None else str(vid),
                last is not None and int(last) >= until_us,
            )
            known = best.get(found.job_id)
            if known is None or (found.started_us, found.key) > (known.started_us, known.key):
                best[found.job_id] = found
    return best
