"""A consumer section that cannot work here skips the in-process consumer, never the producer.

Feast ignores ``openlineage.consumer`` outside its lineage server, so a
repository may carry one that has no database here (a file registry and no
``connection_string``) or whose driver is not installed. The producer goes on
emitting through its transport and says once, as a warning, why the local
store is skipped and how to fix it.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import httpx
import pytest

from tests.producer.conftest import invoke
from tests.producer.feast_repo import file_transport, read_events, write_repo
from tests.server_process import lineage_server
from tests.server_process import write_repo as write_server_repo

SKIPPED = "OpenLineage's in-process consumer is skipped"


def skipped_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "feast_lineage.producer"
        and r.levelno == logging.WARNING
        and SKIPPED in r.getMessage()
    ]


@pytest.mark.slow
def test_a_consumer_with_no_database_here_keeps_emitting_over_http(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server_root = write_server_repo(tmp_path / "server")
    with lineage_server(server_root) as server:
        root, _ = write_repo(
            tmp_path / "repo",
            registry=str(tmp_path / "repo" / "data" / "registry.db"),  # a file registry
            openlineage={
                "enabled": True,
                "transport_type": "http",
                "transport_url": server.url,
                "consumer": {"enabled": True, "store_type": "sql"},
            },
        )
        with caplog.at_level(logging.WARNING):
            result = invoke("-c", str(root), "apply")
        assert "OpenLineage is off" not in result.output + caplog.text
        (warning,) = skipped_warnings(caplog)
        assert "the registry is a file registry and no connection_string is set" in warning
        assert "set openlineage.consumer.connection_string" in warning
        assert "events still go to the configured transport" in warning
        jobs = httpx.get(
            server.url + "/api/v1/lineage/openlineage/jobs",
            params={"namespace": "demo", "limit": 100},
        ).json()
        assert "feast_apply_entities" in {job["job_name"] for job in jobs["jobs"]}

        # Teardown has no local store to clear, and says where the lineage is.
        torn = invoke("-c", str(root), "teardown")
        assert "no lineage store is kept here" in torn.output
        assert "the lineage of namespace demo stays where it was sent" in torn.output


def test_a_postgresql_consumer_without_psycopg_keeps_emitting(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # psycopg is installed here: hiding it from the import system is the one
    # way to run without it (find_spec answers None for a None module).
    monkeypatch.setitem(sys.modules, "psycopg", None)
    events = tmp_path / "events.jsonl"
    root, _ = write_repo(
        tmp_path,
        openlineage={
            **file_transport(events),
            "consumer": {
                "enabled": True,
                "connection_string": "postgresql://lineage@127.0.0.1:1/lineage",
            },
        },
    )
    with caplog.at_level(logging.WARNING):
        invoke("-c", str(root), "apply")
    (warning,) = skipped_warnings(caplog)
    assert "postgresql needs the psycopg package, which is not installed" in warning
    assert {e["job"]["name"] for e in read_events(events)} >= {"feast_apply_entities"}
