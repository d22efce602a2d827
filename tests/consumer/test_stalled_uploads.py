"""Stalled uploads against a real server process: they hold nothing and are timed out.

The reproduction of issue 34: sockets send the headers of a 32 MiB body
(``Content-Length: 33554432``, or chunked) and its first byte ``[``, then
stall. Before the fix each reserved its declared size in the worker's
budget, and a handful of them refused all ingest with ``503 ingest_busy``
for as long as they stayed open. Normal ingest, with the real
openlineage-python client, must keep answering 2xx while they stall; a body
that stalls gets ``408`` and gives its bytes back; a connection that stalls
in its headers is closed. Timeouts are tiny here (settings), so each test
takes a second or two; nothing asserts how long anything took.
"""

from __future__ import annotations

import socket
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime
from typing import Any

import httpx
import orjson
import pytest
from openlineage.client.event_v2 import Job, Run, RunEvent, RunState
from openlineage.client.transport.http import HttpCompression, HttpConfig, HttpTransport

from tests.server_process import ServerProcess, lineage_server, write_repo

PRODUCER = "https://github.com/feast-lineage/tests/stalled-uploads"
DECLARED = 33554432  # the Content-Length: the default max_request_bytes
MiB = 1024 * 1024


def _address(server: ServerProcess) -> tuple[str, int]:
    port = int(server.url.rsplit(":", 1)[1])
    return "127.0.0.1", port


def stalled_body(
    server: ServerProcess, *, chunked: bool = False, prefix: bytes = b"["
) -> socket.socket:
    """A socket that sent an ingest request's headers and ``prefix`` of its body, and stalls."""
    sock = socket.create_connection(_address(server), timeout=20)
    framing = (
        b"Transfer-Encoding: chunked\r\n"
        if chunked
        else b"Content-Length: " + str(DECLARED).encode() + b"\r\n"
    )
    head = (
        b"POST /api/v1/lineage HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\n" + framing + b"\r\n"
    )
    body = b"%x\r\n%s\r\n" % (len(prefix), prefix) if chunked else prefix
    sock.sendall(head + body)
    return sock


def answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def transport(server: ServerProcess) -> HttpTransport:
    """The real client, retrying nothing, so that every answer is seen."""
    config = HttpConfig(
        url=server.url,
        endpoint="api/v1/lineage",
        compression=HttpCompression.GZIP,
        timeout=10,
        retry={"total": 0, "read": 0, "connect": 0, "status_forcelist": []},
    )
    return HttpTransport(config)


def event(name: str) -> RunEvent:
    return RunEvent(
        eventType=RunState.COMPLETE,
        eventTime=datetime.now(tz=UTC).isoformat(),
        run=Run(runId=str(uuid.uuid4())),
        job=Job(namespace="stalls", name=name),
        producer=PRODUCER,
    )


def normal_posts_succeed(server: ServerProcess, name: str, count: int = 5) -> None:
    client = transport(server)
    for i in range(count):
        response: Any = client.emit(event(f"{name}.{i}"))
        assert 200 <= response.status_code < 300, (response.status_code, response.text)
    body = orjson.dumps([_plain(f"{name}.batch.{i}") for i in range(20)])
    reply = httpx.post(
        server.url + "/api/v1/lineage/batch",
        content=body,
        headers={"Content-Type": "application/json"},
        timeout=10,
    )
    assert reply.status_code == 204, reply.text


def _plain(name: str) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": datetime.now(tz=UTC).isoformat(),
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "stalls", "name": name},
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunEvent",
    }


# --- stalls hold nothing -------------------------------------------------------------


@pytest.fixture(scope="module")
def patient(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One worker with the default budget and time limits: stalls stay open during a test."""
    repo = write_repo(
        tmp_path_factory.mktemp("patient"),
        consumer={"connection_string": "sqlite:///data/lineage.db"},
    )
    with lineage_server(repo, extra_args=["--workers", "1"]) as process:
        yield process


def test_stalled_uploads_leave_ingest_open(patient: ServerProcess) -> None:
    """The issue's reproduction: 4 stalled 32 MiB uploads, 4 chunked ones, 2xx throughout."""
    with ExitStack() as stack:
        for chunked in (False, True):
            for _ in range(4):
                stack.callback(stalled_body(patient, chunked=chunked).close)
        time.sleep(0.3)  # let the server take in every stalled request before the posts
        normal_posts_succeed(patient, "while-stalled")
        assert httpx.get(patient.url + "/healthz", timeout=5).status_code == 200
    normal_posts_succeed(patient, "after-stalls", count=1)


# --- stalls are timed out --------------------------------------------------------------


@pytest.fixture(scope="module", params=[1, 2], ids=["one-process", "two-workers"])
def hasty(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """Tiny time limits and a budget of 3 MiB, as one process and as --workers 2."""
    consumer = {
        "connection_string": "sqlite:///data/lineage.db",
        "body_read_timeout_seconds": 0.5,
        "body_min_rate_bytes_per_second": 1024,
        "header_timeout_seconds": 0.5,
        "body_budget_bytes": 3 * MiB,
    }
    repo = write_repo(tmp_path_factory.mktemp("hasty"), consumer=consumer)
    with lineage_server(repo, extra_args=["--workers", str(request.param)]) as process:
        yield process


def _timed_out(reply: bytes) -> dict[str, Any]:
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 "), reply[:300]
    assert b"connection: close" in head.lower()
    error: dict[str, Any] = orjson.loads(body)["error"]
    return error


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_stalled_body_gets_408_and_gives_its_bytes_back(
    hasty: ServerProcess, chunked: bool
) -> None:
    """Two stalls holding the whole budget (3 MiB): each gets 408, then ingest goes on.

    Were their bytes kept after the 408, every later body would meet a full
    budget and get 503.
    """
    prefix = b"[" + b" " * (int(1.5 * MiB) - 1)
    stalls = [stalled_body(hasty, chunked=chunked, prefix=prefix) for _ in range(2)]
    try:
        for sock in stalls:
            error = _timed_out(answer(sock))
            assert error["code"] == "body_timeout"
            assert "stalled" in error["message"]
    finally:
        for sock in stalls:
            sock.close()
    normal_posts_succeed(hasty, f"after-408-{chunked}")


def test_a_trickle_in_time_for_each_read_falls_below_the_least_rate(hasty: ServerProcess) -> None:
    """A byte every 0.2 s never waits out the read timeout (0.5 s) but averages 5 bytes/s."""
    sock = stalled_body(hasty)
    sock.settimeout(0.2)
    received = b""
    try:
        for _ in range(200):  # 40 s at most; the least rate stops it after about a second
            try:
                received = sock.recv(65536)
            except TimeoutError:
                sock.sendall(b" ")
                continue
            break
        sock.settimeout(20)
        received += answer(sock)
    finally:
        sock.close()
    assert _timed_out(received)["code"] == "body_timeout"


def test_connections_stalled_in_their_headers_are_closed(hasty: ServerProcess) -> None:
    partial = [socket.create_connection(_address(hasty), timeout=20) for _ in range(3)]
    silent = [socket.create_connection(_address(hasty), timeout=20) for _ in range(3)]
    try:
        for sock in partial:
            sock.sendall(b"POST /api/v1/lineage HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty")
        for sock in partial:
            reply = answer(sock)
            assert reply.startswith(b"HTTP/1.1 408 "), reply[:200]
            assert b"header_timeout" in reply
        for sock in silent:
            assert answer(sock) == b""  # closed without a word: nothing was asked
    finally:
        for sock in partial + silent:
            sock.close()
    normal_posts_succeed(hasty, "after-header-stalls", count=1)


def test_a_keep_alive_connection_stalled_in_its_next_headers_is_closed(
    hasty: ServerProcess,
) -> None:
    sock = socket.create_connection(_address(hasty), timeout=20)
    try:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        first = b""
        while b"\r\n\r\n" not in first or not first.endswith(b"}"):
            first += sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 "), first[:200]
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.")  # the next request stalls
        reply = answer(sock)
        assert reply.startswith(b"HTTP/1.1 408 "), reply[:200]
    finally:
        sock.close()


def _error(reply: bytes, status: int) -> dict[str, Any]:
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 %d " % status), reply[:300]
    assert b"content-type: application/json" in head.lower()
    error: dict[str, Any] = orjson.loads(body)["error"]
    assert error["status"] == status
    return error


def test_a_request_the_server_cannot_read_gets_the_one_error_shape(hasty: ServerProcess) -> None:
    """Not uvicorn's text/plain "Invalid HTTP request received.": JSON, named, with the fix."""
    # A URL over 65,535 bytes (the HTTP parser's URL offsets are 16-bit): 414.
    sock = socket.create_connection(_address(hasty), timeout=20)
    try:
        long_url = b"/api/v1/lineage/openlineage/graph?namespace=" + b"a" * 70_000
        sock.sendall(b"GET " + long_url + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        error = _error(answer(sock), 414)
    finally:
        sock.close()
    assert error["code"] == "uri_too_long"
    assert "70,044 bytes" in error["message"]
    assert "65,535" in error["message"]
    # Bytes that are not an HTTP request: 400.
    sock = socket.create_connection(_address(hasty), timeout=20)
    try:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHo st: x\r\n\r\n")
        error = _error(answer(sock), 400)
    finally:
        sock.close()
    assert error["code"] == "bad_http_request"
    assert "HTTP/1.1" in error["message"]
    normal_posts_succeed(hasty, "after-unreadable-requests", count=1)
