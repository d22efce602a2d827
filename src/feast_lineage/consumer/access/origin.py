"""Refusing cross-site requests that would change lineage.

Without an ``api_key`` (the default) ingest, prune and reset are open, and a
web page in any browser that can reach the server could send them: a POST
with a ``text/plain`` body, or with no body at all, needs no CORS preflight.
Browsers name the page's origin in an ``Origin`` header on every such
request, and other clients (the OpenLineage client, curl) send none. So a
POST, PUT, PATCH or DELETE whose ``Origin`` is not the server's own (the
``Host`` it was sent to) gets ``403 cross_origin`` before anything is read.
The web UI sends only GETs, so it is never refused. (Ingest also requires a
JSON ``Content-Type``, which a browser cannot send cross-site without a
preflight, which this server never grants.)
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from feast_lineage.consumer.errors import error_response

_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def same_origin(origin: str, host: str | None) -> bool:
    """Whether ``origin`` (an Origin header) names ``host`` (a Host header)."""
    if not host or origin == "null":
        return False
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    default = 443 if parts.scheme == "https" else 80
    netloc = parts.hostname if port in (None, default) else f"{parts.hostname}:{port}"
    wanted = host.lower()
    if wanted.endswith(f":{default}"):
        wanted = wanted[: -len(f":{default}")]
    bare = parts.hostname
    if ":" in bare:  # an IPv6 literal: the Host header brackets it
        netloc = f"[{bare}]" if port in (None, default) else f"[{bare}]:{port}"
    return netloc.lower() == wanted


class SameOriginMiddleware:
    """ASGI middleware: changing requests from another site's pages are refused."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in _UNSAFE:
            origin: str | None = None
            host: str | None = None
            for name, value in scope["headers"]:
                if name == b"origin":
                    origin = value.decode("latin-1")
                elif name == b"host":
                    host = value.decode("latin-1")
            if origin is not None and not same_origin(origin, host):
                response = error_response(
                    403,
                    "cross_origin",
                    f"requests from pages of another site ({origin[:200]}) may not change "
                    "lineage; send them from a program (without an Origin header) or from "
                    "this server's own pages",
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
