"""The tests' database servers end with the process that started them, however it ends.

A pytest process or pytest-xdist worker killed midway (SIGKILL, SIGTERM) runs no
teardown: the PostgreSQL and MariaDB servers it started must stop anyway, and their
data directories go (tests/watchdog.py).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.server_process import wait_for

REPO = Path(__file__).resolve().parents[1]

# Starts a server as a session's fixture does, says which process it is, and waits.
CHILD = """
import time
from tests.{module} import {function}

with {function}() as server:
    print(server.pid, server.root, flush=True)
    time.sleep(600)
"""


def running(pid: int) -> bool:
    """Whether the process ``pid`` is there and not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.parametrize(
    ("module", "function"),
    [
        pytest.param("postgres", "postgres_server", marks=pytest.mark.postgres),
        pytest.param("mysql", "mysql_server", marks=pytest.mark.mysql),
    ],
)
def test_a_server_ends_with_the_process_that_started_it(module: str, function: str) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(module=module, function=function)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
    finally:
        child.kill()
        child.wait()
        if child.stdout is not None:
            child.stdout.close()
    pid_text, root_text = line.split()
    pid, root = int(pid_text), Path(root_text)
    assert pid != child.pid

    assert wait_for(lambda: not running(pid), timeout=10), f"{module} server {pid} still running"
    assert wait_for(lambda: not root.exists(), timeout=10), f"{root} still there"
