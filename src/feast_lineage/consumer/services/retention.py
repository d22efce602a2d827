"""Retention: pruning events and runs older than ``retention_days``.

:class:`Retention` runs a prune on request (``POST .../retention/prune``)
and, when started, every ``retention_check_interval_hours`` in a daemon
thread, never on the server's event loop. The first background prune runs
one interval after startup. The app starts the thread only when
``AppSettings.run_retention`` is true and ``retention_days`` > 0: with
``standalone_server: true`` the embedded server leaves it to the standalone
lineage server.

Every worker process of a server runs the schedule; before each scheduled
prune it claims the turn in the store (:func:`maintenance.claim_prune`), so
one process prunes and the others skip. The last prune's result is kept in
the store too, so whichever process answers ``GET .../retention`` reports it.
"""

from __future__ import annotations

import logging
import threading
import time

from pydantic import ValidationError
from sqlalchemy import Engine

from feast_lineage.consumer.schemas import PruneResult
from feast_lineage.consumer.store import maintenance, reads, writes
from feast_lineage.consumer.store.transactions import write_transaction
from feast_lineage.event_time import now_us, to_iso

log = logging.getLogger(__name__)

DAY_US = 86_400 * 1_000_000


class Retention:
    def __init__(self) -> None:
        self._lock = threading.Lock()  # one prune at a time
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def prune(self, engine: Engine, retention_days: int) -> PruneResult:
        """Remove what is older than ``retention_days`` (0: nothing)."""
        with self._lock:
            started = time.monotonic()
            if retention_days <= 0:
                cutoff, removed = None, {}
            else:
                cutoff = now_us() - retention_days * DAY_US
                removed = maintenance.prune(engine, cutoff).counts
            result = PruneResult(
                cutoff=to_iso(cutoff),
                removed=removed,
                finished_at=to_iso(now_us()) or "",
                duration_ms=int((time.monotonic() - started) * 1000),
            )
            with write_transaction(engine) as conn:
                writes.write_meta(conn, maintenance.LAST_PRUNE_KEY, result.model_dump_json())
        if removed:
            log.info("retention prune before %s removed %s", result.cutoff, removed)
        return result

    @staticmethod
    def last(engine: Engine) -> PruneResult | None:
        """The result of the last prune of this store, by any process."""
        with engine.connect() as conn:
            saved = reads.read_meta(conn, maintenance.LAST_PRUNE_KEY)
        if saved is None:
            return None
        try:
            return PruneResult.model_validate_json(saved)
        except ValidationError:  # written by another version: not worth failing over
            return None

    def start(self, engine: Engine, retention_days: int, interval_hours: float) -> None:
        interval = interval_hours * 3600
        # Half an interval: a claim by another process this round wins, and a
        # process whose timer drifted still prunes next round.
        min_gap_us = int(interval * 1_000_000 / 2)

        def loop() -> None:
            while not self._stop.wait(interval):
                try:
                    if maintenance.claim_prune(engine, now_us(), min_gap_us):
                        self.prune(engine, retention_days)
                except Exception:
                    log.exception("retention prune failed; retrying in %s hours", interval_hours)

        self._thread = threading.Thread(target=loop, name="lineage-retention", daemon=True)
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None
