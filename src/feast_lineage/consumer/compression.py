"""Gzip for answers to clients that accept it, ingest left out.

Starlette's own ``GZipMiddleware`` does the compressing (it ships with the
framework, is maintained with it, compresses large bodies off the event loop,
and skips bodies under ``minimum_size`` and already-compressed types). gzip,
not brotli: every browser and HTTP client accepts it, it needs no extra
dependency, and it already shrinks the graph's JSON about twentyfold.

The ingest routes (``POST /api/v1/lineage`` and ``/lineage/batch``) never go
through it: their answers are small, and ingest pays for nothing it does not
use.
"""

from __future__ import annotations

from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

# Level 6 (zlib's default) compresses a 3.5 MB graph about as well as 9, in a
# fraction of the time.
COMPRESS_LEVEL = 6
# Bodies smaller than this gain too little to be worth compressing.
MINIMUM_SIZE = 1024
INGEST_PATHS = frozenset({"/api/v1/lineage", "/api/v1/lineage/batch"})


class CompressionMiddleware:
    """Gzip every answer but ingest's, for clients that send ``Accept-Encoding: gzip``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=MINIMUM_SIZE, compresslevel=COMPRESS_LEVEL)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or _is_ingest(scope):
            await self.app(scope, receive, send)
            return
        await self.gzip(scope, receive, send)


def _is_ingest(scope: Scope) -> bool:
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    return path.rstrip("/") in INGEST_PATHS
