"""Event browsing: filtered pages of stored events, newest first.

A page is an :class:`~feast_lineage.consumer.schemas.EventPage` (Feast's
fields first, :mod:`..feast_shape`); stored events are embedded as stored
(:class:`~feast_lineage.consumer.schemas.StoredEventText`), redacted first
for a caller who may not see every namespace.
"""

from __future__ import annotations

from typing import NamedTuple

import orjson
from pydantic import JsonValue

from feast_lineage.canonical_json import dumps_str
from feast_lineage.consumer import redaction
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.feast_shape import ms
from feast_lineage.consumer.schemas import EventItem, EventPage, StoredEventText
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.engine import meta
from feast_lineage.consumer.store.read import events as event_reads
from feast_lineage.consumer.store.read import runs as run_reads
from feast_lineage.consumer.store.read.events import EventRecord
from feast_lineage.event_time import to_iso
from feast_lineage.identity import job_id


def event_page(
    read: StoreReader,
    *,
    namespace: str | None = None,
    job_name: str | None = None,
    job_search: str | None = None,
    run_id: str | None = None,
    event_type: str | None = None,
    since_us: int | None = None,
    until_us: int | None = None,
    limit: int,
    offset: int,
) -> EventPage:
    narrowed = read.scope.narrow(namespace)
    with read.engine.connect() as conn:
        subjects: frozenset[int] | None = None
        if job_name is not None:
            if namespace is not None:
                subjects = frozenset({job_id(namespace, job_name)})
            else:
                subjects = event_reads.job_ids_named(conn, job_name, narrowed.ns_ids)
        if job_search is not None:
            found = run_reads.job_ids_containing(conn, job_search, narrowed.ns_ids)
            subjects = found if subjects is None else subjects & found
        wanted = event_reads.EventFilter(
            ns_ids=narrowed.ns_ids,
            subject_ids=subjects,
            run_id=run_id,
            event_type=event_type,
            since_us=since_us,
            until_us=until_us,
        )
        page = read.positions.page(
            conn,
            event_reads.events_list(conn, wanted),
            meta.generation(conn),
            offset=offset,
            limit=limit,
        )
    items = [_item(row, read.scope) for row in page.rows]
    return EventPage(events=items, total=page.total, limit=limit, offset=offset)


def _item(row: EventRecord, scope: Scope) -> EventItem:
    """One stored event as the caller may see it."""
    value: JsonValue = orjson.loads(row.payload)
    text = row.payload
    if not scope.is_everything and isinstance(value, dict):
        value = redaction.event(value, scope)
        text = dumps_str(value)
    job = _job_of(value)
    return EventItem(
        event_id=row.event_key,
        event_type=row.event_type,
        event_time=ms(row.event_time_us),
        producer=job.producer,
        job_namespace=job.namespace,
        job_name=job.name,
        run_id=row.run_id,
        event_json=text,
        created_at=ms(row.received_us),
        id=row.id,
        event_time_iso=to_iso(row.event_time_us) or "",
        created_at_iso=to_iso(row.received_us) or "",
        kind=row.kind,
        event=StoredEventText(text),
    )


class _JobOf(NamedTuple):
    producer: str | None
    namespace: str | None
    name: str | None


def _text(value: JsonValue) -> str | None:
    return value if isinstance(value, str) else None


def _job_of(event: JsonValue) -> _JobOf:
    """The producer and the job of a decoded event."""
    if not isinstance(event, dict):
        return _JobOf(None, None, None)
    job = event.get("job")
    producer = _text(event.get("producer"))
    if not isinstance(job, dict):
        return _JobOf(producer, None, None)
    return _JobOf(producer, _text(job.get("namespace")), _text(job.get("name")))
