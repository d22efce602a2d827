"""Event browsing."""

from __future__ import annotations

import orjson
from sqlalchemy import Engine

from feast_lineage.consumer.schemas import EventItem, EventPage
from feast_lineage.consumer.store import reads
from feast_lineage.event_time import to_iso


def event_page(engine: Engine, *, limit: int, offset: int) -> EventPage:
    with engine.connect() as conn:
        total = reads.count_events(conn)
        rows = reads.list_events(conn, limit=limit, offset=offset)
    items = [
        EventItem(
            id=row.id,
            event_type=row.event_type,
            event_time=to_iso(row.event_time_us) or "",
            received_at=to_iso(row.received_us) or "",
            kind=row.kind,
            run_id=row.run_id,
            event=orjson.loads(row.payload),
        )
        for row in rows
    ]
    return EventPage(items=items, total=total, limit=limit, offset=offset)
