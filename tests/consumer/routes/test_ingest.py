"""``POST /api/v1/lineage`` and ``POST /api/v1/lineage/batch`` over HTTP.

Every test runs on a SQLite file and on real PostgreSQL and MariaDB databases (the
``head_store_url`` fixture behind ``make_client``).
"""

from __future__ import annotations

import gzip
import json
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import orjson
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import event as hypothesis_event
from hypothesis import strategies as st
from sqlalchemy import select

from feast_lineage.consumer.store.engine.transactions import write_transaction
from feast_lineage.consumer.store.schema import tables as t
from tests.conftest import AppFactory
from tests.factories import (
    dataset,
    dataset_event,
    facet,
    job_event,
    run_event,
    schema_facet,
)

LINEAGE = "/api/v1/lineage"
BATCH = "/api/v1/lineage/batch"
JSON = {"Content-Type": "application/json"}


def assert_error(
    response: httpx.Response, status: int, code: str | None = None, *mentions: str
) -> dict[str, Any]:
    """Check the one error shape; return the error object."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error", "detail"}, body
    error = body["error"]
    assert set(error) <= {"status", "code", "message", "details"}, error
    assert error["status"] == status
    assert isinstance(error["code"], str)
    assert isinstance(error["message"], str)
    assert len(error["message"]) > 10
    assert "Traceback" not in response.text
    if code is not None:
        assert error["code"] == code, error
    for text in mentions:
        assert text in response.text, (text, error)
    for detail in error.get("details") or []:
        assert str(detail["path"]).startswith("$")
        assert str(detail["message"])
    return error


def stored_events(client: TestClient) -> list[dict[str, Any]]:
    """Every event the app's store holds (the stored payloads), oldest first."""
    engine = client.app.state.consumer.engine
    with engine.connect() as conn:
        rows = conn.execute(select(t.events.c.payload).order_by(t.events.c.id))
        return [orjson.loads(payload) for (payload,) in rows]


def stored_run_ids(client: TestClient) -> list[str]:
    return sorted(e["run"]["runId"] for e in stored_events(client) if "run" in e)


def post(client: TestClient, path: str, body: Any, **headers: str) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post(path, content=content, headers={**JSON, **headers})


def bad_run_id(event: dict[str, Any]) -> dict[str, Any]:
    event["run"]["runId"] = "run-42"
    return event


@pytest.fixture
def small(make_client: AppFactory) -> TestClient:
    """A consumer with small limits: 8 KiB bodies, 5 events a batch."""
    return make_client(max_request_bytes=8 * 1024, max_batch_events=5)


# --- response codes -----------------------------------------------------------


def test_one_event_is_201_and_stored_as_sent(client: TestClient) -> None:
    event = run_event(
        "START",
        inputs=[dataset("postgres://db:5432", "public.orders", schema=schema_facet("id"))],
        run_facets={"my_custom": {"anything": [1, {"nested": True}], "_producer": "x"}},
    )
    response = post(client, LINEAGE, event)
    assert response.status_code == 201, response.text
    assert response.json() == {
        "event_id": response.json()["event_id"],
        "status": "created",
        "summary": {"received": 1, "successful": 1, "failed": 0},
    }
    assert stored_events(client) == [event]
    page = client.get("/api/v1/lineage/openlineage/events").json()
    assert [e["event_id"] for e in page["events"]] == [response.json()["event_id"]]


def test_an_array_on_the_lineage_endpoint_is_200_with_a_summary(client: TestClient) -> None:
    events = [run_event("START"), dataset_event("s3://bucket", "raw/x"), job_event("ns", "j")]
    response = post(client, LINEAGE, events)
    assert response.status_code == 200, response.text
    assert response.json() == {
        "status": "success",
        "summary": {"received": 3, "successful": 3, "failed": 0},
    }
    assert len(stored_events(client)) == 3


def test_a_full_batch_is_204_with_no_body(client: TestClient) -> None:
    events = [run_event("START"), run_event("COMPLETE"), dataset_event("s3://b", "k")]
    response = post(client, BATCH, events)
    assert response.status_code == 204, response.text
    assert response.content == b""
    assert len(stored_events(client)) == 3


@pytest.mark.parametrize("path", [BATCH, LINEAGE])
def test_a_partly_bad_batch_is_207_and_stores_the_good_events(
    client: TestClient, path: str
) -> None:
    events = [run_event("START") for _ in range(5)]
    bad_run_id(events[3])
    del events[1]["eventTime"]
    response = post(client, path, events)
    assert response.status_code == 207, response.text
    body = response.json()
    assert body["status"] == "partial"
    assert body["summary"] == {"received": 5, "successful": 3, "failed": 2}
    errors = {(e["index"], e["path"]) for e in body["errors"]}
    assert errors == {(1, "$[1].eventTime"), (3, "$[3].run.runId")}
    assert all("message" in e and e["message"] for e in body["errors"])
    good = [events[i]["run"]["runId"] for i in (0, 2, 4)]
    assert stored_run_ids(client) == sorted(good)


def test_a_batch_with_no_good_event_is_400_naming_each_one(client: TestClient) -> None:
    events = [bad_run_id(run_event("START")), {"eventTime": "2024-01-01T00:00:00Z"}]
    error = assert_error(post(client, BATCH, events), 400, "invalid_event", "$[0].run.runId")
    assert [d["index"] for d in error["details"]] == [0, 1]
    assert error["details"][1]["path"] == "$[1]"
    assert stored_events(client) == []


def test_an_empty_array_stores_nothing(client: TestClient) -> None:
    assert post(client, BATCH, []).status_code == 204
    response = post(client, LINEAGE, [])
    assert response.status_code == 200
    assert response.json()["summary"] == {"received": 0, "successful": 0, "failed": 0}


UNUSABLE: list[tuple[str, bytes, str, str]] = [
    (LINEAGE, b"42", "unexpected_body", "number"),
    (LINEAGE, b'"an event"', "unexpected_body", "string"),
    (LINEAGE, b"null", "unexpected_body", "null"),
    (LINEAGE, b"true", "unexpected_body", "boolean"),
    (BATCH, b"42", "expected_array", "array"),
    (BATCH, b'"x"', "expected_array", "array"),
    (BATCH, json.dumps(run_event("START")).encode(), "expected_array", "array"),
    (LINEAGE, b'{"eventTime": ', "invalid_json", "JSON"),
    (LINEAGE, b"{'single': 'quotes'}", "invalid_json", "JSON"),
    (BATCH, b"[1, 2", "invalid_json", "JSON"),
    (LINEAGE, b"", "empty_body", "empty"),
    (BATCH, b"  \n\t ", "empty_body", "empty"),
    (LINEAGE, b"[1]", "invalid_event", "$[0]"),
]


def test_unusable_bodies_are_400(client: TestClient) -> None:
    for path, body, code, mention in UNUSABLE:
        assert_error(post(client, path, body), 400, code, mention)
    assert stored_events(client) == []


def test_events_without_schema_url_are_accepted(client: TestClient) -> None:
    events = [run_event("START"), dataset_event("s3://b", "k"), job_event("ns", "j")]
    for event in events:
        del event["schemaURL"]
        assert post(client, LINEAGE, event).status_code == 201
    stored = sorted(json.dumps(e, sort_keys=True) for e in stored_events(client))
    assert stored == sorted(json.dumps(e, sort_keys=True) for e in events)


def test_the_same_event_twice_is_stored_once(client: TestClient) -> None:
    event = run_event("COMPLETE")
    assert post(client, LINEAGE, event).status_code == 201
    assert post(client, LINEAGE, event).status_code == 201
    assert post(client, BATCH, [event, event]).status_code == 204
    assert len(stored_events(client)) == 1


def test_large_bodies_get_the_same_answers(client: TestClient) -> None:
    """Bodies past 32 KiB are parsed by the writer thread, not on the event loop."""
    pad = {"pad": facet(text="x" * 40_000)}
    big = run_event("START", run_facets=pad)
    broken = json.dumps([big]).encode()[:-1] + b", {"
    assert len(broken) > 32 * 1024
    assert_error(post(client, BATCH, broken), 400, "invalid_json", "JSON")
    assert_error(post(client, BATCH, big), 400, "expected_array", "array")
    events = [run_event("START", run_facets=pad), bad_run_id(run_event("START")), big]
    response = post(client, BATCH, events)
    assert response.status_code == 207, response.text
    assert [(e["index"], e["path"]) for e in response.json()["errors"]] == [(1, "$[1].run.runId")]
    one = run_event("COMPLETE", run_facets=pad)
    assert post(client, LINEAGE, one).status_code == 201
    sent = [events[0], big, one]
    assert stored_run_ids(client) == sorted(e["run"]["runId"] for e in sent)


# --- encodings and limits -----------------------------------------------------------


def test_gzip_bodies_are_accepted(client: TestClient) -> None:
    sent = []
    for encoding in ("gzip", "x-gzip", "GZIP"):
        one, many = run_event("START"), [run_event("START"), run_event("COMPLETE")]
        zipped = gzip.compress(json.dumps(one).encode())
        assert post(client, LINEAGE, zipped, **{"Content-Encoding": encoding}).status_code == 201
        zipped = gzip.compress(json.dumps(many).encode())
        assert post(client, BATCH, zipped, **{"Content-Encoding": encoding}).status_code == 204
        sent += [one, *many]
    assert stored_run_ids(client) == sorted(e["run"]["runId"] for e in sent)


def test_unsupported_encodings_are_415(client: TestClient) -> None:
    body = json.dumps(run_event("START")).encode()
    for encoding in ("br", "zstd", "compress", "gzip, br"):
        response = post(client, LINEAGE, body, **{"Content-Encoding": encoding})
        error = assert_error(response, 415, "unsupported_encoding", encoding)
        assert "gzip" in error["message"]
    assert stored_events(client) == []


def test_a_body_that_is_not_gzip_is_400(client: TestClient) -> None:
    body = json.dumps(run_event("START")).encode()
    assert_error(post(client, LINEAGE, body, **{"Content-Encoding": "gzip"}), 400, None, "gzip")
    truncated = gzip.compress(body)[:-20]
    assert_error(post(client, LINEAGE, truncated, **{"Content-Encoding": "gzip"}), 400)
    assert stored_events(client) == []


def test_413_by_content_length(small: TestClient) -> None:
    events = [run_event("START", run_facets={"pad": facet(text="x" * 9000)})]
    response = post(small, BATCH, events)
    assert int(response.request.headers["content-length"]) > 8192
    assert_error(response, 413, "body_too_large", "more than the limit of 8192")
    assert stored_events(small) == []


def test_413_by_streamed_size_without_content_length(small: TestClient) -> None:
    event = json.dumps(run_event("START", run_facets={"pad": facet(text="x" * 9000)})).encode()
    sent: list[int] = []

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(event), 1000):
            sent.append(start)
            yield event[start : start + 1000]

    response = small.post(LINEAGE, content=chunks(), headers=JSON)
    # The request went out chunked: no Content-Length told the size up front.
    assert "content-length" not in response.request.headers
    assert len(sent) > 8
    assert_error(response, 413, "body_too_large", "exceeds the limit of 8192")
    assert stored_events(small) == []


def test_413_by_gzip_inflation(small: TestClient) -> None:
    event = run_event("START", run_facets={"pad": facet(text="x" * 50_000)})
    zipped = gzip.compress(json.dumps(event).encode())
    assert len(zipped) < 8 * 1024
    response = post(small, LINEAGE, zipped, **{"Content-Encoding": "gzip"})
    assert_error(response, 413, "body_too_large", "decompressed")
    assert stored_events(small) == []


def test_413_past_max_batch_events(small: TestClient) -> None:
    events = [job_event("ns", f"job{i}") for i in range(6)]
    error = assert_error(post(small, BATCH, events), 413, "too_many_events")
    assert "6 events" in error["message"]
    assert "limit of 5" in error["message"]
    assert post(small, BATCH, events[:5]).status_code == 204
    assert len(stored_events(small)) == 5


def test_a_worker_full_of_bodies_answers_503_before_reading_more(small: TestClient) -> None:
    """Bodies waiting for the store count against a budget of four of the largest allowed."""
    state = small.app.state.consumer  # type: ignore[attr-defined]
    limit = state.bodies.limit
    assert limit == 4 * 8 * 1024
    bodies = [
        orjson.dumps(run_event("START", run_facets={"pad": facet(text=f"{i}" * 7000)}))
        for i in range(5)
    ]
    assert all(7000 < len(b) <= 8 * 1024 for b in bodies)
    with ThreadPoolExecutor(5) as pool:
        with write_transaction(state.engine):  # the store is busy: requests wait
            waiting = [pool.submit(post, small, LINEAGE, body) for body in bodies[:4]]
            deadline = time.monotonic() + 10
            while state.bodies.reserved < sum(map(len, bodies[:4])):
                assert time.monotonic() < deadline, state.bodies.reserved
                time.sleep(0.01)
            # Answered at once, though the store is still busy.
            busy = pool.submit(post, small, LINEAGE, bodies[4]).result(timeout=10)
        assert [f.result().status_code for f in waiting] == [201] * 4
    error = assert_error(busy, 503, "ingest_busy", "retry")
    assert busy.headers["Retry-After"] == "1"
    assert "nothing was stored" in error["message"]
    assert state.bodies.reserved == 0
    assert len(stored_events(small)) == 4
    assert post(small, LINEAGE, bodies[4]).status_code == 201
    assert len(stored_events(small)) == 5


def test_refused_and_failed_requests_give_their_bodies_back(small: TestClient) -> None:
    state = small.app.state.consumer  # type: ignore[attr-defined]
    too_big = [run_event("START", run_facets={"pad": facet(text="x" * 9000)})]
    answers = [
        post(small, LINEAGE, b"{not json"),
        post(small, LINEAGE, bad_run_id(run_event("START"))),
        post(small, BATCH, too_big),
        post(small, LINEAGE, b"\x1f\x8b garbage", **{"Content-Encoding": "gzip"}),
        post(small, LINEAGE, run_event("START")),
    ]
    assert [a.status_code for a in answers] == [400, 400, 413, 400, 201]
    assert state.bodies.reserved == 0


# --- bad input of every kind ---------------------------------------------------------


def _with(path: tuple[str | int, ...], value: Any) -> bytes:
    event = run_event("START", inputs=[dataset("s3://bucket", "raw/orders")])
    target: Any = event
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return json.dumps(event).encode()


def _without(*path: str | int) -> bytes:
    event = run_event("START", inputs=[dataset("s3://bucket", "raw/orders")])
    target: Any = event
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return json.dumps(event).encode()


def _nested(opening: str, depth: int) -> bytes:
    closing = {"[": "]", '{"a":': "}"}[opening]
    inner = "1" if opening != "[" else ""
    return (opening * depth + inner + closing * depth).encode()


def _facet_nested(depth: int) -> bytes:
    text = json.dumps(run_event("START", run_facets={"deep": {"v": "HOLE"}}))
    return text.replace('"HOLE"', "[" * depth + "]" * depth).encode()


_VALID = json.dumps(run_event("START")).encode()

EVENT, JSON_ = "invalid_event", "invalid_json"
w, wo = _with, _without
# (name, body, error code, text the 400 response must mention)
BAD_INPUT: list[tuple[str, bytes, str, str]] = [
    ("eventTime is a number", w(("eventTime",), 1714564800), EVENT, "$.eventTime"),
    ("eventTime is not a time", w(("eventTime",), "yesterday"), EVENT, "$.eventTime"),
    ("run is a list", w(("run",), []), EVENT, "$.run"),
    ("job name is a number", w(("job", "name"), 7), EVENT, "$.job.name"),
    ("job name is empty", w(("job", "name"), ""), EVENT, "$.job.name"),
    ("inputs is an object", w(("inputs",), {}), EVENT, "$.inputs"),
    ("input is a string", w(("inputs",), ["s3://x"]), EVENT, "$.inputs[0]"),
    ("facets is a list", w(("run", "facets"), []), EVENT, "$.run.facets"),
    ("a facet is a string", w(("job", "facets"), {"sql": "x"}), EVENT, "$.job.facets.sql"),
    ("eventType unknown", w(("eventType",), "DONE"), EVENT, "$.eventType"),
    ("producer is null", w(("producer",), None), EVENT, "$.producer"),
    ("no eventTime", wo("eventTime"), EVENT, "$.eventTime"),
    ("no producer", wo("producer"), EVENT, "$.producer"),
    ("no runId", wo("run", "runId"), EVENT, "$.run.runId"),
    ("no job", wo("job"), EVENT, "$.job"),
    ("no job name", wo("job", "name"), EVENT, "$.job.name"),
    ("no dataset name", wo("inputs", 0, "name"), EVENT, "$.inputs[0].name"),
    ("runId not a UUID", w(("run", "runId"), "run-42"), EVENT, "$.run.runId"),
    ("runId a number", w(("run", "runId"), 42), EVENT, "$.run.runId"),
    ("runId too long", w(("run", "runId"), str(uuid.uuid4()) * 2), EVENT, "$.run.runId"),
    ("not an event", b'{"hello": "world"}', EVENT, "'job'"),
    ("invalid UTF-8", _VALID.replace(b"etl.load", b"etl\xff\xfeload"), JSON_, "UTF-8"),
    ("UTF-16", json.dumps(run_event("START")).encode("utf-16"), JSON_, "UTF-8"),
    ("lone surrogate", _VALID.replace(b"etl.load", b"\\ud800"), JSON_, "JSON"),
    ("NUL in job name", w(("job", "name"), "etl\x00load"), EVENT, "$.job.name"),
    ("NUL in a facet", w(("run", "facets"), {"f": {"v": "a\x00"}}), EVENT, "$.run.facets.f.v"),
    ("NUL in a key", w(("run", "facets"), {"f": {"k\x00": 1}}), EVENT, "NUL"),
    ("raw NUL byte", _VALID.replace(b"etl.load", b"etl\x00load"), JSON_, "control character"),
    (
        "NUL in dataSource uri",
        w(("inputs", 0, "facets"), {"dataSource": {"uri": "pg://h/\x00"}}),
        EVENT,
        "$.inputs[0].facets.dataSource.uri",
    ),
    ("number past a double", _VALID.replace(b'"START"', b"1e400"), JSON_, "JSON"),
    ("NaN", _VALID.replace(b'"START"', b"NaN"), JSON_, "JSON"),
    ("trailing garbage", _VALID + b"}", JSON_, "JSON"),
    ("300 levels of [", _nested("[", 300), EVENT, "$[0]"),
    ("300 levels of {", _nested('{"a":', 300), EVENT, "'job'"),
    ("100000 levels of [", _nested("[", 100_000), JSON_, "nested too deeply"),
    ("100000 levels of {", _nested('{"a":', 100_000), JSON_, "nested too deeply"),
    ("300 levels in a facet", _facet_nested(300), EVENT, "$.run.facets.deep.v"),
    ("2000 levels in a facet", _facet_nested(2000), JSON_, "nested too deeply"),
    ("empty body", b"", "empty_body", "empty"),
]

# Odd but valid: stored, never a 500.
ODD_BUT_VALID: list[tuple[str, bytes]] = [
    ("largest unsigned 64-bit", _with(("run", "facets"), {"f": {"v": 2**64 - 1}})),
    ("smallest signed 64-bit", _with(("run", "facets"), {"f": {"v": -(2**63)}})),
    ("250 levels in a facet", _facet_nested(250)),
    ("emoji and RTL", _with(("job", "name"), "etl 🕷 \u202e تحميل")),
    ("4096-char job name", _with(("job", "name"), "j" * 4096)),
    ("uppercase runId", _with(("run", "runId"), str(uuid.uuid4()).upper())),
    ("no eventType", _without("eventType")),
    ("nanosecond time", _with(("eventTime",), "2024-05-01T12:00:00.123456789+02:00")),
]


def test_bad_input_of_every_kind_is_a_clear_400(client: TestClient) -> None:
    failures = []
    for name, body, code, mention in BAD_INPUT:
        response = post(client, LINEAGE, body)
        try:
            assert_error(response, 400, code, mention)
        except AssertionError as err:
            failures.append(f"{name}: {response.status_code} {response.text[:300]} ({err})")
    assert not failures, "\n".join(failures)
    assert stored_events(client) == []


def test_odd_but_valid_input_is_stored(client: TestClient) -> None:
    failures = [
        f"{name}: {r.status_code} {r.text[:300]}"
        for name, body in ODD_BUT_VALID
        if (r := post(client, LINEAGE, body)).status_code != 201
    ]
    assert not failures, "\n".join(failures)
    stored = stored_events(client)
    assert len(stored) == len(ODD_BUT_VALID)
    # Integers at the ends of the 64-bit range come back exactly.
    edges = sorted(e["run"]["facets"]["f"]["v"] for e in stored if "f" in e["run"]["facets"])
    assert edges == [-(2**63), 2**64 - 1]


@pytest.mark.parametrize("giant", [10**30, 2**64, -(2**63) - 1])
def test_integers_past_64_bits_are_refused_not_rounded(client: TestClient, giant: int) -> None:
    body = _with(("run", "facets"), {"f": {"v": giant}})
    assert_error(post(client, LINEAGE, body), 400, "invalid_event", "$.run.facets.f.v", "string")
    assert stored_events(client) == []


def test_a_bad_event_in_a_batch_is_named_by_index_and_path(client: TestClient) -> None:
    body = b"[" + _VALID + b"," + _with(("job", "name"), "a\x00b") + b"]"
    response = post(client, BATCH, body)
    assert response.status_code == 207, response.text
    assert [(e["index"], e["path"]) for e in response.json()["errors"]] == [(1, "$[1].job.name")]
    assert len(stored_events(client)) == 1


def test_errors_do_not_echo_huge_values(client: TestClient) -> None:
    body = _with(("run", "runId"), "r" * 100_000)
    error = assert_error(post(client, LINEAGE, body), 400, "invalid_event", "$.run.runId")
    assert len(json.dumps(error)) < 2_000


# --- fuzzing ---------------------------------------------------------------------------

_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
_json_values = st.recursive(
    _scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _paths(child, (*prefix, i))


@st.composite
def mutated_bodies(draw: st.DrawFn) -> bytes:
    """A realistic event with a few structural edits, and sometimes byte damage."""
    event: Any = run_event(
        draw(st.sampled_from(["START", "RUNNING", "COMPLETE", "FAIL", "ABORT", "OTHER"])),
        inputs=[dataset("postgres://db:5432", "public.orders", schema=schema_facet("id"))],
        outputs=[dataset("s3://lake", "orders/daily")],
        parent=(str(uuid.uuid4()), ("airflow", "dag")),
    )
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(event))
        path = draw(st.sampled_from(paths))
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if not path:
            event = draw(_json_values) if action == "replace" else event
            continue
        parent: Any = event
        for key in path[:-1]:
            parent = parent[key]
        if action == "replace":
            parent[path[-1]] = draw(_json_values)
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent[path[-1]], dict):
            parent[path[-1]][draw(st.text(max_size=8))] = draw(_json_values)
    body = json.dumps(event, ensure_ascii=draw(st.booleans())).encode()
    if draw(st.integers(0, 4)) == 0 and body:
        at = draw(st.integers(0, len(body) - 1))
        body = body[:at] + draw(st.binary(max_size=4)) + body[at + 1 :]
    return body


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=mutated_bodies())
def test_mutated_events_never_get_a_5xx(client: TestClient, body: bytes) -> None:
    before = len(stored_events(client))
    response = post(client, LINEAGE, body)
    hypothesis_event(f"status {response.status_code}")
    # 200/207 when a mutation replaced the whole event with an array.
    assert response.status_code in (200, 201, 207, 400), response.text
    after = len(stored_events(client))
    if response.status_code == 400:
        assert_error(response, 400)
        assert after == before
    else:
        successful = response.json()["summary"]["successful"]
        assert before <= after <= before + successful  # equal when an event repeats


# --- Content-Type ----------------------------------------------------------------


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"],
)
def test_a_body_that_is_not_declared_json_gets_415_and_nothing_is_stored(
    make_client: AppFactory, content_type: str | None
) -> None:
    client = make_client()
    headers = {} if content_type is None else {"Content-Type": content_type}
    for path in (LINEAGE, BATCH):
        body = json.dumps([run_event("START")]).encode()
        response = client.post(path, content=body, headers=headers)
        assert_error(response, 415, "unsupported_media_type", "Content-Type: application/json")
    assert stored_events(client) == []


@pytest.mark.parametrize(
    "content_type", ["application/json; charset=utf-8", "APPLICATION/JSON", "application/x+json"]
)
def test_json_media_types_with_parameters_or_suffixes_are_accepted(
    make_client: AppFactory, content_type: str
) -> None:
    client = make_client()
    event = run_event("START")
    response = post(client, LINEAGE, event, **{"Content-Type": content_type})
    assert response.status_code == 201, response.text
    assert stored_run_ids(client) == [event["run"]["runId"]]


def test_a_large_batch_stored_in_pieces_reports_every_event_at_its_index(
    client: TestClient,
) -> None:
    """A gzip array of 1,200 events is derived and stored 500 at a time (services/ingest.py).

    Problems and warnings keep their indexes in the whole body, across pieces.
    """
    events = [
        run_event("COMPLETE", job=("airflow://prod", f"pieces.{i}"), run_id=str(uuid.uuid4()))
        for i in range(1200)
    ]
    events[3]["run"]["runId"] = "not-a-uuid"
    events[1100]["run"]["runId"] = "not-a-uuid"
    events[700]["eventTime"] = "2026-01-01T12:00:00"
    events[1150]["eventTime"] = "2026-01-01T12:00:01"
    body = gzip.compress(orjson.dumps(events))
    answer = post(client, LINEAGE, body, **{"Content-Encoding": "gzip"})
    assert answer.status_code == 207, answer.text
    result = answer.json()
    assert result["summary"] == {"received": 1200, "successful": 1198, "failed": 2}
    assert [e["index"] for e in result["errors"]] == [3, 1100]
    assert result["errors"][1]["path"].startswith("$[1100].run.runId")
    [warning] = result["warnings"]
    assert (warning["path"], warning["count"]) == ("$[700].eventTime", 2)
    assert len(stored_events(client)) == 1198
