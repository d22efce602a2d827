"""Numbers the store cannot keep, over HTTP: refused naming the path, not altered."""

from __future__ import annotations

import orjson
from fastapi.testclient import TestClient

from tests.consumer.routes.test_ingest import LINEAGE, assert_error, post, stored_events
from tests.factories import facet, run_event


def _with_number(text: str) -> bytes:
    raw = orjson.dumps(run_event("START", run_facets={"stats": facet(value=0)})).decode()
    return raw.replace('"value":0', f'"value":{text}').encode()


def test_a_number_too_small_for_a_double_is_a_400_naming_its_path(client: TestClient) -> None:
    error = assert_error(
        post(client, LINEAGE, _with_number("1e-400")),
        400,
        "invalid_event",
        "$.run.facets.stats.value",
        "too small for a double",
        "send 0, or the value as a string",
    )
    assert error["message"].startswith("the event was not stored")
    assert stored_events(client) == []


def test_a_small_number_a_double_holds_is_stored(client: TestClient) -> None:
    answer = post(client, LINEAGE, _with_number("1e-320"))
    assert answer.status_code == 201, answer.text
    (event,) = stored_events(client)
    assert event["run"]["facets"]["stats"]["value"] == 1e-320
