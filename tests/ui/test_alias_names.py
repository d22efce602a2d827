"""The name a group of aliases is drawn by, in Chromium against a real server, on the
Spark and Hive integrations' own events (../shared/openlineage/events)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, expect

from tests.fixture_events import TemplateFiller, load_fixtures
from tests.server_process import write_repo
from tests.ui.conftest import node, node_labels, ui_server, wait_graph

EVENTS = (
    # Spark writes /tmp/ctas_load/tbl1 and names its table default.tbl1 (a TABLE symlink).
    "ol_spark_container/pysparkCTASWithColumnLineageEnd.json",
    # Hive names test.t1 and test.xxx and points at their files (LOCATION symlinks).
    "ol_hive/cllSimpleQueryMaskingComplete.json",
)


def events() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for fixture in (f for f in load_fixtures() if f.name in EVENTS):
        value = TemplateFiller(fixture.group).fill_file(fixture.value)
        for event in value if isinstance(value, list) else [value]:
            event["job"].setdefault("name", "spark_test_job")  # Spark's partial-match event
            out.append(event)
    return out


def test_a_group_is_drawn_by_its_tables_name(page: Page, tmp_path: Path) -> None:
    with ui_server(write_repo(tmp_path / "aliases", project="aliases")) as server:
        answer = httpx.post(f"{server.url}/api/v1/lineage/batch", json=events(), timeout=60)
        assert answer.status_code in (200, 204), answer.text
        page.goto(server.url)
        wait_graph(page, nodes=6)
        labels = node_labels(page)
        # The path Spark wrote is drawn by its table's name (a name no event reported as a
        # dataset), Hive's tables by theirs, never by their files.
        assert {"default.tbl1", "test.t1", "test.xxx"} <= set(labels), labels
        assert not {"tbl1", "t1", "xxx"} & set(labels), labels
        table = node(page, "default.tbl1")
        expect(table.locator(".lnode-aliases")).to_have_text("· 1 alias")
        table.click()
        # Its details are the path's, the dataset stored; the table's name is its alias.
        panel = page.get_by_test_id("details-panel")
        expect(panel.locator(".panel-sub")).to_have_text("file · /tmp/ctas_load/tbl1")
        aliases = panel.get_by_test_id("aliases")
        expect(aliases.locator("li")).to_have_count(1)
        expect(aliases).to_contain_text("default.tbl1")
        expect(aliases).to_contain_text("TABLE, symlink")
