"""``HEAD`` answered like ``GET``, without the body.

HTTP says a server that answers ``GET`` should answer ``HEAD`` the same way,
minus the body; monitors and load balancers probe ``HEAD /healthz``. FastAPI
routes declare ``GET`` only (and answer ``HEAD`` with 405), so this ASGI
middleware runs a ``HEAD`` request as a ``GET`` and drops the body it sends,
keeping the status and headers (``Content-Length`` included).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HeadAsGetMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def send_headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # the rest of a streamed body: nothing to send
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, send_headers_only)
