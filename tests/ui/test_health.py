"""Lineage health in the UI (issue 41), in Chromium on the quickstart: today's
Airflow export task fails after its good nights, so the Health tab lists it with
the feature service it reaches; a click shows the graph focused on the task with
the path to that service lit, marked failed and at risk (glyphs, not colour
alone); the feature view's panel says its source and materialization lags in
words, and which upstream failed; under a key that may not see the trips file the
task writes, the click still shows all it reaches. The session's server, and one that
reads with that key over the same store."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.server_process import ServerProcess
from tests.ui.conftest import OL, ui_server, wait_graph

Shoot = Callable[[Page, str], Path]
TASK_NS = "airflow://prod-cluster"
TASK = "driver_features_daily.export_daily_trips"
TASK_ID = f"job:{TASK_NS}:{TASK}"
DAG_ID = f"job:{TASK_NS}:driver_features_daily"
SERVICE = "feature_service/driver_activity_v2"
SERVICE_ID = f"dataset:driver_ranking:{SERVICE}"


def _has(name: str) -> re.Pattern[str]:
    """A class attribute that holds ``name`` among its classes."""
    return re.compile(rf"(^|\s){re.escape(name)}(\s|$)")


VIEW = {
    "node_type": "dataset",
    "node_ns": "driver_ranking",
    "node": "feature_view/driver_daily_trips",
}


def test_the_health_tab_lists_the_failed_task_and_lights_the_path_to_its_service(
    page: Page, server: ServerProcess, shoot: Shoot
) -> None:
    page.goto(server.url + "/?tab=health")
    expect(page.get_by_role("tab", name="Health")).to_have_attribute("aria-selected", "true")
    problem = page.locator(f"[data-problem='failed:{TASK_ID}']")
    expect(problem).to_contain_text(TASK)
    expect(problem).to_contain_text("permission denied for schema exports")
    expect(problem.locator("[data-health=failed]")).to_have_count(1)
    services = problem.locator("[data-group=feature_services]")
    # Under its group's heading, a Feast object by its own name.
    expect(services.locator(f"li[data-node-id='{SERVICE_ID}']")).to_contain_text(
        "driver_activity_v2"
    )
    shoot(page, "ui-health")

    # The service's link, by keyboard: the graph focused on the task, downstream,
    # the service selected.
    services.get_by_role("button", name="driver_activity_v2", exact=True).focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("tab", name="Lineage")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_test_id("focus-controls")).to_contain_text(TASK)
    wait_graph(page)
    task = page.locator(f".lnode[data-node-id='{TASK_ID}']")
    service = page.locator(f".lnode[data-node-id='{SERVICE_ID}']")
    # The path from the task to the service is lit; the service is selected.
    expect(page.locator(".canvas[data-lit]")).to_have_count(1)
    expect(service).to_have_class(_has("is-selected"))
    # The link is gone with the tab: the keyboard's focus is on the node it showed.
    page.wait_for_function(
        "want => document.activeElement?.closest('.react-flow__node')?.dataset.id === want",
        arg=SERVICE_ID,
    )
    expect(task).to_have_class(_has("lit-on"))
    expect(service).to_have_class(_has("lit-on"))
    # Marked by state, each with its glyph (named for screen readers) and the legend's count.
    expect(task).to_have_attribute("data-health", "failed")
    expect(task.get_by_role("img", name="failed")).to_have_count(1)
    expect(service).to_have_attribute("data-health", "at_risk")
    expect(service.get_by_role("img", name="at risk")).to_have_count(1)
    legend = page.get_by_label("Legend")
    expect(legend.locator("[data-legend=health-failed]")).to_contain_text("failed")
    expect(legend.locator("[data-legend=health-at_risk]")).to_contain_text("at risk")
    shoot(page, "ui-health-path")


def test_the_feature_view_panel_says_both_lags_and_the_failed_upstream(
    page: Page, server: ServerProcess
) -> None:
    page.goto(server.url + "/?" + urlencode(VIEW))
    freshness = page.get_by_test_id("details-panel").get_by_test_id("freshness")
    expect(freshness).to_contain_text("source written")
    expect(freshness).to_contain_text("materialized to")
    expect(freshness).to_contain_text(TASK)
    expect(freshness).to_contain_text("failed")
    # "3 h ago", "40 min ago": a number and a unit, never a raw count of seconds.
    text = freshness.inner_text()
    assert "seconds" not in text, text
    assert " ago" in text, text


def test_the_dag_run_s_failure_puts_none_of_its_tasks_at_risk(server: ServerProcess) -> None:
    """Today's DAG run fails with its export task: the export is the only cause named, so
    extract_trips (a task that completed) and its staging copy are not at risk; what reads
    the trips file is (the dbt model reads it as exports.public.driver_trips)."""
    nodes = httpx.get(f"{server.url}/api/v1/lineage/openlineage/graph", timeout=30).json()["nodes"]
    states = {n["id"]: n["state"] for n in nodes}
    assert {i for i, s in states.items() if s == "failed"} == {DAG_ID, TASK_ID}
    assert states[f"job:{TASK_NS}:driver_features_daily.extract_trips"] == "ok"
    assert states["dataset:s3://ml-lake:staging/trips"] != "at_risk"
    assert states["job:dbt://analytics:analytics.driver_hourly_stats"] == "at_risk"
    assert states["dataset:mlflow://tracking:5000:models/driver_ranking"] == "at_risk"
    causes = {c["node"] for n in nodes for c in (n.get("health") or {}).get("causes", [])}
    assert causes == {TASK_ID}
    assert len([s for s in states.values() if s == "at_risk"]) == 28


def test_no_two_reached_nodes_read_alike(page: Page, server: ServerProcess) -> None:
    """An online store and a training frame are named after a feature view and a feature
    service: each row says its kind, so none reads as another row or as that object."""
    page.goto(server.url + "/?tab=health")
    problem = page.locator(f"[data-problem='failed:{TASK_ID}']")
    expect(problem.locator("[data-group=other] li").first).to_be_visible()
    rows = problem.locator(".reach-group li button")
    names = [text.strip() for text in rows.all_inner_texts()]
    assert len(names) == len(set(names)), names
    other = problem.locator("[data-group=other]")
    store = other.locator(
        "li[data-node-id='dataset:driver_ranking:online_store/driver_daily_trips']"
    )
    expect(store).to_contain_text("online store")
    frame = other.locator(
        "li[data-node-id='dataset:driver_ranking:training_frame/feature_service/driver_activity_v1']"
    )
    expect(frame).to_contain_text("training frame")


def test_enter_on_the_problem_s_name_focuses_its_node_as_a_click_does(
    page: Page, server: ServerProcess
) -> None:
    """The problem's name is its link: focused and entered (as a click on it does), the
    graph shows the task with the keyboard's focus on it, never on the page's body."""
    page.goto(server.url + "/?" + urlencode({"tab": "health", "kind": "failed", "ns": TASK_NS}))
    name = page.get_by_text(TASK, exact=True)
    name.focus()
    expect(name).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("focus-controls")).to_contain_text(TASK)
    wait_graph(page)
    page.wait_for_function(
        "want => document.activeElement?.closest('.react-flow__node')?.dataset.id === want",
        arg=TASK_ID,
    )


def test_a_node_s_accessible_name_says_it_is_at_risk(page: Page, server: ServerProcess) -> None:
    """A screen reader hears a node's health as its glyph shows it: "at risk" (the failed
    task's "latest run failed" already said it)."""
    page.goto(
        server.url
        + "/?"
        + urlencode(
            {
                "focus_type": "job",
                "focus_ns": TASK_NS,
                "focus": TASK,
                "dir": "downstream",
                "depth": 11,
            }
        )
    )
    wait_graph(page)
    service = page.locator(f".react-flow__node[data-id='{SERVICE_ID}']")
    expect(service.locator(".lnode")).to_have_attribute("data-health", "at_risk")
    expect(service).to_have_attribute("aria-label", re.compile(r"driver_activity_v2.*, at risk$"))
    task = page.locator(f".react-flow__node[data-id='{TASK_ID}']")
    expect(task).to_have_attribute("aria-label", re.compile("latest run failed"))
    assert "failed, failed" not in (task.get_attribute("aria-label") or "")
    # Every at-risk node drawn says it.
    labels = page.eval_on_selector_all(
        ".react-flow__node:has(.lnode[data-health=at_risk])",
        "els => els.map(e => e.getAttribute('aria-label'))",
    )
    assert labels
    assert all("at risk" in label for label in labels), labels


def test_the_focus_view_keeps_the_task_s_own_name_whole(page: Page, server: ServerProcess) -> None:
    """Focused on the task downstream, its DAG is not drawn (no parent edge in the focused
    graph): known from the whole graph, its name still loses the DAG's part first."""
    page.goto(server.url + "/?tab=health")
    page.locator(f"[data-problem='failed:{TASK_ID}']").get_by_role("button", name=TASK).click()
    wait_graph(page)
    expect(page.locator(f".lnode[data-node-id='{DAG_ID}']")).to_have_count(0)
    drawn = page.locator(f".lnode[data-node-id='{TASK_ID}'] .lnode-line")
    expect(drawn.first).to_be_visible()
    text = "".join(drawn.all_inner_texts())
    assert text.endswith("export_daily_trips"), text
    assert "…" in text, text  # (too long to show whole: shortened, its DAG's part first)


def test_a_time_still_to_come_shows_health_as_now(page: Page, server: ServerProcess) -> None:
    """As of a future instant is the lineage now: the failed and at-risk rings too, and the
    details' freshness (health is assessed for now only)."""
    page.goto(server.url + "/?" + urlencode({"as_of": "2030-01-01T00:00:00Z", **VIEW}))
    wait_graph(page)
    expect(page.get_by_test_id("history-banner")).to_contain_text("a time still to come")
    expect(page.locator(f".lnode[data-node-id='{TASK_ID}']")).to_have_attribute(
        "data-health", "failed"
    )
    expect(page.locator(".lnode[data-health=at_risk]").first).to_be_visible()
    legend = page.get_by_label("Legend")
    expect(legend.locator("[data-legend=health-failed]")).to_be_visible()
    freshness = page.get_by_test_id("details-panel").get_by_test_id("freshness")
    expect(freshness).to_contain_text("materialized to")
    expect(freshness).not_to_contain_text("known for now only")


READ_KEY = "quickstart-reader"  # pragma: allowlist secret
# A key of the quickstart's project: it sees driver_ranking and the namespaces mapped to it
# (Airflow, dbt, Spark), never the files, tables and model (file, postgres://, s3://, mlflow://).
SCOPED = json.dumps(
    {"type": "api_keys", "keys": [{"key": READ_KEY, "projects": ["driver_ranking"]}]}
)
SEEN_BY_KEY = {"driver_ranking", TASK_NS, "dbt://analytics", "spark://ml-team"}


@pytest.fixture(scope="module")
def scoped(quickstart_repo: Path, server: ServerProcess) -> Iterator[ServerProcess]:
    """A server over the quickstart's store (``server`` posted the other producers' events)
    that reads with READ_KEY only."""
    with ui_server(quickstart_repo, env={"FEAST_OPENLINEAGE_CONSUMER_AUTHORIZER": SCOPED}) as up:
        yield up


def test_a_key_that_sees_part_of_the_path_is_shown_all_the_problem_reaches(
    page: Page, server: ServerProcess, scoped: ServerProcess, shoot: Shoot
) -> None:
    """The failed export writes the trips file, which the key may not see: all it reaches is
    behind hidden nodes. Shown on the graph, it still draws every node /impact lists for that
    key (the nodes the graph rings at risk naming it), each stretch through hidden nodes one
    edge of its own kind, and names nothing hidden."""
    bearer = {"Authorization": f"Bearer {READ_KEY}"}
    query = {"node_type": "job", "namespace": TASK_NS, "name": TASK, "depth": 20}
    impact = httpx.get(f"{scoped.url}{OL}/impact", params=query, headers=bearer, timeout=30)
    impact.raise_for_status()
    reached = {r["node"]: r for group in impact.json()["affected"].values() for r in group}
    # Drawn: all but Feast's apply jobs, which the Jobs filter folds into edges by default.
    drawn = {TASK_ID} | {i for i, r in reached.items() if not r["name"].startswith("feast_apply_")}
    assert SERVICE_ID in drawn, drawn
    assert len(drawn) > 10, drawn
    every = httpx.get(f"{server.url}{OL}/graph", params={"limit": 5000}, timeout=30).json()
    hidden = {n["name"] for n in every["nodes"] if n["namespace"] not in SEEN_BY_KEY}
    assert "staging/trips" in hidden

    page.goto(scoped.url)
    page.evaluate(f"() => sessionStorage.setItem('feast-lineage.api-key', {READ_KEY!r})")
    page.goto(scoped.url + "/?tab=health")
    problem = page.locator(f"[data-problem='failed:{TASK_ID}']")
    problem.get_by_role("button", name=TASK, exact=True).click()
    page.wait_for_selector(".canvas[data-state=ready]", timeout=30_000)
    # (Before: the task alone, as its subgraph never walks through the hidden file.)
    expect(page.locator(".canvas")).to_have_attribute("data-nodes", str(len(drawn)))
    ids = page.eval_on_selector_all(".lnode", "els => els.map(e => e.dataset.nodeId)")
    assert set(ids) == drawn
    # The stretches the key may not see are edges of their own, which the legend explains.
    expect(page.locator(".ledge-hidden").first).to_be_attached()
    legend = page.get_by_label("Legend")
    expect(legend.locator("[data-edge=hidden]")).to_contain_text("through hidden nodes")
    # The task's whole downstream is lit (it is selected), the service with it.
    expect(page.locator(f".lnode[data-node-id='{SERVICE_ID}']")).to_have_class(_has("lit-on"))
    shoot(page, "health-scoped-key")
    content = page.content()
    named = sorted(name for name in hidden if name in content)
    assert not named, f"hidden nodes named on the page: {named}"
    for namespace in ("postgres://", "s3://", "mlflow://", "file:"):
        assert namespace not in content, namespace

    # A reached node's link lights the path to it from the task, across the hidden stretch.
    page.goto(scoped.url + "/?tab=health")
    services = page.locator(f"[data-problem='failed:{TASK_ID}'] [data-group=feature_services]")
    services.get_by_role("button", name="driver_activity_v2", exact=True).click()
    page.wait_for_selector(".canvas[data-state=ready]", timeout=30_000)
    expect(page.locator(f".lnode[data-node-id='{SERVICE_ID}']")).to_have_class(_has("is-selected"))
    expect(page.locator(f".lnode[data-node-id='{TASK_ID}']")).to_have_class(_has("lit-on"))
    expect(page.locator(".ledge-hidden.lit-on").first).to_be_attached()
