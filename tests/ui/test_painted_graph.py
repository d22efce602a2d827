"""A large graph painted on a <canvas> (ui/src/graph/paint.ts, Overview.tsx),
in Chromium against a real server (issue 27): readable text at the opening
zoom, no DOM node per graph node, and every interaction of the DOM graph:
hover lights the path, a click opens the details, search focuses a node."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.server_process import ServerProcess, write_repo
from tests.ui.conftest import ui_server

Shoot = Callable[[Page, str], Path]
PRODUCER = "https://scheduler.example.com/openlineage-plugin/2.1"
OUTPUTS = 420
NODES = OUTPUTS + 2  # the source, the job, its outputs: above the 400 the canvas paints
JOB = "job:scheduler:hub.fan_out"
CANVAS = "canvas.overview"

# Pixels of the canvas in the node text's colour (#0f172a, dark): text was painted.
TEXT_PIXELS = """(selector) => {
  const canvas = document.querySelector(selector);
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let count = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] > 200 && data[i] < 40 && data[i + 1] < 50 && data[i + 2] < 80) count++;
  }
  return count;
}"""


def fan_out() -> list[dict[str, Any]]:
    """One job reading one table and writing OUTPUTS tables."""
    return [
        {
            "eventType": "COMPLETE",
            "eventTime": "2026-11-01T00:00:00Z",
            "producer": PRODUCER,
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json",
            "job": {"namespace": "scheduler", "name": "hub.fan_out"},
            "run": {"runId": str(uuid.uuid4())},
            "inputs": [{"namespace": "warehouse", "name": "hub.source"}],
            "outputs": [
                {"namespace": "warehouse", "name": f"analytics.hub.out_{i:03d}"}
                for i in range(OUTPUTS)
            ],
        }
    ]


# Pixels of the canvas near an RGB colour: the health overlay's rings and glyphs were painted.
COLOUR_PIXELS = """([selector, rgb]) => {
  const canvas = document.querySelector(selector);
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let count = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] > 200 && Math.abs(data[i] - rgb[0]) < 24 && Math.abs(data[i + 1] - rgb[1]) < 24
        && Math.abs(data[i + 2] - rgb[2]) < 24) count++;
  }
  return count;
}"""
AT_RISK_RGB = [0xC2, 0x41, 0x0C]  # healthOverlay.ts HEALTH_MARKS.at_risk


def failed_run() -> list[dict[str, Any]]:
    """The fan-out job's next run, failed: the job is failed, each output at risk."""
    run = {"runId": str(uuid.uuid4())}
    job = {"namespace": "scheduler", "name": "hub.fan_out"}
    base = {"producer": PRODUCER, "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json"}
    return [
        {**base, "eventType": "START", "eventTime": "2026-11-02T00:00:00Z", "job": job, "run": run},
        {**base, "eventType": "FAIL", "eventTime": "2026-11-02T00:01:00Z", "job": job, "run": run},
    ]


def hover_until_lit(page: Page) -> dict[str, float]:
    """Moves over the canvas until a node lights its path; where, and how many lit."""
    box = page.locator(".canvas").bounding_box()
    assert box is not None
    for fy in (0.5, 0.45, 0.55, 0.4, 0.6, 0.3, 0.7):
        for fx in (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.1, 0.9):
            x, y = box["x"] + box["width"] * fx, box["y"] + box["height"] * fy
            page.mouse.move(x, y)
            lit = int(page.get_attribute(CANVAS, "data-lit-nodes") or 0)
            if lit:
                return {"x": x, "y": y, "lit": lit}
    raise AssertionError("no node lit up under the mouse anywhere on the canvas")


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose store holds the fan-out: one process for the module's tests.

    The run-counts test only reads; the exploring test, after it, adds a failed run.
    """
    with ui_server(write_repo(tmp_path_factory.mktemp("hub"), project="hub")) as server:
        answer = httpx.post(f"{server.url}/api/v1/lineage/batch", json=fan_out(), timeout=60)
        assert answer.status_code in (200, 204), answer.text
        yield server


NOTE_RGB = [0x33, 0x41, 0x55]  # paint.ts NOTE_TEXT: an edge label's words


def test_a_large_graphs_run_counts_are_painted_readable_at_the_opening_zoom(
    page: Page, hub: ServerProcess, shoot: Shoot
) -> None:
    window = "seen=custom&seen_since=2026-10-31T00:00:00Z&seen_until=2026-11-02T00:00:00Z"
    page.goto(f"{hub.url}/?{window}")
    page.wait_for_selector(f".canvas[data-state=ready][data-nodes='{NODES}']", timeout=60_000)
    expect(page.get_by_test_id("history-banner")).to_contain_text("Seen during")
    canvas = page.locator(CANVAS)
    expect(canvas).to_have_attribute("data-notes-drawn", re.compile(r"^[1-9]"))
    # "1 run" on each edge on screen, 11 px on screen (the graph opens at 0.55).
    assert float(canvas.get_attribute("data-note-px") or 0) >= 10.9
    assert page.evaluate(COLOUR_PIXELS, [CANVAS, NOTE_RGB]) > 200
    shoot(page, "painted-graph-run-counts")


def test_a_large_graph_is_painted_readable_and_can_be_explored(
    page: Page, hub: ServerProcess, shoot: Shoot
) -> None:
    page.goto(hub.url)
    page.wait_for_selector(f".canvas[data-state=ready][data-nodes='{NODES}']", timeout=60_000)

    # Painted, readable (names, not the overview's colours), with no DOM node per node.
    expect(page.locator(f"{CANVAS}:not([data-drawn='0'])")).to_have_count(1)
    expect(page.locator(".canvas[data-overview]")).to_have_count(0)
    expect(page.locator(".react-flow__node")).to_have_count(0)
    assert page.evaluate(TEXT_PIXELS, CANVAS) > 500
    shoot(page, "painted-graph")

    # Hovering an output lights its path: itself, the job, the source.
    spot = hover_until_lit(page)
    assert spot["lit"] == 3

    # A click opens it in the details panel, and it stays on screen beside the panel.
    page.mouse.click(spot["x"], spot["y"])
    panel = page.get_by_test_id("details-panel")
    expect(panel).to_be_visible()
    expect(panel).to_contain_text("analytics.hub.out_")
    expect(page.locator(CANVAS)).to_have_attribute(
        "data-selected-drawn", re.compile(r"^dataset:warehouse:analytics\.hub\.out_")
    )
    shoot(page, "painted-graph-selected")

    # Search focuses the job: its neighbourhood, still painted, centred on it.
    search = page.get_by_label("Search nodes")
    search.fill("fan_out")
    expect(page.get_by_role("option").first).to_contain_text("hub.fan_out")
    search.press("Enter")
    expect(page.get_by_test_id("focus-controls")).to_contain_text("hub.fan_out")
    page.wait_for_selector(f".canvas[data-state=ready][data-nodes='{NODES}']")
    expect(page.locator(CANVAS)).to_have_attribute("data-center-drawn", JOB)
    expect(page.locator(".react-flow__node")).to_have_count(0)

    # The health overlay, painted too: the job failed, its outputs at risk.
    assert page.evaluate(COLOUR_PIXELS, [CANVAS, AT_RISK_RGB]) == 0
    answer = httpx.post(f"{hub.url}/api/v1/lineage/batch", json=failed_run(), timeout=60)
    assert answer.status_code in (200, 204), answer.text
    page.goto(hub.url)
    page.wait_for_selector(f".canvas[data-state=ready][data-nodes='{NODES}']", timeout=60_000)
    expect(page.locator(f"{CANVAS}:not([data-drawn='0'])")).to_have_count(1)
    legend = page.get_by_label("Legend")
    expect(legend.locator("[data-legend=health-failed]")).to_contain_text("failed 1")
    expect(legend.locator("[data-legend=health-at_risk]")).to_contain_text(f"at risk {OUTPUTS}")
    assert page.evaluate(COLOUR_PIXELS, [CANVAS, AT_RISK_RGB]) > 500
    shoot(page, "painted-graph-health")
