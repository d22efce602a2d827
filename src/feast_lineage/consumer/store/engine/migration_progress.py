"""How far an upgrade of the store's schema has got, for a server to tell its probes.

:func:`~feast_lineage.consumer.store.engine.database.upgrade_schema` reports
to a :class:`MigrationProgress` as it goes: waiting for another process's
migration lock, then each pending migration as it starts. Another thread
(the server answering ``/readyz`` meanwhile) reads :meth:`MigrationProgress.now`.
Times come from the injectable ``clock`` (seconds since the epoch).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

Phase = Literal["starting", "waiting", "migrating", "done"]


@dataclass(frozen=True)
class Migration:
    """One Alembic revision: its id and its one-line description."""

    revision: str
    description: str


@dataclass(frozen=True)
class MigrationState:
    """The upgrade at one moment.

    ``phase``: ``starting`` (checking the database), ``waiting`` (another
    process holds the migration lock), ``migrating`` (``current`` runs, the
    ``step``-th of ``steps``) or ``done``. ``since`` is when the upgrade began,
    ``phase_since`` when the phase (or the current migration) began.
    """

    phase: Phase
    since: float
    phase_since: float
    current: Migration | None = None
    step: int = 0
    steps: int = 0


class MigrationProgress:
    """The state of one upgrade, written by the migrating thread, read by others."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        started = clock()
        self._state = MigrationState(phase="starting", since=started, phase_since=started)
        self._pending: tuple[Migration, ...] = ()
        self._lock = threading.Lock()

    def now(self) -> MigrationState:
        with self._lock:
            return self._state

    def waiting(self) -> None:
        """Another process holds the migration lock; this one waits (since the first call)."""
        with self._lock:
            if self._state.phase == "waiting":
                return
        self._set("waiting")

    def plan(self, pending: Sequence[Migration]) -> None:
        """The lock is held: ``pending`` run now, oldest first (none: nothing to do)."""
        with self._lock:
            self._pending = tuple(pending)
        self._start(0)

    def applied(self, revision: str) -> None:
        """``revision`` is applied: the next one starts (one not planned changes nothing)."""
        with self._lock:
            revisions = [m.revision for m in self._pending]
        if revision in revisions:
            self._start(revisions.index(revision) + 1)

    def finished(self) -> None:
        with self._lock:
            if self._state.phase == "done":
                return
        self._set("done")

    def _start(self, index: int) -> None:
        with self._lock:
            pending = self._pending
        if index >= len(pending):
            self._set("done", step=len(pending), steps=len(pending))
        else:
            self._set("migrating", pending[index], step=index + 1, steps=len(pending))

    def _set(
        self, phase: Phase, current: Migration | None = None, *, step: int = 0, steps: int = 0
    ) -> None:
        now = self._clock()
        with self._lock:
            since = self._state.since
            self._state = MigrationState(phase, since, now, current, step, steps)
