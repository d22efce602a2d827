"""Separate pipelines drawn apart, and finding one's way in a large graph
(issue 27), in Chromium against a real server."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, expect

from tests.server_process import write_repo
from tests.ui.conftest import ui_server, wait_graph

Shoot = Callable[[Page, str], Path]
PRODUCER = "https://scheduler.example.com/openlineage-plugin/2.1"


def pipelines(count: int, jobs: int) -> list[dict[str, Any]]:
    """``count`` separate chains: job j of a pipeline reads table j and writes table j+1."""
    events = []
    for p in range(count):
        for j in range(jobs):
            events.append(
                {
                    "eventType": "COMPLETE",
                    "eventTime": "2026-11-01T00:00:00Z",
                    "producer": PRODUCER,
                    "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json",
                    "job": {"namespace": "scheduler", "name": f"pipeline_{p}.step_{j}"},
                    "run": {"runId": str(uuid.uuid4())},
                    "inputs": [{"namespace": "warehouse", "name": f"analytics.p{p}.table_{j}"}],
                    "outputs": [
                        {"namespace": "warehouse", "name": f"analytics.p{p}.table_{j + 1}"}
                    ],
                }
            )
    return events


FRAMES = """() => [...document.querySelectorAll('.lgroup')].map(f => {
  const m = f.style.transform.match(/translate\\(([-\\d.]+)px, ([-\\d.]+)px\\)/);
  return { x: +m[1], y: +m[2], w: f.offsetWidth, h: f.offsetHeight, nodes: +f.dataset.nodes };
})"""


def gap(a: dict[str, float], b: dict[str, float]) -> float:
    """The distance between two frames (graph units); negative when they overlap."""
    dx = max(b["x"] - (a["x"] + a["w"]), a["x"] - (b["x"] + b["w"]))
    dy = max(b["y"] - (a["y"] + a["h"]), a["y"] - (b["y"] + b["h"]))
    return max(dx, dy)


def assert_apart(frames: list[dict[str, float]], at_least: float) -> None:
    for i, a in enumerate(frames):
        for b in frames[i + 1 :]:
            assert gap(a, b) >= at_least, (a, b)


def test_separate_pipelines_are_framed_apart(page: Page, tmp_path: Path, shoot: Shoot) -> None:
    with ui_server(write_repo(tmp_path / "small", project="small")) as server:
        answer = httpx.post(f"{server.url}/api/v1/lineage/batch", json=pipelines(3, 4), timeout=60)
        assert answer.status_code in (200, 204), answer.text
        page.goto(server.url)
        wait_graph(page, nodes=27)
        frames = page.evaluate(FRAMES)
        assert sorted(f["nodes"] for f in frames) == [9, 9, 9]
        assert_apart(frames, 60)
        shoot(page, "separate-pipelines")


def test_a_large_graph_opens_readable_with_a_map_to_move_around(
    page: Page, tmp_path: Path, shoot: Shoot
) -> None:
    with ui_server(write_repo(tmp_path / "large", project="large")) as server:
        events = pipelines(12, 20)  # 12 x 41 = 492 nodes: drawn as a large graph
        answer = httpx.post(f"{server.url}/api/v1/lineage/batch", json=events, timeout=60)
        assert answer.status_code in (200, 204), answer.text
        page.goto(server.url)
        page.wait_for_selector(".canvas[data-state=ready][data-nodes='492']", timeout=60_000)
        # Readable at first (names, not the coloured overview), with the map to orient.
        expect(page.locator(".canvas[data-overview]")).to_have_count(0)
        expect(page.locator("canvas.overview:not([data-drawn='0'])")).to_have_count(1)
        navmap = page.get_by_test_id("navmap")
        expect(navmap).to_be_visible()
        frames = page.evaluate(FRAMES)
        assert len(frames) == 12
        assert_apart(frames, 60)
        shoot(page, "large-graph-navmap")

        # A click in the map moves the view there.
        before = page.evaluate("document.querySelector('.react-flow__viewport').style.transform")
        box = navmap.bounding_box()
        assert box is not None
        for fx, fy in ((0.1, 0.1), (0.9, 0.9)):
            page.mouse.click(box["x"] + box["width"] * fx, box["y"] + box["height"] * fy)
            page.wait_for_timeout(200)
            after = page.evaluate("document.querySelector('.react-flow__viewport').style.transform")
            assert after != before
            before = after

        # Fit shows the whole graph, as the overview, with the map still there.
        page.locator(".react-flow__controls-fitview").click()
        expect(page.locator(".canvas[data-overview]")).to_have_count(1)
        expect(navmap).to_be_visible()
