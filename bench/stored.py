"""What the in-process history benches read of a filled store before they ask it anything."""

from __future__ import annotations

from sqlalchemy import Connection, func, select

from feast_lineage.consumer.store.schema import tables as t


def event_span(conn: Connection) -> tuple[int, int, int]:
    """(the first event time, the last, in µs since the epoch; how many events the store holds)."""
    e = t.events.c
    first, last, events = conn.execute(
        select(func.min(e.event_time_us), func.max(e.event_time_us), func.count())
    ).one()
    return int(first), int(last), int(events)


def node_names(conn: Connection) -> list[tuple[str, str, str]]:
    """(kind, namespace, name) of every job, then of every dataset: what an answer centres on."""
    j, d = t.jobs.c, t.datasets.c
    found = [("job", ns, name) for ns, name in conn.execute(select(j.namespace, j.name))]
    found += [("dataset", ns, name) for ns, name in conn.execute(select(d.namespace, d.name))]
    return found
