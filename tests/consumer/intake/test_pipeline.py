"""The writer: group commits, isolation of failing events, and acknowledgement."""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError, OperationalError

from feast_lineage.consumer.intake import pipeline as pipeline_module
from feast_lineage.consumer.intake.pipeline import (
    EventRejected,
    IngestPipeline,
    StoreUnavailable,
    _classify,
)
from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema
from feast_lineage.consumer.store.engine.transactions import lock_path
from feast_lineage.consumer.store.schema import tables as t
from tests.factories import at, dataset, run_event
from tests.postgres import free_port
from tests.store_helpers import Store, derive_all


@pytest.fixture
def poisoned(store: Store) -> Iterator[Store]:
    """The store, whose database itself refuses any job named "poison" (a real DB failure)."""
    with store.engine.begin() as conn:
        if store.dialect == "sqlite":
            conn.execute(
                text(
                    "CREATE TRIGGER poison BEFORE INSERT ON feast_lineage_jobs "
                    "WHEN NEW.name = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned job'); END"
                )
            )
        elif store.dialect == "mysql":
            conn.execute(
                text(
                    "CREATE TRIGGER poison BEFORE INSERT ON feast_lineage_jobs FOR EACH ROW "
                    "BEGIN IF NEW.name = 'poison' THEN "
                    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'poisoned job'; END IF; END"
                )
            )
        else:
            conn.execute(
                text(
                    "CREATE FUNCTION poison() RETURNS trigger AS $$ BEGIN "
                    "IF NEW.name = 'poison' THEN RAISE EXCEPTION 'poisoned job'; END IF; "
                    "RETURN NEW; END $$ LANGUAGE plpgsql"
                )
            )
            conn.execute(
                text(
                    "CREATE TRIGGER poison BEFORE INSERT ON feast_lineage_jobs "
                    "FOR EACH ROW EXECUTE FUNCTION poison()"
                )
            )
    yield store
    with store.engine.begin() as conn:
        conn.execute(
            text(
                "DROP TRIGGER poison"
                + (" ON feast_lineage_jobs" if store.dialect == "postgresql" else "")
            )
        )
        if store.dialect == "postgresql":
            conn.execute(text("DROP FUNCTION poison()"))


def _event(name: str, run_id: str | None = None) -> dict[str, Any]:
    return run_event(
        "COMPLETE",
        run_id=run_id or str(uuid.uuid4()),
        job=("ns", name),
        time=at(1),
        inputs=[dataset("s3://b", f"{name}-in")],
        outputs=[dataset("s3://b", f"{name}-out")],
        run_facets={"custom": {"job": name}},
    )


def _stored_runs(store: Store) -> set[str]:
    return {r["run_id"] for r in store.rows(t.runs)}


def test_a_failing_event_does_not_undo_the_others(poisoned: Store) -> None:
    store = poisoned
    events = [_event("a"), _event("poison"), _event("b"), _event("c")]
    outcomes = store.write(*events)
    assert outcomes[0] is None
    assert outcomes[2] is None
    assert outcomes[3] is None
    assert isinstance(outcomes[1], EventRejected)
    assert "could not hold this event" in str(outcomes[1])
    assert "poisoned job" in str(outcomes[1])
    good = {events[i]["run"]["runId"] for i in (0, 2, 3)}
    assert _stored_runs(store) == good
    assert store.count(t.events) == 3
    assert {r["run_id"] for r in store.rows(t.events)} == good
    assert store.job("ns", "poison") is None
    # Nothing of the failed event is left: no edges, no run_io, no facets of its run.
    assert store.count(t.run_io) == 6
    assert store.count(t.lineage_edges) == 6
    assert store.run_facets(events[1]["run"]["runId"]) == {}
    assert store.run_facets(events[0]["run"]["runId"]) == {"custom": {"job": "a"}}


def test_a_failing_event_alone(poisoned: Store) -> None:
    store = poisoned
    (outcome,) = store.write(_event("poison"))
    assert isinstance(outcome, EventRejected)
    assert store.count(t.events) == 0
    # The writer goes on working afterwards.
    store.ingest(_event("after"))
    assert store.count(t.events) == 1


def test_the_writer_thread_survives_a_failing_group(poisoned: Store) -> None:
    store = poisoned
    committed: list[int] = []
    pipeline = IngestPipeline(store.engine, on_commit=committed.append)
    pipeline.start()
    try:
        first = pipeline.submit(derive_all([_event("x"), _event("poison")])).result(timeout=30)
        assert first[0] is None
        assert isinstance(first[1], EventRejected)
        second = pipeline.submit(derive_all([_event("y")])).result(timeout=30)
        assert second == [None]
    finally:
        pipeline.stop()
    assert sum(committed) == 2
    assert store.count(t.events) == 2


def test_an_acknowledged_event_is_committed(store: Store) -> None:
    pipeline = IngestPipeline(store.engine)
    pipeline.start()
    reader = create_store_engine(store.url)
    try:
        for i in range(5):
            event = _event(f"ack{i}")
            assert pipeline.submit(derive_all([event])).result(timeout=30) == [None]
            # Another connection sees it the moment the future resolves.
            with reader.connect() as conn:
                found = conn.execute(
                    select(t.runs.c.state).where(t.runs.c.run_id == event["run"]["runId"])
                ).scalar_one_or_none()
            assert found == "COMPLETE"
    finally:
        pipeline.stop()
        reader.dispose()


def test_requests_are_answered_after_the_write_lock_is_released(tmp_path: Path) -> None:
    """Answering wakes the requests' event loop; the other workers need the lock first."""
    engine = create_store_engine(f"sqlite:///{tmp_path / 'lineage.db'}")
    upgrade_schema(engine)
    path = lock_path(engine)
    assert path is not None
    pipeline = IngestPipeline(engine)
    pipeline.start()
    held_when_answered: list[bool] = []

    def probe(_future: Any) -> None:  # runs in the writer thread as it answers
        fd = os.open(path, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held_when_answered.append(False)
        except BlockingIOError:
            held_when_answered.append(True)
        finally:
            os.close(fd)

    try:
        futures = [pipeline.submit(derive_all([_event(f"lock{i}")])) for i in range(5)]
        for future in futures:
            future.add_done_callback(probe)
        assert [f.result(timeout=30) for f in futures] == [[None]] * 5
    finally:
        pipeline.stop()
        engine.dispose()
    # A callback added after its answer runs at once, here; the lock must be free then too.
    assert held_when_answered == [False] * 5


def test_submissions_from_many_threads(store: Store) -> None:
    pipeline = IngestPipeline(store.engine)
    pipeline.start()
    results: list[list[Any]] = []
    lock = threading.Lock()

    def client(n: int) -> None:
        for i in range(10):
            out = pipeline.submit(derive_all([_event(f"t{n}-{i}")])).result(timeout=60)
            with lock:
                results.append(out)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(4)]
    try:
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=60)
    finally:
        pipeline.stop()
    assert results == [[None]] * 40
    assert store.count(t.events) == 40
    assert store.count(t.runs) == 40


def test_empty_submission_resolves_at_once(store: Store) -> None:
    pipeline = IngestPipeline(store.engine)
    future = pipeline.submit([])
    assert future.done()
    assert future.result() == []


def test_stop_commits_what_is_queued(store: Store) -> None:
    pipeline = IngestPipeline(store.engine)
    pipeline.start()
    futures = [pipeline.submit(derive_all([_event(f"q{i}")])) for i in range(20)]
    pipeline.stop()
    assert all(f.done() and f.result() == [None] for f in futures)
    assert store.count(t.events) == 20


@pytest.mark.parametrize("store", ["sqlite"], indirect=True)
def test_queued_submissions_share_one_commit(store: Store) -> None:
    committed: list[int] = []
    pipeline = IngestPipeline(store.engine, on_commit=committed.append)
    pipeline.start()
    blocker = store.engine.connect().execution_options(lineage_write=True)
    try:
        blocker.begin()  # BEGIN IMMEDIATE: holds the write lock
        futures = [pipeline.submit(derive_all([_event(f"g{i}")])) for i in range(30)]
        blocker.rollback()
        for f in futures:
            assert f.result(timeout=60) == [None]
    finally:
        blocker.close()
        pipeline.stop()
    # The writer took the first submission, waited for the lock meanwhile,
    # then wrote everything queued behind it in one transaction.
    assert sum(committed) == 30
    assert len(committed) <= 2


def test_an_unreachable_database_is_unavailable_not_rejected() -> None:
    engine = create_store_engine(f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/none")
    try:
        outcomes = IngestPipeline(engine).write_now(derive_all([_event("a"), _event("b")]))
    finally:
        engine.dispose()
    assert len(outcomes) == 2
    assert all(isinstance(o, StoreUnavailable) for o in outcomes)
    assert "retry" in str(outcomes[0])


def test_classification_of_database_errors() -> None:
    locked = OperationalError("INSERT", {}, sqlite3.OperationalError("database is locked"))
    assert isinstance(_classify(locked), StoreUnavailable)
    refused = IntegrityError("INSERT", {}, sqlite3.IntegrityError("poisoned job\nmore detail"))
    rejected = _classify(refused)
    assert isinstance(rejected, EventRejected)
    assert str(rejected) == "the store could not hold this event (poisoned job)"


@pytest.mark.postgres
def test_the_writer_reconnects_when_its_connection_is_dropped(pg_store: Store) -> None:
    pg_store.reset()
    pipeline = IngestPipeline(pg_store.engine)
    pipeline.start()
    try:
        assert pipeline.submit(derive_all([_event("before")])).result(timeout=30) == [None]
        # The database ends every other session (as a restart or a failover would).
        with pg_store.engine.connect() as conn:
            ended = conn.execute(
                text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            ).scalar_one()
        assert ended >= 1  # the writer's kept connection among them
        assert pipeline.submit(derive_all([_event("after")])).result(timeout=30) == [None]
    finally:
        pipeline.stop()
    assert pg_store.count(t.events) == 2


def test_an_unusable_lock_file_makes_the_store_unavailable_not_the_writer_dead(
    tmp_path: Path,
) -> None:
    store = Store(f"sqlite:///{tmp_path / 'lineage.db'}")
    blocker = tmp_path / "lineage.db-writer.lock"
    blocker.unlink()  # the migrations took the writers' lock, so it exists
    blocker.mkdir()  # a directory where the lock file should be: open() fails
    pipeline = IngestPipeline(store.engine)
    pipeline.start()
    try:
        (outcome,) = pipeline.submit(derive_all([_event("blocked")])).result(timeout=30)
        assert isinstance(outcome, StoreUnavailable)
        blocker.rmdir()
        assert pipeline.submit(derive_all([_event("after")])).result(timeout=30) == [None]
    finally:
        pipeline.stop()
        store.close()
    assert [row["kind"] for row in store.rows(t.events)] == ["run"]


# --- work the writer prepares itself (large bodies) --------------------------------


def _deferred(value: str, *names: str, seen: threading.Event | None = None) -> Any:
    def prepare() -> tuple[str, list[Any]]:
        if seen is not None:
            seen.set()
        return value, derive_all([_event(name) for name in names])

    return prepare


@pytest.fixture
def file_store(tmp_path: Path) -> Iterator[Store]:
    store = Store(f"sqlite:///{tmp_path / 'lineage.db'}")
    yield store
    store.engine.dispose()


def _hold_write_lock(store: Store) -> int:
    """Take the store's write lock as another worker process would; close the fd to release."""
    path = lock_path(store.engine)
    assert path is not None
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def test_deferred_work_is_prepared_while_another_process_writes(file_store: Store) -> None:
    committed: list[int] = []
    pipeline = IngestPipeline(file_store.engine, on_commit=committed.append)
    prepared = threading.Event()
    fd = _hold_write_lock(file_store)
    try:
        # Both queued before the writer starts: it takes them together.
        ready = pipeline.submit(derive_all([_event("ready")]))
        deferred = pipeline.submit_deferred(_deferred("body", "d1", "d2", seen=prepared))
        pipeline.start()
        # The writer waits for the lock and meanwhile prepares the deferred body.
        assert prepared.wait(timeout=30)
        assert not ready.done()
        assert not deferred.done()
    finally:
        os.close(fd)
    try:
        assert ready.result(timeout=30) == [None]
        assert deferred.result(timeout=30) == ("body", [None, None])
    finally:
        pipeline.stop()
    assert committed == [3]  # one transaction for both, once the lock was free
    assert file_store.count(t.events) == 3


def test_a_body_that_cannot_be_prepared_fails_alone(file_store: Store) -> None:
    def broken() -> tuple[str, list[Any]]:
        raise ValueError("not a usable body")

    pipeline = IngestPipeline(file_store.engine)
    bad = pipeline.submit_deferred(broken)
    good = pipeline.submit_deferred(_deferred("fine", "good"))
    empty = pipeline.submit_deferred(_deferred("nothing to store"))
    pipeline.start()
    try:
        with pytest.raises(ValueError, match="not a usable body"):
            bad.result(timeout=30)
        assert good.result(timeout=30) == ("fine", [None])
        assert empty.result(timeout=30) == ("nothing to store", [])
    finally:
        pipeline.stop()
    assert [r["name"] for r in file_store.rows(t.jobs)] == ["good"]
    assert file_store.count(t.events) == 1


def test_stop_prepares_and_commits_deferred_work(file_store: Store) -> None:
    pipeline = IngestPipeline(file_store.engine)
    pipeline.start()
    futures = [pipeline.submit_deferred(_deferred(f"b{i}", f"s{i}a", f"s{i}b")) for i in range(10)]
    pipeline.stop()
    assert [f.result(timeout=0) for f in futures] == [(f"b{i}", [None, None]) for i in range(10)]
    assert file_store.count(t.events) == 20


def test_deferred_groups_keep_to_the_group_limit(
    file_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline_module, "_MAX_GROUP_EVENTS", 4)
    committed: list[int] = []
    pipeline = IngestPipeline(file_store.engine, on_commit=committed.append)
    fd = _hold_write_lock(file_store)
    try:
        futures = [
            pipeline.submit_deferred(_deferred(f"b{i}", f"l{i}a", f"l{i}b")) for i in range(5)
        ]
        pipeline.start()
    finally:
        os.close(fd)
    try:
        assert [f.result(timeout=30) for f in futures] == [
            (f"b{i}", [None, None]) for i in range(5)
        ]
    finally:
        pipeline.stop()
    assert sum(committed) == 10
    assert max(committed) <= 4


def test_the_writer_prepares_bodies_on_a_sqlite_file(file_store: Store) -> None:
    assert IngestPipeline(file_store.engine).prepares_while_waiting
    memory = create_store_engine("sqlite://")
    try:  # no lock file to try: nothing to wait on outside the database
        assert not IngestPipeline(memory).prepares_while_waiting
    finally:
        memory.dispose()


@pytest.mark.postgres
def test_on_postgresql_a_thread_prepares_bodies(pg_store: Store) -> None:
    # The writer waits inside the database there, with the GIL released.
    assert not IngestPipeline(pg_store.engine).prepares_while_waiting


class _Observer:
    """A WriterObserver that remembers what it heard."""

    def __init__(self) -> None:
        self.waiting = 0
        self.transactions: list[tuple[float, int]] = []

    def queued(self, requests: int) -> None:
        self.waiting += requests

    def transaction(self, seconds: float, events: int) -> None:
        self.transactions.append((seconds, events))


def test_the_observer_hears_the_queue_and_each_transaction(file_store: Store) -> None:
    observer = _Observer()
    pipeline = IngestPipeline(file_store.engine, observer=observer)
    fd = _hold_write_lock(file_store)  # another process writes: requests wait
    try:
        pipeline.start()
        plain = [pipeline.submit(derive_all([_event(f"o{i}")])) for i in range(3)]
        deferred = pipeline.submit_deferred(_deferred("body", "od1", "od2"))
        assert pipeline.submit([]).result(timeout=0) == []  # nothing to wait for
        assert observer.waiting == 4
        assert observer.transactions == []
    finally:
        os.close(fd)
    try:
        assert [f.result(timeout=30) for f in plain] == [[None]] * 3
        assert deferred.result(timeout=30) == ("body", [None, None])
    finally:
        pipeline.stop()
    assert observer.waiting == 0
    assert sum(events for _, events in observer.transactions) == 5
    assert all(seconds > 0 for seconds, _ in observer.transactions)
