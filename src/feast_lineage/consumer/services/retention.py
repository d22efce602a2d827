"""Retention: pruning events and runs older than ``retention_days``.

:class:`Retention` runs a prune on request (``POST .../retention/prune``)
and, when started, every ``retention_check_interval_hours`` in a daemon
thread, never on the server's event loop. The first background prune runs
one interval after startup. The app starts the thread only when
``AppSettings.run_retention`` is true and ``retention_days`` > 0: with
``standalone_server: true`` the embedded server leaves it to the standalone
lineage server.

Every worker process of a server runs the schedule; before each scheduled
prune it claims the turn in the store (:func:`prune_claims.claim_prune`), so
one process prunes and the others skip. The last prune's result is kept in
the store too, so whichever process answers ``GET .../retention`` reports it;
prunes that ran at the same time (a prune on request while the scheduled one
runs in another process) are reported together, their removals summed.

``on_prune`` (the server's metrics) hears of every prune: its trigger
(``scheduled`` or ``manual``), whether it succeeded, and its time.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from pydantic import ValidationError
from sqlalchemy import Engine

from feast_lineage.consumer.schemas import PruneResult
from feast_lineage.consumer.store.admin import prune as store_prune
from feast_lineage.consumer.store.admin import prune_claims
from feast_lineage.consumer.store.engine import meta
from feast_lineage.consumer.store.engine.transactions import write_transaction
from feast_lineage.event_time import MIN_US, now_us, parse_us, to_iso

log = logging.getLogger(__name__)

DAY_US = 86_400 * 1_000_000
# The first check of the schedule after start (seconds): soon, not at once.
_FIRST_CHECK_S = 60.0


# Who hears of a prune: its trigger, whether it succeeded, and its time in seconds.
PruneObserver = Callable[[str, bool, float], None]


class Retention:
    def __init__(self, on_prune: PruneObserver | None = None) -> None:
        self._lock = threading.Lock()  # one prune at a time
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._on_prune = on_prune
        # The schedule's rounds done (claimed or not): what a test waits for, not a time.
        self.rounds = 0

    def prune(self, engine: Engine, retention_days: int, *, trigger: str = "manual") -> PruneResult:
        """Remove what is older than ``retention_days`` (0: nothing).

        No stored time is before 1900 (ingest refuses them), so a cutoff
        before then is 1900: more days than that (a configured
        ``retention_days`` of a million) remove nothing rather than fail.
        ``trigger`` says who asked (``manual`` or ``scheduled``), for ``on_prune``.
        """
        started = time.monotonic()
        ok = False
        try:
            result = self._prune(engine, retention_days)
            ok = True
            return result
        finally:
            if self._on_prune is not None:
                self._on_prune(trigger, ok, time.monotonic() - started)

    def _prune(self, engine: Engine, retention_days: int) -> PruneResult:
        with self._lock:
            started = time.monotonic()
            started_us = now_us()
            if retention_days <= 0:
                cutoff, removed = None, {}
            else:
                cutoff = max(now_us() - retention_days * DAY_US, MIN_US)
                removed = store_prune.prune(engine, cutoff).counts
            result = PruneResult(
                message="Pruning completed",
                deleted=removed,
                cutoff=to_iso(cutoff),
                removed=removed,
                finished_at=to_iso(now_us()) or "",
                duration_ms=int((time.monotonic() - started) * 1000),
            )
            with write_transaction(engine) as conn:  # holds the write lock: no update lost
                last = _merged(
                    _parse(meta.read_meta(conn, prune_claims.LAST_PRUNE_KEY)),
                    result,
                    started_us,
                )
                meta.write_meta(conn, prune_claims.LAST_PRUNE_KEY, last.model_dump_json())
        if removed:
            log.info("retention prune before %s removed %s", result.cutoff, removed)
        return result

    @staticmethod
    def last(engine: Engine) -> PruneResult | None:
        """The result of the last prune of this store, by any process."""
        with engine.connect() as conn:
            return _parse(meta.read_meta(conn, prune_claims.LAST_PRUNE_KEY))

    def start(self, engine: Engine, retention_days: int, interval_hours: float) -> None:
        """Prune every ``interval_hours``, counted from the store's last scheduled prune.

        The schedule lives in the store (the time of the last claim), not in
        this process: a server restarted more often than the interval still
        prunes once an interval, and the first check comes soon after start
        (``_FIRST_CHECK_S``, or the interval when shorter) rather than a whole
        interval later. Every worker runs this loop; one claims each round.
        """
        interval = interval_hours * 3600
        interval_us = int(interval * 1_000_000)

        def loop() -> None:
            wait = min(interval, _FIRST_CHECK_S)
            while not self._stop.wait(wait):
                try:
                    if prune_claims.claim_prune(engine, now_us(), interval_us):
                        self.prune(engine, retention_days, trigger="scheduled")
                    wait = _until_due(engine, interval_us)
                except Exception:
                    log.exception("retention prune failed; retrying in %s hours", interval_hours)
                    wait = interval
                self.rounds += 1

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


def _parse(saved: str | None) -> PruneResult | None:
    if saved is None:
        return None
    try:
        return PruneResult.model_validate_json(saved)
    except ValidationError:  # written by another version: not worth failing over
        return None


def _merged(saved: PruneResult | None, result: PruneResult, started_us: int) -> PruneResult:
    """``result``, together with ``saved`` when that prune was still running as this one began.

    Two prunes at once (in two processes) each delete part of what is due;
    either alone would under-report. Together: the removals summed, the
    later cutoff (everything before it is gone), from the earlier start to
    the later finish.
    """
    if saved is None or parse_us(saved.finished_at) < started_us:
        return result
    saved_start = parse_us(saved.finished_at) - saved.duration_ms * 1000
    finished = max(parse_us(saved.finished_at), parse_us(result.finished_at))
    cutoffs = [parse_us(c) for c in (saved.cutoff, result.cutoff) if c is not None]
    removed = dict(saved.removed)
    for table, count in result.removed.items():
        removed[table] = removed.get(table, 0) + count
    return PruneResult(
        message="Pruning completed",
        deleted=removed,
        cutoff=to_iso(max(cutoffs)) if cutoffs else None,
        removed=removed,
        finished_at=to_iso(finished) or "",
        # (never shorter than either: their durations are of the monotonic clock, the span
        # of wall-clock times rounded to the millisecond)
        duration_ms=max(
            (finished - min(saved_start, started_us)) // 1000,
            saved.duration_ms,
            result.duration_ms,
        ),
        prunes=saved.prunes + result.prunes,
    )


def _until_due(engine: Engine, interval_us: int) -> float:
    """Seconds until the next scheduled prune is due (at least one)."""
    claimed = prune_claims.last_prune_claim(engine)
    if claimed is None:
        return 1.0
    return max((claimed + interval_us - now_us()) / 1_000_000, 1.0)
