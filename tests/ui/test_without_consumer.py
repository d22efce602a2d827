"""`feast-lineage ui` with the consumer off: registry lineage only, and how to turn it on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
from playwright.sync_api import Page, expect

from tests.ui.conftest import node_labels, ui_server, wait_graph

Shoot = Callable[[Page, str], Path]


def test_without_the_consumer_the_ui_shows_the_registry_and_how_to_enable_it(
    page: Page, quickstart_repo: Path, shoot: Shoot
) -> None:
    with ui_server(quickstart_repo, env={"FEAST_OPENLINEAGE_CONSUMER_ENABLED": "false"}) as server:
        settings = httpx.get(f"{server.url}/api/v1/ui/settings").json()
        assert settings["consumer_enabled"] is False
        # No consumer endpoints, no database...
        assert httpx.get(f"{server.url}/api/v1/lineage/openlineage/events").status_code == 404
        assert httpx.post(f"{server.url}/api/v1/lineage", json={}).status_code in (404, 405)
        # ...but the registry's lineage.
        registry = httpx.get(f"{server.url}/api/v1/lineage/registry/all", timeout=90).json()
        assert "driver_ranking" in registry["projects"]

        page.goto(server.url)
        wait_graph(page)
        expect(page.get_by_test_id("consumer-off")).to_contain_text(
            "openlineage.consumer.enabled: true"
        )
        switch = page.get_by_label("Feast only lineage")
        expect(switch).to_be_checked()
        expect(switch).to_be_disabled()
        labels = set(node_labels(page))
        assert {
            "driver",
            "driver_hourly_stats",
            "driver_activity_v1",
            "driver_training_set",
        } <= labels
        assert "raw.public.trips" not in labels
        shoot(page, "registry-only")

        page.get_by_role("tab", name="Events").click()
        off = page.get_by_test_id("consumer-off")
        expect(off).to_contain_text("needs the OpenLineage consumer")
        expect(off).to_contain_text("consumer:")
        shoot(page, "registry-only-events")
