"""A path with a trailing slash: redirected to the path as sent without it, still encoded.

Starlette's router redirects ``/jobs/`` to ``/jobs`` (307), but it builds
the new URL from the decoded path: ``%2F`` inside a percent-encoded
namespace or name became a ``/``, and the redirect led to a 400
(``.../feature_view%2Fdriver_hourly_stats/versions/`` to
``.../feature_view/driver_hourly_stats/versions``). The app turns the
router's redirects off (``redirect_slashes=False``) and this ASGI middleware
makes them instead, from the path as the client sent it: any request whose
path ends with ``/`` where the path without it is an endpoint (a route
whose name is the rest of the path, :mod:`.routes.name_path`, would
otherwise take the slash into the name) gets a
307 to the same path, percent-encoded as it was, without the slash, query
string kept. A 307 keeps the method and the body, so a producer posting to
``/api/v1/lineage/`` still delivers its events. The answer's JSON body
names the location, for a client that does not follow redirects. A name
that ends with a slash is sent as ``%2F``, which is not a trailing slash.

Behind a proxy, the app's root without its slash (``/lineage``) goes the
other way, to the web UI's page (``/lineage/``), as the router did.
"""

from __future__ import annotations

from urllib.parse import quote

from starlette.routing import BaseRoute, Match, Mount
from starlette.types import ASGIApp, Receive, Scope, Send

from feast_lineage.consumer.responses import FastJSONResponse
from feast_lineage.consumer.sent_path import sent_path


def _sent_path(scope: Scope) -> str:
    """The path as the client sent it (percent-encoded), without the query."""
    sent = sent_path(scope)
    return sent if sent is not None else quote(str(scope["path"]))


def _below_root(scope: Scope) -> str:
    path, root = str(scope["path"]), str(scope.get("root_path", ""))
    return path[len(root) :] if root and path.startswith(root) else path


def _routed(scope: Scope, path: str, routes: list[BaseRoute]) -> bool:
    """Whether an endpoint takes ``path`` (a mount, the UI's assets, takes any path below it)."""
    asked = {**scope, "path": path}
    return any(
        not isinstance(route, Mount) and route.matches(asked)[0] is not Match.NONE
        for route in routes
    )


def slashless(scope: Scope, routes: list[BaseRoute]) -> str | None:
    """The path to ask instead of ``scope``'s, when it ends with a slash an endpoint lacks."""
    sent = _sent_path(scope)
    if not sent.endswith("/") or not _below_root(scope).rstrip("/"):
        return None  # the app's root: the web UI's page
    if _routed(scope, str(scope["path"]).rstrip("/"), routes):
        return sent.rstrip("/")
    return None


def to_root_page(scope: Scope, routes: list[BaseRoute]) -> str | None:
    """Behind a proxy, the app's root without its slash (``/lineage``): the UI's page's path."""
    if scope.get("root_path") and _below_root(scope) == "":
        page = _sent_path(scope) + "/"
        return page if _routed(scope, str(scope["path"]) + "/", routes) else None
    return None


def redirect(location: str, message: str) -> FastJSONResponse:
    """A 307 to ``location``, its body naming it (for a client that does not follow it)."""
    body = {"location": location, "message": message}
    return FastJSONResponse(body, 307, headers={"Location": location})


class TrailingSlashMiddleware:
    """A 307 to the path as sent without its trailing slash, for an endpoint asked with one."""

    def __init__(self, app: ASGIApp, routes: list[BaseRoute]) -> None:
        self.app = app
        self.routes = routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        query = bytes(scope.get("query_string", b"")).decode("latin-1")
        page = to_root_page(scope, self.routes)
        fixed = slashless(scope, self.routes) if page is None else None
        if page is not None:
            target = f"{page}?{query}" if query else page
            response = redirect(target, f"the web UI's page is {target}")
        elif fixed is not None:
            target = f"{fixed}?{query}" if query else fixed
            response = redirect(
                target,
                f"no endpoint's path ends with '/'; this one is {scope['method']} {target} "
                "(drop the trailing slash)",
            )
        else:
            await self.app(scope, receive, send)
            return
        await response(scope, receive, send)
