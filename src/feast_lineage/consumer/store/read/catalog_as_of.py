"""The Jobs and Datasets lists as they stood at an instant (``as_of``).

The answer at ``T`` is today's list on the events whose eventTime is at or
before ``T``: a job or dataset is listed when its ``created_us`` (the least
event time that named it) is at or before ``T``. A job's latest run then is
the run that had started last by ``T``; its start then is its earliest
START at or before ``T``, else its earliest event (both stored:
``start_event_us``, ``first_event_us``). That run is one seek of the
``(job_id, started_us)`` index, beside the few runs stored as started
after ``T`` within the store's longest START lead (``max_start_lead_us``,
:mod:`..write.run_durations`) whose first event was by ``T``. A run whose last event is at or
before ``T`` is as stored; one with events after ``T`` has its state and end
then replayed from its own events up to ``T`` (the events' run index), by
the rules ingest merges with (:mod:`..write.merge_rules`: a terminal event
beats START/RUNNING, which beat OTHER; then the highest rank).

Sorts by the latest run's state, start or duration are computed on those
runs. Every statement is filtered by the visible namespaces.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Connection,
    Table,
    bindparam,
    func,
    select,
    union_all,
)

from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.common import NsIds, in_ids, where_all
from feast_lineage.consumer.store.read.dataset_facets_at import (
    DatasetFacetsThen,
    dataset_facets_at,
    stated_then,
)
from feast_lineage.consumer.store.read.datasets import DatasetRecord
from feast_lineage.consumer.store.read.job_facets_at import job_facets_at
from feast_lineage.consumer.store.read.jobs import JobRecord, LatestRun
from feast_lineage.consumer.store.read.runs_then import lead_us, state_then
from feast_lineage.consumer.store.read.sorting import Sort, ordering
from feast_lineage.consumer.store.schema import tables as t

# A dataset facet its version then holds: not read from events when stated again since.
VERSIONED = frozenset({"schema"})
_CHUNK = 2000
# Sort keys whose values a list answers as of an instant; ``producer`` and
# ``updated`` are null then (their history is not kept): all equal, so the
# order is the tie-breaker's (namespace, name).
JOB_SORT_KEYS_AT = ("name", "namespace", "latest_state", "latest_started", "latest_duration")
DATASET_SORT_KEYS_AT = ("name", "namespace", "kind")
_RUN_SORTS = ("latest_state", "latest_started", "latest_duration")


def _as_of_us() -> Any:
    return bindparam("as_of_us", type_=BigInteger)


def _latest_started_id() -> Any:
    """A job's run stored as started last by ``as_of_us`` (the ``(job_id, started_us)`` index)."""
    r = t.runs.c
    return (
        select(r.run_id)
        .where(r.job_id == t.jobs.c.id, r.started_us <= _as_of_us())
        .order_by(r.started_us.desc(), r.run_id.desc())
        .limit(1)
        .correlate(t.jobs)
        .scalar_subquery()
    )


class _RunThen(NamedTuple):
    run_id: str
    job_id: int
    state: str
    started_us: int
    ended_us: int | None
    last_event_us: int


def _replayed(conn: Connection, run: _RunThen, at: Instant) -> _RunThen:
    """A run's state and end at ``at``, from its events up to then."""
    e = t.events.c
    stmt = select(e.event_type, e.event_time_us, e.event_key).where(
        e.run_id == run.run_id, e.event_time_us <= at.time_us
    )
    then = state_then((kind, int(time), str(key)) for kind, time, key in conn.execute(stmt))
    if then is None:
        # Its events until then were pruned (a run kept across the retention
        # horizon keeps only its events that hold a facet): it was under way.
        return run._replace(state="RUNNING", ended_us=None)
    return run._replace(state=then[0], ended_us=then[1])


def _run_then(row: Any) -> _RunThen:
    return _RunThen(str(row[0]), int(row[1]), str(row[2]), int(row[3]), row[4], int(row[5]))


@lru_cache(maxsize=1)
def _latest_runs_statement() -> Any:
    """Per job of ``ids``, the candidates for its latest run at ``as_of_us``, with their start then.

    The run stored as started last by then (it had started then at that
    time: one seek of the ``(job_id, started_us)`` index), and the runs
    under way then whose START came after it: they had started then at
    their first event, and are stored as started at most the store's
    longest START lead after it, so after ``as_of_us`` and by ``as_of_us``
    plus the lead (a range of the same index; none unless a START came
    after another event). One statement, with the bound read inside it:
    the two and the bound are one snapshot on any connection. (The read
    services' connections see one snapshot per answer anyway,
    :func:`..engine.database.snapshot_reads`; a caller on a connection at
    PostgreSQL's read committed would otherwise risk a START committed
    between two statements moving a run out of both.)
    """
    r, j = t.runs.c, t.jobs.c
    late = t.runs.alias("started_late")
    columns = (r.run_id, r.job_id, r.state, r.started_us, r.ended_us, r.last_event_us)
    started = (
        select(*columns)
        .select_from(t.jobs.join(t.runs, r.run_id == _latest_started_id()))
        .where(j.id.in_(bindparam("ids", expanding=True)))
    )
    lc = late.c
    started_late = select(
        lc.run_id, lc.job_id, lc.state, lc.first_event_us, lc.ended_us, lc.last_event_us
    ).where(
        lc.job_id.in_(bindparam("ids", expanding=True)),
        lc.started_us > _as_of_us(),
        lc.started_us <= _as_of_us() + lead_us(),
        lc.first_event_us <= _as_of_us(),
    )
    return union_all(started, started_late)


def latest_runs_at(conn: Connection, job_ids: Iterable[int], at: Instant) -> dict[int, LatestRun]:
    """Job id -> its latest run as it stood at ``at`` (jobs that had not run are left out).

    The run started last by then, ties to the highest run id, among the
    candidates of :func:`_latest_runs_statement`.
    """
    ordered = sorted(set(job_ids))
    best: dict[int, _RunThen] = {}
    for start in range(0, len(ordered), _CHUNK):
        params = {"ids": ordered[start : start + _CHUNK], **at.params()}
        for row in conn.execute(_latest_runs_statement(), params):
            run = _run_then(row)
            known = best.get(run.job_id)
            if known is None or (run.started_us, run.run_id) > (known.started_us, known.run_id):
                best[run.job_id] = run
    out: dict[int, LatestRun] = {}
    for job, run in best.items():
        if run.last_event_us > at.time_us:
            run = _replayed(conn, run, at)
        out[job] = LatestRun(run.run_id, run.state, run.started_us, run.ended_us)
    return out


def _job_where(ns_ids: NsIds, search: str | None) -> tuple[ColumnElement[bool], ...]:
    j = t.jobs.c
    return where_all(
        in_ids(j.ns_id, ns_ids),
        j.name.icontains(search, autoescape=True) if search else None,
        j.created_us <= _as_of_us(),
    )


def _job_record(row: Any, latest: LatestRun | None) -> JobRecord:
    job_id, namespace, name, created_us = row
    return JobRecord(int(job_id), namespace, name, None, int(created_us), 0, latest)


def _run_sort_value(key: str, run: LatestRun | None) -> Any:
    if run is None:
        return None
    if key == "latest_state":
        return run.state
    if key == "latest_started":
        return run.started_us
    return None if run.ended_us is None else run.ended_us - run.started_us


def job_rows_at(
    conn: Connection,
    ns_ids: NsIds,
    search: str | None,
    sort: Sort,
    offset: int,
    limit: int,
    at: Instant,
) -> tuple[int, list[JobRecord]]:
    """A page of the jobs existing at ``at`` in ``sort`` order, each with its run then."""
    j = t.jobs.c
    where = _job_where(ns_ids, search)
    params = at.params()
    count = select(func.count()).select_from(t.jobs).where(*where)
    total = int(conn.execute(count, params).scalar_one())
    if offset >= total:
        return total, []
    columns = (j.id, j.namespace, j.name, j.created_us)
    if sort.key not in _RUN_SORTS:
        values = (j.name,) if sort.key == "name" else (j.namespace,)
        if sort.key not in JOB_SORT_KEYS_AT:  # producer, updated: null then, all tied
            values = (j.namespace,)
        stmt = (
            select(*columns)
            .where(*where)
            .order_by(*ordering(values, sort, (j.namespace, j.name, j.id)))
            .limit(limit)
            .offset(offset)
        )
        rows = list(conn.execute(stmt, params))
        runs = latest_runs_at(conn, (int(r[0]) for r in rows), at)
        return total, [_job_record(r, runs.get(int(r[0]))) for r in rows]
    # The latest run then decides the order: every listed job's run is computed.
    rows = list(conn.execute(select(*columns).where(*where), params))
    runs = latest_runs_at(conn, (int(r[0]) for r in rows), at)
    records = [_job_record(r, runs.get(int(r[0]))) for r in rows]
    return total, _sorted_page(records, sort, offset, limit)


def _sorted_page(records: list[JobRecord], sort: Sort, offset: int, limit: int) -> list[JobRecord]:
    """The SQL order of :func:`.sorting.ordering`: missing values last, then the tie-breaker."""
    records.sort(key=lambda r: (r.namespace, r.name, r.id), reverse=sort.descending)
    present = [r for r in records if _run_sort_value(sort.key, r.latest_run) is not None]
    missing = [r for r in records if _run_sort_value(sort.key, r.latest_run) is None]
    present.sort(key=lambda r: _run_sort_value(sort.key, r.latest_run), reverse=sort.descending)
    return (present + missing)[offset : offset + limit]


def dataset_rows_at(
    conn: Connection,
    ns_ids: NsIds,
    search: str | None,
    sort: Sort,
    offset: int,
    limit: int,
    at: Instant,
) -> tuple[int, list[DatasetRecord]]:
    """A page of the datasets existing at ``at`` in ``sort`` order, and their total."""
    d = t.datasets.c
    where = where_all(
        in_ids(d.ns_id, ns_ids),
        d.name.icontains(search, autoescape=True) if search else None,
        d.created_us <= _as_of_us(),
    )
    params = at.params()
    count = select(func.count()).select_from(t.datasets).where(*where)
    total = int(conn.execute(count, params).scalar_one())
    if offset >= total:
        return total, []
    # producer, updated: null then, all tied (the tie-breaker's order)
    values = {"name": (d.name,), "kind": (d.feast_type,)}.get(sort.key, (d.namespace,))
    stmt = (
        select(d.id, d.namespace, d.name, d.feast_type, d.datasource_uri, d.created_us)
        .where(*where)
        .order_by(*ordering(values, sort, (d.namespace, d.name, d.id)))
        .limit(limit)
        .offset(offset)
    )
    out = [
        DatasetRecord(int(i), ns, name, None, kind, uri, int(created), 0)
        for i, ns, name, kind, uri, created in conn.execute(stmt, params)
    ]
    return total, out


def facets_at(
    conn: Connection, table: Table, owners: Iterable[int], at: Instant
) -> dict[int, dict[str, str]]:
    """Owner id -> {facet name: stored JSON} of its facets at ``at``.

    A job's are exact (:func:`.job_facets_at.job_facets_at`: a facet stated
    again since is read from the job's events). A dataset's are those the
    store knows without its events (:func:`dataset_facets_then`: not all, A, B, A left out).
    """
    if table is t.job_facets:
        return job_facets_at(conn, owners, at)
    return dataset_facets_then(conn, owners, at, exact=False).facets


def dataset_facets_then(
    conn: Connection, owners: Iterable[int], at: Instant, *, exact: bool
) -> DatasetFacetsThen:
    """Datasets' facets at ``at`` and their ``dataSource`` URIs then.

    ``exact``: a facet or URI stated again since is read from the events
    (:func:`.dataset_facets_at.dataset_facets_at`), but for the ``schema``
    (its version then holds it); else it is left out, never shown with the
    later value. Exact costs about 2.5 ms a dataset: asked of one node's
    details, not of pages.
    """
    return dataset_facets_at(conn, owners, at, uris=True, unread=VERSIONED, walk=exact)


def dataset_facet_blobs_at(
    conn: Connection, owners: Iterable[int], name: str, at: Instant
) -> dict[int, str]:
    """Dataset id -> the blob id of its facet ``name`` when its latest statement is by ``at``.

    What :func:`facets_at` would answer for that facet, as an id: the same
    blob is the same payload.
    """
    c = t.dataset_facets.c
    joined, then = stated_then()
    stmt = (
        select(c.owner_id, c.blob_id)
        .select_from(joined)
        .where(c.owner_id.in_(bindparam("owners", expanding=True)))
        .where(c.name == name, then)
    )
    wanted = sorted(set(owners))
    out: dict[int, str] = {}
    for start in range(0, len(wanted), _CHUNK):
        params = {"owners": wanted[start : start + _CHUNK], **at.params()}
        out.update((int(owner), str(blob)) for owner, blob in conn.execute(stmt, params))
    return out
