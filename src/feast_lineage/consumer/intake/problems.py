"""Errors about one event of a request: where it is and what is wrong."""

from __future__ import annotations

from dataclasses import dataclass


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
