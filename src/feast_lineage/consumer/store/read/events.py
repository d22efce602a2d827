"""Event reads: the events list and which event keys are stored."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import NamedTuple

from sqlalchemy import Connection, select

from feast_lineage.consumer.store.read.common import (
    _ID_MARGIN,
    NsIds,
    in_ids,
    where_all,
)
from feast_lineage.consumer.store.read.positions import OrderedList
from feast_lineage.consumer.store.schema import tables as t


@dataclass(frozen=True, slots=True)
class EventFilter:
    ns_ids: NsIds = None
    subject_ids: frozenset[int] | None = None
    run_id: str | None = None
    event_type: str | None = None
    since_us: int | None = None
    until_us: int | None = None


class EventRecord(NamedTuple):
    """A stored event as the events list reads it (a row maps straight onto it)."""

    id: int
    event_key: str  # its dedup key
    kind: str  # run, dataset or job
    event_type: str | None
    event_time_us: int
    received_us: int
    run_id: str | None
    payload: str  # the event as stored: canonical JSON text, credentials removed


def job_ids_named(conn: Connection, name: str, ns_ids: NsIds) -> frozenset[int]:
    j = t.jobs.c
    stmt = select(j.id).where(j.name == name, *where_all(in_ids(j.ns_id, ns_ids)))
    return frozenset(conn.execute(stmt).scalars().all())


def events_list(conn: Connection, f: EventFilter) -> OrderedList[EventRecord]:
    e = t.events.c
    where = where_all(
        in_ids(e.ns_id, f.ns_ids),
        in_ids(e.subject_id, f.subject_ids),
        e.run_id == f.run_id if f.run_id is not None else None,
        e.event_type == f.event_type if f.event_type is not None else None,
        e.event_time_us >= f.since_us if f.since_us is not None else None,
        e.event_time_us < f.until_us if f.until_us is not None else None,
    )
    columns = select(
        e.id, e.event_key, e.kind, e.event_type, e.event_time_us, e.received_us, e.run_id, e.payload
    )
    return OrderedList(
        key=("events", f),
        table=t.events,
        order=(e.event_time_us, e.id),
        where=where,
        columns=columns,
        record=EventRecord._make,
        watermark=e.id,
        margin=0 if conn.dialect.name == "sqlite" else _ID_MARGIN,
    )


def stored_event_keys(conn: Connection, keys: Collection[str]) -> set[str]:
    """Those of ``keys`` (dedup keys) whose event is stored."""
    found: set[str] = set()
    wanted = sorted(keys)
    for start in range(0, len(wanted), 2000):
        stmt = select(t.events.c.event_key).where(
            t.events.c.event_key.in_(wanted[start : start + 2000])
        )
        found.update(conn.execute(stmt).scalars().all())
    return found
