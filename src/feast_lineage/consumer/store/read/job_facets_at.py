"""A job's facets as they stood at an instant: today's rules on the events until then.

The store keeps each job facet's latest statement (``feast_lineage_job_facets``)
and, since migration 0024, the rank of its first. At ``T``:

* a facet whose latest statement is by ``T`` is that statement's payload;
* one first stated after ``T`` did not exist then;
* one stated by ``T`` and again since is read from the job's events (a
  RunEvent's or JobEvent's subject is its job: ``ix_ol_events_subject_time``),
  backward from ``T``: the payload of the latest event by then that carried
  it, ties broken by the event key as ranks break them.

A producer usually states its job facets on every event, so the job's last
event by ``T`` holds them: one statement finds that event for every job
asked, one more reads them. What remains walks back job by job, 16 events
at first and twice as many each time, never below the retention horizon
(older events may be pruned, and one kept could hold a value that pruned
ones replaced) and at most 4,096 events a job (a payload is parsed only
when its text names a facet still wanted): a facet not found within those
bounds is left out, never shown with another value.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import orjson
from sqlalchemy import Connection, and_, bindparam, func, select

from feast_lineage import canonical_json
from feast_lineage.consumer.store.read import dataset_versions as dv
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.schema import tables as t

_CHUNK = 500
_STEP = 16  # events read at first when a job's last event lacks a facet, then twice as many
_MAX_STEP = 512
_BUDGET = 4096  # events read back per job and answer at most: a facet further back is left out

Facets = dict[int, dict[str, str]]  # job id -> {facet name: canonical JSON}


def job_facets_at(conn: Connection, owners: Iterable[int], at: Instant) -> Facets:
    """Job id -> {facet name: stored JSON} of its facets at ``at``, by name."""
    found: Facets = {}
    pending: dict[int, set[str]] = {}
    wanted = sorted(set(owners))
    for start in range(0, len(wanted), _CHUNK):
        _stored(conn, wanted[start : start + _CHUNK], at, found, pending)
    if pending:
        floor = dv.horizon(conn)
        last = _from_last_events(conn, pending, at, floor, found)
        for owner, names in sorted(pending.items()):
            if names and owner in last:
                _walk_back(conn, owner, names, last[owner] - 1, floor, found)
    return {owner: dict(sorted(facets.items())) for owner, facets in found.items()}


def _stored(
    conn: Connection, owners: list[int], at: Instant, found: Facets, pending: dict[int, set[str]]
) -> None:
    """The facets stated last by ``at`` (their stored payload); those stated by then and since."""
    c, b = t.job_facets.c, t.facet_blobs.c
    stmt = (
        select(c.owner_id, c.name, c.rank, c.first_rank, b.payload)
        .join(t.facet_blobs, b.id == c.blob_id)
        .where(c.owner_id.in_(bindparam("owners", expanding=True)))
    )
    bound = at.rank_bound
    for owner, name, rank, first, payload in conn.execute(stmt, {"owners": owners}):
        if rank < bound:
            found.setdefault(int(owner), {})[str(name)] = str(payload)
        elif first is not None and first < bound:
            pending.setdefault(int(owner), set()).add(str(name))


def _from_last_events(
    conn: Connection, pending: dict[int, set[str]], at: Instant, floor: int | None, found: Facets
) -> dict[int, int]:
    """Resolve what each job's last event by ``at`` carried; job id -> that event's time."""
    owners = sorted(pending)
    times: dict[int, int] = {}
    for start in range(0, len(owners), _CHUNK):
        params = {"owners": owners[start : start + _CHUNK], "as_of_us": at.time_us}
        rows = [
            r
            for r in conn.execute(_last_events(), params)
            if floor is None or r.event_time_us >= floor
        ]
        times.update((int(r.subject_id), int(r.event_time_us)) for r in rows)
        _take(rows, pending, found)
    return times


@lru_cache(maxsize=1)
def _last_events() -> Any:
    """Each job's events at its last event time by ``as_of_us``: two seeks of its time index."""
    e, j = t.events.c, t.jobs.c
    last_time = (
        select(func.max(e.event_time_us))
        .where(e.subject_id == j.id, e.event_time_us <= bindparam("as_of_us"))
        .correlate(t.jobs)
        .scalar_subquery()
    )
    on = and_(e.subject_id == j.id, e.event_time_us == last_time)
    return (
        _events()
        .select_from(t.jobs.join(t.events, on))
        .where(j.id.in_(bindparam("owners", expanding=True)))
    )


def _walk_back(
    conn: Connection, owner: int, names: set[str], before: int, floor: int | None, found: Facets
) -> None:
    """Read ``owner``'s events at or before ``before`` (µs), latest first, until ``names`` are.

    At most :data:`_BUDGET` events: what is not found by then is left out.
    """
    e = t.events.c
    pending = {owner: names}
    step, read = _STEP, 0
    while names and read < _BUDGET:
        stmt = _events().where(e.subject_id == owner, e.event_time_us <= before)
        if floor is not None:
            stmt = stmt.where(e.event_time_us >= floor)
        rows = conn.execute(stmt.order_by(e.event_time_us.desc()).limit(step)).all()
        if not rows:
            return
        oldest = rows[-1].event_time_us
        if len(rows) == step:  # the oldest time's events may go on past the limit
            if rows[0].event_time_us == oldest:
                rows = conn.execute(
                    _events().where(e.subject_id == owner, e.event_time_us == oldest)
                ).all()
            else:
                rows = [r for r in rows if r.event_time_us > oldest]
        _take(rows, pending, found)
        before = min(r.event_time_us for r in rows) - 1
        read += len(rows)
        step = min(2 * step, _MAX_STEP)


def _events() -> Any:
    """What a read of events here selects (:func:`_take` reads the rows)."""
    e = t.events.c
    return select(e.subject_id, e.kind, e.event_time_us, e.event_key, e.payload)


@lru_cache(maxsize=1024)
def _key(name: str) -> str:
    """How a facet named ``name`` is keyed in canonical JSON text."""
    return canonical_json.dumps_str(name) + ":"


def _take(rows: Sequence[Any], pending: dict[int, set[str]], found: Facets) -> None:
    """Resolve pending facets from ``rows`` (events), the highest rank first."""
    for row in sorted(rows, key=lambda r: (r.event_time_us, r.event_key), reverse=True):
        names = pending.get(int(row.subject_id))
        if not names or row.kind == "dataset":
            continue
        text = str(row.payload)
        if not any(_key(n) in text for n in names):  # (not parsed when it names none)
            continue
        facets = (orjson.loads(text).get("job") or {}).get("facets")
        if not isinstance(facets, dict):
            continue
        for name in [n for n in names if n in facets]:
            found.setdefault(int(row.subject_id), {})[name] = canonical_json.dumps_str(facets[name])
            names.discard(name)
