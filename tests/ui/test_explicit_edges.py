"""Explicit lineage in the graph (issue 26): job -> job edges drawn apart, origin on hover,
in Chromium against a real server."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
from playwright.sync_api import Page, expect

from tests.server_process import write_repo
from tests.ui.conftest import ui_server, wait_graph

Shoot = Callable[[Page, str], Path]
PRODUCER = "https://scheduler.example.com/openlineage-plugin/2.1"
SPEC = "https://openlineage.io/spec/2-0-2/OpenLineage.json"
NS = "scheduler"


def events() -> list[dict]:
    """extract -> load (declared by a JobEvent's lineage facet), load -> report (a run's
    jobDependencies), and load reading and writing tables."""
    lineage = {
        "_producer": PRODUCER,
        "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/LineageFacet.json",
        "entries": [
            {
                "type": "JOB",
                "inputs": [{"type": "JOB", "namespace": NS, "name": "extract"}],
            }
        ],
    }
    deps = {
        "_producer": PRODUCER,
        "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/JobDependenciesRunFacet.json",
        "downstream": [{"job": {"namespace": NS, "name": "report"}}],
    }
    return [
        {
            "eventTime": "2026-11-01T00:00:00Z",
            "producer": PRODUCER,
            "schemaURL": SPEC,
            "job": {"namespace": NS, "name": "load", "facets": {"lineage": lineage}},
        },
        {
            "eventType": "COMPLETE",
            "eventTime": "2026-11-01T00:01:00Z",
            "producer": PRODUCER,
            "schemaURL": SPEC,
            "job": {"namespace": NS, "name": "load"},
            "run": {"runId": str(uuid.uuid4()), "facets": {"jobDependencies": deps}},
            "inputs": [{"namespace": "warehouse", "name": "raw.orders"}],
            "outputs": [{"namespace": "warehouse", "name": "clean.orders"}],
        },
    ]


JOB_EDGES = """() => [...document.querySelectorAll('.ledge-explicit')].map(g => ({
  origin: g.dataset.origin,
  title: g.querySelector('title').textContent,
  kind: g.querySelector('path.ledge').getAttribute('class'),
  dash: getComputedStyle(g.querySelector('path.ledge')).strokeDasharray,
}))"""


def test_job_to_job_edges_are_drawn_apart_with_their_origin(
    page: Page, tmp_path: Path, shoot: Shoot
) -> None:
    with ui_server(write_repo(tmp_path / "explicit", project="explicit")) as server:
        answer = httpx.post(f"{server.url}/api/v1/lineage/batch", json=events(), timeout=60)
        assert answer.status_code in (200, 204), answer.text
        page.goto(server.url)
        wait_graph(page, nodes=5)
        expect(page.locator(".ledge-explicit")).to_have_count(2)
        drawn = sorted(page.evaluate(JOB_EDGES), key=lambda e: e["origin"])
        assert [(e["origin"], e["title"]) for e in drawn] == [
            ("declared", "job → job: declared"),
            ("observed", "job → job: observed"),
        ]
        assert all("ledge-jobjob" in e["kind"] for e in drawn)
        # Drawn unlike the input and output edges: dashed.
        io_dash = page.evaluate(
            "getComputedStyle(document.querySelector('path.ledge-io')).strokeDasharray"
        )
        assert io_dash == "none"
        assert all(e["dash"] not in ("none", "") for e in drawn)
        # The origin is the edge's hover text.
        edge = page.locator(".ledge-explicit[data-origin=declared]")
        edge.locator("path").first.hover(force=True)
        expect(edge.locator("title")).to_have_text("job → job: declared")
        shoot(page, "explicit-job-edges")


def test_derived_edges_in_feasts_shape_are_not_drawn_twice(page: Page, tmp_path: Path) -> None:
    """The API lists a job's dataset -> dataset edge in ``edges`` too (Feast's shape):
    the graph draws the job's two edges, not a third beside them."""
    run = {
        "eventType": "COMPLETE",
        "eventTime": "2026-11-01T00:01:00Z",
        "producer": PRODUCER,
        "schemaURL": SPEC,
        "job": {"namespace": NS, "name": "copy"},
        "run": {"runId": str(uuid.uuid4())},
        "inputs": [{"namespace": "warehouse", "name": "raw.orders"}],
        "outputs": [{"namespace": "warehouse", "name": "clean.orders"}],
    }
    with ui_server(write_repo(tmp_path / "derived", project="derived")) as server:
        answer = httpx.post(f"{server.url}/api/v1/lineage", json=run, timeout=60)
        assert answer.status_code == 201, answer.text
        graph = httpx.get(f"{server.url}/api/v1/lineage/openlineage/graph", timeout=60).json()
        assert [e["edge_type"] for e in graph["edges"]].count("derived") == 1
        page.goto(server.url)
        wait_graph(page, nodes=3)
        expect(page.locator(".canvas")).to_have_attribute("data-edges", "2")
        expect(page.locator("path.ledge")).to_have_count(2)
        expect(page.locator("path.ledge-io")).to_have_count(2)
