"""A node's Freshness in words (ui/src/views/health/words.ts), in Chromium against a real
server: a Feast materialization whose interval ends in the future
(``feast materialize 2020-01-01 2099-01-01``) says so, never "0 s ago"."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode

import httpx
from playwright.sync_api import Page, expect

from tests.factories import dataset, facet, iso, run_event
from tests.server_process import write_repo
from tests.ui.conftest import ui_server


def test_a_materialization_to_a_future_end_says_when_and_that_it_is_to_come(
    page: Page, tmp_path: Path
) -> None:
    now = datetime.now(UTC).replace(microsecond=0)
    past, view = now - timedelta(hours=2), "feature_view/trips"
    facets = {"feast_feature_view": facet(name="trips")}
    window = facet(
        feature_views=["trips"], start_date="2020-01-01T00:00:00Z", end_date="2099-01-01T12:00:00Z"
    )
    events = [
        run_event(
            "COMPLETE", job=("cron", "upload"), time=iso(past), outputs=[dataset("wh", "raw")]
        ),
        run_event(
            "COMPLETE",
            job=("ml_team", "materialize"),
            time=iso(now - timedelta(minutes=1)),
            inputs=[dataset("wh", "raw")],
            outputs=[dataset("ml_team", view, **facets)],
            run_facets={"feast_materialization": window},
        ),
    ]
    with ui_server(write_repo(tmp_path / "future", project="ml_team")) as server:
        answer = httpx.post(f"{server.url}/api/v1/lineage/batch", json=events, timeout=60)
        assert answer.status_code == 204, answer.text
        opened = {"node_type": "dataset", "node_ns": "ml_team", "node": view}
        page.goto(f"{server.url}/?{urlencode(opened)}")
        freshness = page.get_by_test_id("details-panel").get_by_test_id("freshness")
        expect(freshness).to_contain_text("source written 2 h ago")
        # The end in the browser's time zone, named (noon UTC is 2099-01-01 or -02 anywhere).
        expect(freshness).to_contain_text(
            re.compile(r"materialized to 2099-01-0[12] \d\d:\d\d:\d\d \S+ \(in the future\)")
        )
        expect(freshness).not_to_contain_text("0 s ago")
