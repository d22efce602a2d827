"""The writer: one thread that commits derived events in group commits.

Requests hand their events to :meth:`IngestPipeline.submit` and wait on a
future. The writer thread drains whatever is queued, writes it in a single
transaction and commits once, then answers every waiting request. A request
is acknowledged only after its events are committed. When a group fails, the
writer retries each event in its own transaction, so one bad event fails
alone and never undoes the others.

SQLite allows one writer at a time anyway; one thread with group commit turns
many small requests into few transactions. The thread never runs on the
server's event loop.

On a SQLite file, large bodies come through
:meth:`IngestPipeline.submit_deferred`: the writer itself parses and derives
them, never while it holds the store's write lock, and first of all while
another process holds that lock, so one worker prepares its next group while
the other writes. Parsing in a thread of its own instead would compete for
the process's GIL with the writer, which then holds the lock (and keeps the
other workers waiting) for longer. On PostgreSQL the writer waits inside the
database, with the GIL released, so there a thread parses meanwhile.

A :class:`WriterObserver` handed to the pipeline hears how many requests
wait for the writer and how long each write transaction takes (the server's
metrics, :mod:`feast_lineage.consumer.metrics`).
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol, TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError, OperationalError, SQLAlchemyError

from feast_lineage.consumer.store.engine import counters
from feast_lineage.consumer.store.engine.database import WalCheckpointer
from feast_lineage.consumer.store.engine.meta import ensure_meta
from feast_lineage.consumer.store.engine.transactions import (
    begin_write,
    lock_path,
    write_transaction,
    writer_connection,
    writer_lock,
)
from feast_lineage.consumer.store.schema.codec import PayloadCodec
from feast_lineage.consumer.store.write.batch import remember, write_derived
from feast_lineage.consumer.store.write.cache import WriteCache
from feast_lineage.consumer.store.write.payload_dictionary import TRAIN_AFTER, PayloadDictionary
from feast_lineage.consumer.store.write.rows import RowBatch
from feast_lineage.consumer.store.write.uri_links import LinkedUris

log = logging.getLogger(__name__)

_MAX_GROUP_EVENTS = 5_000


class StoreUnavailable(Exception):
    """The database could not be reached or is locked; the client should retry."""


class EventRejected(Exception):
    """The database refused this event (for example a value it cannot hold)."""


Outcome = Exception | None


T = TypeVar("T")


_PLAIN = object()  # ``prepared`` of a submission that was not deferred


@dataclass(eq=False)
class _Submission:
    items: list[RowBatch]
    future: Future[Any] = field(default_factory=Future)
    # A deferred submission's work, until the writer has done it; ``prepared``
    # then holds the first element of what it returned, for the future.
    prepare: Callable[[], tuple[Any, list[RowBatch]]] | None = None
    prepared: Any = _PLAIN

    def answer(self, outcomes: list[Outcome]) -> None:
        plain = self.prepared is _PLAIN
        self.future.set_result(outcomes if plain else (self.prepared, outcomes))


_STOP = object()


class WriterObserver(Protocol):
    """What the writer tells about its work (called from any thread; must not block)."""

    def queued(self, requests: int) -> None:
        """``requests`` more submissions wait for the writer (negative: fewer)."""

    def transaction(self, seconds: float, events: int) -> None:
        """A group was written in ``seconds`` (its retries included); ``events`` were stored."""


class IngestPipeline:
    def __init__(
        self,
        engine: Engine,
        *,
        on_commit: Callable[[int], None] | None = None,
        observer: WriterObserver | None = None,
        train_after: int = TRAIN_AFTER,
    ):
        self._engine = engine
        self._queue: queue.SimpleQueue[_Submission | object] = queue.SimpleQueue()
        self._cache = WriteCache()
        self.codec = PayloadCodec()  # how payloads are compressed now (derive takes it)
        self._dictionary = PayloadDictionary(engine, self.codec, train_after)
        self._on_commit = on_commit
        self._observer = observer
        self._thread = threading.Thread(target=self._run, name="lineage-writer", daemon=True)
        self._checkpointer = WalCheckpointer(engine)
        self._started = False
        self._conn: Connection | None = None  # used by the writer thread only

    def start(self) -> None:
        with self._engine.begin() as conn:
            ensure_meta(conn)
        self.load_dictionary()
        self._thread.start()
        self._checkpointer.start()
        self._started = True

    def load_dictionary(self) -> None:
        """Compress with the store's payload dictionary from the first event on (trained now
        if the store holds enough events and has none): before the first write."""
        self._dictionary.load(partial(self._train_transaction, False))

    def stop(self) -> None:
        if self._started:
            self._queue.put(_STOP)
            self._thread.join(timeout=30)
            self._checkpointer.stop()
            self._started = False
        self._close_connection()

    def forget_cache(self) -> None:
        """Drop what the writer remembers of stored rows (it rewrites them when seen again).

        Called after a spike of large bodies, so that the memory the cache
        took during it can go back to the system. A new WriteCache replaces
        the old one: the writer thread finishes any transaction with the one
        it holds (and forgets its rows with it), never a half-cleared one.
        """
        self._cache = WriteCache()

    def submit(self, items: list[RowBatch]) -> Future[list[Outcome]]:
        """Queue ``items``; the future gives one outcome per item (None when stored)."""
        sub = _Submission(items)
        if not items:
            sub.future.set_result([])
        else:
            self._enqueue(sub)
        return sub.future

    def _enqueue(self, sub: _Submission) -> None:
        observer = self._observer
        if observer is not None:
            observer.queued(1)
            # Every way a submission ends completes its future (in the writer thread).
            sub.future.add_done_callback(lambda _: observer.queued(-1))
        self._queue.put(sub)

    @property
    def prepares_while_waiting(self) -> bool:
        """Whether :meth:`submit_deferred` work is prepared while another process writes.

        True on a SQLite file, whose write lock the writer can try without
        waiting. A database that takes turns on its own (PostgreSQL) keeps
        the writer waiting inside the database instead, and work is better
        prepared by another thread meanwhile.
        """
        return lock_path(self._engine) is not None

    def submit_deferred(
        self, prepare: Callable[[], tuple[T, list[RowBatch]]]
    ) -> Future[tuple[T, list[Outcome]]]:
        """Queue work for the writer thread: ``prepare()`` gives a value and events.

        The writer calls ``prepare`` without holding the store's write lock,
        then writes its events with the next group. The future gives the
        value and one outcome per event; an exception from ``prepare`` (an
        unusable body) is the future's.
        """
        sub = _Submission([], prepare=prepare)
        self._enqueue(sub)
        return sub.future

    def write_now(self, items: list[RowBatch]) -> list[Outcome]:
        """Write synchronously from the calling thread (used outside a server)."""
        return self._write_group([_Submission(items)], in_writer=False)[0]

    def _run(self) -> None:
        backlog: list[_Submission] = []  # taken from the queue, in arrival order
        stop = False
        while True:
            if not backlog:
                if stop:
                    return
                first = self._queue.get()
                if first is _STOP:
                    return
                assert isinstance(first, _Submission)
                backlog.append(first)
            stop = stop or self._drain(backlog)
            # Something to write before taking the lock; everything when stopping.
            while (stop or not _ready_events(backlog)) and self._prepare_next(backlog):
                pass
            if not backlog:
                continue

            def idle() -> bool:
                # Another process writes: prepare what came meanwhile.
                nonlocal stop
                stop = stop or self._drain(backlog)
                return _ready_events(backlog) < _MAX_GROUP_EVENTS and self._prepare_next(backlog)

            group: list[_Submission] = []
            results: list[list[Outcome]] | None = None
            try:
                # Other processes' writers may hold the store's write lock; what
                # queues up meanwhile joins this group instead of waiting a round.
                with writer_lock(self._engine, idle):
                    stop = stop or self._drain(backlog)
                    group = _take_ready(backlog)
                    results = self._write_group(group, in_writer=True)
            except SQLAlchemyError as err:
                if results is None:  # the write lock could not be taken
                    group = group or _take_ready(backlog)
                    outcome = _classify(err)
                    results = [[outcome] * len(sub.items) for sub in group]
                else:  # written and committed; only giving the lock back failed
                    log.warning("could not release the store's write lock: %s", type(err).__name__)
            except BaseException as err:  # never let the writer die silently
                log.exception("lineage writer failed")
                if results is None:
                    for sub in group or _take_ready(backlog):
                        sub.future.set_exception(err)
            # Answered after the lock is released: waking a request's event
            # loop hands it the GIL, which the writer would otherwise wait for
            # while holding the lock the other workers wait for.
            for sub, outcomes in zip(group, results or (), strict=False):
                sub.answer(outcomes)

    def _prepare_next(self, backlog: list[_Submission]) -> bool:
        """Prepare the first deferred submission of ``backlog``; False when there is none."""
        for index, sub in enumerate(backlog):
            if sub.prepare is None:
                continue
            prepare, sub.prepare = sub.prepare, None
            failure = _prepare(sub, prepare)
            del prepare  # it holds the request's body
            if failure is not None:  # the request's to report (a bad body)
                del backlog[index]
                # The failure's frames lead back here (f_back): this frame
                # must not hold it, nor its future, once it returns.
                _fail(sub, failure)
                del sub, failure
                return True
            if not sub.items:
                del backlog[index]
                sub.answer([])
            return True
        return False

    def _drain(self, group: list[_Submission]) -> bool:
        """Add what is queued to ``group`` (up to a limit); True when asked to stop."""
        count = sum(len(sub.items) for sub in group)
        while count < _MAX_GROUP_EVENTS:
            try:
                nxt = self._queue.get_nowait()
            except queue.Empty:
                return False
            if nxt is _STOP:
                return True
            assert isinstance(nxt, _Submission)
            group.append(nxt)
            count += len(nxt.items)
        return False

    def _transaction(self, items: list[RowBatch], *, in_writer: bool) -> None:
        """Write ``items`` in one transaction.

        ``in_writer``: called by the writer thread, which holds the store's
        write lock already and keeps its connection between transactions.
        """
        merged = RowBatch()
        for item in items:
            merged.merge(item)
        if not in_writer:  # write_now, from any thread: a connection of its own
            with write_transaction(self._engine) as conn:
                links = _write(conn, merged, self._cache)
            remember(merged, self._cache, links)
            return
        for attempt in (1, 2):
            conn = self._connection()
            try:
                with begin_write(conn):
                    links = _write(conn, merged, self._cache)
                break
            except SQLAlchemyError as err:
                self._close_connection()  # a fresh one next time, should this one be broken
                # The kept connection died (a database restart): once more on a new one.
                lost = isinstance(err, DBAPIError) and err.connection_invalidated
                if attempt == 2 or not lost:
                    raise
        remember(merged, self._cache, links)

    @contextlib.contextmanager
    def _train_transaction(self, in_writer: bool) -> Iterator[Connection]:
        """A write transaction as :meth:`_transaction` opens one, for the payload dictionary."""
        if not in_writer:
            with write_transaction(self._engine) as conn:
                yield conn
            return
        with begin_write(self._connection()) as conn:
            yield conn

    def _connection(self) -> Connection:
        """The writer's own connection, kept between transactions (no pool round trip)."""
        if self._conn is None:
            self._conn = writer_connection(self._engine)
        return self._conn

    def _close_connection(self) -> None:  # the writer thread's, or after it stopped
        if self._conn is not None:
            with contextlib.suppress(SQLAlchemyError):
                self._conn.close()
            self._conn = None

    def _write_group(self, group: list[_Submission], *, in_writer: bool) -> list[list[Outcome]]:
        """Write ``group`` in one transaction (one by one should it fail); outcomes per item."""
        items = [item for sub in group for item in sub.items]
        outcomes: list[Outcome]
        started = time.perf_counter()
        try:
            self._transaction(items, in_writer=in_writer)
            outcomes = [None] * len(items)
        except SQLAlchemyError as err:
            if len(items) == 1:
                outcomes = [_classify(err)]
            else:
                log.warning("group commit of %d events failed; retrying one by one", len(items))
                outcomes = []
                for item in items:
                    try:
                        self._transaction([item], in_writer=in_writer)
                        outcomes.append(None)
                    except SQLAlchemyError as one_err:
                        outcomes.append(_classify(one_err))
        stored = sum(1 for o in outcomes if o is None)
        self._dictionary.stored(stored, partial(self._train_transaction, in_writer))
        if self._observer is not None:
            self._observer.transaction(time.perf_counter() - started, stored)
        if self._on_commit is not None:
            self._on_commit(stored)
        results: list[list[Outcome]] = []
        pos = 0
        for sub in group:
            results.append(outcomes[pos : pos + len(sub.items)])
            pos += len(sub.items)
        return results


def _write(conn: Connection, merged: RowBatch, cache: WriteCache) -> LinkedUris:
    links = write_derived(conn, merged, cache)
    if merged.naive_times:
        counters.add(conn, counters.NAIVE_EVENT_TIMES, merged.naive_times)
    return links


def _prepare(
    sub: _Submission, prepare: Callable[[], tuple[Any, list[RowBatch]]]
) -> BaseException | None:
    """Run ``prepare`` into ``sub``; None, or what it raised."""
    try:
        sub.prepared, sub.items = prepare()
    except BaseException as err:
        return err
    return None


def _fail(sub: _Submission, failure: BaseException) -> None:
    """Answer ``sub`` with ``failure``, its frames' variables cleared first.

    The exception goes to the request's future, and would keep every frame
    it went through alive, with the body and the parsed events in their
    variables: a frame that also holds the future (or the exception) makes a
    reference cycle, freed only by a full garbage collection, so rejected
    bodies would pile up in memory. The traceback stays (file and line, for
    the log); the frames it names must all have returned.
    """
    traceback.clear_frames(failure.__traceback__)
    sub.future.set_exception(failure)


def _ready_events(backlog: list[_Submission]) -> int:
    return sum(len(sub.items) for sub in backlog if sub.prepare is None)


def _take_ready(backlog: list[_Submission]) -> list[_Submission]:
    """Remove and return the prepared submissions of ``backlog`` (up to the group limit)."""
    group: list[_Submission] = []
    rest: list[_Submission] = []
    count = 0
    for sub in backlog:
        if sub.prepare is None and (not group or count + len(sub.items) <= _MAX_GROUP_EVENTS):
            group.append(sub)
            count += len(sub.items)
        else:
            rest.append(sub)
    backlog[:] = rest
    return group


# MySQL error numbers that mean "the server cannot take it now", not "this
# event cannot be stored": too many connections, server shutdown, lock wait
# timeout, deadlock, connection killed, and the client's connection errors.
_MYSQL_UNAVAILABLE = frozenset({1040, 1053, 1205, 1213, 1927, 2002, 2003, 2006, 2013, 4031})


def _unavailable(err: SQLAlchemyError) -> bool:
    if isinstance(err, DBAPIError) and err.connection_invalidated:
        return True
    if not isinstance(err, OperationalError):
        return False
    orig = err.orig
    code = orig.args[0] if orig is not None and orig.args else None
    if type(orig).__module__.startswith("pymysql") and isinstance(code, int):
        # PyMySQL reports most server errors as OperationalError.
        return code in _MYSQL_UNAVAILABLE
    return True


def _classify(err: SQLAlchemyError) -> Exception:
    if _unavailable(err):
        log.warning(
            "lineage store unavailable: %s",
            type(err.orig).__name__ if isinstance(err, DBAPIError) else err,
        )
        return StoreUnavailable("the lineage store is unavailable; retry later")
    orig = err.orig if isinstance(err, DBAPIError) else err
    log.warning("lineage store rejected an event: %s", type(orig).__name__)
    reason = str(orig).splitlines()[0][:200] if orig is not None else "unknown error"
    return EventRejected(f"the store could not hold this event ({reason})")
