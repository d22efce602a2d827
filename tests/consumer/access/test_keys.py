"""API key authentication of the ingest endpoints (``consumer.api_key``)."""

from __future__ import annotations

import json
import logging

import pytest
from fastapi.testclient import TestClient
from starlette.requests import Request

from feast_lineage.consumer.access.keys import check_api_key, presented_key
from feast_lineage.consumer.errors import Unauthorized
from tests.conftest import AppFactory
from tests.consumer.routes.test_ingest import BATCH, JSON, LINEAGE, assert_error, stored_events
from tests.factories import run_event

KEY = "s3cr3t-ingest-key-0123456789"  # pragma: allowlist secret


@pytest.fixture
def locked(make_client: AppFactory) -> TestClient:
    return make_client(api_key=KEY)


def request_with(*headers: tuple[bytes, bytes]) -> Request:
    return Request({"type": "http", "method": "POST", "path": "/", "headers": list(headers)})


def body() -> bytes:
    return json.dumps(run_event("START")).encode()


# --- over HTTP ---------------------------------------------------------------------


def test_without_a_configured_key_ingest_is_open(client: TestClient) -> None:
    assert client.post(LINEAGE, content=body(), headers=JSON).status_code == 201
    wrong = {**JSON, "X-API-Key": "anything"}
    assert client.post(BATCH, content=b"[" + body() + b"]", headers=wrong).status_code == 204
    assert len(stored_events(client)) == 2


RIGHT = [
    {"X-API-Key": KEY},
    {"Authorization": f"Bearer {KEY}"},
    {"Authorization": f"bearer {KEY}"},
    {"x-api-key": f" {KEY} "},
]
WRONG = [
    ({}, "unauthorized"),
    ({"X-API-Key": ""}, "unauthorized"),
    ({"Authorization": "Bearer"}, "unauthorized"),
    ({"Authorization": KEY}, "unauthorized"),  # no scheme
    ({"Authorization": f"Basic {KEY}"}, "unauthorized"),
    ({"X-API-Key": KEY[:-1]}, "invalid_api_key"),
    ({"X-API-Key": KEY + "x"}, "invalid_api_key"),
    ({"Authorization": "Bearer wrong"}, "invalid_api_key"),
    ({"X-API-Key": "wrong", "Authorization": f"Bearer {KEY}"}, "invalid_api_key"),
]


def test_the_right_key_is_accepted(locked: TestClient) -> None:
    for headers in RIGHT:
        one = locked.post(LINEAGE, content=body(), headers={**JSON, **headers})
        assert one.status_code == 201, (headers, one.text)
        batch = locked.post(BATCH, content=b"[" + body() + b"]", headers={**JSON, **headers})
        assert batch.status_code == 204, (headers, batch.text)
    assert len(stored_events(locked)) == 2 * len(RIGHT)


@pytest.mark.parametrize("path", [LINEAGE, BATCH])
def test_a_missing_or_wrong_key_is_401_with_a_challenge(locked: TestClient, path: str) -> None:
    for headers, code in WRONG:
        response = locked.post(path, content=body(), headers={**JSON, **headers})
        error = assert_error(response, 401, code)
        assert response.headers["www-authenticate"].startswith("Bearer"), headers
        assert "X-API-Key" in error["message"] or "not valid" in error["message"]
        assert KEY not in response.text
    assert stored_events(locked) == []


READ_KEY = "a-read-key-for-dashboards"  # pragma: allowlist secret
READ_AUTHORIZER = {
    "type": "api_keys",
    "keys": [{"key": READ_KEY, "projects": ["ml_team"]}, {"key": "read-all", "projects": ["*"]}],
}


def test_a_read_key_sent_to_a_write_endpoint_is_403_not_invalid(make_client: AppFactory) -> None:
    client = make_client(api_key=KEY, authorizer=READ_AUTHORIZER)
    for key in (READ_KEY, "read-all"):
        for method, path, content in (
            ("POST", LINEAGE, body()),
            ("POST", BATCH, b"[" + body() + b"]"),
            ("POST", "/api/v1/lineage/openlineage/retention/prune", None),
            ("DELETE", "/api/v1/lineage/openlineage/reset", None),
        ):
            response = client.request(
                method, path, content=content, headers={**JSON, "X-API-Key": key}
            )
            error = assert_error(response, 403, "read_key_cannot_write")
            assert "read" in error["message"], error
            assert "api_key" in error["message"], error
            assert key not in response.text
    # A key that is no key at all is still 401 invalid_api_key.
    wrong = client.post(LINEAGE, content=body(), headers={**JSON, "X-API-Key": "nope"})
    assert_error(wrong, 401, "invalid_api_key")
    assert stored_events(client) == []


def test_the_key_is_checked_before_the_body_is_read(make_client: AppFactory) -> None:
    locked = make_client(api_key=KEY, max_request_bytes=2048)
    for content in (b"x" * 10_000, b"{not json", b"\x1f\x8b broken gzip"):
        response = locked.post(LINEAGE, content=content, headers=JSON)
        assert_error(response, 401, "unauthorized")


def test_a_non_ascii_key_header_is_401_not_500(locked: TestClient) -> None:
    headers = [(b"content-type", b"application/json"), (b"x-api-key", b"\xff\xfe-key")]
    response = locked.post(LINEAGE, content=body(), headers=headers)
    assert_error(response, 401, "invalid_api_key")


def test_keys_never_reach_the_log(locked: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        locked.post(LINEAGE, content=body(), headers={**JSON, "X-API-Key": "guess-" + KEY[:8]})
        locked.post(LINEAGE, content=body(), headers={**JSON, "X-API-Key": KEY})
    assert KEY not in caplog.text
    assert KEY[:8] not in caplog.text


# --- the functions -----------------------------------------------------------------


def test_presented_key_prefers_x_api_key() -> None:
    both = request_with((b"x-api-key", b"one"), (b"authorization", b"Bearer two"))
    assert presented_key(both) == "one"
    assert presented_key(request_with((b"authorization", b"Bearer  two "))) == "two"
    assert presented_key(request_with((b"authorization", b"Token two"))) is None
    assert presented_key(request_with()) is None


def test_check_api_key() -> None:
    check_api_key(request_with(), None)  # open
    check_api_key(request_with((b"x-api-key", KEY.encode())), KEY)
    with pytest.raises(Unauthorized) as missing:
        check_api_key(request_with(), KEY)
    assert missing.value.code == "unauthorized"
    assert missing.value.headers == {"WWW-Authenticate": 'Bearer realm="feast-lineage"'}
    with pytest.raises(Unauthorized) as wrong:
        check_api_key(request_with((b"x-api-key", b"nope")), KEY)
    assert wrong.value.code == "invalid_api_key"
