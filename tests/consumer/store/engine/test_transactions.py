"""Write transactions take turns across threads and processes."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema
from feast_lineage.consumer.store.engine.transactions import (
    MYSQL_LOCK_NAME,
    lock_path,
    write_transaction,
)
from tests.store_helpers import Store

HOLD_S = 1.0


def test_lock_file_sits_beside_a_sqlite_file_only(tmp_path: Path) -> None:
    on_disk = create_store_engine(f"sqlite:///{tmp_path / 'lineage.db'}")
    memory = create_store_engine("sqlite://")
    try:
        assert lock_path(on_disk) == f"{tmp_path / 'lineage.db'}-writer.lock"
        assert lock_path(memory) is None
    finally:
        on_disk.dispose()
        memory.dispose()


def test_a_writer_waits_for_another_process_holding_the_lock(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'lineage.db'}"
    engine = create_store_engine(url)
    upgrade_schema(engine)
    acquired = tmp_path / "acquired"
    holder = textwrap.dedent(
        f"""
        import time
        from pathlib import Path
        from feast_lineage.consumer.store.engine.database import create_store_engine
        from feast_lineage.consumer.store.engine.transactions import write_transaction
        engine = create_store_engine({url!r})
        with write_transaction(engine) as conn:
            Path({str(acquired)!r}).touch()
            time.sleep({HOLD_S})
        """
    )
    process = subprocess.Popen([sys.executable, "-c", holder])
    try:
        deadline = time.monotonic() + 30
        while not acquired.exists():
            assert process.poll() is None, "the holder process failed"
            assert time.monotonic() < deadline, "the holder never took the lock"
            time.sleep(0.01)
        # The holder has the lock file, not just SQLite's lock.
        path = lock_path(engine)
        assert path is not None
        fd = os.open(path, os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
        started = time.monotonic()
        with write_transaction(engine) as conn:
            waited = time.monotonic() - started
            conn.execute(text("SELECT 1"))
        assert process.wait(timeout=30) == 0
        # Blocked on the lock, not in SQLite's busy handler: it got the lock
        # as soon as the holder let go, well within the busy timeout.
        assert HOLD_S * 0.5 < waited < HOLD_S + 5
    finally:
        process.kill()
        engine.dispose()


def test_write_transactions_of_two_threads_never_overlap(store: Store) -> None:
    inside: list[int] = []
    overlaps: list[int] = []
    lock = threading.Lock()

    def writer(number: int) -> None:
        for _ in range(5):
            with write_transaction(store.engine) as conn:
                with lock:
                    if inside:
                        overlaps.append(number)
                    inside.append(number)
                conn.execute(text("SELECT 1"))
                time.sleep(0.01)
                with lock:
                    inside.remove(number)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not overlaps


@pytest.mark.postgres
def test_postgres_writers_take_the_advisory_lock(pg_store: Store) -> None:
    with write_transaction(pg_store.engine) as conn:
        held = conn.execute(
            text("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")
        ).scalar_one()
    assert held == 1
    with pg_store.engine.connect() as conn:
        after = conn.execute(
            text("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'")
        ).scalar_one()
    assert after == 0  # released with the transaction


@pytest.mark.mysql
def test_mysql_writers_take_the_named_lock_and_give_it_back(my_store: Store) -> None:
    free = text(f"SELECT IS_FREE_LOCK('{MYSQL_LOCK_NAME}')")
    with write_transaction(my_store.engine) as conn:
        holder = conn.execute(text(f"SELECT IS_USED_LOCK('{MYSQL_LOCK_NAME}')")).scalar_one()
        assert holder == conn.execute(text("SELECT CONNECTION_ID()")).scalar_one()
    with my_store.engine.connect() as conn:
        assert conn.execute(free).scalar_one() == 1  # released after the commit
    with pytest.raises(RuntimeError), write_transaction(my_store.engine):
        raise RuntimeError("the transaction fails")
    with my_store.engine.connect() as conn:
        assert conn.execute(free).scalar_one() == 1  # and after a rollback
