"""Accessibility (issue 36, point 3): axe-core finds nothing serious or critical on any
page, and the keyboard reaches and opens every graph node and table row, with a focus
ring that shows on every background, the dark tab bar included.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
from playwright.sync_api import Page, expect

from tests.server_process import ServerProcess
from tests.ui.conftest import axe_violations, wait_graph


def open_graph(page: Page) -> None:
    wait_graph(page)


def open_rows(testid: str) -> Callable[[Page], None]:
    def wait(page: Page) -> None:
        expect(page.get_by_test_id(testid).locator("tbody tr").first).to_be_visible()

    return wait


def open_event_json(page: Page) -> None:
    page.locator("tr.event-row").first.click()
    expect(page.locator(".event-json .json")).to_be_visible()


def open_columns(page: Page) -> None:
    page.wait_for_selector("[data-testid=column-ready]", state="attached", timeout=30_000)


def open_panel(page: Page) -> None:
    panel = page.get_by_test_id("details-panel")
    expect(panel.get_by_test_id("run-history").locator("tr.run-row").first).to_be_visible()


def open_dataset_panel(page: Page) -> None:
    expect(page.get_by_test_id("details-panel").get_by_test_id("schema-table")).to_be_visible()


def open_problems(page: Page) -> None:
    expect(page.get_by_test_id("problem").first).to_be_visible()


def open_not_found(page: Page) -> None:
    expect(page.get_by_test_id("not-found")).to_be_visible()


JOB = {"node_type": "job", "node_ns": "spark://ml-team", "node": "train_driver_ranking"}
SERVICE = {"node_type": "dataset", "node_ns": "driver_ranking"}
SERVICE["node"] = "feature_service/driver_activity_v2"
TRACE = {
    "col_ns": "driver_ranking",
    "col_ds": "feature_service/driver_activity_v1",
    "col": "driver_hourly_stats:conv_rate",
}
PAGES: dict[str, tuple[str, Callable[[Page], None]]] = {
    "graph": ("/", open_graph),
    "feast-only": ("/?view=feast", open_graph),
    "jobs": ("/?tab=jobs", open_rows("job-table")),
    "datasets": ("/?tab=datasets", open_rows("dataset-table")),
    "runs": ("/?tab=runs", open_rows("run-list")),
    "events": ("/?tab=events", open_event_json),
    "health": ("/?tab=health", open_problems),
    "column-view": ("/?" + urlencode(TRACE), open_columns),
    "job-details": ("/?" + urlencode(JOB), open_panel),
    "dataset-details": ("/?" + urlencode(SERVICE), open_dataset_panel),
    "not-found": ("/no/such/page", open_not_found),
}


@pytest.mark.parametrize("name", list(PAGES))
def test_axe_finds_no_serious_violation(page: Page, server: ServerProcess, name: str) -> None:
    path, ready = PAGES[name]
    page.goto(server.url + path)
    ready(page)
    assert axe_violations(page) == [], f"axe on the {name} page"


# The ring the focused element shows, and the contrast of its colour against what is
# behind it (WCAG 2.2: a focus indicator of at least 3:1 against adjacent colours).
FOCUS_RING = """() => {
    const el = document.activeElement;
    const rgb = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
    const behind = (node) => {
        for (let n = node; n; n = n.parentElement) {
            const c = rgb(getComputedStyle(n).backgroundColor);
            if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c.slice(0, 3);
        }
        return [255, 255, 255];
    };
    const lum = ([r, g, b]) => {
        const f = (v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const contrast = (a, b) => {
        const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
        return (x + 0.05) / (y + 0.05);
    };
    const style = getComputedStyle(el);
    const ring = rgb(style.outlineColor).slice(0, 3);
    const offset = parseFloat(style.outlineOffset);
    // An outline drawn outside the element lies over its parent's background, inside over its own.
    const around = offset >= 0 && el.parentElement ? behind(el.parentElement) : behind(el);
    return {
        what: [el.tagName.toLowerCase(), ...el.classList].join(".")
            + " " + (el.getAttribute("aria-label") || el.type || ""),
        style: style.outlineStyle,
        width: parseFloat(style.outlineWidth),
        contrast: Math.round(contrast(ring, around) * 100) / 100,
    };
}"""


def tab_until(page: Page, selector: str, *, most: int = 80) -> list[dict[str, Any]]:
    """Press Tab until an element matching ``selector`` has the focus; the rings seen on the way."""
    rings: list[dict[str, Any]] = []
    for _ in range(most):
        page.keyboard.press("Tab")
        rings.append(page.evaluate(FOCUS_RING))
        if page.evaluate(f"() => document.activeElement.matches({selector!r})"):
            return rings
    raise AssertionError(f"{most} presses of Tab never reached {selector}: {rings[-5:]}")


def assert_rings_visible(rings: list[dict[str, Any]]) -> None:
    faint = [r for r in rings if r["style"] != "solid" or r["width"] < 2 or r["contrast"] < 3]
    assert not faint, f"focus rings that do not show: {faint}"


def test_the_keyboard_opens_graph_nodes_with_a_visible_ring(
    page: Page, server: ServerProcess
) -> None:
    page.goto(server.url)
    wait_graph(page)
    # From the top: the tab bar (dark), the toolbar, then the graph's nodes.
    rings = tab_until(page, ".react-flow__node")
    assert any(r["what"].startswith("button.tab") for r in rings), rings
    assert_rings_visible(rings)
    first = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert first, "the node has no name for screen readers"
    assert " " in first, f"the node's name does not say its kind: {first!r}"
    node_id = page.evaluate("() => document.activeElement.dataset.id")
    page.keyboard.press("Enter")
    panel = page.get_by_test_id("details-panel")
    expect(panel).to_be_visible()
    selected = page.locator(".react-flow__node .lnode.is-selected")
    expect(selected).to_have_count(1)
    expect(page.locator(f'.react-flow__node[data-id="{node_id}"] .lnode')).to_have_class(
        re.compile(r"\bis-selected\b")
    )

    # Space opens the next node as well.
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.matches('.react-flow__node')")
    second = page.evaluate("() => document.activeElement.dataset.id")
    assert second != node_id
    page.keyboard.press(" ")
    expect(page.locator(f'.react-flow__node[data-id="{second}"] .lnode')).to_have_class(
        re.compile(r"\bis-selected\b")
    )
    assert_rings_visible([page.evaluate(FOCUS_RING)])

    # Enter again on the node open goes into its details (after every node in Tab order);
    # Escape closes them, the focus back on the node.
    page.keyboard.press("Enter")
    title = page.get_by_test_id("details-panel").locator(".panel-title")
    expect(title).to_be_focused()
    page.keyboard.press("Tab")
    assert page.evaluate(
        "() => document.activeElement.closest('[data-testid=details-panel]') !== null"
    )
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("details-panel")).to_have_count(0)
    page.wait_for_function("want => document.activeElement?.dataset.id === want", arg=second)


def query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


@pytest.mark.parametrize("tab", ["jobs", "datasets"])
def test_the_keyboard_opens_a_catalog_row(page: Page, server: ServerProcess, tab: str) -> None:
    page.goto(f"{server.url}/?tab={tab}")
    table = page.get_by_test_id(f"{tab[:-1]}-table")
    expect(table.locator("tbody tr").first).to_be_visible()
    rings = tab_until(page, "tr.catalog-row")
    assert_rings_visible(rings)
    name = page.evaluate("() => document.activeElement.querySelector('.strong').textContent")
    row_id = page.evaluate("() => document.activeElement.dataset.nodeId")
    page.keyboard.press("Enter")
    panel = page.get_by_test_id("details-panel")
    expect(panel.locator(f'.panel-body[data-node-id="{row_id}"]')).to_be_attached()
    assert query(page)["node"] == [name]
    # The next row, with Space.
    page.keyboard.press("Tab")
    other = page.evaluate("() => document.activeElement.dataset.nodeId")
    assert other != row_id
    page.keyboard.press(" ")
    expect(panel.locator(f'.panel-body[data-node-id="{other}"]')).to_be_attached()


def test_the_keyboard_opens_an_event_and_a_run(page: Page, server: ServerProcess) -> None:
    page.goto(f"{server.url}/?tab=events")
    expect(page.locator("tr.event-row").first).to_be_visible()
    assert_rings_visible(tab_until(page, "tr.event-row"))
    page.keyboard.press("Enter")
    expect(page.locator(".event-json .json")).to_be_visible()
    assert "ev" in query(page)
    page.keyboard.press("Enter")
    expect(page.locator(".event-json")).to_have_count(0)

    # A run opens in its job's details, expanded.
    page.goto(f"{server.url}/?tab=runs&job=train_driver_ranking")
    expect(page.locator("tr.runs-row").first).to_be_visible()
    assert_rings_visible(tab_until(page, "tr.runs-row"))
    run_id = page.evaluate("() => document.activeElement.dataset.runId")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("details-panel").locator(".panel-title")).to_have_text(
        "train_driver_ranking"
    )
    assert query(page)["tab"] == ["jobs"]
    assert query(page)["run"] == [run_id]
    expect(page.get_by_test_id("run-io")).to_contain_text(run_id)


def test_a_whole_header_cell_sorts_by_click_and_keyboard(page: Page, server: ServerProcess) -> None:
    page.goto(f"{server.url}/?tab=jobs")
    header = page.get_by_test_id("job-table").locator('th[data-column="namespace"]')
    expect(header).to_be_visible()
    box = header.bounding_box()
    assert box is not None
    # Far from the header's text, at the right end of its cell.
    header.click(position={"x": box["width"] - 4, "y": box["height"] - 3})
    expect(header).to_have_attribute("aria-sort", "ascending")
    assert query(page)["sort"] == ["namespace"]
    # Reached with the keyboard (as a key press, so the browser shows it as keyboard focus).
    header.get_by_role("button").focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.closest('th').dataset.column") == "namespace"
    assert_rings_visible([page.evaluate(FOCUS_RING)])
    page.keyboard.press("Enter")
    expect(header).to_have_attribute("aria-sort", "descending")
    assert query(page)["sort"] == ["-namespace"]


def test_escape_closes_the_innermost_first(page: Page, server: ServerProcess) -> None:
    # The column view with a node's details open: the panel, then the column view.
    page.goto(f"{server.url}/?" + urlencode({**TRACE, **JOB}))
    open_columns(page)
    panel = page.get_by_test_id("details-panel")
    expect(panel).to_be_visible()
    page.keyboard.press("Escape")
    expect(panel).to_have_count(0)
    expect(page.get_by_test_id("column-view")).to_be_visible()
    assert "col" in query(page)
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("column-view")).to_have_count(0)
    assert "col" not in query(page)
    wait_graph(page)

    # An event's JSON.
    page.goto(f"{server.url}/?tab=events")
    open_event_json(page)
    page.keyboard.press("Escape")
    expect(page.locator(".event-json")).to_have_count(0)
    assert "ev" not in query(page)


def test_the_focus_follows_what_enter_opened(page: Page, server: ServerProcess) -> None:
    # "Trace conv_rate" in the panel: the focus on the column view's heading.
    view = {"node_type": "dataset", "node_ns": "driver_ranking"}
    view["node"] = "feature_view/driver_hourly_stats"
    page.goto(f"{server.url}/?" + urlencode(view))
    counts = page.get_by_test_id("details-panel").get_by_test_id("column-counts-list")
    trace = counts.get_by_role("button", name="conv_rate", exact=True)
    trace.focus()
    page.keyboard.press("Enter")
    open_columns(page)
    expect(page.get_by_test_id("column-traced")).to_be_focused()

    # A run of the Runs tab: the focus on that run in its job's details.
    page.goto(f"{server.url}/?tab=runs&job=train_driver_ranking")
    expect(page.locator("tr.runs-row").first).to_be_visible()
    tab_until(page, "tr.runs-row")
    run_id = page.evaluate("() => document.activeElement.dataset.runId")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("run-io")).to_contain_text(run_id)
    # (The focus moves once the run is drawn: wait for it, then check it stays.)
    in_panel = (
        "() => document.activeElement.closest('[data-testid=details-panel] [data-run-id]')"
        "?.dataset.runId ?? document.activeElement.tagName"
    )
    page.wait_for_function(f"id => ({in_panel})() === id", arg=run_id)
    page.wait_for_timeout(500)
    assert page.evaluate(in_panel) == run_id


@pytest.mark.parametrize(("tab", "row"), [("events", "tr.event-row"), ("runs", "tr.runs-row")])
def test_a_time_filter_is_one_stop_of_the_tab_key(
    page: Page, server: ServerProcess, tab: str, row: str
) -> None:
    page.goto(f"{server.url}/?tab={tab}")
    expect(page.locator(row).first).to_be_visible()
    page.get_by_role("tab", name=tab.capitalize()).focus()
    stops = tab_until(page, row)
    # Each time filter (from, until) is one stop...
    times = [s["what"] for s in stops if s["what"].endswith(" time")]
    assert len(times) == 2, [s["what"] for s in stops]
    # ...so from the tab: the tabs after it and the API link, the filters (Events:
    # namespace, job, type, from, until, per page; Runs: job, state, from, before and
    # the five sortable headers), then the first row.
    assert len(stops) <= (12 if tab == "events" else 14), [s["what"] for s in stops]
    assert_rings_visible(stops)


def test_a_time_filter_takes_a_typed_instant(page: Page, server: ServerProcess) -> None:
    page.goto(f"{server.url}/?tab=events")
    expect(page.locator("tr.event-row").first).to_be_visible()
    since = page.get_by_label("From time")
    since.fill("2999-01-01 00:00")
    since.press("Enter")
    expect(page.get_by_role("status")).to_contain_text("No event matches")
    # The URL keeps its UTC instant (the browser's midnight, in UTC).
    utc = page.evaluate("() => new Date(2999, 0, 1).toISOString().replace('.000Z', 'Z')")
    assert query(page)["since"] == [utc]
    since.fill("not a time")
    since.press("Enter")
    expect(since).to_have_attribute("aria-invalid", "true")
    assert query(page)["since"] == [utc]


def test_the_search_box_is_a_combobox(page: Page, server: ServerProcess) -> None:
    page.goto(server.url)
    wait_graph(page)
    box = page.get_by_role("combobox", name="Search nodes")
    expect(box).to_have_attribute("aria-expanded", "false")
    box.fill("driver")
    expect(box).to_have_attribute("aria-expanded", "true")
    listbox = page.get_by_role("listbox", name="Search results")
    expect(listbox).to_be_visible()
    expect(box).to_have_attribute("aria-controls", listbox.get_attribute("id") or "?")
    box.press("ArrowDown")
    second = listbox.get_by_role("option").nth(1)
    expect(second).to_have_attribute("aria-selected", "true")
    expect(box).to_have_attribute("aria-activedescendant", second.get_attribute("id") or "?")
    assert axe_violations(page) == [], "axe with the search results open"
    box.press("Escape")
    expect(box).to_have_attribute("aria-expanded", "false")
    # (Escape closed the results only: the page is still the graph, the text kept.)
    expect(box).to_have_value("driver")
