"""The web UI's routes: the page, its assets, its settings, and a server without consumer."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from feast_lineage import __version__
from feast_lineage.config import ConsumerSettings
from feast_lineage.consumer.app import create_app
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
    }


def test_without_the_consumer_only_registry_lineage_is_served(tmp_path: Path) -> None:
    with TestClient(create_app(settings(tmp_path, consumer=False))) as client:
        assert client.get("/api/v1/ui/settings").json()["consumer_enabled"] is False
        health = client.get("/healthz")
        assert health.status_code == 200
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
