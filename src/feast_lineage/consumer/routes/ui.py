"""The web UI: ``GET /`` and ``/assets/...``, and ``GET /api/v1/ui/settings``.

The UI is a static single-page app, built from ``ui/`` by ``npm run build``
(``scripts/bootstrap.sh`` runs it) into ``feast_lineage/webui/``; no Node.js
runs with the server. It keeps its state in the query string, so ``/`` is
its only page. ``/api/v1/ui/settings`` tells it whether this server has the
consumer (without it, the UI shows registry lineage only), whether reads
take a key (then the UI offers a field for one), and which authorizer, so the
UI asks for what it takes (a read API key, a Feast access token).

A browser that asks for a page at any other path (a mistyped or stale link)
gets the UI's own not-found page with a 404; the API's paths keep their JSON
errors, and so does every client that does not ask for HTML.
"""

from __future__ import annotations

import html
import logging
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.types import Scope

from feast_lineage import __version__
from feast_lineage.config.authorizer import read_key
from feast_lineage.consumer.deps import OptionalScopeDep, SettingsDep
from feast_lineage.consumer.errors import http_error_response
from feast_lineage.consumer.schemas import Health, UiSettings

WEB_UI_DIR = Path(__file__).resolve().parents[2] / "webui"
log = logging.getLogger(__name__)

router = APIRouter(tags=["ui"])
# /healthz and /readyz of a server without the consumer (it has no database to ping).
registry_only_health = APIRouter(tags=["health"])

_NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>feast-lineage: UI not built</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 4em auto; line-height: 1.5">
<h1>The feast-lineage web UI is not built</h1>
<p>The server is running, and its API answers under <a href="docs">/docs</a>, but the
web UI's files are missing from <code>{directory}</code>.</p>
<p>Build them with <code>./scripts/bootstrap.sh</code> in the feast-lineage checkout
(or <code>cd ui &amp;&amp; npm ci &amp;&amp; npm run build</code>), then reload this page.</p>
</body></html>
"""


# The build names every file under assets/ after a hash of its content, so a
# browser may keep one for good; index.html (which names them) is revalidated.
HASHED_ASSET_CACHE = "public, max-age=31536000, immutable"


class HashedAssets(StaticFiles):
    """The UI's built assets, each cacheable for a year (their names change with their content)."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code == 200:
            response.headers["Cache-Control"] = HASHED_ASSET_CACHE
        return response


def web_ui_built(directory: Path = WEB_UI_DIR) -> bool:
    return (directory / "index.html").is_file()


# Paths of the API (and of the UI's files): an unknown one is an API error, in JSON.
API_PATHS = (
    "/api",
    "/assets",
    "/docs",
    "/redoc",
    "/openapi.json",
    "/healthz",
    "/readyz",
    "/metrics",
)


def _app_root(request: Request) -> str:
    """The app's root path (behind a proxy, ``/lineage``), also for a request a mount handled."""
    root: str = request.scope.get("app_root_path", request.scope.get("root_path", ""))
    return root.rstrip("/")


def _app_path(request: Request) -> str:
    """The request's path below the app's root path (behind a proxy, ``/lineage/x`` -> ``/x``)."""
    path = request.url.path
    root = _app_root(request)
    if root and path.startswith(root + "/"):
        return path[len(root) :]
    return path


def wants_ui_page(request: Request) -> bool:
    """Whether a 404 for ``request`` is better told by the UI's not-found page than in JSON.

    A browser's page load (GET or HEAD that accepts HTML) at a path outside the API.
    """
    if request.method not in ("GET", "HEAD"):
        return False
    if "text/html" not in request.headers.get("accept", ""):
        return False
    path = _app_path(request)
    return not any(path == api or path.startswith(api + "/") for api in API_PATHS)


def not_found_page(index: str, root_path: str) -> str:
    """``index.html`` for a page at another path: its relative links resolved from the root.

    The UI reads the ``<base>`` it gets here: a path other than the base's is not one of its pages.
    """
    base = f'<base href="{html.escape(root_path.rstrip("/") + "/", quote=True)}">'
    head = index.find("<head>")
    if head < 0:
        return base + index
    cut = head + len("<head>")
    return index[:cut] + base + index[cut:]


@router.get("/settings", response_model=UiSettings, summary="What the web UI can show here")
async def get_ui_settings(settings: SettingsDep, scope: OptionalScopeDep) -> UiSettings:
    # Every caller gets the settings (the UI needs them to ask for a key), but
    # the project's name only one who may see the project.
    project = settings.project
    visible = (
        scope is not None and project and scope.sees_project(project, settings.producer_namespace)
    )
    return UiSettings(
        consumer_enabled=settings.serve_consumer,
        registry_enabled=settings.repo_path is not None,
        project=project if visible else None,
        version=__version__,
        read_key=read_key(settings.consumer.authorizer),
        authorizer=settings.consumer.authorizer.type,
        admin_key=bool(settings.consumer.api_key_value()),
    )


@registry_only_health.get("/healthz", response_model=Health, summary="Server health")
async def healthz_without_consumer() -> Health:
    return Health(status="ok", version=__version__, database="none")


@registry_only_health.get("/readyz", response_model=Health, summary="Whether the server is ready")
async def readyz_without_consumer() -> Health:
    return Health(status="ok", version=__version__, database="none")


def mount_web_ui(app: FastAPI, directory: Path = WEB_UI_DIR) -> None:
    """Serve the built UI at ``/`` (a page saying how to build it when missing)."""

    @app.get("/", include_in_schema=False)
    async def index() -> Response:
        page = directory / "index.html"
        if not page.is_file():
            return HTMLResponse(_NOT_BUILT.format(directory=directory), status_code=503)
        return FileResponse(page, headers={"Cache-Control": "no-cache"})

    async def not_found(request: Request, exc: Exception) -> Response:
        # Starlette hands a status code's handler the HTTPException that carries it.
        error = exc if isinstance(exc, HTTPException) else HTTPException(404)
        page = directory / "index.html"
        if wants_ui_page(request) and page.is_file():
            body = not_found_page(page.read_text(encoding="utf-8"), _app_root(request))
            return HTMLResponse(body, status_code=404, headers={"Cache-Control": "no-cache"})
        return http_error_response(request, error)

    app.add_exception_handler(404, not_found)
    app.mount(
        "/assets", HashedAssets(directory=directory / "assets", check_dir=False), name="ui-assets"
    )
