"""A key given twice in an event, over HTTP: refused naming its path, not resolved silently."""

from __future__ import annotations

import orjson
from fastapi.testclient import TestClient

from tests.consumer.routes.test_ingest import LINEAGE, assert_error, post, stored_run_ids
from tests.factories import run_event

FIRST = "0190e6a1-7c3f-7b6e-9a1d-3f2b8c4d5e6f"


def _two_run_ids(last: str) -> bytes:
    event = orjson.dumps(run_event("START", run_id=last))
    return event.replace(b'"runId":', b'"runId":"' + FIRST.encode() + b'","runId":', 1)


def test_an_event_with_two_run_ids_is_a_400_naming_the_path(client: TestClient) -> None:
    body = _two_run_ids("0190e6a1-7c3f-7b6e-9a1d-000000000002")
    assert body.count(b'"runId"') == 2
    assert_error(
        post(client, LINEAGE, body),
        400,
        "invalid_event",
        "$.run.runId",
        "given more than once",
        "send each key once",
    )
    assert stored_run_ids(client) == []


def test_in_an_array_only_that_event_is_refused(client: TestClient) -> None:
    kept = run_event("START")
    body = b"[" + orjson.dumps(kept) + b"," + _two_run_ids(FIRST) + b"]"
    answer = post(client, LINEAGE, body)
    assert answer.status_code == 207, answer.text
    assert [(e["index"], e["path"]) for e in answer.json()["errors"]] == [(1, "$[1].run.runId")]
    assert stored_run_ids(client) == [kept["run"]["runId"]]
