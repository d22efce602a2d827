"""Database servers that end with the test process that started them, however it ends.

A session's PostgreSQL and MariaDB servers are stopped by its fixtures' teardown; a
pytest process or pytest-xdist worker killed midway (SIGKILL, SIGTERM) runs none, and
its servers ran on, orphans, their data filling ``/dev/shm``. So each server has a
watchdog: a shell started beside it, in a session of its own (Ctrl-C and a closed
terminal do not reach it), that blocks reading a pipe whose only writing end this
process holds. However this process ends, the kernel closes that end; the read
returns, and the watchdog signals the server, waits for it to go (10 s at most), and
deletes its directory. A clean teardown ends the watchdog first, then stops the
server as before.

The watchdog reads the server's pid from a file only when it acts, so it can start
before the server does: PostgreSQL's postmaster is forked by ``pg_ctl`` (through
``runuser`` as root) and writes ``postmaster.pid`` itself. Nothing polls, and a pid
that was reused is never signalled.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# $1: the server's pid file, $2: the signal, $3: the server's directory.
_WATCH = """
read -r _
pid=$(head -n 1 -- "$1" 2>/dev/null)
if [ -n "$pid" ] && kill -s "$2" "$pid" 2>/dev/null; then
    n=0
    while kill -0 "$pid" 2>/dev/null && [ "$n" -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
fi
exec nice -n 19 rm -rf -- "$3"
"""


@contextmanager
def watched(root: Path, pid_file: Path, signal: str) -> Iterator[None]:
    """While inside, should this process end, send ``signal`` to the server whose pid
    is the first line of ``pid_file`` and delete ``root``."""
    read_end, write_end = os.pipe()  # neither inherited by other children (PEP 446)
    try:
        watchdog = subprocess.Popen(
            ["sh", "-c", _WATCH, "watchdog", str(pid_file), signal, str(root)],
            stdin=read_end,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    finally:
        os.close(read_end)
    try:
        yield
    finally:
        watchdog.kill()
        watchdog.wait()
        os.close(write_end)
