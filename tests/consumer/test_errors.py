"""One JSON error shape on every endpoint.

The endpoints are read from the app's OpenAPI schema, so a new endpoint is
checked without touching this file: every failing request of every kind
(unknown method, bad parameter, unknown path, missing or wrong key, store
not started, unexpected exception) must answer
``{"error": {"status", "code", "message"[, "details"]}, "detail": message}``
(``detail`` is where Feast's lineage server puts its message).
"""

from __future__ import annotations

import gzip
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import httpx
import pytest
from fastapi import FastAPI, Query
from fastapi.testclient import TestClient

from feast_lineage.config import ConsumerSettings
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.errors import install_error_handlers
from feast_lineage.consumer.settings import AppSettings
from tests.consumer.lineage import API

ADMIN_KEY = "admin-key-for-tests"
FACET_SCHEMA = "/api/v1/lineage/facets/{name}.json"
# Public endpoints: no key, and no store behind them.
NO_KEY_NEEDED = {"/healthz", "/readyz", FACET_SCHEMA}
NO_STORE_NEEDED = {FACET_SCHEMA}
# Path parameter values naming nothing that exists (any other parameter: "no-such-thing").
SAMPLE_PATH_VALUES = {
    "run_id": "0b8c7a8e-9a4e-4c47-8f3c-6c9c1c1d2a11",
    "node_type": "job",
    "path": "airflow%3A%2F%2Fprod/etl.load",
    "object_type": "feature_view",
}
# Path parameter values that must be refused with 400.
BAD_PATH_VALUES = {"run_id": "not-a-uuid", "node_type": "spaceship", "version_id": "not-an-id"}
GENERIC_500 = "the server failed to handle this request; see the server log"


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    spec: dict[str, Any]

    @property
    def url(self) -> str:
        return self.url_with({})

    def url_with(self, values: dict[str, str]) -> str:
        url = self.path
        # An id of the right form that names nothing (a job version's is 32 hex
        # digits, a dataset version's 16).
        wellformed = {"version_id": "0" * (32 if "/jobs/" in url else 16)}
        for name, value in {**SAMPLE_PATH_VALUES, **wellformed, **values}.items():
            url = url.replace("{" + name + "}", value)
        return re.sub(r"\{[^}]*\}", "no-such-thing", url)

    @property
    def path_params(self) -> list[str]:
        return [p["name"] for p in self.spec.get("parameters", []) if p["in"] == "path"]

    @property
    def id(self) -> str:
        return f"{self.method} {self.path}"


def settings(tmp_path: Path, **consumer: Any) -> AppSettings:
    return AppSettings(
        consumer=ConsumerSettings.model_validate({"enabled": True, **consumer}),
        database_url=f"sqlite:///{tmp_path / 'lineage.db'}",
        project="demo",
    )


def operations() -> list[Operation]:
    app = create_app(AppSettings(consumer=ConsumerSettings(), database_url="sqlite://"))
    return [
        Operation(method.upper(), path, spec)
        for path, ops in app.openapi()["paths"].items()
        for method, spec in ops.items()
    ]


OPERATIONS = operations()


def test_the_schema_lists_the_known_endpoints() -> None:
    # Guards against the walk below silently finding nothing.
    ids = {op.id for op in OPERATIONS}
    assert {
        "GET /healthz",
        "GET /readyz",
        "POST /api/v1/lineage",
        "POST /api/v1/lineage/batch",
        "GET /api/v1/lineage/openlineage/events",
        "GET /api/v1/lineage/openlineage/runs/{run_id}",
    } <= ids


def assert_error_shape(response: httpx.Response, status: int | None = None) -> dict[str, Any]:
    """The body is exactly the one error shape, and agrees with the HTTP status."""
    if status is not None:
        assert response.status_code == status, response.text
    assert response.status_code >= 400
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error", "detail"}, body
    error = body["error"]
    assert set(error) in ({"status", "code", "message"}, {"status", "code", "message", "details"})
    assert error["status"] == response.status_code
    assert body["detail"] == error["message"]
    assert isinstance(error["code"], str)
    assert error["code"]
    assert error["code"] == error["code"].lower()
    assert " " not in error["code"]
    assert isinstance(error["message"], str)
    assert error["message"].strip()
    if "details" in error:
        assert isinstance(error["details"], list)
        assert error["details"]
        assert all(isinstance(d, dict) and "message" in d for d in error["details"])
    assert "Traceback" not in response.text
    return error  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """An app where writing needs the admin key and reading needs a read key."""
    path = tmp_path_factory.mktemp("errors")
    app = create_app(settings(path, api_key=ADMIN_KEY, authorizer={"type": "api_keys", "keys": []}))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


@pytest.fixture(scope="module")
def open_writes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """An app with an admin key and the default open reading."""
    app = create_app(settings(tmp_path_factory.mktemp("errors"), api_key=ADMIN_KEY))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


ADMIN = {"X-API-Key": ADMIN_KEY}


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.id)
def test_an_unknown_method_is_405(guarded: TestClient, op: Operation) -> None:
    allowed = {o.method for o in OPERATIONS if o.path == op.path}
    method = next(m for m in ("PUT", "PATCH", "DELETE", "POST") if m not in allowed)
    response = guarded.request(method, op.url, headers=ADMIN)
    error = assert_error_shape(response, 405)
    assert error["code"] == "method_not_allowed"
    assert set(response.headers["allow"].replace(" ", "").split(",")) >= allowed
    assert f"not {method}" in error["message"]
    assert all(m in error["message"] for m in allowed)  # what to send instead


def test_a_message_quoting_a_huge_input_is_cut(guarded: TestClient) -> None:
    response = guarded.get(f"/api/v1/lineage/openlineage/runs/{'x' * 60_000}", headers=ADMIN)
    error = assert_error_shape(response, 400)
    assert len(error["message"]) <= 1000
    assert error["message"].endswith("…")


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.id)
def test_an_unknown_path_is_404(guarded: TestClient, op: Operation) -> None:
    for url in ("/no-such-endpoint" + op.url, op.url.rsplit("/", 1)[0] + "/no/such/endpoint"):
        response = guarded.request(op.method, url, headers=ADMIN)
        if response.status_code == 404:
            assert_error_shape(response, 404)
        else:  # the second form can still match a templated route
            assert_error_shape(response)
    error = assert_error_shape(guarded.request(op.method, "/no-such-endpoint" + op.url), 404)
    assert error["code"] == "not_found"


def bad_requests(op: Operation) -> list[dict[str, Any]]:
    """Requests to ``op`` that must fail with 400, derived from its schema."""
    out: list[dict[str, Any]] = []
    params = [p for p in op.spec.get("parameters", []) if p["in"] == "query"]
    for param in params:
        schemas = param["schema"].get("anyOf", [param["schema"]])
        types = {s.get("type") for s in schemas}
        if "integer" in types:
            out.append({"params": {param["name"]: "not-a-number"}})
        if any("enum" in s for s in schemas):
            out.append({"params": {param["name"]: "no-such-choice"}})
        if any(s.get("minLength") for s in schemas):
            out.append({"params": {param["name"]: ""}})
        if param.get("required"):
            others = {p["name"]: "x" for p in params if p.get("required") and p is not param}
            out.append({"params": others})
    for name in op.path_params:
        if name in BAD_PATH_VALUES:
            out.append({"url": op.url_with({name: BAD_PATH_VALUES[name]})})
    if "requestBody" in op.spec:
        out.append({"content": b'{"eventType": "START", ', "headers": _json})
        out.append({"content": b"[1, 2", "headers": _json})
    return out


_json = {"Content-Type": "application/json"}


@pytest.mark.parametrize("op", [op for op in OPERATIONS if bad_requests(op)], ids=lambda op: op.id)
def test_a_bad_parameter_or_body_is_400(guarded: TestClient, op: Operation) -> None:
    for request in bad_requests(op):
        headers = {**ADMIN, **request.pop("headers", {})}
        url = request.pop("url", op.url)
        response = guarded.request(op.method, url, headers=headers, **request)
        error = assert_error_shape(response, 400)
        assert error["code"] in {"invalid_parameter", "invalid_json"}, error


def test_most_endpoints_have_a_checked_bad_request() -> None:
    covered = [op for op in OPERATIONS if bad_requests(op)]
    assert len(covered) >= len(OPERATIONS) // 2


# Health probes may add parameters of their own.
LENIENT_QUERY = {"/healthz", "/readyz"}


@pytest.mark.parametrize(
    "op", [op for op in OPERATIONS if op.path not in LENIENT_QUERY], ids=lambda op: op.id
)
def test_an_unknown_query_parameter_is_400_naming_it_and_the_known_ones(
    guarded: TestClient, op: Operation
) -> None:
    # A misspelt filter must not be ignored: the answer would list everything.
    response = guarded.request(op.method, op.url, headers=ADMIN, params={"namespacee": "x"})
    error = assert_error_shape(response, 400)
    assert error["code"] == "unknown_parameter"
    assert "query parameter 'namespacee' is unknown" in error["message"]
    for param in op.spec.get("parameters", []):
        if param["in"] == "query":
            assert param["name"] in error["message"]
    two = guarded.request(op.method, op.url, headers=ADMIN, params={"a1": "x", "b2": "y"})
    paths = [d["path"] for d in assert_error_shape(two, 400)["details"]]
    assert paths == ["query parameter 'a1'", "query parameter 'b2'"]


def test_a_known_query_parameter_still_works(guarded: TestClient) -> None:
    runs = "/api/v1/lineage/openlineage/runs"
    known = guarded.get(runs, params={"job_namespace": "x", "limit": 5}, headers=ADMIN)
    assert known.status_code == 200
    error = assert_error_shape(guarded.get(runs, params={"namespace": "x"}, headers=ADMIN), 400)
    assert "job_namespace" in error["message"]


@pytest.mark.parametrize(
    "op", [op for op in OPERATIONS if op.path_params and op.method == "GET"], ids=lambda op: op.id
)
def test_a_missing_resource_is_404(guarded: TestClient, op: Operation) -> None:
    # The store is empty and there is no feature repository: what the path names is not there.
    error = assert_error_shape(guarded.get(op.url, headers=ADMIN), 404)
    if error["code"] == "not_found":
        assert any(words in error["message"] for words in LISTS_WHAT_EXISTS), error["message"]


# How a 404 says what there is: the request that lists it, or the names themselves.
LISTS_WHAT_EXISTS = (
    "; list them with GET /api/v1/lineage/",
    "; list them with GET .../",
    "known: ",
)


@pytest.mark.parametrize(
    "op", [op for op in OPERATIONS if op.path not in NO_KEY_NEEDED], ids=lambda op: op.id
)
def test_a_missing_or_wrong_key_is_401_when_keys_are_set(
    guarded: TestClient, op: Operation
) -> None:
    missing = assert_error_shape(guarded.request(op.method, op.url), 401)
    assert missing["code"] == "unauthorized"
    wrong = guarded.request(op.method, op.url, headers={"X-API-Key": "not-the-key"})
    assert assert_error_shape(wrong, 401)["code"] == "invalid_api_key"
    assert wrong.headers["www-authenticate"].startswith("Bearer")
    bearer = guarded.request(op.method, op.url, headers={"Authorization": "Bearer nope"})
    assert_error_shape(bearer, 401)


@pytest.mark.parametrize(
    "op", [op for op in OPERATIONS if op.method != "GET"], ids=lambda op: op.id
)
def test_writes_need_the_admin_key_even_when_reading_is_open(
    open_writes: TestClient, op: Operation
) -> None:
    error = assert_error_shape(open_writes.request(op.method, op.url), 401)
    assert "API key" in error["message"]


@pytest.mark.parametrize("op", [op for op in OPERATIONS if "requestBody" in op.spec])
def test_body_errors_have_the_shape(tmp_path: Path, op: Operation) -> None:
    app = create_app(settings(tmp_path, max_request_bytes=1024))
    with TestClient(app, raise_server_exceptions=False) as client:
        big = client.request(op.method, op.url, content=b"[" + b" " * 2048 + b"]", headers=_json)
        assert assert_error_shape(big, 413)["code"] == "body_too_large"
        bomb = gzip.compress(b"[" + b" " * 100_000 + b"]")
        inflated = client.request(
            op.method, op.url, content=bomb, headers={**_json, "Content-Encoding": "gzip"}
        )
        assert assert_error_shape(inflated, 413)["code"] == "body_too_large"
        brotli = client.request(
            op.method, op.url, content=b"[]", headers={**_json, "Content-Encoding": "br"}
        )
        assert assert_error_shape(brotli, 415)["code"] == "unsupported_encoding"
        empty = client.request(op.method, op.url, content=b"", headers=_json)
        assert assert_error_shape(empty, 400)["code"] == "empty_body"


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.id)
def test_before_startup_every_endpoint_answers_503(tmp_path: Path, op: Operation) -> None:
    # No lifespan has run: the store is not there yet.
    client = TestClient(create_app(settings(tmp_path)), raise_server_exceptions=False)
    response = client.request(op.method, op.url, headers=ADMIN)
    if op.path in NO_STORE_NEEDED:
        assert response.status_code < 500
        if response.status_code >= 400:
            assert_error_shape(response)
        return
    error = assert_error_shape(response, 503)
    assert error["code"] == "store_unavailable"


def failing_app(tmp_path: Path) -> FastAPI:
    app = create_app(settings(tmp_path))

    @app.get("/test-only/crash")
    async def crash() -> None:
        raise RuntimeError("internal detail: /etc/secret-path line 42")

    @app.get("/test-only/crash-in-thread")
    def crash_in_thread() -> None:
        raise KeyError("another internal detail")

    return app


@pytest.mark.parametrize("url", ["/test-only/crash", "/test-only/crash-in-thread"])
def test_an_unexpected_exception_is_a_generic_500(
    tmp_path: Path, url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    with TestClient(failing_app(tmp_path), raise_server_exceptions=False) as client:
        response = client.get(url)
    assert response.json() == {
        "error": {"status": 500, "code": "internal_error", "message": GENERIC_500},
        "detail": GENERIC_500,
    }
    assert_error_shape(response, 500)
    assert "internal detail" not in response.text
    assert "Traceback" not in response.text
    # The details go to the server log instead.
    assert f"unexpected error on GET {url}" in caplog.text
    assert "internal detail" in caplog.text


def test_the_error_model_in_the_schema_is_the_shape(tmp_path: Path) -> None:
    schema = create_app(settings(tmp_path)).openapi()
    error = schema["components"]["schemas"]["ErrorInfo"]
    assert set(error["properties"]) == {"status", "code", "message", "details"}
    assert set(error["required"]) == {"status", "code", "message"}
    shape = schema["components"]["schemas"]["ErrorResponse"]
    assert set(shape["properties"]) == set(shape["required"]) == {"error", "detail"}


def test_an_unreachable_store_is_a_503_on_every_read(tmp_path: Path) -> None:
    with TestClient(create_app(settings(tmp_path)), raise_server_exceptions=False) as client:
        assert client.get(API + "/events").status_code == 200
        # The database file goes away under the running server (a lost volume).
        state = client.app.state.consumer  # type: ignore[attr-defined]
        state.engine.dispose()
        for path in (tmp_path / "lineage.db", tmp_path / "lineage.db-wal"):
            path.unlink(missing_ok=True)
        (tmp_path / "lineage.db").mkdir()  # nothing can open it now
        for path in ("/events", "/runs", "/graph", "/retention"):
            response = client.get(API + path)
            error = assert_error_shape(response, 503)
            assert error["code"] == "store_unavailable"
            assert response.headers["Retry-After"] == "1"
            assert "lineage.db" not in response.text


def _typed_app() -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/typed")
    async def typed(
        flag: bool = False,
        count: Annotated[int, Query(ge=1, le=10)] = 1,
        ratio: float = 0.5,
        mode: Literal["fast", "slow"] = "fast",
    ) -> dict[str, str]:
        return {}

    return app


@pytest.mark.parametrize(
    ("params", "fragments"),
    [
        ({"flag": "maybe"}, ["'flag'", "true or false", "1 or 0"]),
        ({"count": "many"}, ["'count'", "whole number"]),
        ({"count": "0"}, ["'count'", "at least 1"]),
        ({"count": "11"}, ["'count'", "at most 10"]),
        ({"ratio": "half"}, ["'ratio'", "a number"]),
        ({"mode": "medium"}, ["'mode'", "'fast' or 'slow'"]),
    ],
)
def test_a_parameter_of_the_wrong_type_is_named_with_what_it_accepts(
    params: dict[str, str], fragments: list[str]
) -> None:
    response = TestClient(_typed_app()).get("/typed", params=params)
    error = assert_error_shape(response, 400)
    assert error["code"] == "invalid_parameter"
    for fragment in fragments:
        assert fragment in error["message"], error["message"]
    assert "Input should" not in error["message"]
    assert "unable to interpret" not in error["message"]
