"""Starting the real ``feast-lineage serve_lineage`` process for tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import yaml

from tests.postgres import free_port


def write_repo(
    root: Path,
    *,
    project: str = "demo",
    consumer: dict[str, Any] | None = None,
    openlineage: dict[str, Any] | None = None,
    registry: Any = None,
    auth: dict[str, Any] | None = None,
) -> Path:
    """A feature repository with a feature_store.yaml for the lineage server (``auth``:
    Feast's auth section, for the ``feast`` authorizer)."""
    root.mkdir(parents=True, exist_ok=True)
    section: dict[str, Any] = dict(openlineage or {})
    section["consumer"] = {"enabled": True, **(consumer or {})}
    config = {
        "project": project,
        "registry": registry or {"registry_type": "sql", "path": "sqlite:///data/registry.db"},
        "provider": "local",
        "online_store": {"type": "sqlite", "path": "data/online.db"},
        "entity_key_serialization_version": 3,
        "openlineage": section,
    }
    if auth is not None:
        config["auth"] = auth
    (root / "feature_store.yaml").write_text(yaml.safe_dump(config))
    return root


@dataclass
class ServerProcess:
    process: subprocess.Popen[bytes]
    url: str
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


@contextmanager
def lineage_server(
    repo: Path,
    *,
    port: int | None = None,
    env: dict[str, str] | None = None,
    extra_args: list[str] | None = None,
    log_level: str | None = None,
) -> Iterator[ServerProcess]:
    server = start_server(repo, port=port, env=env, extra_args=extra_args, log_level=log_level)
    try:
        wait_ready(server)
        yield server
    finally:
        server.stop()


def start_server(
    repo: Path,
    *,
    port: int | None = None,
    env: dict[str, str] | None = None,
    extra_args: list[str] | None = None,
    log_level: str | None = None,
    command: str = "serve_lineage",
) -> ServerProcess:
    """Start a server (``command``: serve_lineage or ui) and return at once.

    See :func:`wait_ready`; the caller stops it.
    """
    port = port or free_port()
    log_path = repo / f"server-{port}.log"
    cmd = [
        sys.executable,
        "-m",
        "feast_lineage.cli",
        "-c",
        str(repo),
        *(["--log-level", log_level] if log_level else []),
        command,
        "--port",
        str(port),
        *(extra_args or []),
    ]
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
        )
    return ServerProcess(process, f"http://127.0.0.1:{port}", log_path)


def wait_ready(server: ServerProcess, timeout: float = 180) -> None:
    # Generous: a server opens the Feast registry before it answers, which takes
    # seconds, and a minute on a loaded machine.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"lineage server exited early:\n{server.log()}")
        try:
            # /healthz answers 200 as soon as the port is bound; /readyz once the
            # schema is up to date and the app serves.
            if httpx.get(server.url + "/readyz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"lineage server did not become ready:\n{server.log()}")


# --- worker processes (serve_lineage --workers) ---------------------------------


def children(pid: int, name: str | None = None) -> list[int]:
    """The child processes of ``pid``; with ``name``, those whose comm is ``name``."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        found += [int(c) for c in task.read_text().split()]
    if name is not None:
        found = [c for c in found if _comm(c) == name]
    return sorted(found)


def _comm(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for(check: Callable[[], bool], timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return check()
