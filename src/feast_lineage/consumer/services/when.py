"""When an answer is asked: now, at an instant (``as_of``), or over a window (``since``/``until``).

Every lineage answer (the graph, subgraphs, column lineage, the catalog,
a run's lineage) takes the same value, :data:`When`: ``None`` for now, an
:class:`~..store.read.as_of.Instant`, or a :class:`~..store.read.window.Window`.
:func:`when` turns the request's three times into it and :func:`answerable`
refuses an instant the store can no longer answer exactly.
"""

from __future__ import annotations

from sqlalchemy import Connection

from feast_lineage.consumer.errors import LineageError
from feast_lineage.consumer.store.read import dataset_versions as dv
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.window import Window
from feast_lineage.event_time import to_iso

History = Instant | Window
When = History | None  # None: now


def when(as_of_us: int | None, since_us: int | None, until_us: int | None, now_us: int) -> When:
    """What an answer is asked at: an instant (a future one is now), a window, or now (None)."""
    if as_of_us is not None and (since_us is not None or until_us is not None):
        raise LineageError(
            "as_of asks the lineage at one instant and since/until over a window: "
            "pass as_of alone, or since and/or until alone",
            code="invalid_parameter",
        )
    if as_of_us is not None:
        return Instant(min(as_of_us, now_us))
    if since_us is not None or until_us is not None:
        return Window(since_us, until_us)
    return None


def instant(as_of_us: int | None, now_us: int) -> Instant | None:
    """An ``as_of`` alone (an answer that takes no window): a future instant is now."""
    return None if as_of_us is None else Instant(min(as_of_us, now_us))


def answerable(conn: Connection, at: When) -> None:
    """An instant before the retention horizon is refused, naming the oldest one answered."""
    if not isinstance(at, Instant):
        return
    horizon = dv.horizon(conn)
    if horizon is not None and at.time_us < horizon:
        raise LineageError(
            f"as_of {to_iso(at.time_us)} is before the retention horizon: the oldest instant "
            f"still answered is {to_iso(horizon)}",
            code="invalid_parameter",
        )


def echo(at: When) -> tuple[str | None, str | None, str | None]:
    """(as_of, since, until) as the answer states them."""
    if isinstance(at, Instant):
        return to_iso(at.time_us), None, None
    if isinstance(at, Window):
        return None, to_iso(at.since_us), to_iso(at.until_us)
    return None, None, None
