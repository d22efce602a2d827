"""Feast 0.67's own lineage server, run as a black box: ``feast serve_lineage`` in a subprocess.

Nothing of Feast's lineage code is imported: the server is Feast's CLI in a
temporary feature repository whose feature_store.yaml enables Feast's own
consumer (``openlineage.consumer.enabled``), which stores what it receives
in Feast's ``openlineage_*`` tables: in the registry's SQL database, or in
``openlineage.consumer.connection_string`` when one is given. Feast's
releases before 0.65 have no ``serve_lineage`` command: :func:`feast_serves_lineage`
says so, and the tests that need it skip with that reason.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx
import yaml
from packaging.version import Version

from tests.fixture_events import TemplateFiller, load_fixtures
from tests.postgres import free_port

FEAST = Path(sys.executable).with_name("feast")
READS = "/api/v1/lineage/openlineage"


FIRST_SERVING_LINEAGE = Version("0.65")


@cache
def feast_serves_lineage() -> bool:
    """Whether this environment's Feast has ``feast serve_lineage`` (Feast 0.65+).

    Told by the installed release's metadata, not by running ``feast serve_lineage
    --help``: that imports Feast, some 7 s in each process that collects these
    tests (each pytest-xdist worker). A release from 0.65 on without the command
    fails these tests rather than skipping them.
    """
    return FEAST.exists() and Version(version("feast")) >= FIRST_SERVING_LINEAGE


SKIP_REASON = "this Feast has no `feast serve_lineage` (Feast's own lineage consumer is 0.65+)"


def write_feast_repo(root: Path, *, registry: str, connection_string: str | None = None) -> Path:
    """A feature repository whose feature_store.yaml enables Feast's own lineage consumer."""
    root.mkdir(parents=True, exist_ok=True)
    consumer: dict[str, Any] = {"enabled": True}
    if connection_string is not None:
        consumer["connection_string"] = connection_string
    config = {
        "project": "demo",
        "registry": {"registry_type": "sql", "path": registry},
        "provider": "local",
        "online_store": {"type": "sqlite", "path": str(root / "online.db")},
        "entity_key_serialization_version": 3,
        # Feast's producer stays off: only what the tests post is stored.
        "openlineage": {"enabled": False, "consumer": consumer},
    }
    (root / "feature_store.yaml").write_text(yaml.safe_dump(config))
    return root


@dataclass
class FeastServer:
    process: subprocess.Popen[bytes]
    url: str
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextmanager
def feast_lineage_server(
    repo: Path, timeout: float = 300, port: int | None = None
) -> Iterator[FeastServer]:
    """Feast's ``feast serve_lineage`` in ``repo``, ready; stopped on exit."""
    port = port or free_port()
    log_path = repo / "feast-serve-lineage.log"
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            [str(FEAST), "serve_lineage", "-h", "127.0.0.1", "-p", str(port)],
            cwd=repo,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    server = FeastServer(process, f"http://127.0.0.1:{port}", log_path)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"feast serve_lineage exited early:\n{server.log()}")
            try:
                if httpx.get(server.url + READS + "/namespaces", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"feast serve_lineage did not become ready:\n{server.log()}")
            time.sleep(0.2)
        yield server
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def shared_events() -> list[dict[str, Any]]:
    """The real events of ../shared that a consumer should store, templates filled once.

    Complete and lenient fixtures as they are; templated ones made concrete
    (:class:`~tests.fixture_events.TemplateFiller`); partial and malformed
    ones left out. Post the same list to both servers.
    """
    events: list[dict[str, Any]] = []
    for fixture in load_fixtures():
        if fixture.kind in ("complete", "lenient"):
            value = fixture.value
        elif fixture.kind == "templated":
            value = TemplateFiller(fixture.group).fill_file(fixture.value)
        else:
            continue
        events.extend(e for e in (value if isinstance(value, list) else [value]))
    return events


def post_each(client: httpx.Client, url: str, events: list[dict[str, Any]]) -> list[int]:
    """Post every event on its own, as a producer does; the status of each."""
    return [client.post(url + "/api/v1/lineage", json=event).status_code for event in events]
