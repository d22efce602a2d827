"""A run's details in Chromium against a real server (views/details/RunTree.tsx,
RunError.tsx, RunRows.tsx): a long dotted job name wraps in the run tree, a database error
keeps its lines (dbt's "LINE 43: ... ^" pointer), and a run still running says what "as of"
it is (now)."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode

import httpx
from playwright.sync_api import Page, expect

from tests.server_process import write_repo
from tests.ui.conftest import ui_server, url_param

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


def _at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_run_still_running_is_as_of_now_and_says_so(page: Page, tmp_path: Path) -> None:
    """A START-only run has no end: as the API's from_run and to_run take it, it stands for
    now. Its "Lineage as of this run" is the lineage now (off when that is shown, the way
    back to it when not), "Changes since this run" is off (nothing changed since now), and
    the row says why; the Runs tab's link says it goes to now."""
    now = datetime.now(UTC).replace(microsecond=0)
    done, running = str(uuid.uuid4()), str(uuid.uuid4())
    job = "score_drivers"

    def event(kind: str, run: str, at: datetime) -> dict:
        return {**_event(job, run, kind), "eventTime": _at(at)}

    events = [
        event("START", done, now - timedelta(hours=5)),
        event("COMPLETE", done, now - timedelta(hours=4)),
        event("START", running, now - timedelta(hours=2)),
    ]
    with ui_server(write_repo(tmp_path / "running", project="running")) as server:
        answer = httpx.post(f"{server.url}/api/v1/lineage/batch", json=events, timeout=60)
        assert answer.status_code == 204, answer.text
        link = {"node_type": "job", "node_ns": NS, "node": job, "run": running}
        page.goto(f"{server.url}/?{urlencode(link)}")
        io = page.get_by_test_id("run-io")
        expect(io.get_by_test_id("run-still-running")).to_contain_text(
            "the lineage as of this run is the lineage now (shown)"
        )
        expect(io.get_by_test_id("as-of-run")).to_be_disabled()
        expect(io.get_by_test_id("changes-since-run")).to_be_disabled()
        expect(io.get_by_test_id("changes-since-run")).to_have_attribute(
            "title", re.compile("Still running")
        )

        # As of an instant it was under way: "as of this run" goes to now.
        then = _at(now - timedelta(hours=1))
        page.goto(f"{server.url}/?{urlencode({**link, 'as_of': then})}")
        io = page.get_by_test_id("run-io")
        expect(io.get_by_test_id("run-still-running")).not_to_contain_text("(shown)")
        io.get_by_test_id("as-of-run").click()
        expect(page.get_by_test_id("history-banner")).to_have_count(0)
        assert url_param(page, "as_of") is None
        assert url_param(page, "run") == running

        # The Runs tab: the running run's link says where it goes.
        page.goto(f"{server.url}/?tab=runs")
        row = page.locator(f"tr[data-run-id='{running}']")
        expect(row.get_by_role("button", name="now (still running)")).to_have_attribute(
            "title", re.compile("Still running")
        )
        ended = page.locator(f"tr[data-run-id='{done}']")
        expect(ended.get_by_role("button", name="as of this run")).to_have_count(1)
