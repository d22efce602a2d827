"""``feast-lineage import-feast-lineage``: a store written by Feast 0.67's own consumer comes in.

Feast's ``feast serve_lineage`` (a subprocess, Feast's consumer on) receives
the real events of ../shared, some of them twice (a producer's retry: two
rows in Feast's table, one event) and one that our validation refuses (a
``runId`` that is not a UUID; Feast stores it). Its store is Feast's own
tables in the registry's SQLite database, or in PostgreSQL through
``openlineage.consumer.connection_string``; our tables go into the same
database, as the same feature_store.yaml says. The import runs while Feast's
server is up.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, text

from feast_lineage.cli import cli
from tests.feast_api.feast_server import (
    SKIP_REASON,
    feast_lineage_server,
    feast_serves_lineage,
    post_each,
    shared_events,
    write_feast_repo,
)
from tests.postgres import PostgresServer

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not feast_serves_lineage(), reason=SKIP_REASON),
]

RETRIED = 7  # events posted twice
NOT_A_UUID = {
    "eventType": "START",
    "eventTime": "2026-01-01T00:00:00Z",
    "producer": "https://example.com/import",
    "run": {"runId": "run-1"},
    "job": {"namespace": "import", "name": "not_a_uuid"},
}


@dataclass
class FeastStore:
    repo: Path
    url: str  # the database holding Feast's tables (and, after the import, ours)
    sent: list[dict[str, Any]]


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def feast_store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FeastStore]:
    root = tmp_path_factory.mktemp(f"feast-{request.param}")
    registry = f"sqlite:///{root / 'registry.db'}"
    if request.param == "sqlite":
        url, repo = registry, write_feast_repo(root, registry=registry)
    else:
        pg: PostgresServer = request.getfixturevalue("pg")
        url = pg.create_database()
        repo = write_feast_repo(root, registry=registry, connection_string=url)
    events = shared_events()
    sent = [*events, *events[:RETRIED], NOT_A_UUID]
    with feast_lineage_server(repo) as server, httpx.Client(timeout=60) as client:
        assert set(post_each(client, server.url, sent)) == {201}
        yield FeastStore(repo, url, sent)


def feast_rows(url: str) -> tuple[int, str]:
    """How many rows Feast's event table has, and a digest of all of them."""
    engine = create_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT event_id, event_type, event_time, job_namespace, job_name, run_id, "
                "event_json, created_at FROM openlineage_events ORDER BY event_id"
            )
        ).all()
    engine.dispose()
    return len(rows), hashlib.sha256(repr(rows).encode()).hexdigest()


def our_events(url: str) -> int:
    engine = create_engine(url)
    with engine.connect() as conn:
        count = conn.execute(text("SELECT count(*) FROM feast_lineage_events")).scalar_one()
    engine.dispose()
    return int(count)


def run_import(repo: Path) -> tuple[dict[str, int], str]:
    result = CliRunner().invoke(cli, ["-c", str(repo), "import-feast-lineage"])
    assert result.exit_code == 0, result.output
    found = re.search(
        r"Read (\d+) events .*: (\d+) imported, (\d+) duplicates, (\d+) refused", result.output
    )
    assert found, result.output
    read, imported, duplicates, refused = map(int, found.groups())
    counts = {"read": read, "imported": imported, "duplicates": duplicates, "refused": refused}
    return counts, result.output


def test_every_row_is_accounted_for_and_a_second_run_imports_nothing(
    feast_store: FeastStore,
) -> None:
    rows, digest = feast_rows(feast_store.url)
    assert rows == len(feast_store.sent)  # Feast keeps every receipt

    first, output = run_import(feast_store.repo)
    assert first["read"] == rows
    assert first["imported"] + first["duplicates"] + first["refused"] == rows
    assert first["refused"] == 1
    assert re.search(
        r"refused [0-9a-f-]{36}: invalid_event: \$\.run\.runId: must be a UUID", output
    )
    # Feast's retries, and the one event the shared fixtures hold twice.
    distinct = len({repr(sorted(e.items())) for e in feast_store.sent})
    assert first["duplicates"] == rows - 1 - (distinct - 1)
    assert first["duplicates"] >= RETRIED
    assert our_events(feast_store.url) == first["imported"]

    second, _ = run_import(feast_store.repo)
    assert second == {
        "read": rows,
        "imported": 0,
        "duplicates": rows - 1,
        "refused": 1,
    }
    assert our_events(feast_store.url) == first["imported"]
    assert feast_rows(feast_store.url) == (rows, digest)  # the source is untouched


def test_a_wrong_source_is_one_line(tmp_path: Path, feast_store: FeastStore) -> None:
    empty = tmp_path / "empty.db"
    create_engine(f"sqlite:///{empty}").connect().close()
    result = CliRunner().invoke(
        cli, ["-c", str(feast_store.repo), "import-feast-lineage", "--source", f"sqlite:///{empty}"]
    )
    assert result.exit_code == 1
    assert "has no openlineage_events table" in result.output
    assert str(empty) in result.output  # the path given, not the read-only URL
    assert "mode=ro" not in result.output
    assert "--source" in result.output


def test_a_missing_sqlite_source_is_one_line_naming_the_file(feast_store: FeastStore) -> None:
    result = CliRunner().invoke(
        cli, ["-c", str(feast_store.repo), "import-feast-lineage", "--source", "sqlite:///gone.db"]
    )
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert lines == [
        f"Error: {feast_store.repo / 'gone.db'}: no such SQLite file; "
        "give the right database with --source"
    ]


def test_a_relative_source_is_the_repositorys(
    feast_store: FeastStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not feast_store.url.startswith("sqlite:"):
        pytest.skip("a relative path is a SQLite source's")
    monkeypatch.chdir(tmp_path)  # elsewhere: the path is the repository's, as in Feast's yaml
    result = CliRunner().invoke(
        cli,
        ["-c", str(feast_store.repo), "import-feast-lineage", "--source", "sqlite:///registry.db"],
    )
    assert result.exit_code == 0, result.output
    assert f"Read {len(feast_store.sent)} events" in result.output
