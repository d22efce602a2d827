"""The API reference with no network, the UI's not-found page, URLs normalized to what
the page shows, and the details panel's schema (issue 36, points 6, 7 and 8)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlparse

import httpx
from playwright.sync_api import Page, Request, Route, expect

from tests.server_process import ServerProcess
from tests.ui.conftest import wait_graph

LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]"}


def test_the_api_reference_works_with_every_outside_request_blocked(
    page: Page, server: ServerProcess
) -> None:
    blocked: list[str] = []

    def only_local(route: Route) -> None:
        host = urlparse(route.request.url).hostname or ""
        if route.request.url.startswith(("data:", "blob:")) or host in LOCAL_HOSTS:
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    page.context.route("**/*", only_local)
    page.goto(f"{server.url}/docs")
    document = httpx.get(f"{server.url}/openapi.json").json()
    operations = sum(len(methods) for methods in document["paths"].values())
    expect(page.locator(".opblock")).to_have_count(operations)
    expect(page.locator(".opblock-summary-path").first).to_be_visible()
    # Open one: its parameters render too.
    page.locator(".opblock", has_text="/api/v1/lineage/openlineage/events").first.click()
    expect(page.locator(".parameters").first).to_be_visible()
    assert blocked == [], f"the page reached outside: {blocked}"
    # /redoc (a CDN page in FastAPI) leads here.
    redoc = httpx.get(f"{server.url}/redoc", follow_redirects=False)
    assert redoc.status_code == 307
    assert redoc.headers["location"] == "/docs"


def test_an_unknown_path_shows_the_ui_not_found_page(page: Page, server: ServerProcess) -> None:
    answer = page.goto(f"{server.url}/lineage/no/such/page?tab=jobs")
    assert answer is not None
    assert answer.status == 404
    found = page.get_by_test_id("not-found")
    expect(found).to_contain_text("No page at /lineage/no/such/page")
    expect(page.get_by_role("tab", name="Jobs")).to_be_visible()
    found.get_by_role("link", name="Open the lineage graph").click()
    wait_graph(page)
    assert urlparse(page.url).path == "/"
    # The API's paths keep their JSON errors, for a browser too.
    api = page.goto(f"{server.url}/api/v1/lineage/no-such-thing")
    assert api is not None
    assert api.status == 404
    assert api.json()["error"]["code"] == "not_found"


def test_a_depth_out_of_range_is_shown_asked_for_and_linked_as_the_same(
    page: Page, server: ServerProcess
) -> None:
    asked: list[str] = []

    def on_request(request: Request) -> None:
        if "/graph/" in request.url:
            asked.extend(parse_qs(urlparse(request.url).query).get("depth", []))

    page.on("request", on_request)
    focus = {
        "focus_type": "job",
        "focus_ns": "dbt://analytics",
        "focus": "analytics.driver_hourly_stats",
    }
    page.goto(f"{server.url}/?{urlencode({**focus, 'depth': '-5'})}")
    wait_graph(page)
    expect(page.get_by_label("Depth")).to_have_value("1")
    page.wait_for_function("() => new URLSearchParams(location.search).get('depth') === '1'")
    assert asked
    assert set(asked) == {"1"}, asked
    # A depth between the menu's steps is offered as it is.
    page.goto(f"{server.url}/?{urlencode({**focus, 'depth': '7'})}")
    wait_graph(page)
    expect(page.get_by_label("Depth")).to_have_value("7")
    # Not a number: the view's default, and the URL without it.
    page.goto(f"{server.url}/?{urlencode({**focus, 'depth': 'lots'})}")
    wait_graph(page)
    expect(page.get_by_label("Depth")).to_have_value("2")
    page.wait_for_function("() => !new URLSearchParams(location.search).has('depth')")


SERVICE = {
    "node_type": "dataset",
    "node_ns": "driver_ranking",
    "node": "feature_service/driver_activity_v2",
}
# Every cell of the table shows all of its text within the panel: nothing is cut or scrolled away.
CUT_CELLS = """() => {
    const panel = document.querySelector('[data-testid=details-panel]');
    const table = panel.querySelector('[data-testid=schema-table]');
    const edge = panel.getBoundingClientRect().right;
    return [...table.querySelectorAll('th, td')]
        .filter((c) => c.getBoundingClientRect().right > edge + 0.5
            || c.scrollWidth > c.clientWidth + 1)
        .map((c) => c.textContent);
}"""


def test_the_schema_fits_the_panel_and_hides_feast_internals(
    page: Page, server: ServerProcess
) -> None:
    page.goto(f"{server.url}/?{urlencode(SERVICE)}")
    panel = page.get_by_test_id("details-panel")
    table = panel.get_by_test_id("schema-table")
    expect(table).to_contain_text("driver_hourly_stats:conv_rate")
    expect(table).to_contain_text("Share of offers the driver accepted")
    assert page.evaluate(CUT_CELLS) == []
    assert page.evaluate(
        "() => { const p = document.querySelector('[data-testid=details-panel]');"
        " return p.scrollWidth <= p.clientWidth; }"
    )

    # An on-demand feature view has no entities: Feast gives it its placeholder.
    odfv = {
        "view": "feast",
        "node_type": "on_demand_feature_view",
        "node_ns": "driver_ranking",
        "node": "transformed_conv_rate",
    }
    page.goto(f"{server.url}/?{urlencode(odfv)}")
    expect(table).to_contain_text("conv_rate_plus_val1")
    expect(table).not_to_contain_text("__dummy")
    expect(panel.get_by_test_id("feast-internal-fields")).to_contain_text("__dummy_id")
    entities = panel.get_by_test_id("feast-facets").locator(".row", has_text="Entities")
    expect(entities.locator("dd")).to_contain_text("none")
    expect(entities.get_by_test_id("feast-internal-note")).to_contain_text("__dummy")
    expect(panel.get_by_role("heading", name="Schema (2 fields)")).to_be_visible()
