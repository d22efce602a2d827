"""A real MariaDB server for the test session, started with mariadb-install-db and mariadbd.

The binaries come from Debian's mariadb-server package (scripts/system-deps.sh
installs it); the driver is PyMySQL (the ``mysql`` extra). The server keeps
its data in a temporary directory, listens on loopback only, and trusts every
local connection (``--skip-grant-tables``): it exists for the tests alone.
Each test gets a database of its own, created as the store needs it
(``utf8mb4``, binary collation).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.postgres import discard, free_port, scratch_dir
from tests.watchdog import watched


def _binary(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
    if found is None:
        raise RuntimeError(
            f"{name} not found: install Debian's mariadb-server package "
            "(apt-get install mariadb-server)"
        )
    return found


class MySQLServer:
    def __init__(self, root: Path, port: int, pid: int) -> None:
        self.root = root
        self.port = port
        self.pid = pid

    def create_database(self, charset: str = "utf8mb4", collation: str = "utf8mb4_bin") -> str:
        """A new database; the store needs the default ``utf8mb4`` and ``utf8mb4_bin``."""
        import pymysql

        name = "t_" + uuid.uuid4().hex[:12]
        conn = pymysql.connect(host="127.0.0.1", port=self.port, user="root")
        try:
            with conn.cursor() as cursor:
                cursor.execute(
                    f"CREATE DATABASE {name} CHARACTER SET {charset} COLLATE {collation}"
                )
        finally:
            conn.close()
        return f"mysql+pymysql://root@127.0.0.1:{self.port}/{name}"

    def drop_database(self, url: str) -> None:
        """Drop a test's database once it is done with it.

        Left as it is should a connection still hold one of its tables mid-transaction
        (DROP would wait for it): the server's directory goes at the end of the session.
        """
        import pymysql

        name = url.rsplit("/", 1)[1]
        conn = pymysql.connect(host="127.0.0.1", port=self.port, user="root")
        try:
            with conn.cursor() as cursor:
                cursor.execute("SET SESSION lock_wait_timeout = 2")
                cursor.execute(f"DROP DATABASE IF EXISTS {name}")
        except pymysql.err.OperationalError:
            pass
        finally:
            conn.close()

    def copy_database(self, source: str) -> str:
        """A new database with the tables of ``source`` and their rows.

        Each table is made by the statement MariaDB prints for the source's
        (``SHOW CREATE TABLE``: columns, keys in their order, charset,
        collation, foreign keys). Triggers, views and routines are not copied:
        for a schema without them (tests/head_stores.py).
        """
        import pymysql

        url = self.create_database()
        name = url.rsplit("/", 1)[1]
        conn = pymysql.connect(
            host="127.0.0.1", port=self.port, user="root", database=name, autocommit=True
        )
        try:
            with conn.cursor() as cursor:
                cursor.execute(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
                    (source,),
                )
                tables = [row[0] for row in cursor.fetchall()]
                cursor.execute("SET foreign_key_checks = 0")
                for table in tables:
                    cursor.execute(f"SHOW CREATE TABLE {source}.`{table}`")
                    cursor.execute(cursor.fetchone()[1])
                    cursor.execute(f"INSERT INTO `{table}` SELECT * FROM {source}.`{table}`")
        finally:
            conn.close()
        return url


@contextmanager
def mysql_server() -> Iterator[MySQLServer]:
    """A new server, stopped on leaving, or when this process ends (tests/watchdog.py)."""
    root = scratch_dir("feast-lineage-mysql-")
    data = root / "data"
    user = ["--user=root"] if os.geteuid() == 0 else []
    # SIGKILL, as below.
    with watched(root, root / "server.pid", "KILL"):
        subprocess.run(
            [
                _binary("mariadb-install-db"),
                "--no-defaults",
                f"--datadir={data}",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                *user,
            ],
            check=True,
            capture_output=True,
        )
        port = free_port()
        with open(root / "log", "wb") as log:
            server = subprocess.Popen(
                [
                    _binary("mariadbd"),
                    "--no-defaults",
                    f"--datadir={data}",
                    f"--socket={root / 'sock'}",
                    f"--port={port}",
                    "--bind-address=127.0.0.1",
                    "--skip-grant-tables",
                    "--innodb-buffer-pool-size=64M",
                    "--innodb-flush-log-at-trx-commit=2",
                    "--max-connections=300",
                    *user,
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        (root / "server.pid").write_text(f"{server.pid}\n")
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1):
                        break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(
                            "MariaDB did not start: " + (root / "log").read_text()[-2000:]
                        ) from None
                    time.sleep(0.1)
            yield MySQLServer(root, port, server.pid)
        finally:
            # Killed, as PostgreSQL is stopped in immediate mode: its data goes with
            # it, and a clean shutdown would first write out, for nothing, the pages
            # of every table of the session's databases.
            server.kill()
            server.wait()
            discard(root)
