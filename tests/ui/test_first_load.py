"""The first load in Chromium (issue 27): compressed answers, cacheable
assets, and the layout engine started alongside the graph, not after it."""

from __future__ import annotations

import time

from playwright.sync_api import Page, Response, Route

from tests.server_process import ServerProcess
from tests.ui.conftest import wait_graph


def test_answers_are_compressed_and_assets_cached(page: Page, server: ServerProcess) -> None:
    responses: list[Response] = []
    page.on("response", lambda response: responses.append(response))
    page.goto(server.url)
    wait_graph(page)
    page.wait_for_load_state("networkidle")
    by_kind: dict[str, list[Response]] = {"page": [], "asset": [], "api": []}
    for response in responses:
        path = response.url.removeprefix(server.url)
        if path in ("", "/"):
            by_kind["page"].append(response)
        elif path.startswith("/assets/"):
            by_kind["asset"].append(response)
        elif path.startswith("/api/"):
            by_kind["api"].append(response)
    assert by_kind["page"]
    assert by_kind["api"]
    assert any("layout.worker" in r.url for r in by_kind["asset"])
    page_headers = by_kind["page"][0].all_headers()
    assert page_headers["cache-control"] == "no-cache"  # it names the assets: always revalidated
    for response in by_kind["asset"]:
        headers = response.all_headers()
        assert headers["cache-control"] == "public, max-age=31536000, immutable", response.url
        if response.url.endswith((".js", ".css")):
            assert headers.get("content-encoding") == "gzip", response.url
    graph = [r for r in by_kind["api"] if "/openlineage/graph" in r.url]
    assert graph, [r.url for r in by_kind["api"]]
    assert graph[0].all_headers().get("content-encoding") == "gzip"

    # A second visit takes the hashed assets from the browser's cache.
    cached: list[Response] = []
    page.on("response", lambda response: cached.append(response))
    page.goto(server.url)
    wait_graph(page)
    transferred = page.evaluate(
        "() => performance.getEntriesByType('resource')"
        ".filter(e => e.name.includes('/assets/')).map(e => e.transferSize)"
    )
    assert transferred
    assert all(size == 0 for size in transferred), transferred


def test_the_graph_waits_for_no_large_download_nor_for_the_settings(
    page: Page, server: ServerProcess
) -> None:
    responses: list[Response] = []  # the page's and its workers'
    page.on("response", lambda response: responses.append(response))
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    # The settings are held unanswered until the graph has been asked for: a
    # page that waited for them would never ask (no race of milliseconds).
    held: list[Route] = []
    page.route("**/ui/settings", lambda route: held.append(route))
    page.goto(server.url, wait_until="commit")
    deadline = time.monotonic() + 30
    while not any("/openlineage/graph" in url for url in requested):
        assert time.monotonic() < deadline, f"no graph request while the settings wait: {requested}"
        page.wait_for_timeout(50)
    assert held, "the settings were not asked for"
    for route in held:
        route.continue_()
    page.unroute("**/ui/settings")
    page.wait_for_selector(".canvas[data-state=ready]", timeout=30_000)
    page.wait_for_load_state("networkidle")
    # No layout engine of a megabyte or more to fetch first: every script is small.
    scripts = {r.url: len(r.body()) for r in responses if r.url.endswith(".js")}
    assert any("layout.worker" in url for url in scripts)
    assert all(size < 1_000_000 for size in scripts.values()), scripts
