"""A dataset's latest-write marker as the events that remain make it (after a namespace reset).

The marker (``producer_rank`` and ``producer``: whether a dataset was
written, the graph's ``written``, who produced it) is set by ingest from
each event as it comes. Once a namespace's events are gone
(:mod:`.reset_others`), :func:`latest_mark` sets it again from those that
remain: the latest that wrote or declared the dataset, else the first that
read or named it, else none. All by index: its latest DatasetEvent, its
latest version written by a COMPLETE run, and each job with an output edge
into it, at its latest listing above those whose run listed the dataset,
among its latest :data:`WINDOW` (a write that only a START or RUNNING event
listed, further back than that, is not looked for); reads likewise from
each reader's first listings (beyond the window only when none is within
it) and the first explicit lineage statement naming it. A listing's event
is read to check it listed the dataset (a run's events may list different
outputs) and for its producer; one a prune deleted counts, with its job's
producer.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from typing import Any

import orjson
from sqlalchemy import BigInteger, Connection, Select, String, bindparam, exists, select, union

from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.write.producer_rank import event_rank, producer_rank
from feast_lineage.identity import dataset_id

# Listings of a job read at most for one dataset's marker (beyond its window).
LOOK = 4096
# The listings of each job a marker or a state is looked for in first (module doc).
WINDOW = 64


@dataclass(frozen=True, slots=True)
class Mark:
    """A dataset's latest-write marker: its producer rank and producer."""

    rank: str
    producer: str | None


def event_key(rank: str) -> str:
    """The key of the event of ``rank`` (both are its sort time, then its content digest)."""
    return f"{int(rank[:20]):016x}{rank[20:]}"


def _rank(key: str) -> str:
    return f"{int(key[:16], 16):020d}{key[16:]}"


def _event(conn: Connection, key: str) -> dict[str, Any] | None:
    payload = conn.execute(select(t.events.c.payload).where(t.events.c.event_key == key)).scalar()
    if payload is None:
        return None
    event = orjson.loads(payload)
    return event if isinstance(event, dict) else None


def _lists(event: dict[str, Any], did: int, direction: str) -> bool:
    """Whether ``event`` lists dataset ``did`` among its inputs or outputs (``direction``)."""
    listed = event.get("inputs" if direction == "input" else "outputs")
    for ds in listed if isinstance(listed, list) else ():
        if isinstance(ds, dict):
            ns, name = ds.get("namespace"), ds.get("name")
            if isinstance(ns, str) and isinstance(name, str) and dataset_id(ns, name) == did:
                return True
    return False


def _run_listed(run_key: Any, direction: str) -> Any:
    """Whether the run of an io listing (its ``run_key``) listed dataset ``:did``."""
    io = t.run_io.c
    did = bindparam("did", type_=BigInteger)
    return exists().where(io.run_id == run_key, io.dataset_id == did, io.direction == direction)


@lru_cache(maxsize=8)
def _window(direction: str, *, newest: bool, window: int | None) -> Select[Any]:
    """The ranks of job ``:job``'s listings from ``:since`` on whose run listed dataset
    ``:did``, latest (``newest``) or first first; ``window``: among its first that many
    listings only. One statement of each shape, compiled once."""
    lst = t.io_listings.c
    order = lst.rank.desc() if newest else lst.rank
    job = bindparam("job", type_=BigInteger)
    since = bindparam("since", type_=String)
    mine = (lst.job_id == job, lst.direction == direction, lst.rank >= since)
    if window is None:
        listed = _run_listed(lst.run_key, direction)
        return select(lst.rank).where(*mine, listed).order_by(order)
    first = select(lst.rank, lst.run_key).where(*mine).order_by(order).limit(window).subquery()
    ordered = first.c.rank.desc() if newest else first.c.rank
    listed = _run_listed(first.c.run_key, direction)
    return select(first.c.rank).where(listed).order_by(ordered)


def _ends(
    conn: Connection,
    did: int,
    direction: str,
    jobs: Iterable[int],
    *,
    newest: bool,
    since: str = "",
    window: int | None = None,
) -> dict[int, str]:
    """Job -> the rank of its latest (``newest``) or first listing from ``since`` on whose run
    listed ``did`` in ``direction`` (``window``: among its first that many): one seek of each
    job's listings."""
    stmt = _window(direction, newest=newest, window=window).limit(1)
    out: dict[int, str] = {}
    for job in sorted(set(jobs)):
        rank = conn.execute(stmt, {"job": job, "did": did, "since": since}).scalar()
        if rank is not None:
            out[job] = rank
    return out


def _listings(
    conn: Connection, job: int, did: int, direction: str, *, newest: bool, past: str
) -> Iterator[str]:
    """The ranks of the job's listings past ``past`` (below it when ``newest``) whose run listed
    ``did`` in ``direction``, by pages, at most :data:`LOOK`."""
    lst = t.io_listings.c
    looked, page = 0, 8
    while looked < LOOK:
        beyond = lst.rank < past if newest else lst.rank > past
        stmt = (
            select(lst.rank)
            .where(
                lst.job_id == job,
                lst.direction == direction,
                beyond,
                _run_listed(lst.run_key, direction),
            )
            .order_by(lst.rank.desc() if newest else lst.rank)
            .limit(page)
        )
        ranks = list(conn.execute(stmt, {"did": did}).scalars())
        yield from ranks
        if len(ranks) < page:
            return
        looked, past, page = looked + page, ranks[-1], min(page * 8, LOOK)


def _jobs(conn: Connection, did: int, direction: str) -> dict[int, str | None]:
    """The jobs with a ``direction`` edge of ``did``, and their producers."""
    e, j = t.lineage_edges.c, t.jobs.c
    if direction == "output":
        ids = select(e.src_id).where(e.dst_id == did, e.edge_type == "output")
    else:
        ids = select(e.dst_id).where(e.src_id == did, e.edge_type == "input")
    rows = conn.execute(select(j.id, j.producer).where(j.id.in_(ids)))
    return {int(job): producer for job, producer in rows}


def _checked(
    conn: Connection, did: int, direction: str, rank: str, producer: str | None
) -> Mark | None:
    """The mark of the job's listing of ``rank`` when its event lists ``did`` (or was pruned:
    its run listed the dataset then, and the job's producer stands for the event's)."""
    writes = direction == "output"
    event = _event(conn, event_key(rank))
    if event is None:
        return Mark(producer_rank(rank, writes=writes), producer)
    if _lists(event, did, direction):
        return Mark(producer_rank(rank, writes=writes), str(event.get("producer")))
    return None


def _by_jobs(
    conn: Connection, did: int, direction: str, known: list[Mark], window: int | None = None
) -> Mark | None:
    """The best of ``known`` and the jobs' latest write (``output``) or first read (``input``)
    of ``did`` (``window``: among each job's latest or first that many listings): each job's
    end is a bound, checked against its event only when it leads."""
    writes = direction == "output"
    jobs = _jobs(conn, did, direction)
    best = max(known, key=lambda mark: mark.rank, default=None)
    # A write ranked below the best known cannot win: each job's listings above it only.
    floor = event_rank(best.rank) if writes and best is not None else ""
    ends = _ends(conn, did, direction, jobs, newest=writes, since=floor, window=window)
    bounds = {job: producer_rank(rank, writes=writes) for job, rank in ends.items()}
    while bounds:
        job = max(bounds, key=bounds.__getitem__)
        bound = bounds.pop(job)
        if best is not None and best.rank >= bound:
            return best
        end = event_rank(bound)
        # The job's listings from its end on rank lower and lower as marks: the first that
        # checks is its mark, and none past the best can win.
        ranks: Iterable[str] = (
            chain([end], _listings(conn, job, did, direction, newest=writes, past=end))
            if window is None
            else conn.execute(
                _window(direction, newest=writes, window=window),
                {"job": job, "did": did, "since": floor},
            ).scalars()
        )
        for rank in ranks:
            if best is not None and best.rank >= producer_rank(rank, writes=writes):
                break
            mark = _checked(conn, did, direction, rank, jobs[job])
            if mark is not None:
                best = mark
                break
    return best


def _completed(conn: Connection, did: int) -> Iterator[Mark]:
    """Its latest write by a COMPLETE run (its latest version row that is a write)."""
    v, ev = t.dataset_versions.c, t.events.c
    latest = conn.execute(
        select(v.time_us, v.run_id)
        .where(v.dataset_id == did, v.writes == 1)
        .order_by(v.time_us.desc())
        .limit(1)
    ).first()
    if latest is None or latest.run_id is None:
        return
    run = str(uuid.UUID(bytes=bytes(latest.run_id)))
    events = select(ev.event_key, ev.payload).where(
        ev.run_id == run, ev.event_time_us == latest.time_us, ev.event_type == "COMPLETE"
    )
    for key, payload in conn.execute(events).all():
        event = orjson.loads(payload)
        if isinstance(event, dict) and _lists(event, did, "output"):
            yield Mark(producer_rank(_rank(key), writes=True), str(event.get("producer")))


def _declared(conn: Connection, did: int) -> Iterator[Mark]:
    """Its latest DatasetEvent."""
    ev = t.events.c
    latest = (
        select(ev.event_key, ev.payload)
        .where(ev.subject_id == did, ev.kind == "dataset")
        .order_by(ev.event_time_us.desc(), ev.event_key.desc())
        .limit(1)
    )
    for key, payload in conn.execute(latest):
        event = orjson.loads(payload)
        producer = event.get("producer") if isinstance(event, dict) else None
        yield Mark(producer_rank(_rank(key), writes=True), str(producer))


def _named(conn: Connection, did: int) -> Iterator[Mark]:
    """The first statement of each explicit lineage payload naming it."""
    x, s = t.explicit_edges.c, t.explicit_statements.c
    payloads = union(
        select(x.owner_id, x.facet, x.origin, x.digest).where(x.src_id == did),
        select(x.owner_id, x.facet, x.origin, x.digest).where(x.dst_id == did),
    )
    for owner, facet, origin, digest in conn.execute(payloads).all():
        first = conn.execute(
            select(s.rank)
            .where(s.owner_id == owner, s.facet == facet, s.origin == origin, s.digest == digest)
            .order_by(s.rank)
            .limit(1)
        ).scalar()
        event = _event(conn, event_key(first)) if first is not None else None
        if first is not None and event is not None:
            yield Mark(producer_rank(first, writes=False), str(event.get("producer")))


def latest_mark(conn: Connection, did: int) -> Mark | None:
    """The marker the remaining events give ``did`` (None: none names it): its latest
    DatasetEvent, its latest COMPLETE write, and each writer's latest write among its latest
    :data:`WINDOW` listings, the latest of them; else the first read, among each reader's
    first :data:`WINDOW` listings, or beyond when none is, or the first explicit mention."""
    known = [*_declared(conn, did), *_completed(conn, did)]
    written = _by_jobs(conn, did, "output", known, WINDOW)
    if written is not None:
        return written
    named = list(_named(conn, did))
    read = _by_jobs(conn, did, "input", [], WINDOW)
    if read is None:
        return _by_jobs(conn, did, "input", named)
    return max([read, *named], key=lambda mark: mark.rank)
