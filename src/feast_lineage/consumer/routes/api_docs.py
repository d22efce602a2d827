"""The API's interactive reference: ``GET /docs`` (Swagger UI), served with no network.

FastAPI's own ``/docs`` and ``/redoc`` load their scripts from a CDN, so on an
offline or locked-down network they are blank pages. Here Swagger UI comes
from the package: the UI's build (``ui/vite.config.ts``) copies the files of
``swagger-ui-dist``, the Swagger UI project's own prebuilt distribution on
npm, into ``feast_lineage/webui/api-docs/``, and ``/docs/assets/`` serves
them. ``/redoc`` sends the browser to ``/docs``: one reference, which works
everywhere.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.staticfiles import StaticFiles
from starlette.responses import HTMLResponse, RedirectResponse, Response

from feast_lineage.consumer.routes.ui import WEB_UI_DIR

API_DOCS_DIR = WEB_UI_DIR / "api-docs"
# The files of swagger-ui-dist the page loads (the build copies these).
SWAGGER_JS = "swagger-ui-bundle.js"
SWAGGER_CSS = "swagger-ui.css"
SWAGGER_ICON = "favicon-32x32.png"

_NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>feast-lineage: API docs not built</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 4em auto; line-height: 1.5">
<h1>The API reference's files are not built</h1>
<p>The API answers, and describes itself at <a href="openapi.json">/openapi.json</a>, but
the files of its interactive reference (Swagger UI) are missing from <code>{directory}</code>.</p>
<p>Build them with <code>./scripts/bootstrap.sh</code> in the feast-lineage checkout
(or <code>cd ui &amp;&amp; npm ci &amp;&amp; npm run build</code>), then reload this page.</p>
</body></html>
"""


def _root(request: Request) -> str:
    root: str = request.scope.get("root_path", "")
    return root.rstrip("/")


def install_api_docs(app: FastAPI, directory: Path = API_DOCS_DIR) -> None:
    """``/docs``, its assets and OAuth2 redirect page, and ``/redoc`` (to ``/docs``)."""

    @app.get("/docs", include_in_schema=False)
    async def docs(request: Request) -> Response:
        if not (directory / SWAGGER_JS).is_file():
            return HTMLResponse(_NOT_BUILT.format(directory=directory), status_code=503)
        root = _root(request)
        return get_swagger_ui_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title}: API reference",
            swagger_js_url=f"{root}/docs/assets/{SWAGGER_JS}",
            swagger_css_url=f"{root}/docs/assets/{SWAGGER_CSS}",
            swagger_favicon_url=f"{root}/docs/assets/{SWAGGER_ICON}",
            oauth2_redirect_url=f"{root}/docs/oauth2-redirect",
            # Swagger UI would send the document's URL to validator.swagger.io for a badge.
            swagger_ui_parameters={"validatorUrl": None},
        )

    @app.get("/docs/oauth2-redirect", include_in_schema=False)
    async def oauth2_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> RedirectResponse:
        return RedirectResponse(f"{_root(request)}/docs", status_code=307)

    app.mount(
        "/docs/assets", StaticFiles(directory=directory, check_dir=False), name="api-docs-assets"
    )
