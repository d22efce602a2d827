"""Event browsing: filtered pages of stored events, newest first.

A page is a plain dict in the shape of :class:`~feast_lineage.consumer.schemas.EventPage` (Feast's
fields first, :mod:`..feast_shape`);
stored events are embedded as stored (``orjson.Fragment``) unless they must be redacted.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import orjson

from feast_lineage.canonical_json import dumps_str
from feast_lineage.consumer import redaction
from feast_lineage.consumer.feast_shape import ms
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.engine import meta
from feast_lineage.consumer.store.read import events as event_reads
from feast_lineage.consumer.store.read import runs as run_reads
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
) -> dict[str, Any]:
    scope = read.scope
    narrowed = scope.narrow(namespace)
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
        spec = event_reads.events_list(
            conn,
            event_reads.EventFilter(
                ns_ids=narrowed.ns_ids,
                subject_ids=subjects,
                run_id=run_id,
                event_type=event_type,
                since_us=since_us,
                until_us=until_us,
            ),
        )
        page = read.positions.page(
            conn,
            spec,
            meta.generation(conn),
            event_reads.event_columns(),
            offset=offset,
            limit=limit,
        )
    items = []
    for row in page.rows:
        event = redaction.stored_event(row.payload, scope)
        shown = row.payload if isinstance(event, orjson.Fragment) else dumps_str(event)
        job = _job_of(row.payload if isinstance(event, orjson.Fragment) else event)
        items.append(
            {
                "event_id": row.event_key,
                "event_type": row.event_type,
                "event_time": ms(row.event_time_us),
                "producer": job.producer,
                "job_namespace": job.namespace,
                "job_name": job.name,
                "run_id": row.run_id,
                "event_json": shown,
                "created_at": ms(row.received_us),
                "id": row.id,
                "event_time_iso": to_iso(row.event_time_us) or "",
                "created_at_iso": to_iso(row.received_us) or "",
                "kind": row.kind,
                "event": event,
            }
        )
    return {"events": items, "total": page.total, "limit": limit, "offset": offset}


class _JobOf(NamedTuple):
    producer: str | None
    namespace: str | None
    name: str | None


def _job_of(event: str | dict[str, Any]) -> _JobOf:
    """The producer and the job of an event (stored text, or decoded)."""
    value = orjson.loads(event) if isinstance(event, str) else event
    job = value.get("job") if isinstance(value, dict) else None
    producer = value.get("producer") if isinstance(value, dict) else None
    if not isinstance(job, dict):
        return _JobOf(producer if isinstance(producer, str) else None, None, None)
    namespace, name = job.get("namespace"), job.get("name")
    return _JobOf(
        producer if isinstance(producer, str) else None,
        namespace if isinstance(namespace, str) else None,
        name if isinstance(name, str) else None,
    )
