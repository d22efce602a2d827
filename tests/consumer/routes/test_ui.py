"""The web UI's routes: the page, its assets, its settings, and a server without consumer."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from feast_lineage import __version__
from feast_lineage.config import ConsumerSettings
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.errors import install_error_handlers
from feast_lineage.consumer.routes.api_docs import (
    API_DOCS_DIR,
    SWAGGER_CSS,
    SWAGGER_JS,
    install_api_docs,
)
from feast_lineage.consumer.routes.ui import mount_web_ui
from feast_lineage.consumer.settings import AppSettings


def settings(tmp_path: Path, *, consumer: bool) -> AppSettings:
    return AppSettings(
        consumer=ConsumerSettings(enabled=consumer),
        database_url=f"sqlite:///{tmp_path / 'lineage.db'}" if consumer else "",
        repo_path=tmp_path,
        project="demo",
        serve_consumer=consumer,
        serve_ui=True,
    )


def test_the_settings_tell_the_ui_what_this_server_has(tmp_path: Path) -> None:
    with TestClient(create_app(settings(tmp_path, consumer=True))) as client:
        answer = client.get("/api/v1/ui/settings")
    assert answer.status_code == 200
    assert answer.json() == {
        "consumer_enabled": True,
        "registry_enabled": True,
        "project": "demo",
        "version": __version__,
        "read_key": "none",
        "authorizer": "open",
        "admin_key": False,
    }


def test_the_settings_say_whether_reads_take_a_key(tmp_path: Path) -> None:
    """The UI offers a key field when a key is needed, or would show more."""
    keys = [{"key": "k-1", "projects": ["demo"]}]  # pragma: allowlist secret
    for authorizer, expected in (
        ({"type": "api_keys", "keys": keys}, "required"),
        ({"type": "api_keys", "keys": keys, "anonymous_projects": ["demo"]}, "optional"),
        ({"type": "feast"}, "required"),
        ({"type": "feast", "anonymous_projects": ["demo"]}, "optional"),
    ):
        base = settings(tmp_path, consumer=True)
        consumer = ConsumerSettings(enabled=True, authorizer=authorizer)
        app = create_app(
            AppSettings(
                consumer=consumer,
                database_url=base.database_url,
                repo_path=base.repo_path,
                project="demo",
                serve_consumer=True,
                serve_ui=True,
            )
        )
        with TestClient(app) as client:
            answer = client.get("/api/v1/ui/settings")  # no key: the settings are anyone's
        assert answer.status_code == 200, answer.text
        assert answer.json()["read_key"] == expected, authorizer


def test_the_settings_name_the_authorizer_and_whether_an_admin_key_is_set(
    tmp_path: Path,
) -> None:
    """So the UI asks for what reads take: a read API key, a Feast access token (or, under
    feast, the admin key too); never the key itself."""
    admin = "the-admin-key"  # pragma: allowlist secret
    keys = [{"key": "k-1", "projects": ["demo"]}]  # pragma: allowlist secret
    base = settings(tmp_path, consumer=True)
    for authorizer, api_key, expected in (
        ({"type": "open"}, None, ("open", False)),
        ({"type": "api_keys", "keys": keys}, None, ("api_keys", False)),
        ({"type": "feast"}, None, ("feast", False)),
        ({"type": "feast"}, admin, ("feast", True)),
    ):
        consumer = ConsumerSettings(enabled=True, authorizer=authorizer, api_key=api_key)
        app = create_app(replace(base, consumer=consumer))
        with TestClient(app) as client:
            answer = client.get("/api/v1/ui/settings")
        assert answer.status_code == 200, answer.text
        assert (answer.json()["authorizer"], answer.json()["admin_key"]) == expected, authorizer
        assert admin not in answer.text


def test_the_settings_name_the_project_only_to_callers_who_may_see_it(tmp_path: Path) -> None:
    authorizer = {
        "type": "api_keys",
        "keys": [
            {"key": "key-demo", "projects": ["demo"]},
            {"key": "key-other", "projects": ["x"]},
        ],
    }
    base = settings(tmp_path, consumer=True)
    app = create_app(
        AppSettings(
            consumer=ConsumerSettings(enabled=True, authorizer=authorizer, api_key="admin"),
            database_url=base.database_url,
            repo_path=tmp_path,
            project="demo",
            serve_ui=True,
        )
    )
    with TestClient(app) as client:
        for key, project in (
            (None, None),
            ("key-other", None),
            ("not-a-key", None),
            ("key-demo", "demo"),
            ("admin", "demo"),
        ):
            headers = {"X-API-Key": key} if key else {}
            answer = client.get("/api/v1/ui/settings", headers=headers)
            assert answer.status_code == 200, key
            assert answer.json()["project"] == project, key
            if project is None:
                assert "demo" not in answer.text, key


def test_without_the_consumer_only_registry_lineage_is_served(tmp_path: Path) -> None:
    with TestClient(create_app(settings(tmp_path, consumer=False))) as client:
        assert client.get("/api/v1/ui/settings").json()["consumer_enabled"] is False
        for probe in ("/healthz", "/readyz"):  # no database to wait for: ready at once
            health = client.get(probe)
            assert health.status_code == 200, probe
            assert health.json()["database"] == "none"
        for path in ("/api/v1/lineage/openlineage/graph", "/api/v1/lineage/openlineage/events"):
            assert client.get(path).status_code == 404, path
        assert client.post("/api/v1/lineage", json=[]).status_code in (404, 405)
        # The registry endpoints answer (this repository has no feature_store.yaml).
        registry = client.get("/api/v1/lineage/registry/all")
        assert registry.status_code == 503
        assert registry.json()["error"]["code"] == "registry_unavailable"
    assert not (tmp_path / "lineage.db").exists(), "a database was created without the consumer"


def test_a_consumer_app_without_the_ui_has_no_page(tmp_path: Path) -> None:
    app = create_app(AppSettings(ConsumerSettings(enabled=True), f"sqlite:///{tmp_path / 'l.db'}"))
    with TestClient(app) as client:
        assert client.get("/").status_code == 404
        assert client.get("/api/v1/ui/settings").status_code == 404


def test_the_page_and_its_assets_are_served_from_the_build(tmp_path: Path) -> None:
    build = tmp_path / "webui"
    (build / "assets").mkdir(parents=True)
    (build / "index.html").write_text('<script src="./assets/app-1.js"></script>')
    (build / "assets" / "app-1.js").write_text("console.log('ui')")
    app = FastAPI()
    mount_web_ui(app, build)
    client = TestClient(app)
    page = client.get("/", params={"tab": "events", "ns": "airflow://prod"})
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["cache-control"] == "no-cache"
    assert "./assets/app-1.js" in page.text
    script = client.get("/assets/app-1.js")
    assert script.status_code == 200
    assert script.text == "console.log('ui')"
    # Hashed names change with their content: the browser keeps them for good.
    assert script.headers["cache-control"] == "public, max-age=31536000, immutable"
    missing = client.get("/assets/missing.js")
    assert missing.status_code == 404
    assert "immutable" not in missing.headers.get("cache-control", "")


def test_a_missing_build_says_how_to_build_it(tmp_path: Path) -> None:
    app = FastAPI()
    mount_web_ui(app, tmp_path / "not-built")
    page = TestClient(app).get("/")
    assert page.status_code == 503
    assert "./scripts/bootstrap.sh" in page.text
    assert "npm ci" in page.text


def built_ui(tmp_path: Path) -> Path:
    build = tmp_path / "webui"
    (build / "assets").mkdir(parents=True)
    (build / "index.html").write_text(
        '<!doctype html><html><head><script src="./assets/app-1.js"></script></head></html>'
    )
    return build


HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def test_a_browser_at_an_unknown_path_gets_the_ui_not_found_page(tmp_path: Path) -> None:
    app = FastAPI()
    install_error_handlers(app)
    mount_web_ui(app, built_ui(tmp_path))
    client = TestClient(app)
    page = client.get("/no/such/page", headers=HTML)
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
    # The page's relative links resolve from the UI's root, not from /no/such/.
    assert '<head><base href="/"><script src="./assets/app-1.js">' in page.text
    # Behind a proxy, from its prefix.
    behind = TestClient(app, root_path="/lineage").get("/lineage/no/such", headers=HTML)
    assert behind.status_code == 404
    assert '<base href="/lineage/">' in behind.text


def test_api_paths_and_api_clients_keep_json_errors(tmp_path: Path) -> None:
    app = FastAPI()
    install_error_handlers(app)
    mount_web_ui(app, built_ui(tmp_path))
    client = TestClient(app)
    for path, headers in (
        ("/api/v1/lineage/no-such", HTML),  # an API path, even for a browser
        ("/assets/missing.js", HTML),
        ("/docs/nope", HTML),
        ("/no/such/page", {"Accept": "application/json"}),  # a client that wants JSON
        ("/no/such/page", {"Accept": "*/*"}),  # curl, httpx
    ):
        answer = client.get(path, headers=headers)
        assert answer.status_code == 404, path
        assert answer.json()["error"]["code"] == "not_found", (path, headers)
    posted = client.post("/no/such/page", headers=HTML)
    assert posted.json()["error"]["code"] in ("not_found", "method_not_allowed")


def test_the_api_reference_loads_nothing_from_outside(tmp_path: Path) -> None:
    docs = tmp_path / "api-docs"
    docs.mkdir()
    (docs / "swagger-ui-bundle.js").write_text("window.SwaggerUIBundle = () => {}")
    (docs / "swagger-ui.css").write_text("body {}")
    app = FastAPI(docs_url=None, redoc_url=None)
    install_api_docs(app, docs)
    client = TestClient(app, root_path="/lineage")
    page = client.get("/lineage/docs")
    assert page.status_code == 200
    assert '"/lineage/docs/assets/swagger-ui-bundle.js"' in page.text
    assert "'/lineage/openapi.json'" in page.text or '"/lineage/openapi.json"' in page.text
    assert "http://" not in page.text
    assert "https://" not in page.text
    assert client.get("/lineage/docs/assets/swagger-ui-bundle.js").status_code == 200
    redoc = client.get("/lineage/redoc", follow_redirects=False)
    assert redoc.status_code == 307
    assert redoc.headers["location"] == "/lineage/docs"
    # Without the build, it says how to build it.
    bare = FastAPI(docs_url=None, redoc_url=None)
    install_api_docs(bare, tmp_path / "not-built")
    missing = TestClient(bare).get("/docs")
    assert missing.status_code == 503
    assert "./scripts/bootstrap.sh" in missing.text


def test_the_built_package_has_the_api_reference_files() -> None:
    assert (API_DOCS_DIR / SWAGGER_JS).is_file(), "run ./scripts/bootstrap.sh"
    assert (API_DOCS_DIR / SWAGGER_CSS).is_file()
