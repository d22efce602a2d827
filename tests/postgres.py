"""A real PostgreSQL server for the test session, started with initdb and pg_ctl.

The binaries come from Debian's postgresql package (.ci/run installs it).
As root, the server runs as the ``postgres`` user, which PostgreSQL requires.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.watchdog import watched


def _bindir() -> Path:
    override = os.environ.get("FEAST_LINEAGE_TEST_PG_BIN")
    if override:
        return Path(override)
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[4]))
    if not candidates:
        raise RuntimeError(
            "PostgreSQL server binaries not found: install Debian's postgresql package "
            "(apt-get install postgresql) or set FEAST_LINEAGE_TEST_PG_BIN"
        )
    return Path(candidates[-1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# Where the database servers keep their data: a file operation (open, create, unlink) costs
# some 170 us of CPU on the test machines' ext4 root and 7 us on tmpfs, and PostgreSQL makes
# some 1,900 of them to create each test's database (MariaDB one file per table). Taken only
# with room to spare: each test's database is dropped after it (tests/conftest.py), so a
# server holds a few hundred MB at most.
SCRATCH = Path("/dev/shm")
SCRATCH_FREE_BYTES = 4 << 30


def scratch_dir(prefix: str) -> Path:
    """A new directory for a database server's data: on tmpfs when there is room, else in /tmp."""
    try:
        free = os.statvfs(SCRATCH)
    except OSError:
        return Path(tempfile.mkdtemp(prefix=prefix))
    if free.f_bavail * free.f_frsize < SCRATCH_FREE_BYTES:
        return Path(tempfile.mkdtemp(prefix=prefix))
    return Path(tempfile.mkdtemp(prefix=prefix, dir=SCRATCH))


def _as_postgres(cmd: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *cmd]
    return cmd


class PostgresServer:
    def __init__(self, root: Path, port: int, pid: int) -> None:
        self.root = root
        self.port = port
        self.pid = pid  # the postmaster's

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, template: str | None = None) -> str:
        """A new database: empty, or a copy of the database ``template`` (nobody connected)."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        copy = f' TEMPLATE "{template}"' if template else ""
        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True
        ) as conn:
            conn.execute(f'CREATE DATABASE "{name}"{copy}')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop a test's database once it is done with it (its connections closed by force)."""
        import psycopg

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True
        ) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def discard(root: Path) -> None:
    """Delete a stopped server's directory in the background, at the lowest priority.

    A session's server holds every database its tests made (a worker's: hundreds, some
    100,000 files); deleting them took 11 to 17 s at the end of each test worker, the whole
    gate waiting. The directory is renamed first, so the name is free at once.
    """
    trash = root.with_name(root.name + ".discarded")
    try:
        root.rename(trash)
    except OSError:
        shutil.rmtree(root, ignore_errors=True)
        return
    # The shell starts rm in the background and exits at once: rm outlives the test process
    # and nobody waits for it (a Popen still running when collected is a ResourceWarning).
    subprocess.run(
        ["sh", "-c", 'nice -n 19 rm -rf -- "$1" &', "discard", str(trash)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        check=False,
    )


def _initdb(bindir: Path, data: Path) -> None:
    subprocess.run(
        _as_postgres(
            [
                str(bindir / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ]
        ),
        check=True,
        capture_output=True,
    )


@contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    """A new server, stopped on leaving, or when this process ends (tests/watchdog.py)."""
    bindir = _bindir()
    root = scratch_dir("feast-lineage-pg-")
    data = root / "data"
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    os.chmod(root, 0o755)
    port = free_port()
    options = (
        f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        # Each database copied from a template is written to the WAL too (8.6 MB): recycled
        # at 256 MB rather than 1 GB, which tmpfs would hold in memory.
        " -c max_wal_size=256MB"
    )
    # SIGQUIT: an immediate shutdown, as pg_ctl's below.
    with watched(root, data / "postmaster.pid", "QUIT"):
        _initdb(bindir, data)
        subprocess.run(
            _as_postgres(
                [
                    str(bindir / "pg_ctl"),
                    "-D",
                    str(data),
                    "-o",
                    options,
                    "-l",
                    str(root / "log"),
                    "-w",
                    "start",
                ]
            ),
            check=True,
            capture_output=True,
        )
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1):
                        break
                except OSError:
                    time.sleep(0.1)
            pid = int((data / "postmaster.pid").read_text().split()[0])
            yield PostgresServer(root, port, pid)
        finally:
            subprocess.run(
                _as_postgres([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
                capture_output=True,
            )
            discard(root)
