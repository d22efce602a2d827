"""When an answer is asked: now, at an instant (``as_of``), or over a window (``since``/``until``).

Every lineage answer (the graph, subgraphs, column lineage, the catalog,
a run's lineage) takes the same value, :data:`When`: ``None`` for now, an
:class:`~..store.read.as_of.Instant`, or a :class:`~..store.read.window.Window`.
:func:`when` turns the request's three times into it and :func:`answerable`
refuses an instant the store can no longer answer exactly. An ``as_of`` at or
after now is the instant now, a :class:`NowInstant`: answered as any instant
(each node's version then), with what is known of now only (the graph's health).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import overload

from sqlalchemy import Connection

from feast_lineage.consumer.errors import LineageError
from feast_lineage.consumer.store.read import dataset_versions as dv
from feast_lineage.consumer.store.read import window as window_reads
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.window import Window
from feast_lineage.event_time import to_iso

History = Instant | Window
When = History | None  # None: now


@dataclass(frozen=True, slots=True)
class NowInstant(Instant):
    """An ``as_of`` at or after now, asked at now: its answer is the instant's, and the
    graph's nodes carry their health as the answer without ``as_of`` does."""


def at_instant(as_of_us: int, now_us: int) -> Instant:
    """The instant ``as_of_us``; one not in the past is now (:class:`NowInstant`)."""
    return NowInstant(now_us) if as_of_us >= now_us else Instant(as_of_us)


def when(as_of_us: int | None, since_us: int | None, until_us: int | None, now_us: int) -> When:
    """What an answer is asked at: an instant (a future one is now), a window, or now (None)."""
    if as_of_us is not None and (since_us is not None or until_us is not None):
        raise LineageError(
            "as_of asks the lineage at one instant and since/until over a window: "
            "pass as_of alone, or since and/or until alone",
            code="invalid_parameter",
        )
    if as_of_us is not None:
        return at_instant(as_of_us, now_us)
    if since_us is not None or until_us is not None:
        return Window(since_us, until_us)
    return None


@overload
def answerable(conn: Connection, at: History) -> History: ...
@overload
def answerable(conn: Connection, at: When) -> When: ...


def answerable(conn: Connection, at: When) -> When:
    """What is answered: an instant or a window start before the retention horizon is refused.

    The 400 names the oldest instant still answered; a window without
    ``since`` starts at the horizon after a prune (its answer says so).
    """
    if at is None:
        return at
    horizon = dv.horizon(conn)
    if horizon is None:
        return at
    if isinstance(at, Instant) and at.time_us < horizon:
        raise before_horizon(
            "as_of",
            f"as_of {to_iso(at.time_us)} is before the retention horizon: the oldest instant "
            f"still answered is {to_iso(horizon)}",
            horizon,
        )
    if isinstance(at, Window):
        if at.since_us is not None and at.since_us < horizon:
            raise before_horizon(
                "since",
                f"since {to_iso(at.since_us)} is before the retention horizon: runs that ended "
                f"before it were pruned; pass since at or after {to_iso(horizon)}",
                horizon,
            )
        return window_reads.from_horizon(at, horizon)
    return at


def before_horizon(parameter: str, message: str, horizon_us: int) -> LineageError:
    """The 400 of a time before the retention horizon: ``invalid_parameter``, with a
    ``details`` item (code ``before_retention_horizon``) naming the parameter and the
    horizon, the oldest instant still answered, for a client to offer it."""
    detail = {
        "path": parameter,
        "code": "before_retention_horizon",
        "message": message,
        "horizon": to_iso(horizon_us),
    }
    return LineageError(message, code="invalid_parameter", details=[detail])


def echo(at: When) -> tuple[str | None, str | None, str | None]:
    """(as_of, since, until) as the answer states them."""
    if isinstance(at, Instant):
        return to_iso(at.time_us), None, None
    if isinstance(at, Window):
        return None, to_iso(at.since_us), to_iso(at.until_us)
    return None, None, None
