"""`feast-lineage ui` in other modes: without the consumer, with read API keys, and with
Feast access tokens (the feast authorizer)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.oidc import CLIENT_ID, running_issuer
from tests.server_process import ServerProcess, write_repo
from tests.ui.conftest import node, node_labels, ui_server, wait_graph

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


READ_KEY = "quickstart-reader"  # pragma: allowlist secret
AUTHORIZER = json.dumps(
    {"type": "api_keys", "keys": [{"key": READ_KEY, "projects": ["driver_ranking"]}]}
)


def test_a_server_that_wants_a_read_key_gets_it_from_the_page(
    page: Page, quickstart_repo: Path, server: ServerProcess, shoot: Shoot
) -> None:
    # (`server` has stored the other producers' events in the repository's store.)
    env = {"FEAST_OPENLINEAGE_CONSUMER_AUTHORIZER": AUTHORIZER}
    with ui_server(quickstart_repo, env=env) as keyed:
        page.goto(keyed.url)
        alert = page.get_by_role("alert")
        # The api_keys authorizer takes API keys only: asked for plainly, with no hedge.
        expect(alert).to_contain_text("This server asks for an API key for reading: enter it.")
        expect(alert).not_to_contain_text("Feast access token")
        expect(alert).not_to_contain_text("operator")
        shoot(page, "api-key-asked")
        page.get_by_label("API key", exact=True).fill(READ_KEY)
        page.get_by_role("button", name="Use this key").click()
        wait_graph(page)
        labels = set(node_labels(page))
        # The key's project, and the producers namespace_mapping gives it...
        assert {
            "driver_hourly_stats",
            "train_driver_ranking",
            "analytics.driver_hourly_stats",
        } <= labels
        # ...but not the warehouse's tables, which no mapping gives it.
        assert "raw.public.trips" not in labels
        node(page, "train_driver_ranking").click()
        # the first training's failure and success, and today's second training
        expect(page.get_by_test_id("runs-table").locator("tr.run-row")).to_have_count(3)


OTHER_KEY = "another-team-reader"  # pragma: allowlist secret
WITH_ANONYMOUS = json.dumps(
    {
        "type": "api_keys",
        "keys": [
            {"key": READ_KEY, "projects": ["driver_ranking"]},
            {"key": OTHER_KEY, "projects": ["another_team"]},
        ],
        "anonymous_projects": ["public_demo"],
    }
)


@pytest.fixture(scope="module")
def keyed(quickstart_repo: Path, server: ServerProcess) -> Iterator[ServerProcess]:
    """A server over the quickstart's store whose keys leave public_demo to anyone.

    (`server` has stored the other producers' events in the repository's store.) The tests
    that take it only read, each in a page of its own (its own sessionStorage): one process
    serves them all.
    """
    env = {"FEAST_OPENLINEAGE_CONSUMER_AUTHORIZER": WITH_ANONYMOUS}
    with ui_server(quickstart_repo, env=env) as running:
        yield running


def test_a_key_is_entered_changed_and_forgotten_from_the_header(
    page: Page, keyed: ServerProcess, shoot: Shoot
) -> None:
    """With anonymous_projects, the page opens without a key (nothing of driver_ranking
    visible), and the header's key control takes one, says it is in use without showing
    it, and forgets it: all from the keyboard."""
    assert httpx.get(f"{keyed.url}/api/v1/ui/settings").json()["read_key"] == "optional"
    page.goto(keyed.url)
    control = page.get_by_role("button", name=re.compile("read key", re.I))
    expect(control).to_contain_text("no key")
    control.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("dialog", name="Read key")).to_contain_text(
        "An API key shows the projects it may see."
    )
    field = page.get_by_label("API key", exact=True)
    expect(field).to_be_focused()
    page.keyboard.type(READ_KEY)
    page.keyboard.press("Enter")
    wait_graph(page)
    assert "driver_hourly_stats" in set(node_labels(page))
    control = page.get_by_role("button", name=re.compile("read key", re.I))
    expect(control).to_contain_text("key in use")
    assert READ_KEY not in page.content(), "the key is shown back"
    shoot(page, "api-key-in-use")

    # Escape closes the form, the focus back on the control.
    control.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_label("API key", exact=True)).to_have_value("")
    page.keyboard.press("Escape")
    expect(page.get_by_label("API key", exact=True)).to_have_count(0)
    expect(control).to_be_focused()

    # Forgotten: the anonymous view again.
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Forget the key").click()
    expect(page.get_by_role("button", name=re.compile("read key", re.I))).to_contain_text("no key")
    expect(
        page.locator(".react-flow__node .lnode[data-label='driver_hourly_stats']")
    ).to_have_count(0)
    assert page.evaluate("() => sessionStorage.length") == 0


def test_a_key_that_cannot_see_the_project_is_told_so_in_the_feast_view(
    page: Page, keyed: ServerProcess
) -> None:
    page.goto(keyed.url)
    page.evaluate(f"() => sessionStorage.setItem('feast-lineage.api-key', {OTHER_KEY!r})")
    page.goto(keyed.url + "/?view=feast")
    hidden = page.get_by_test_id("project-hidden")
    expect(hidden).to_contain_text("cannot see")
    expect(hidden).to_contain_text("another API key")
    expect(page.get_by_text("no Feast objects yet")).to_have_count(0)
    # The way to another key is right there.
    hidden.get_by_role("button", name=re.compile("key", re.I)).click()
    expect(page.get_by_label("API key", exact=True)).to_be_focused()


def test_a_key_that_sees_no_namespace_is_not_told_the_store_is_empty(
    page: Page, keyed: ServerProcess
) -> None:
    """The store holds events, none of them in a namespace the key may see: the page says
    it shows nothing that key can see (which it cannot tell from an empty store, and does
    not), never that there are no events yet."""
    page.goto(keyed.url)
    page.evaluate(f"() => sessionStorage.setItem('feast-lineage.api-key', {OTHER_KEY!r})")
    page.goto(keyed.url)
    expect(page.get_by_test_id("project-hidden")).to_contain_text("cannot see")
    banner = page.get_by_test_id("no-events")
    expect(banner).to_contain_text("your key can see")
    expect(banner).not_to_contain_text("events yet")
    expect(banner).not_to_contain_text("feast-lineage apply")


@pytest.mark.parametrize("admin_key", [False, True], ids=["tokens", "tokens-and-admin-key"])
def test_under_the_feast_authorizer_the_page_asks_for_a_feast_access_token(
    page: Page, tmp_path: Path, admin_key: bool
) -> None:
    """The feast authorizer reads Feast access tokens (and the admin api_key, when one is
    set): the page asks for the token, never for "an API key ... (ask which)"."""
    consumer: dict[str, object] = {"authorizer": {"type": "feast"}}
    if admin_key:
        consumer["api_key"] = "the-admin-key"  # pragma: allowlist secret
    with running_issuer() as issuer:
        auth = {"type": "oidc", "client_id": CLIENT_ID, "auth_discovery_url": issuer.discovery_url}
        repo = write_repo(tmp_path / "guarded", project="guarded", consumer=consumer, auth=auth)
        with ui_server(repo) as guarded:
            settings = httpx.get(f"{guarded.url}/api/v1/ui/settings").json()
            assert (settings["authorizer"], settings["admin_key"]) == ("feast", admin_key)
            page.goto(guarded.url)
            alert = page.get_by_role("alert")
            asked = (
                "your Feast access token (or the server's admin API key)"
                if admin_key
                else ("your Feast access token for reading")
            )
            expect(alert).to_contain_text(f"This server asks for {asked}")
            expect(alert).not_to_contain_text("operator")
            field = "Feast access token or admin API key" if admin_key else "Feast access token"
            expect(alert.get_by_label(field, exact=True)).to_be_visible()
            if not admin_key:
                expect(alert).not_to_contain_text("API key")
            # The header's control says the same.
            page.get_by_role("button", name=re.compile("read key", re.I)).click()
            expect(page.get_by_role("dialog", name="Read key")).to_contain_text(
                "Your Feast access token"
            )
