"""Errors about one event of a request: where it is and what is wrong."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar


@dataclass(frozen=True)
class EventProblem:
    """One problem of one event. ``path`` is a JSON path such as ``$.run.runId``."""

    path: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message}


class InvalidEvent(Exception):
    """An event that cannot be stored, with every problem found."""

    def __init__(self, problems: list[EventProblem]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{p.path}: {p.message}" for p in problems))


E = TypeVar("E", bound=BaseException)


def detached(err: E) -> E:
    """``err`` without the frames it went through, to be kept as a value.

    An exception's traceback keeps every frame it was raised through alive,
    and each frame its local variables: the request body, its parsed events.
    An exception kept as a result (an :class:`InvalidEvent` among a body's
    results) is often held by one of those very frames, a reference cycle
    that only a full garbage collection frees, so rejected bodies would pile
    up in memory. The exceptions it was raised while handling go too.
    """
    err.__traceback__ = None
    err.__context__ = None
    err.__cause__ = None
    return err
