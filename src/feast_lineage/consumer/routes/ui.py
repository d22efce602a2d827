"""The web UI: ``GET /`` and ``/assets/...``, and ``GET /api/v1/ui/settings``.

The UI is a static single-page app, built from ``ui/`` by ``npm run build``
(``scripts/bootstrap.sh`` runs it) into ``feast_lineage/webui/``; no Node.js
runs with the server. It keeps its state in the query string, so ``/`` is
its only page. ``/api/v1/ui/settings`` tells it whether this server has the
consumer (without it, the UI shows registry lineage only).
"""

from __future__ import annotations

import logging
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.types import Scope

from feast_lineage import __version__
from feast_lineage.consumer.deps import SettingsDep
from feast_lineage.consumer.schemas import Health, UiSettings

WEB_UI_DIR = Path(__file__).resolve().parents[2] / "webui"
log = logging.getLogger(__name__)

router = APIRouter(tags=["ui"])
# /healthz of a server without the consumer (it has no database to ping).
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


@router.get("/settings", response_model=UiSettings, summary="What the web UI can show here")
async def get_ui_settings(settings: SettingsDep) -> UiSettings:
    return UiSettings(
        consumer_enabled=settings.serve_consumer,
        registry_enabled=settings.repo_path is not None,
        project=settings.project,
        version=__version__,
    )


@registry_only_health.get("/healthz", response_model=Health, summary="Server health")
async def healthz_without_consumer() -> Health:
    return Health(status="ok", version=__version__, database="none")


def mount_web_ui(app: FastAPI, directory: Path = WEB_UI_DIR) -> None:
    """Serve the built UI at ``/`` (a page saying how to build it when missing)."""

    @app.get("/", include_in_schema=False)
    async def index() -> Response:
        page = directory / "index.html"
        if not page.is_file():
            return HTMLResponse(_NOT_BUILT.format(directory=directory), status_code=503)
        return FileResponse(page, headers={"Cache-Control": "no-cache"})

    app.mount(
        "/assets", HashedAssets(directory=directory / "assets", check_dir=False), name="ui-assets"
    )
