"""The column view's reach (issue 36, point 5), in Chromium on the quickstart:
a path that goes on past the depth says so at the edge ("+N more hops", one
click shows them), no text is drawn below 11 px however deep the trace, and
a column the dataset does not have gets the server's message, not a box."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

from playwright.sync_api import Page, expect

from tests.server_process import ServerProcess
from tests.ui.test_column_lineage import FEATURE, RAW, SERVICE, query, wait_columns


def trace_url(server: ServerProcess, dataset: tuple[str, str], field: str, **extra: str) -> str:
    params = {"col_ns": dataset[0], "col_ds": dataset[1], "col": field, **extra}
    return server.url + "/?" + urlencode(params)


def test_a_path_past_the_depth_says_how_far_it_goes_and_one_click_shows_it(
    page: Page, server: ServerProcess
) -> None:
    page.goto(trace_url(server, SERVICE, FEATURE))  # the default depth, 3
    wait_columns(page)
    boxes = page.locator(".cbox")
    expect(boxes.filter(has_text=RAW[1])).to_have_count(0)
    more = page.get_by_test_id("more-hops-upstream")
    expect(more).to_contain_text("+1 more hop")
    expect(more).not_to_contain_text("hops")
    expect(more).to_have_attribute("title", re.compile("1 more hop upstream"))
    expect(page.get_by_test_id("more-hops-downstream")).to_have_count(0)
    more.click()
    assert query(page)["depth"] == ["4"]
    expect(page.get_by_label("Column depth")).to_have_value("4")
    expect(boxes.filter(has_text=RAW[1])).to_have_count(1)
    expect(page.get_by_test_id("more-hops-upstream")).to_have_count(0)


# Every visible text of the column canvas: its font size times the zoom.
TEXT_PX = """() => {
  const viewport = document.querySelector('.column-canvas .react-flow__viewport');
  const zoom = Number(viewport.style.transform.match(/scale\\(([\\d.]+)\\)/)[1]);
  const out = [];
  const walker = document.createTreeWalker(viewport, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const text = walker.currentNode;
    const element = text.parentElement;
    if (!text.data.trim() || element.offsetParent === null) continue;
    out.push({text: text.data, px: parseFloat(getComputedStyle(element).fontSize) * zoom});
  }
  return {zoom, texts: out};
}"""


def test_no_text_is_drawn_below_11_px_the_view_pans_instead(
    page: Page, server: ServerProcess
) -> None:
    page.goto(trace_url(server, RAW, "accepted", depth="20", dir="downstream"))
    wait_columns(page)
    found: dict[str, Any] = page.evaluate(TEXT_PX)
    small = [t for t in found["texts"] if t["px"] < 11]
    assert found["texts"]
    assert not small, small[:5]
    # Zooming out stops at a readable size; the map shows the rest.
    expect(page.locator(".column-canvas .react-flow__controls-zoomout")).to_be_disabled()
    canvas = page.locator(".column-canvas").bounding_box()
    assert canvas is not None
    page.mouse.move(canvas["x"] + canvas["width"] / 2, canvas["y"] + 8)
    for _ in range(5):
        page.mouse.wheel(0, 400)
        page.wait_for_timeout(100)
    page.wait_for_timeout(300)
    found = page.evaluate(TEXT_PX)
    assert not [t for t in found["texts"] if t["px"] < 11]
    expect(page.locator(".column-canvas .react-flow__minimap")).to_be_visible()


def test_an_unknown_column_gets_the_servers_message_not_a_box(
    page: Page, server: ServerProcess
) -> None:
    page.goto(trace_url(server, RAW, "nope"))
    alert = page.get_by_test_id("unknown-column")
    expect(alert).to_contain_text("no column `nope` in raw.public.trips; its columns are")
    expect(alert).to_contain_text("driver_id")
    expect(page.locator(".cbox")).to_have_count(0)
    # One of its real columns, one click away.
    alert.get_by_role("button", name="accepted", exact=True).click()
    wait_columns(page)
    assert query(page)["col"] == ["accepted"]


def test_an_unknown_column_lists_every_traceable_column(page: Page, server: ServerProcess) -> None:
    """The feature view's schema lists its features only; its entity key and timestamps
    have column lineage too (the panel lists all six), and so does the message."""
    page.goto(trace_url(server, ("driver_ranking", "feature_view/driver_hourly_stats"), "nope"))
    alert = page.get_by_test_id("unknown-column")
    expect(alert).to_contain_text("no column `nope`")
    for column in (
        "conv_rate",
        "acc_rate",
        "avg_daily_trips",
        "driver_id",
        "event_timestamp",
        "created",
    ):
        expect(alert.locator(".status-body")).to_contain_text(column)
        expect(alert.get_by_role("button", name=column, exact=True)).to_have_count(1)
