"""Closing connections that stall before their request's headers are complete.

uvicorn closes an idle keep-alive connection after a few seconds, but waits
for ever on a connection that sends part of a request's headers, or nothing
at all, so a client can hold any number of sockets open. Production servers
bound that wait (nginx's ``client_header_timeout``, Apache's
``RequestReadTimeout header=``); :func:`with_header_timeout` adds the same
bound to uvicorn's HTTP protocol: from the moment a connection opens, or the
first byte of its next request arrives, the request's headers must be complete
within the timeout, else the server answers ``408`` (when some bytes came)
and closes the connection. The body's own time limits are the ingest
route's (:mod:`feast_lineage.consumer.intake.body_pace`).

A request the HTTP parser cannot read gets this server's one error shape
(JSON) instead of uvicorn's ``text/plain`` "Invalid HTTP request received.":
``414`` for a URL longer than the parser reads (httptools keeps a URL's
offsets in 16 bits: 65,535 bytes), else ``400``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from uvicorn.protocols.http.auto import AutoHTTPProtocol

# httptools.parse_url keeps a URL's offsets and lengths in 16 bits.
URL_LIMIT = 65_535


def _answer(status: int, reason: bytes, code: str, message: str) -> bytes:
    """A whole HTTP answer in the one error shape, closing the connection."""
    body = orjson.dumps({"error": {"status": status, "code": code, "message": message}})
    return (
        b"HTTP/1.1 %d %s\r\n"
        b"content-type: application/json\r\n"
        b"connection: close\r\n"
        b"content-length: %d\r\n\r\n%s"
    ) % (status, reason, len(body), body)


_TIMED_OUT = _answer(
    408,
    b"Request Timeout",
    "header_timeout",
    "the request headers did not arrive in time; send the whole request at once",
)


def unreadable_answer(url_bytes: int) -> bytes:
    """The answer to a request the HTTP parser refused, whose URL so far had ``url_bytes``."""
    if url_bytes > URL_LIMIT:
        return _answer(
            414,
            b"URI Too Long",
            "uri_too_long",
            f"the URL is {url_bytes:,} bytes, longer than the {URL_LIMIT:,} this server reads; "
            "ask with fewer or shorter query parameters",
        )
    return _answer(
        400,
        b"Bad Request",
        "bad_http_request",
        "the request is not valid HTTP/1.1 (its request line or a header could not be read); "
        "send a well-formed request",
    )


def with_header_timeout(seconds: float, base: Any = AutoHTTPProtocol) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol ``base``, closing connections whose headers stall ``seconds``."""

    class HeaderTimeoutProtocol(base):  # type: ignore[misc]
        header_timeout = seconds

        def connection_made(self, transport: asyncio.Transport) -> None:
            self._header_timer: asyncio.TimerHandle | None = None
            self._header_bytes = False
            super().connection_made(transport)
            self._arm_header_timer()

        def data_received(self, data: bytes) -> None:
            if self._header_timer is None and not self._in_request():
                self._arm_header_timer()
            self._header_bytes = True
            super().data_received(data)
            if self._in_request():
                self._cancel_header_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_header_timer()
            super().connection_lost(exc)

        def _in_request(self) -> bool:
            """Whether a request's headers are complete and its answer is not."""
            cycle = self.cycle
            return cycle is not None and not cycle.response_complete

        def _arm_header_timer(self) -> None:
            self._header_bytes = False
            self._header_timer = self.loop.call_later(self.header_timeout, self._headers_stalled)

        def _cancel_header_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def send_400_response(self, msg: str) -> None:
            # uvicorn's answer to what its parser refused (it has logged ``msg``): ours, in JSON.
            url = getattr(self, "url", b"")  # httptools' URL so far (h11 keeps none)
            self.transport.write(unreadable_answer(len(url) if isinstance(url, bytes) else 0))
            self.transport.close()

        def _headers_stalled(self) -> None:
            self._header_timer = None
            if self._in_request() or self.transport.is_closing():
                return
            if self._header_bytes:
                self.transport.write(_TIMED_OUT)
            self.transport.close()

    return HeaderTimeoutProtocol
