"""The OpenAPI document is never looser than the server: credentials, event limits.

Each operation's ``security`` is checked against what the server does: an
operation that declares a required credential answers ``401`` without one
and not with one; an operation that declares none (or an optional one)
never answers ``401`` to a request without a key. The ingest body's limits
are checked against the server the same way, with events at and past them.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from feast_lineage.consumer.intake.event_schema import EVENT_TIME_PATTERN
from tests.conftest import AppFactory
from tests.consumer.lineage import API
from tests.factories import facet, run_event

KEY = "admin-key"
AUTHORIZER = {"type": "api_keys", "keys": [{"key": "read-key", "projects": ["team"]}]}
# Path parameters that reach the handler (a 404 past the credential check is fine).
_FILL = {
    "run_id": "9f1f1a52-4a4e-4a3b-9f3c-2f7c6f0a6b1d",
    "node_type": "job",
    "namespace": "team",
    "name": "x",
    "object_type": "feature_view",
    "object_name": "x",
    "version_id": "0" * 16,  # a dataset version's id (a job version's: 32 digits, below)
}
_QUERY = {"/graph/node": {"type": "job", "namespace": "team", "name": "x"}}
_QUERY.update({"/columns": {"namespace": "team", "name": "x"}})


def _url(path: str) -> str:
    fill = {**_FILL, "version_id": "0" * 32} if "/jobs/" in path else _FILL
    return re.sub(r"\{(\w+)(:path)?\}", lambda m: fill[m.group(1)], path)


def _call(client: TestClient, method: str, path: str, headers: dict[str, str]) -> int:
    params: dict[str, Any] = dict(_QUERY.get(path.removeprefix(API), {}))
    if path.endswith("/prune"):
        params["days"] = 30
    if method == "post" and "prune" not in path:
        body: Any = [] if path.endswith("batch") else run_event("START")
        return client.post(_url(path), json=body, headers=headers).status_code
    return client.request(method.upper(), _url(path), params=params, headers=headers).status_code


def _operations(client: TestClient) -> list[tuple[str, str, Any]]:
    document = client.app.openapi()  # type: ignore[attr-defined]
    return [
        (method, path, op.get("security"))
        for path, ops in document["paths"].items()
        for method, op in ops.items()
    ]


@pytest.mark.parametrize(
    ("settings", "required_at_least"),
    [
        ({}, 0),
        ({"api_key": KEY}, 3),  # ingest (2) and prune
        ({"api_key": KEY, "authorizer": AUTHORIZER}, 20),  # and every read
        ({"api_key": KEY, "authorizer": {**AUTHORIZER, "anonymous_projects": ["team"]}}, 3),
    ],
    ids=["open", "ingest-key", "read-keys", "anonymous-projects"],
)
def test_security_says_which_operations_need_a_key(
    make_client: AppFactory, settings: dict[str, Any], required_at_least: int
) -> None:
    client = make_client(**settings)
    document = client.app.openapi()  # type: ignore[attr-defined]
    assert document["components"]["securitySchemes"]["ApiKey"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
        "description": document["components"]["securitySchemes"]["ApiKey"]["description"],
    }
    assert document["components"]["securitySchemes"]["Bearer"]["scheme"] == "bearer"
    required = 0
    for method, path, security in _operations(client):
        if method == "delete":
            continue  # reset would empty the store; prune stands for the admin operations
        without = _call(client, method, path, {})
        if security and {} not in security:
            required += 1
            assert without == 401, f"{method} {path} declares a key but answers {without}"
            assert {"ApiKey": []} in security
            assert {"Bearer": []} in security
            for header in ({"X-API-Key": KEY}, {"Authorization": f"Bearer {KEY}"}):
                assert _call(client, method, path, header) != 401, f"{method} {path} {header}"
        else:
            assert without != 401, f"{method} {path} declares no key but answers 401"
    assert required >= required_at_least


def _body_schema(client: TestClient) -> tuple[dict[str, Any], dict[str, Any]]:
    document = client.app.openapi()  # type: ignore[attr-defined]
    operation = document["paths"]["/api/v1/lineage/batch"]["post"]
    return operation["requestBody"]["content"]["application/json"]["schema"], document


def test_the_event_schema_states_the_limits_the_server_keeps(make_client: AppFactory) -> None:
    client = make_client(max_batch_events=3)
    body, document = _body_schema(client)
    assert body["maxItems"] == 3
    run = body["items"]["anyOf"][0]
    time = run["properties"]["eventTime"]
    assert time["format"] == "date-time"
    value = document["components"]["schemas"]["JsonValue"]
    number = next(o for o in value["anyOf"] if o.get("type") == "number")
    assert (number["minimum"], number["maximum"]) == (-(2**63), 2**64 - 1)
    string = next(o for o in value["anyOf"] if o.get("type") == "string")
    assert re.fullmatch(string["pattern"].strip("^$"), "a\x00b") is None
    facets = run["properties"]["run"]["properties"]["facets"]["additionalProperties"]
    assert facets["additionalProperties"] == {"$ref": "#/components/schemas/JsonValue"}
    producer = run["properties"]["producer"]
    assert producer["pattern"] == string["pattern"]

    # What the schema allows, the server takes; what it leaves out, the server refuses.
    def status(event: dict[str, Any]) -> int:
        return client.post("/api/v1/lineage", json=event).status_code

    for year, allowed in (("1899", False), ("1900", False), ("1901", True), ("9998", True)):
        text = f"{year}-01-01T00:30:00+01:00"
        assert (re.match(EVENT_TIME_PATTERN, text) is not None) is allowed, text
        if allowed:
            assert status(run_event(time=text)) == 201, text
    assert status(run_event(time="1899-12-31T23:00:00Z")) == 400
    big = run_event(run_facets={"n": facet(v=2**64 - 1, w=-(2**63))})
    assert status(big) == 201
    assert status(run_event(run_facets={"n": facet(v=2**64)})) == 400
    assert status(run_event(run_facets={"n": facet(v="a\x00b")})) == 400
