"""A failed run's details in Chromium against a real server (views/details/RunTree.tsx,
RunError.tsx): a long dotted job name wraps in the run tree, and a database error keeps its
lines (dbt's "LINE 43: ... ^" pointer)."""

from __future__ import annotations

import uuid
from pathlib import Path
from urllib.parse import urlencode

import httpx
from playwright.sync_api import Page, expect

from tests.server_process import write_repo
from tests.ui.conftest import ui_server

PRODUCER = "https://github.com/dbt-labs/dbt-core/tree/1.8.0"
SPEC = "https://openlineage.io/spec/2-0-2/OpenLineage.json"
NS = "dbt://warehouse"
PARENT = "dbt-run-jaffle_shop"
# No space to break at: only the dots, which a browser does not break at by itself.
CHILD = "jaffle_shop.model.jaffle_shop.test_second_parallel_dbt_model_with_a_long_name"
ERROR = (
    'Database Error in model x\n  syntax error at or near "bork"\n'
    "  LINE 4: bork bork fail\n          ^"
)


def _event(job: str, run: str, state: str, **extra: dict) -> dict:
    return {
        "eventType": state,
        "eventTime": "2026-11-01T00:01:00Z",
        "producer": PRODUCER,
        "schemaURL": SPEC,
        "job": {"namespace": NS, "name": job},
        "run": {"runId": run, "facets": extra},
        "inputs": [],
        "outputs": [],
    }


def test_a_failed_run_s_long_name_wraps_and_its_error_keeps_its_lines(
    page: Page, tmp_path: Path
) -> None:
    parent, child = str(uuid.uuid4()), str(uuid.uuid4())
    facet = {"_producer": PRODUCER, "_schemaURL": SPEC}
    events = [
        _event(PARENT, parent, "COMPLETE"),
        _event(
            CHILD,
            child,
            "FAIL",
            parent={**facet, "run": {"runId": parent}, "job": {"namespace": NS, "name": PARENT}},
            errorMessage={**facet, "message": ERROR, "programmingLanguage": "SQL"},
        ),
    ]
    with ui_server(write_repo(tmp_path / "runs", project="runs")) as server:
        answer = httpx.post(f"{server.url}/api/v1/lineage/batch", json=events, timeout=60)
        assert answer.status_code == 204, answer.text
        link = {"node_type": "job", "node_ns": NS, "node": CHILD, "run": child}
        page.goto(f"{server.url}/?{urlencode(link)}")
        current = page.get_by_test_id("run-tree").locator(".run-tree-node.is-current")
        expect(current).to_contain_text("test_second_parallel")
        assert current.evaluate("el => el.scrollWidth <= el.clientWidth"), current.evaluate(
            "el => [el.scrollWidth, el.clientWidth]"
        )
        message = page.get_by_test_id("run-error").locator(".run-error-message").first
        expect(message).to_contain_text("bork bork fail")
        # Four lines, the caret under its column: not one run-on line.
        lines = message.evaluate(
            "el => { const r = document.createRange(); r.selectNodeContents(el);"
            " return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; }"
        )
        assert lines >= 4, lines
