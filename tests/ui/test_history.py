"""History in the UI (issue 40): the time control, "changes since", versions, run trees.

One page and the session's quickstart server for the whole module (the browser
pass is a share of the gate): each test starts from a URL, so none depends on
another's state.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlencode, urlparse

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from feast_lineage.consumer.lineage_model import NodeId
from feast_lineage.event_time import parse_us
from tests.server_process import ServerProcess, write_repo
from tests.ui.conftest import (
    OL,
    VIEWPORT,
    PageErrors,
    api,
    axe_violations,
    node,
    steady,
    ui_server,
    url_param,
    wait_graph,
)

Shoot = Callable[[Page, str], Path]
TRAIN = {"node_type": "job", "node_ns": "spark://ml-team", "node": "train_driver_ranking"}
FEATURE_VIEW = {
    "node_type": "dataset",
    "node_ns": "driver_ranking",
    "node": "feature_view/driver_hourly_stats",
}
DAG = {"node_type": "job", "node_ns": "airflow://prod-cluster", "node": "driver_features_daily"}
DBT_MODEL = "analytics.driver_hourly_stats"
DBT = {"node_type": "job", "node_ns": "dbt://analytics", "node": DBT_MODEL}
# What the dbt model reads since its second version (after the first training run).
SHIFTS = "raw.public.driver_shifts"


@pytest.fixture(scope="module")
def shared(browser: Browser) -> Iterator[Page]:
    """One page for the module; it fails the last test on a JavaScript error."""
    context = browser.new_context(viewport=VIEWPORT)  # type: ignore[arg-type]
    opened = context.new_page()
    errors = PageErrors()
    opened.on("console", errors.on_console)
    opened.on("pageerror", errors.on_page_error)
    opened.set_default_timeout(20_000)
    yield opened
    context.close()
    assert not errors.errors, f"the page logged errors: {errors.errors}"


@pytest.fixture(scope="module")
def first_training(server: ServerProcess) -> dict[str, Any]:
    """The first training run (the oldest of train_driver_ranking)."""
    runs = api(server, "runs", job_name="train_driver_ranking", limit=100)["runs"]
    return min(runs, key=lambda run: run["started_at"])


def on_top(locator: Any) -> bool:
    """Whether the element is what the page shows at its centre (not clipped, not covered)."""
    shown: bool = locator.evaluate(
        "el => { const r = el.getBoundingClientRect();"
        " const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);"
        " return el === hit || el.contains(hit); }"
    )
    return shown


def open_url(page: Page, server: ServerProcess, **params: str) -> None:
    page.goto(f"{server.url}/?{urlencode(params)}")
    wait_graph(page)


def test_as_of_the_first_training_run_the_graph_lacks_the_later_change(
    shared: Page, server: ServerProcess, first_training: dict[str, Any], shoot: Shoot
) -> None:
    page = shared
    open_url(page, server, **TRAIN)
    expect(node(page, SHIFTS)).to_have_count(1)
    runs = page.get_by_test_id("run-history")
    runs.locator(f"tr.run-row[data-run-id='{first_training['run_id']}'] .run-toggle").click()
    runs.get_by_test_id("as-of-run").click()
    banner = page.get_by_test_id("history-banner")
    expect(banner).to_contain_text("Historical view")
    assert url_param(page, "as_of") is not None
    wait_graph(page)
    expect(node(page, SHIFTS)).to_have_count(0)
    # The details answer as of then too: the feature view's schema before the type change.
    # (a click event: the graph then opens at a readable size, larger than the window, and
    # the node may lie outside it, as a user would pan to)
    node(page, "driver_hourly_stats", "feature_view").locator(".lnode").dispatch_event("click")
    details = page.get_by_test_id("details-panel")
    schema = details.get_by_test_id("schema-table")
    expect(schema.locator("tr", has_text="conv_rate")).to_contain_text("FLOAT")
    # Its Feast facets as they were then: the later apply stated them again unchanged, so
    # the graph's node has them (known from their first statement) as the details do.
    view = api(server, "graph", as_of=url_param(page, "as_of"), limit=500)
    drawn = next(n for n in view["nodes"] if n["id"].endswith(FEATURE_VIEW["node"]))
    alone = api(
        server,
        "graph/node",
        type="dataset",
        namespace=drawn["namespace"],
        name=drawn["name"],
        depth=0,
        as_of=url_param(page, "as_of"),
    )
    then = next(n for n in alone["nodes"] if n["id"] == drawn["id"])
    assert drawn["facets"]["feast_feature_view"] == then["facets"]["feast_feature_view"]
    expect(details.get_by_test_id("feast-facets")).to_contain_text("Entities")
    # Its column lineage then: the column counts as of the instant are offered.
    expect(details.get_by_test_id("column-lineage-section")).to_be_visible()
    shoot(page, "history-as-of")

    # A deep link reproduces the view; one click goes back to now.
    link = page.url
    page.goto("about:blank")
    page.goto(link)
    wait_graph(page)
    expect(page.get_by_test_id("history-banner")).to_contain_text("Historical view")
    expect(node(page, SHIFTS)).to_have_count(0)
    page.get_by_test_id("back-to-now").click()
    expect(page.get_by_test_id("history-banner")).to_have_count(0)
    assert url_param(page, "as_of") is None
    expect(node(page, SHIFTS)).to_have_count(1)


def test_changes_since_the_first_training_run_mark_the_schema_and_the_new_output(
    shared: Page, server: ServerProcess, first_training: dict[str, Any], shoot: Shoot
) -> None:
    page = shared
    open_url(page, server, **TRAIN, run=first_training["run_id"])
    page.get_by_test_id("run-history").get_by_test_id("changes-since-run").click()
    expect(page.get_by_test_id("changes-summary")).to_contain_text("schema")
    wait_graph(page)
    view = node(page, "driver_hourly_stats", "feature_view")
    expect(view.locator(".lnode")).to_have_attribute("data-change", "changed")
    expect(view.locator(".lnode-change")).to_have_text(
        "△ schema changed"
    )  # words, not colour alone
    # The dbt model's new input: the node and its edge, added.
    expect(node(page, SHIFTS).locator(".lnode")).to_have_attribute("data-change", "added")
    new_edge = page.locator("[data-testid^='rf__edge-'][data-testid*='driver_shifts'] .ledge")
    expect(new_edge).to_have_class(re.compile("change-added"))
    node(page, "driver_hourly_stats", "feature_view").locator(".lnode").dispatch_event("click")
    change = page.get_by_test_id("change-section")
    expect(change).to_contain_text("schema changed")
    expect(change.get_by_test_id("change-schema-diff")).to_contain_text(
        "conv_rate: type FLOAT → DOUBLE"
    )
    shoot(page, "history-changes-since")
    assert axe_violations(page) == [], "axe on the changes view"


def test_changes_since_the_first_training_run_mark_the_dbt_job_redefined_and_its_column_edges(
    shared: Page, server: ServerProcess, first_training: dict[str, Any], shoot: Shoot
) -> None:
    page = shared
    since = first_training["ended_at_iso"]
    diff = api(server, "lineage/diff", **{"from": since, "to": "9999-12-31T00:00:00Z"})
    dbt_change = next(j for j in diff["job_changes"] if j["name"] == DBT_MODEL)
    assert dbt_change["changed"] == ["sql", "inputs"]
    open_url(page, server, **DBT, changes_since=since)
    expect(page.get_by_test_id("changes-jobs")).to_contain_text(
        f"{len(diff['job_changes'])} jobs redefined"
    )
    job = node(page, DBT_MODEL, "job")
    expect(job.locator(".lnode")).to_have_attribute("data-change", "changed")
    # Its own icon and words, shown beside its health ring (at risk: upstream of a failure).
    expect(job.locator(".lnode-change")).to_have_text("✎ sql, inputs changed")
    assert on_top(job.locator(".lnode-change")), "the job's change is hidden"
    change = page.get_by_test_id("details-panel").get_by_test_id("change-section")
    expect(change).to_contain_text("sql, inputs changed")
    # The job version on each side opens in the panel: then without driver_shifts, now with it.
    change.get_by_test_id("change-version-then").click()
    detail = page.get_by_test_id("job-version-detail")
    expect(detail).to_have_attribute("data-version-id", dbt_change["from_version"])
    expect(detail).not_to_contain_text("driver_shifts")
    change.get_by_test_id("change-version-now").click()
    expect(detail).to_have_attribute("data-version-id", dbt_change["to_version"])
    expect(detail).to_contain_text(SHIFTS)
    assert url_param(page, "jobver") == dbt_change["to_version"]
    shoot(page, "history-changes-since-job")

    # Focused on the model, the diff is centred as the graph is (its depth and direction).
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/lineage/diff" in r.url else None)
    focus = {"focus_type": "job", "focus_ns": DBT["node_ns"], "focus": DBT_MODEL, "depth": "1"}
    open_url(page, server, **DBT, **focus, changes_since=since)
    expect(node(page, SHIFTS).locator(".lnode")).to_have_attribute("data-change", "added")
    expect(node(page, DBT_MODEL, "job").locator(".lnode-change")).to_have_text(
        "✎ sql, inputs changed"
    )
    centred = [parse_qs(urlparse(url).query) for url in asked]
    assert any(q.get("name") == [DBT_MODEL] and q.get("depth") == ["1"] for q in centred), asked

    # The graph narrowed to the model's namespace asks the whole graph's diff within it
    # (its jobs only: their tables are in other namespaces, so it has no edge to wait for).
    asked.clear()
    page.goto(f"{server.url}/?{urlencode({'ns': DBT['node_ns'], 'changes_since': since})}")
    page.wait_for_selector(".canvas[data-state=ready]", timeout=30_000)
    expect(node(page, DBT_MODEL, "job").locator(".lnode")).to_have_attribute(
        "data-change", "changed"
    )
    narrowed = [parse_qs(urlparse(url).query) for url in asked]
    assert any(q.get("within") == [DBT["node_ns"]] and "name" not in q for q in narrowed), asked

    # The column view of the model's output: its new input column green, the old one red.
    output = next(e for e in diff["column_edges_added"] if "driver_shifts" in e["source"])
    target = next(
        n
        for n in api(server, "graph", limit=5000)["nodes"]
        if output["target"].startswith(str(NodeId.of_field(n["namespace"], n["name"], "")))
    )
    prefix = str(NodeId.of_field(target["namespace"], target["name"], ""))
    field = output["target"].removeprefix(prefix).replace("%3A", ":").replace("%25", "%")
    trace = {"col_ns": target["namespace"], "col_ds": target["name"], "col": field}
    page.goto(f"{server.url}/?{urlencode(trace | {'changes_since': since})}")
    page.wait_for_selector("[data-testid=column-ready]", state="attached", timeout=30_000)
    added = page.locator(f'.column-edge[data-id^="{output["source"]}>{output["target"]}>"]')
    expect(added).to_have_attribute("data-change", "added")
    expect(added.locator(".cedge-change")).to_have_text("+ added")
    removed = [e for e in diff["column_edges_removed"] if e["target"] == output["target"]]
    assert removed, diff["column_edges_removed"]
    gone = page.locator(f'.column-edge[data-id^="{removed[0]["source"]}>{removed[0]["target"]}>"]')
    expect(gone).to_have_attribute("data-change", "removed")
    shoot(page, "history-changes-since-columns")

    # Traced from the Feast object the file backs, the answer names the alias group by the
    # feature view while the diff names the file: the same edges are marked all the same.
    by_feast = {"col_ns": FEATURE_VIEW["node_ns"], "col_ds": FEATURE_VIEW["node"], "col": field}
    page.goto(f"{server.url}/?{urlencode(by_feast | {'dir': 'upstream', 'changes_since': since})}")
    page.wait_for_selector("[data-testid=column-ready]", state="attached", timeout=30_000)
    marked = page.locator('.column-edge[data-change="added"]')
    expect(marked.filter(has=page.locator(".cedge-change"))).not_to_have_count(0)
    assert any(
        "driver_shifts" in (marked.nth(i).get_attribute("data-id") or "")
        for i in range(marked.count())
    ), [marked.nth(i).get_attribute("data-id") for i in range(marked.count())]
    expect(page.locator('.column-edge[data-change="removed"]')).not_to_have_count(0)


def test_the_changes_banner_counts_what_the_graph_draws(
    shared: Page, server: ServerProcess
) -> None:
    """Since just before the first Feast apply: the diff adds the apply jobs, which the
    default Jobs filter does not draw, and alias members drawn as one node. The banner
    counted the diff's nodes and edges (more than the graph marks); it counts those drawn,
    and says apart how many jobs with a change the filter leaves out."""
    page = shared
    applies = api(server, "runs", job_name="feast_apply_entities", limit=100)["runs"]
    first = datetime.fromtimestamp(min(r["started_at"] for r in applies) / 1000, UTC)
    since = (first - timedelta(seconds=1)).isoformat().replace("+00:00", "Z")
    diff = api(server, "lineage/diff", **{"from": since, "to": "9999-12-31T00:00:00Z"})
    apply_jobs = [
        n for n in diff["nodes_added"] if (n.get("feast") or {}).get("type") == "definition_job"
    ]
    assert apply_jobs, "no Feast apply job added since then"
    summary = page.get_by_test_id("changes-summary")
    for params, left_out in (({}, len(apply_jobs)), ({"jobs": "all"}, 0)):
        open_url(page, server, changes_since=since, **params)
        expect(summary).to_contain_text("added")
        counted = re.search(r"\+ (\d+) nodes?, (\d+) edges? added", summary.inner_text())
        assert counted, summary.inner_text()
        nodes = page.locator(".react-flow__node .lnode[data-change=added]").count()
        edges = page.locator(".react-flow__edge .ledge.change-added").count()
        assert (int(counted[1]), int(counted[2])) == (nodes, edges), (params, summary.inner_text())
        note = summary.get_by_test_id("changes-not-shown-added")
        if left_out:
            expect(note).to_have_text(f" (and {left_out} jobs not shown by the Jobs filter)")
        else:
            expect(note).to_have_count(0)
    # Every job drawn, each added one is counted: the apply jobs among them.
    assert nodes >= len(apply_jobs)


def test_the_versions_lists_page_with_show_older(shared: Page, server: ServerProcess) -> None:
    page = shared
    # A page of one version (the server's real paging; the UI asks for 50), so
    # the quickstart's two versions of the feature view make two pages.
    pattern = re.compile(r".*/versions\?.*")
    page.route(
        pattern, lambda route: route.continue_(url=route.request.url.replace("limit=50", "limit=1"))
    )
    try:
        open_url(page, server, **FEATURE_VIEW)
        versions = page.get_by_test_id("dataset-versions")
        more = page.get_by_test_id("dataset-versions-more")
        expect(more).to_contain_text("The newest 1 of 2 versions.")
        expect(versions.locator("tr.version-row")).to_have_count(1)
        expect(versions.locator("tr.version-row", has_text="1 type changed")).to_have_count(0)
        more.get_by_role("button", name="Show older").click()
        expect(versions.locator("tr.version-row")).to_have_count(2)
        # The newest now has the one before it: its type change in one line.
        expect(versions.locator("tr.version-row").first).to_contain_text("1 type changed")
        expect(more).to_contain_text("All 2 versions.")
        expect(more.get_by_role("button")).to_have_count(0)

        open_url(page, server, **DBT)
        jobs = page.get_by_test_id("job-versions")
        job_more = page.get_by_test_id("job-versions-more")
        expect(jobs.locator("li.job-version")).to_have_count(1)
        expect(job_more).to_contain_text("The newest 1 of 2 versions.")
        job_more.get_by_role("button", name="Show older").click()
        expect(jobs.locator("li.job-version")).to_have_count(2)
        expect(jobs.locator("li.job-version").first).to_contain_text("inputs added: " + SHIFTS)
    finally:
        page.unroute(pattern)


def test_the_dataset_versions_show_the_type_change_and_open_its_diff(
    shared: Page, server: ServerProcess, shoot: Shoot
) -> None:
    page = shared
    open_url(page, server, **FEATURE_VIEW)
    versions = page.get_by_test_id("dataset-versions")
    changed = versions.locator("tr.version-row", has_text="1 type changed")
    expect(changed).to_have_count(1)
    changed.locator("button").click()
    diff = page.get_by_test_id("version-detail").get_by_test_id("schema-diff")
    expect(diff).to_contain_text("conv_rate: type FLOAT → DOUBLE")
    assert url_param(page, "dsver") is not None
    shoot(page, "history-dataset-versions")


def test_a_version_linked_as_of_an_instant_before_it_was_made_says_so(
    shared: Page, server: ServerProcess, first_training: dict[str, Any]
) -> None:
    page = shared
    path = f"datasets/{FEATURE_VIEW['node_ns']}/{quote(FEATURE_VIEW['node'], safe='')}/versions"
    newest = api(server, path)["versions"][0]
    as_of = first_training["started_at_iso"]
    assert parse_us(newest["created_at_iso"]) > parse_us(as_of)
    open_url(page, server, **FEATURE_VIEW, as_of=as_of, dsver=newest["id"])
    versions = page.get_by_test_id("dataset-versions")
    expect(versions).to_be_visible()
    # The list as of then leaves the version out; the link still opens it, and it says why.
    expect(versions.locator(f"tr.version-row[data-version-id='{newest['id']}']")).to_have_count(0)
    note = page.get_by_test_id("version-detail").get_by_test_id("version-after-as-of")
    expect(note).to_contain_text("did not exist yet")
    # A version made by then opens without it.
    then = versions.locator("tr.version-row").first
    then.locator("button").click()
    expect(page.get_by_test_id("version-detail")).to_have_count(1)
    assert url_param(page, "dsver") == then.get_attribute("data-version-id")
    expect(page.get_by_test_id("version-after-as-of")).to_have_count(0)


def test_a_version_open_in_a_closed_panel_is_not_asked_of_the_next_node(
    shared: Page, server: ServerProcess
) -> None:
    page = shared
    panel = page.get_by_test_id("details-panel")
    # A dataset's version, then Escape: the next dataset opens without it.
    open_url(page, server, **FEATURE_VIEW)
    page.get_by_test_id("dataset-versions").locator("tr.version-row button").first.click()
    expect(page.get_by_test_id("version-detail")).to_have_count(1)
    assert url_param(page, "dsver") is not None
    page.keyboard.press("Escape")
    expect(panel).to_have_count(0)
    assert url_param(page, "dsver") is None
    node(page, "driver_daily_trips", "feature_view").click()
    expect(page.get_by_test_id("dataset-versions")).to_be_visible()
    expect(panel).not_to_contain_text("Could not load the version")
    # A job's version, then "Close details": the next job opens without it.
    open_url(page, server, **DBT)
    page.get_by_test_id("job-versions").locator("li.job-version button").first.click()
    expect(page.get_by_test_id("job-version-detail")).to_have_count(1)
    page.get_by_role("button", name="Close details").click()
    assert url_param(page, "jobver") is None
    node(page, "train_driver_ranking", "job").click()
    expect(page.get_by_test_id("job-versions")).to_be_visible()
    expect(panel).not_to_contain_text("Could not load the version")
    # Another node opened from the panel (the dataset's producer) leaves the version too.
    open_url(page, server, **FEATURE_VIEW)
    page.get_by_test_id("dataset-versions").locator("tr.version-row button").first.click()
    expect(page.get_by_test_id("version-detail")).to_have_count(1)
    panel.get_by_test_id("dataset-readers").get_by_role("button").first.click()
    expect(page.get_by_test_id("job-versions")).to_be_visible()
    assert url_param(page, "dsver") is None


def test_the_run_tree_of_the_airflow_dag_run_shows_its_tasks_and_opens_them(
    shared: Page, server: ServerProcess
) -> None:
    page = shared
    dag_runs = api(server, "runs", job_name="driver_features_daily", limit=100)["runs"]
    dag_run = next(r for r in dag_runs if r["job_name"] == "driver_features_daily")
    open_url(page, server, **DAG, run=dag_run["run_id"])
    tree = page.get_by_test_id("run-tree")
    expect(tree.locator(".run-tree-node.is-current")).to_contain_text("driver_features_daily")
    task = tree.locator(".run-tree-node", has_text="extract_trips")
    expect(task).to_have_count(1)
    expect(tree.locator(".run-tree-node", has_text="export_daily_trips")).to_have_count(1)
    task_run = task.get_attribute("data-run-id")
    task.get_by_role("button").click()
    assert url_param(page, "node") == "driver_features_daily.extract_trips"
    assert url_param(page, "run") == task_run
    expect(page.get_by_test_id("run-tree").locator(".run-tree-node.is-current")).to_contain_text(
        "extract_trips"
    )
    job_versions = page.get_by_test_id("job-versions")
    expect(job_versions.locator("li.job-version").first).to_contain_text("current")


def test_seen_during_a_window_labels_each_edge_with_its_run_count(
    shared: Page, server: ServerProcess
) -> None:
    page = shared
    open_url(page, server)
    page.get_by_label("Seen during").select_option("7d")
    expect(page.get_by_test_id("history-banner")).to_contain_text("Seen during")
    assert url_param(page, "seen") == "7d"
    assert url_param(page, "seen_since")
    wait_graph(page)
    expect(page.locator(".react-flow__edge-text").filter(has_text="runs").first).to_be_attached()
    # The Airflow extract task ran every night of the window: its input edge says how often.
    window = api(server, "graph", since=url_param(page, "seen_since"), limit=5000)
    extract = next(
        e
        for e in window["edges"]
        if e["type"] == "input" and e["target_name"].endswith(".extract_trips")
    )
    assert extract["run_count"] >= 3
    shown = page.eval_on_selector_all(
        ".react-flow__edge-text", "els => els.map(e => e.textContent)"
    )
    assert f"{extract['run_count']} runs" in shown, shown


# Each edge label and node change on screen: its text's size in screen pixels (its CSS size
# times its drawn height over its laid-out height: the zoom and any counter-scale), how far
# its centre is from its own edge as drawn and from the nearer of the edge's two nodes.
LABELS = """() => {
  const nodeBox = (id) => [...document.querySelectorAll('.lnode')]
    .find((n) => n.dataset.nodeId === id).getBoundingClientRect();
  const toBox = (x, y, b) => Math.hypot(
    Math.max(b.left - x, 0, x - b.right), Math.max(b.top - y, 0, y - b.bottom));
  const screenPx = (el) => {
    const laid = el instanceof SVGGraphicsElement ? el.getBBox().height : el.offsetHeight;
    return parseFloat(getComputedStyle(el).fontSize) * (el.getBoundingClientRect().height / laid);
  };
  const drawn = new Map();
  for (const edge of document.querySelectorAll('.react-flow__edge')) {
    const path = edge.querySelector('path.react-flow__edge-path');
    const m = path.getScreenCTM();
    const points = [];
    for (let l = 0; l <= path.getTotalLength(); l += 2) {
      const p = path.getPointAtLength(l);
      points.push({ x: m.a * p.x + m.c * p.y + m.e, y: m.b * p.x + m.d * p.y + m.f });
    }
    drawn.set(edge.dataset.id, points);
  }
  const labels = document.querySelectorAll('.ledge-note, .react-flow__edge-textwrapper');
  return {
    edges: [...labels].map((label) => {
      const own = label.dataset.edgeId ?? label.closest('.react-flow__edge')?.dataset.id;
      const r = label.getBoundingClientRect();
      const x = r.x + r.width / 2, y = r.y + r.height / 2;
      const [head, target] = own.split('\\0');
      const source = head.slice(head.indexOf(':') + 1);
      return {
        edge: own,
        text: label.textContent,
        px: screenPx(label.querySelector('.react-flow__edge-text')),
        off: Math.min(...(drawn.get(own) ?? []).map((p) => Math.hypot(p.x - x, p.y - y))),
        end: Math.min(toBox(x, y, nodeBox(source)), toBox(x, y, nodeBox(target))),
      };
    }),
    nodes: [...document.querySelectorAll('.lnode-change')].map((c) => screenPx(c)),
  };
}"""


def test_changes_and_run_counts_read_at_the_opening_zoom_each_on_its_own_edge(
    shared: Page, server: ServerProcess, first_training: dict[str, Any], shoot: Shoot
) -> None:
    page = shared
    since = {"changes_since": first_training["ended_at_iso"]}
    for name in ("changes", "window"):
        open_url(page, server, **(since if name == "changes" else {}))
        if name == "window":
            seen_during_the_last_week(page)
        steady(page.locator(".react-flow__node").first)
        labels = page.evaluate(LABELS)
        assert labels["edges"], f"{name}: no edge label"
        # 11 px on screen at least, as the nodes' names are readable (the opening zoom is 0.6).
        small = [(e["text"], round(e["px"], 1)) for e in labels["edges"] if e["px"] < 10.9]
        assert small == [], f"{name}: edge labels under 11 px on screen"
        assert all(px >= 10.9 for px in labels["nodes"]), f"{name}: {labels['nodes']}"
        # Each on its own edge, near one of its ends (an edge folded from one row to the
        # next, as the dbt model's new input: not amid the bundle of lanes between the rows).
        for label in labels["edges"]:
            assert label["off"] <= 3, f"{name}: {label} is off its edge"
            assert label["end"] <= 150, f"{name}: {label} is far from both its ends"
        shoot(page, f"history-labels-{name}")
    assert labels["nodes"] == []  # (the window view has no changes)


DRAWN_NODES = "() => [...document.querySelectorAll('.lnode')].map(n => n.dataset.nodeId)"
# The ends of each drawn edge (its id: "<kind>:<source>\\0<target>").
DRAWN_EDGES = """() => [...document.querySelectorAll('.react-flow__edge')].map((e) => {
  const [head, target] = e.dataset.id.split('\\0');
  return [head.slice(head.indexOf(':') + 1), target];
})"""


def seen_during_the_last_week(page: Page) -> None:
    page.get_by_label("Seen during").select_option("7d")
    expect(page.get_by_test_id("history-banner")).to_contain_text("Seen during")
    wait_graph(page)


def test_seen_during_draws_only_what_the_current_graph_draws_with_the_same_filters(
    shared: Page, server: ServerProcess
) -> None:
    page = shared
    current = api(server, "graph", limit=5000)["nodes"]
    apply_jobs = {n["id"] for n in current if (n["feast"] or {}).get("type") == "definition_job"}
    assert apply_jobs
    for jobs in ("runtime", "none"):  # all but Feast's apply jobs (the default); no job
        open_url(page, server, **({"jobs": jobs} if jobs == "none" else {}))
        now = set(page.evaluate(DRAWN_NODES))
        now_alone = now - {end for pair in page.evaluate(DRAWN_EDGES) for end in pair}
        seen_during_the_last_week(page)
        seen = set(page.evaluate(DRAWN_NODES))
        assert seen, jobs
        assert not seen & apply_jobs, f"{jobs}: apply jobs drawn"
        assert seen <= now, f"{jobs}: drawn that the current graph hides: {seen - now}"
        # None alone that the current graph connects: the parent jobs (the DAG, materialize)
        # have their parent edges.
        ends = {end for pair in page.evaluate(DRAWN_EDGES) for end in pair}
        assert seen - ends <= now_alone, f"{jobs}: drawn with no edge: {seen - ends}"


def test_the_column_view_answers_as_of_the_instant_and_says_so(
    shared: Page, server: ServerProcess, first_training: dict[str, Any]
) -> None:
    page = shared
    trace = {
        "col_ns": "driver_ranking",
        "col_ds": "feature_service/driver_activity_v1",
        "col": "driver_hourly_stats:conv_rate",
    }
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/openlineage/columns" in r.url else None)
    page.goto(f"{server.url}/?{urlencode(trace | {'as_of': first_training['ended_at_iso']})}")
    page.wait_for_selector("[data-testid=column-ready]", state="attached", timeout=30_000)
    expect(page.get_by_test_id("history-banner")).to_contain_text("Historical view")
    assert any("as_of=" in url for url in asked), asked
    page.get_by_test_id("back-to-now").click()
    expect(page.get_by_test_id("history-banner")).to_have_count(0)
    expect(page.get_by_test_id("column-view")).to_be_visible()  # still the traced column


MODEL = {
    "node_type": "dataset",
    "node_ns": "mlflow://tracking:5000",
    "node": "models/driver_ranking",
}
# A time as the lists show it: to the second, or to the millisecond (or microsecond).
SHOWN_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{3}|\.\d{6})?")


@pytest.fixture(scope="module")
def first_complete_training(server: ServerProcess) -> dict[str, Any]:
    """The first training run that completed (it wrote the model's first version)."""
    runs = api(server, "runs", job_name="train_driver_ranking", limit=100)["runs"]
    return min((r for r in runs if r["state"] == "COMPLETE"), key=lambda run: run["started_at"])


def shown_times(rows: Any) -> list[tuple[str, str | None]]:
    """Each row's time as shown, and its tooltip."""
    times = rows.locator("time")
    return [
        (times.nth(i).inner_text(), times.nth(i).get_attribute("title"))
        for i in range(times.count())
    ]


def test_lineage_as_of_a_run_is_at_its_exact_end_where_the_run_is_complete(
    shared: Page, server: ServerProcess, first_complete_training: dict[str, Any]
) -> None:
    page = shared
    run = first_complete_training
    open_url(page, server, **TRAIN, run=run["run_id"])
    page.get_by_test_id("run-history").get_by_test_id("as-of-run").click()
    expect(page.get_by_test_id("history-banner")).to_contain_text("Historical view")
    wait_graph(page)
    # As of the run's end the run is complete: the instant is its end exactly as the API
    # says it (microseconds), never rounded to a millisecond, when it was still RUNNING.
    job = node(page, "train_driver_ranking", "job").locator(".lnode")
    expect(job).to_have_attribute("data-state", "completed")
    assert url_param(page, "as_of") == run["ended_at_iso"]
    runs = page.get_by_test_id("run-history")
    expect(runs.locator(f"tr.run-row[data-run-id='{run['run_id']}']")).to_have_attribute(
        "data-state", "COMPLETE"
    )
    # The run's output as of then: the version the run wrote is the one current then.
    runs.get_by_test_id("run-io").get_by_role("button", name="models/driver_ranking").click()
    assert url_param(page, "node") == MODEL["node"]
    versions = page.get_by_test_id("dataset-versions")
    current = versions.locator("tr.version-row[data-current-then]")
    expect(current).to_have_count(1)
    expect(current).to_contain_text("current then")
    expect(current.locator(f"[title='{run['run_id']}']")).to_have_count(1)


def test_as_of_an_instant_the_details_list_only_what_had_happened_by_then(
    shared: Page, server: ServerProcess, first_training: dict[str, Any]
) -> None:
    page = shared
    then = first_training["ended_at_iso"]
    # The feature view then: its first version only (the type change came later), current then.
    open_url(page, server, **FEATURE_VIEW, as_of=then)
    versions = page.get_by_test_id("dataset-versions")
    expect(versions.locator("tr.version-row")).to_have_count(1)
    expect(versions.locator("tr.version-row", has_text="1 type changed")).to_have_count(0)
    expect(page.get_by_test_id("versions-as-of")).to_contain_text("the versions made by then")
    expect(versions.locator("tr.version-row[data-current-then]")).to_have_count(1)
    now = api(
        server, f"datasets/{FEATURE_VIEW['node_ns']}/feature_view%2Fdriver_hourly_stats/versions"
    )
    first = min(now["versions"], key=lambda v: v["created_at"])
    expect(versions.locator("tr.version-row")).to_have_attribute("data-version-id", first["id"])

    # The dbt model then: its first version, current then; today's (with driver_shifts) not listed.
    today = api(server, f"jobs/dbt%3A%2F%2Fanalytics/{DBT_MODEL}/versions")["versions"]
    today_current = next(v for v in today if v["current"])
    open_url(page, server, **DBT, as_of=then)
    jobs = page.get_by_test_id("job-versions")
    expect(jobs.locator("li.job-version")).to_have_count(1)
    expect(jobs.locator(f"li.job-version[data-version-id='{today_current['id']}']")).to_have_count(
        0
    )
    expect(jobs.locator("li.job-version[data-current]")).to_contain_text("current then")
    expect(jobs).not_to_contain_text(SHIFTS)
    # Its runs then: those that had started by then (the nights before today's).
    started = api(server, "runs", job_name=DBT_MODEL, limit=100)
    before = [r for r in started["runs"] if parse_us(r["started_at_iso"]) <= parse_us(then)]
    assert 0 < len(before) < started["total"], started
    # The version current then counts its runs started by then (today's count is higher),
    # with its latest run's state then.
    runs_then = f"{len(before)} run{'' if len(before) == 1 else 's'} by then"
    expect(
        jobs.locator("li.job-version[data-current]").get_by_test_id("version-runs")
    ).to_have_text(runs_then)
    latest_then = max(before, key=lambda r: (r["started_at"], r["run_id"]))
    expect(jobs.locator("li.job-version[data-current]")).to_contain_text(latest_then["state"])
    runs = page.get_by_test_id("run-history")
    expect(runs.locator("tr.run-row")).to_have_count(len(before))
    assert set(runs.locator("tr.run-row").evaluate_all("rs => rs.map(r => r.dataset.runId)")) == {
        r["run_id"] for r in before
    }


def test_as_of_a_run_s_start_the_run_is_listed_running_then(
    shared: Page, server: ServerProcess, first_complete_training: dict[str, Any]
) -> None:
    page = shared
    run = first_complete_training
    # At its start exactly (as_of is at or before): listed, and still running then.
    open_url(page, server, **TRAIN, as_of=run["started_at_iso"])
    runs = page.get_by_test_id("run-history")
    row = runs.locator(f"tr.run-row[data-run-id='{run['run_id']}']")
    expect(row).to_have_attribute("data-state", "RUNNING")
    expect(row).to_contain_text("then")
    expect(row.locator("td").nth(3)).to_have_text("—")  # its duration is from later
    # The later runs had not started: the one current now is not marked current then.
    later = [
        r
        for r in api(server, "runs", job_name="train_driver_ranking", limit=100)["runs"]
        if r["started_at"] > run["started_at"]
    ]
    assert later
    for other in later:
        expect(runs.locator(f"tr.run-row[data-run-id='{other['run_id']}']")).to_have_count(0)


def test_times_in_the_versions_list_tell_apart_rows_of_one_second(
    shared: Page, server: ServerProcess, first_complete_training: dict[str, Any]
) -> None:
    page = shared
    then = first_complete_training["ended_at_iso"]
    listed = api(
        server, "datasets/mlflow%3A%2F%2Ftracking%3A5000/models%2Fdriver_ranking/versions"
    )["versions"]
    listed = [v for v in listed if parse_us(v["created_at_iso"]) <= parse_us(then)]
    assert len(listed) == 2, listed  # its START's statement, then its write
    open_url(page, server, **MODEL, as_of=then)
    versions = page.get_by_test_id("dataset-versions")
    expect(versions.locator("tr.version-row")).to_have_count(2)
    shown = shown_times(versions)
    # Each tooltip gives the exact instant, as the API says it (UTC).
    assert sorted(title.split("UTC: ")[1].split()[0] for _, title in shown if title) == sorted(
        v["created_at_iso"] for v in listed
    ), shown
    seconds = {v["created_at"] // 1000 for v in listed}
    for text, _ in shown:
        assert SHOWN_TIME.fullmatch(text), text
        # Milliseconds when the two share a second (then needed to tell them apart), else none.
        assert ("." in text) == (len(seconds) == 1), (text, listed)

    # Two versions within one second (the answer moved so), then within one millisecond.
    def moved(by_us: int) -> Callable[[Any], None]:
        def handle(route: Any) -> None:
            answer = route.fetch()
            body = answer.json()
            newest, oldest = body["versions"][0], body["versions"][-1]
            base = oldest["created_at_iso"][:19]
            oldest["created_at_iso"] = f"{base}.100000Z"
            newest["created_at_iso"] = f"{base}.{100000 + by_us:06d}Z"
            route.fulfill(response=answer, json=body)

        return handle

    pattern = re.compile(r".*/models%2Fdriver_ranking/versions\?.*")
    for by_us, digits in ((250_000, 3), (40, 6)):
        page.route(pattern, moved(by_us))
        try:
            open_url(page, server, **MODEL, as_of=then)
            expect(versions.locator("tr.version-row")).to_have_count(2)
            texts = [text for text, _ in shown_times(versions)]
            fractions = {text.rsplit(".", 1)[-1] for text in texts}
            assert len(fractions) == 2, texts
            assert all(len(f) == digits for f in fractions), texts
        finally:
            page.unroute(pattern)


def test_a_malformed_time_in_a_link_is_named_and_the_url_says_what_is_shown(
    shared: Page, server: ServerProcess, first_complete_training: dict[str, Any]
) -> None:
    page = shared
    page.goto(f"{server.url}/?as_of=garbage")
    wait_graph(page)
    note = page.get_by_test_id("time-link-note")
    expect(note).to_contain_text("as_of=garbage")
    expect(note).to_contain_text("ISO 8601 instant such as 2026-12-01T09:00:00Z")
    expect(note).to_contain_text("the current graph")
    # The URL is rewritten to what the page shows: the current graph, no banner.
    page.wait_for_function("() => !location.search.includes('as_of')")
    expect(page.get_by_test_id("history-banner")).to_have_count(0)
    expect(node(page, SHIFTS)).to_have_count(1)
    note.get_by_role("button", name="Dismiss").click()
    expect(note).to_have_count(0)

    # A well-formed instant in another form is kept, rewritten to the server's exact form.
    end = first_complete_training["ended_at_iso"]  # 2026-...:SS.ffffffZ
    page.goto(f"{server.url}/?{urlencode({'as_of': end.replace('Z', '+00:00')})}")
    wait_graph(page)
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('as_of') === '{end}'")
    expect(page.get_by_test_id("time-link-note")).to_have_count(0)
    expect(page.get_by_test_id("history-banner")).to_contain_text("Historical view")


def test_a_node_that_did_not_exist_then_is_said_so_with_the_instant(
    shared: Page, server: ServerProcess, first_training: dict[str, Any]
) -> None:
    page = shared
    then = first_training["ended_at_iso"]
    shifts = api(server, "datasets", search="driver_shifts")["datasets"][0]
    ref = {"ns": shifts["dataset_namespace"], "name": shifts["dataset_name"]}
    page.goto(
        f"{server.url}/?"
        + urlencode(
            {
                "focus_type": "dataset",
                "focus_ns": ref["ns"],
                "focus": ref["name"],
                "as_of": then,
            }
        )
    )
    missing = page.get_by_test_id("not-then")
    expect(missing).to_contain_text(f"{ref['name']} did not exist at")
    # A node the caller's key may not see gets the same 404: the sentence stays true of it.
    expect(missing).to_contain_text(", or is not visible to you")
    expect(missing).to_contain_text("in a namespace you may not see")
    expect(missing).to_contain_text(then[17:23])  # the instant, to the millisecond (at least)
    expect(missing).not_to_contain_text("removed")
    expect(missing.get_by_role("button", name="Retry")).to_have_count(0)
    missing.get_by_role("button", name="Back to now").click()
    wait_graph(page)
    expect(node(page, SHIFTS)).to_have_count(1)
    assert url_param(page, "as_of") is None
    assert url_param(page, "focus") == ref["name"]


def test_a_reversed_seen_during_window_says_since_must_be_before_until(
    shared: Page,
    server: ServerProcess,
    first_training: dict[str, Any],
    first_complete_training: dict[str, Any],
) -> None:
    page = shared
    # From the first training's end back to its start: the training runs, reversed.
    window = {
        "seen": "custom",
        "seen_since": first_complete_training["ended_at_iso"],
        "seen_until": first_training["started_at_iso"],
    }
    page.goto(f"{server.url}/?{urlencode(window)}")
    problem = page.get_by_test_id("reversed-window")
    expect(problem).to_contain_text("must be before")
    expect(problem).not_to_contain_text("Retry")
    expect(problem.get_by_role("button", name="Retry")).to_have_count(0)
    expect(page.get_by_label("Seen since")).to_have_attribute("aria-invalid", "true")
    # The user fixes it in the toolbar: the window's lineage is drawn.
    page.get_by_label("Seen until (empty: now)").fill("2099-01-01T00:00:00")
    expect(problem).to_have_count(0)
    expect(page.get_by_label("Seen since")).not_to_have_attribute("aria-invalid", "true")
    assert (url_param(page, "seen_until") or "").startswith(("2098-12-31", "2099-01-01"))
    wait_graph(page)
    # Reversed again, "Swap them" swaps the bounds.
    page.goto(f"{server.url}/?{urlencode(window)}")
    page.get_by_test_id("reversed-window").get_by_role("button", name="Swap them").click()
    wait_graph(page)
    assert url_param(page, "seen_since") == window["seen_until"]
    assert url_param(page, "seen_until") == window["seen_since"]


def test_changes_since_after_as_of_says_it_must_be_before_and_asks_nothing(
    shared: Page,
    server: ServerProcess,
    first_training: dict[str, Any],
    first_complete_training: dict[str, Any],
) -> None:
    page = shared
    asked: list[str] = []

    def record(request: Any) -> None:
        if "/lineage/diff" in request.url:
            asked.append(request.url)

    page.on("request", record)
    # Changes since the first training's end, as of its start: reversed.
    times = {
        "as_of": first_training["started_at_iso"],
        "changes_since": first_complete_training["ended_at_iso"],
    }
    page.goto(f"{server.url}/?{urlencode(times | FEATURE_VIEW)}")
    problem = page.get_by_test_id("reversed-changes")
    expect(problem).to_contain_text("must be before")
    expect(page.get_by_label("Changes since (empty: no comparison)")).to_have_attribute(
        "aria-invalid", "true"
    )
    expect(page.get_by_label("As of (empty: now)")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_test_id("changes-summary")).not_to_contain_text("comparing")
    expect(page.get_by_test_id("details-panel")).to_contain_text("Changes since")
    page.wait_for_timeout(500)
    assert asked == [], asked
    # "Swap them" swaps the instants: the changes are compared.
    problem.get_by_role("button", name="Swap them").click()
    wait_graph(page)
    assert url_param(page, "as_of") == times["changes_since"]
    assert url_param(page, "changes_since") == times["as_of"]
    expect(page.get_by_test_id("changes-summary")).to_contain_text("added")
    expect(page.get_by_label("As of (empty: now)")).not_to_have_attribute("aria-invalid", "true")
    assert asked, "no diff asked once swapped"
    page.remove_listener("request", record)


# The time fields' typing pause (InstantField: 600 ms) held until the test fires it: a
# timer due just as the times change by other means ("Swap them") fires at a known point.
HOLD_THE_TYPING_PAUSE = """
window.__held = new Map();
let held = 0;
const set = window.setTimeout.bind(window);
const clear = window.clearTimeout.bind(window);
window.setTimeout = (fn, ms, ...args) => {
  if (ms !== 600) return set(fn, ms, ...args);
  held -= 1;
  window.__held.set(held, () => fn(...args));
  return held;
};
window.clearTimeout = (id) => (window.__held.has(id) ? window.__held.delete(id) : clear(id));
window.__fireHeld = () => {
  const due = [...window.__held.values()];
  window.__held.clear();
  due.forEach((fire) => fire());
  return due.length;
};
"""
SWAP_THEN_FIRE_THE_PAUSE = """async () => {
  document.querySelector('[data-testid="reversed-changes"] button').click();
  // React draws the swap in a microtask; the fields take their new values after it.
  for (let i = 0; i < 3; i += 1) await Promise.resolve();
  return window.__fireHeld();
}"""


def test_a_time_field_never_writes_back_the_time_it_was_given_over_a_swap(
    shared: Page,
    server: ServerProcess,
    first_training: dict[str, Any],
    first_complete_training: dict[str, Any],
) -> None:
    # The flaky gate failure of sessions 15 and 16: "Swap them" clicked 600 ms after the
    # page drew its fields; each field's typing pause, started when it was drawn, fired
    # just after the swap and wrote its old time back (the swap undone, reversed again).
    page = shared.context.new_page()
    page.add_init_script(HOLD_THE_TYPING_PAUSE)
    times = {
        "as_of": first_training["started_at_iso"],
        "changes_since": first_complete_training["ended_at_iso"],
    }
    try:
        page.goto(f"{server.url}/?{urlencode(times | FEATURE_VIEW)}")
        expect(page.get_by_test_id("reversed-changes")).to_contain_text("must be before")
        page.evaluate(SWAP_THEN_FIRE_THE_PAUSE)
        expect(page.get_by_test_id("changes-summary")).to_contain_text("added")
        assert url_param(page, "as_of") == times["changes_since"]
        assert url_param(page, "changes_since") == times["as_of"]
        # A time typed is still used once typing pauses (the pause fired by hand here).
        page.get_by_label("As of (empty: now)").fill(first_training["ended_at_iso"])
        assert page.evaluate("window.__fireHeld()") == 1
        expect(page).to_have_url(
            re.compile("as_of=" + re.escape(quote(first_training["ended_at_iso"])))
        )
    finally:
        page.close()


def test_each_time_of_the_lineage_toolbar_is_one_field_typed_or_picked(
    shared: Page, server: ServerProcess, first_training: dict[str, Any]
) -> None:
    page = shared
    page.goto(f"{server.url}/")
    wait_graph(page)
    as_of = page.get_by_label("As of (empty: now)")
    # One Tab stop (a date-time input is one a part): Tab goes on to "Seen during".
    as_of.focus()
    page.keyboard.press("Tab")
    expect(page.get_by_label("Seen during")).to_be_focused()
    # An exact instant, as a run gives it, is taken as typed and shown exactly.
    as_of.fill(first_training["ended_at_iso"])
    as_of.press("Enter")
    page.wait_for_function(
        "want => new URLSearchParams(location.search).get('as_of') === want",
        arg=first_training["ended_at_iso"],
    )
    expect(as_of).to_have_value(first_training["ended_at_iso"])
    wait_graph(page)
    # A local time to the minute (the browser's zone): the instant it names, shown locally.
    as_of.fill("2099-01-01 00:00")
    as_of.press("Enter")
    page.wait_for_function(
        "() => new URLSearchParams(location.search).get('as_of') !== null"
        " && !new URLSearchParams(location.search).get('as_of').startsWith('2026')"
    )
    assert (url_param(page, "as_of") or "").startswith(("2098-12-31", "2099-01-01"))
    expect(as_of).to_have_value("2099-01-01 00:00:00")
    # Not a time: marked, and the URL keeps the last one.
    kept = url_param(page, "as_of")
    as_of.fill("next tuesday")
    as_of.press("Enter")
    expect(as_of).to_have_attribute("aria-invalid", "true")
    assert url_param(page, "as_of") == kept
    # Emptied: now.
    as_of.fill("")
    as_of.press("Enter")
    page.wait_for_function("() => !new URLSearchParams(location.search).has('as_of')")


def test_freshness_in_a_historical_view_says_it_is_known_for_now_only(
    shared: Page, server: ServerProcess, first_training: dict[str, Any]
) -> None:
    page = shared
    freshness = page.get_by_test_id("details-panel").get_by_test_id("freshness")
    # The API assesses health for now only: as of an instant, in a window, or on the
    # Datasets tab as of an instant, the panel says so (not "too little history").
    then = first_training["ended_at_iso"]
    window = {"seen": "custom", "seen_since": first_training["started_at_iso"], "seen_until": then}
    for params in ({"as_of": then}, window):
        open_url(page, server, **FEATURE_VIEW, **params)
        expect(freshness).to_contain_text("Freshness is known for now only")
        expect(freshness).not_to_contain_text("too little history")
    page.goto(f"{server.url}/?{urlencode({'tab': 'datasets', 'as_of': then, **FEATURE_VIEW})}")
    expect(freshness).to_contain_text("Freshness is known for now only")
    # Back to now: what it is now.
    open_url(page, server, **FEATURE_VIEW)
    expect(freshness).to_contain_text("materialized to")
    expect(freshness).not_to_contain_text("for now only")


def test_an_impossible_date_typed_is_marked_not_rolled_over_to_the_next_day(
    shared: Page, server: ServerProcess
) -> None:
    page = shared
    # February 30th, April 31st and 24:00 are no times: a Date would read them as
    # March 2nd, May 1st and the next day.
    impossible = ["2026-02-30 10:00", "2026-04-31", "2026-12-04 24:00", "2026-02-30T10:00:00Z"]
    page.goto(f"{server.url}/")
    wait_graph(page)
    as_of = page.get_by_label("As of (empty: now)")
    for typed in impossible:
        as_of.fill(typed)
        as_of.press("Enter")
        expect(as_of).to_have_attribute("aria-invalid", "true")
        page.wait_for_timeout(700)  # past the pause that uses a complete time
        assert url_param(page, "as_of") is None, typed
    # The Events tab's "From time" the same.
    page.goto(f"{server.url}/?tab=events")
    since = page.get_by_label("From time")
    for typed in impossible:
        since.fill(typed)
        since.press("Enter")
        expect(since).to_have_attribute("aria-invalid", "true")
        page.wait_for_timeout(700)
        assert url_param(page, "since") is None, typed
    # A real date at the end of its month is taken.
    since.fill("2026-02-28 10:00")
    since.press("Enter")
    page.wait_for_function("() => new URLSearchParams(location.search).has('since')")
    expect(since).not_to_have_attribute("aria-invalid", "true")


@pytest.fixture
def refused(shared: Page) -> Iterator[list[str]]:
    """The API requests the page gets a 400 for while the test runs."""
    found: list[str] = []

    def record(response: Any) -> None:
        if "/api/" in response.url and response.status == 400:
            found.append(response.url)

    shared.on("response", record)
    yield found
    shared.remove_listener("response", record)


def test_a_time_an_offset_carries_before_year_1_is_the_first_instant(
    shared: Page, server: ServerProcess, refused: list[str]
) -> None:
    page = shared
    # Year 1 at +01:00 is before the first instant a date shows: it is that instant, as
    # the server takes it (not year 0, which the server refuses).
    page.goto(f"{server.url}/?{urlencode({'as_of': '0001-01-01T00:00:00+01:00'})}")
    page.wait_for_function(
        "() => new URLSearchParams(location.search).get('as_of') === '0001-01-01T00:00:00Z'"
    )
    # Nothing stood then; once the server's retention has run (30 days by default, its first
    # check soon after it starts) the instant is before its horizon, and that is the answer.
    nothing = page.get_by_text("No lineage yet")
    expect(nothing.or_(page.get_by_test_id("before-horizon"))).to_be_visible()
    expect(page.get_by_test_id("time-link-note")).to_have_count(0)
    # Asked as year 1 (never year 0, which the server refuses whatever its horizon).
    assert all("as_of=0001-01-01T00%3A00%3A00Z" in url for url in refused), refused


def test_a_far_past_instant_is_shown_with_a_four_digit_year(
    browser: Browser, server: ServerProcess
) -> None:
    # Year 1, in a browser at UTC: the banner and the As of input show 0001-01-01 (a local
    # date's year was written as a number: "1-01-01", which the input did not take either).
    context = browser.new_context(viewport=VIEWPORT, timezone_id="UTC")  # type: ignore[arg-type]
    page = context.new_page()
    try:
        page.goto(f"{server.url}/?{urlencode({'as_of': '0001-01-01T00:00:00Z'})}")
        banner = page.get_by_test_id("history-banner")
        expect(banner).to_contain_text("as it stood at 0001-01-01 00:00:00 UTC.")
        expect(page.get_by_label("As of (empty: now)")).to_have_value(
            re.compile(r"0001-01-01[T ]00:00(:00)?")
        )
        page.goto(f"{server.url}/?{urlencode({'as_of': '0999-03-04T05:06:07.008Z'})}")
        expect(banner).to_contain_text("as it stood at 0999-03-04 05:06:07.008 UTC.")
    finally:
        context.close()


def test_as_of_the_last_instant_the_lists_ask_no_bound_after_it(
    shared: Page, server: ServerProcess, refused: list[str]
) -> None:
    page = shared
    # The last instant (and one an offset carries past it): no `until` after it is asked
    # (year 10000 is not a date the server takes); the lists hold every version and run.
    last = "9999-12-31T23:59:59.999999Z"
    runs = api(server, "runs", job_name=DBT_MODEL, limit=100)
    for given in (last, "9999-12-31T23:59:59.999999-01:00"):
        open_url(page, server, **DBT, as_of=given)
        page.wait_for_function(
            f"() => new URLSearchParams(location.search).get('as_of') === '{last}'"
        )
        expect(page.get_by_test_id("job-versions").locator("li.job-version")).to_have_count(2)
        expect(page.get_by_test_id("run-history").locator("tr.run-row")).to_have_count(
            min(runs["total"], 10)
        )
    assert refused == [], refused


def test_a_time_of_year_0_in_a_link_is_named(shared: Page, server: ServerProcess) -> None:
    page = shared
    # Year 0 is no date (the server refuses it): the link names it, the graph is now's.
    page.goto(f"{server.url}/?as_of=0000-06-01T00:00:00Z")
    wait_graph(page)
    expect(page.get_by_test_id("time-link-note")).to_contain_text("as_of=0000-06-01T00:00:00Z")
    expect(page.get_by_test_id("history-banner")).to_have_count(0)


# A job whose latest runs were under way at THEN: each started before it, named its output
# only in its COMPLETE, after it. An earlier run had written the table by then.
BATCH = "batch"
WAREHOUSE = "warehouse"
THEN = "2026-11-01T01:00:00Z"
LATER_RUNS = 6  # more than the latest-write lookup's first page (5)
BATCH_PRODUCER = "https://scheduler.example.com/batch/1.0"
BATCH_SPEC = "https://openlineage.io/spec/2-0-2/OpenLineage.json"


def batch_run(run_id: str, start: str, end: str, rows: int) -> list[dict[str, Any]]:
    def event(kind: str, at: str, **more: Any) -> dict[str, Any]:
        return {
            "eventType": kind,
            "eventTime": at,
            "producer": BATCH_PRODUCER,
            "schemaURL": BATCH_SPEC,
            "job": {"namespace": BATCH, "name": "load"},
            "run": {"runId": run_id},
            "inputs": [{"namespace": WAREHOUSE, "name": "raw.orders"}],
            **more,
        }

    stats = {
        "_producer": BATCH_PRODUCER,
        "_schemaURL": "https://openlineage.io/spec/facets/1-0-2/OutputStatisticsOutputDatasetFacet.json",
        "rowCount": rows,
        "size": rows * 10,
    }
    output = {
        "namespace": WAREHOUSE,
        "name": "daily.orders",
        "outputFacets": {"outputStatistics": stats},
    }
    return [event("START", start), event("COMPLETE", end, outputs=[output])]


@pytest.fixture(scope="module")
def under_way(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[ServerProcess, dict[str, Any]]]:
    """A server with the batch job's runs: the one that wrote by THEN, those under way then."""
    earlier = str(uuid.uuid4())
    later = [str(uuid.uuid4()) for _ in range(LATER_RUNS)]
    events = batch_run(earlier, "2026-11-01T00:00:00Z", "2026-11-01T00:10:00Z", 100)
    for i, run_id in enumerate(later):
        events += batch_run(run_id, f"2026-11-01T00:2{i}:00Z", f"2026-11-01T02:0{i}:00Z", 200 + i)
    repo = write_repo(tmp_path_factory.mktemp("under-way") / "repo", project="under_way")
    with ui_server(repo) as running:
        answer = httpx.post(f"{running.url}/api/v1/lineage/batch", json=events, timeout=60)
        assert answer.status_code in (200, 204), answer.text
        yield running, {"earlier": earlier, "later": later}


def test_as_of_an_instant_the_latest_write_is_found_past_runs_under_way_then(
    shared: Page, under_way: tuple[ServerProcess, dict[str, Any]]
) -> None:
    page = shared
    server, runs = under_way
    table = {"node_type": "dataset", "node_ns": WAREHOUSE, "node": "daily.orders"}
    open_url(page, server, **table, as_of=THEN)
    latest = page.get_by_test_id("latest-write")
    # The latest runs started by then all ended (and wrote) after it: the earlier one wrote.
    expect(latest.locator(f"[title='{runs['earlier']}']")).to_have_count(1)
    expect(latest).to_contain_text("100")
    # Now: the newest run's write.
    open_url(page, server, **table)
    expect(latest.locator(f"[title='{runs['later'][-1]}']")).to_have_count(1)


def test_as_of_an_instant_a_run_under_way_then_lists_no_inputs_or_outputs_from_later(
    shared: Page, under_way: tuple[ServerProcess, dict[str, Any]]
) -> None:
    page = shared
    server, runs = under_way
    job = {"node_type": "job", "node_ns": BATCH, "node": "load"}
    history = page.get_by_test_id("run-history")
    # Under way then: its output was named after then (in its COMPLETE), so none is listed.
    open_url(page, server, **job, as_of=THEN, run=runs["later"][-1])
    later = history.get_by_test_id("run-io-later")
    expect(later).to_contain_text("Under way at")
    expect(later).to_contain_text("not known")
    expect(
        history.get_by_test_id("run-io").get_by_role("button", name="daily.orders")
    ).to_have_count(0)
    expect(history.locator(f"tr.run-row[data-run-id='{runs['later'][-1]}'] td.num")).to_have_text(
        "—"
    )
    # Ended by then: what it read and wrote is listed.
    open_url(page, server, **job, as_of=THEN, run=runs["earlier"])
    io = history.get_by_test_id("run-io")
    expect(io.get_by_role("button", name="daily.orders")).to_have_count(1)
    expect(io.get_by_test_id("run-io-later")).to_have_count(0)
    # Now, the run under way then lists its output.
    open_url(page, server, **job, run=runs["later"][-1])
    expect(
        history.get_by_test_id("run-io").get_by_role("button", name="daily.orders")
    ).to_have_count(1)


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture(scope="module")
def pruned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str, str]]:
    """A server whose retention pruned what is older than 5 days (a prune on request, at
    once: no waiting for the schedule): the server, its horizon, and an instant before it."""
    now = datetime.now(UTC)
    old, recent = now - timedelta(days=10), now - timedelta(hours=1)
    events = batch_run(str(uuid.uuid4()), _iso(old), _iso(old + timedelta(minutes=10)), 100)
    events += batch_run(str(uuid.uuid4()), _iso(recent), _iso(recent + timedelta(minutes=10)), 200)
    before = _iso(now - timedelta(days=8))
    repo = write_repo(tmp_path_factory.mktemp("pruned") / "repo", project="pruned")
    with ui_server(repo) as running:
        answer = httpx.post(f"{running.url}/api/v1/lineage/batch", json=events, timeout=60)
        assert answer.status_code in (200, 204), answer.text
        answer = httpx.post(f"{running.url}{OL}/retention/prune", params={"days": 5}, timeout=60)
        assert answer.status_code == 200, answer.text
        refused = httpx.get(f"{running.url}{OL}/graph", params={"as_of": before}, timeout=30)
        assert refused.status_code == 400, refused.text
        horizon = refused.json()["error"]["details"][0]["horizon"]
        yield running, horizon, before


def test_a_time_before_the_retention_horizon_is_said_so_with_its_oldest_instant(
    shared: Page, pruned: tuple[ServerProcess, str, str]
) -> None:
    page = shared
    server, horizon, before = pruned
    notice = page.get_by_test_id("before-horizon")
    # As of an instant before the horizon: no load failure to retry, but what is kept.
    page.goto(f"{server.url}/?{urlencode({'as_of': before})}")
    expect(notice).to_contain_text("is not kept by this server’s retention")
    expect(notice).to_contain_text("the oldest instant it still answers")
    expect(page.get_by_text("Could not load")).to_have_count(0)
    expect(page.get_by_role("button", name="Retry")).to_have_count(0)
    expect(page.get_by_test_id("history-banner")).to_contain_text("Historical view")
    # One click views as of the oldest instant answered.
    notice.get_by_test_id("from-horizon").click()
    page.wait_for_function(
        f"() => new URLSearchParams(location.search).get('as_of') === '{horizon}'"
    )
    expect(notice).to_have_count(0)
    expect(page.get_by_text("Could not load")).to_have_count(0)
    # One goes back to now.
    page.goto(f"{server.url}/?{urlencode({'as_of': before})}")
    notice.get_by_role("button", name="Back to now").click()
    wait_graph(page)
    assert url_param(page, "as_of") is None
    expect(notice).to_have_count(0)

    # The details panel of a node, as of then: the same notice in the panel.
    job = {"node_type": "job", "node_ns": BATCH, "node": "load"}
    page.goto(f"{server.url}/?{urlencode({**job, 'as_of': before})}")
    panel = page.get_by_test_id("details-panel")
    expect(panel.get_by_test_id("before-horizon")).to_contain_text("is not kept")
    expect(panel.get_by_text("Could not load")).to_have_count(0)
    panel.get_by_test_id("from-horizon").click()
    page.wait_for_function(
        f"() => new URLSearchParams(location.search).get('as_of') === '{horizon}'"
    )
    expect(panel.get_by_test_id("before-horizon")).to_have_count(0)

    # Changes since an instant before the horizon: changes since the horizon, one click away.
    page.goto(f"{server.url}/?{urlencode({'changes_since': before})}")
    expect(notice).to_contain_text("cannot be compared")
    expect(page.get_by_test_id("history-banner")).to_contain_text("is not kept")
    notice.get_by_test_id("from-horizon").click()
    page.wait_for_function(
        f"() => new URLSearchParams(location.search).get('changes_since') === '{horizon}'"
    )
    expect(page.get_by_test_id("changes-summary")).to_contain_text("added")
    expect(notice).to_have_count(0)

    # A window seen from before it: seen from the horizon.
    page.goto(f"{server.url}/?{urlencode({'seen': 'custom', 'seen_since': before})}")
    notice.get_by_test_id("from-horizon").click()
    page.wait_for_function(
        f"() => new URLSearchParams(location.search).get('seen_since') === '{horizon}'"
    )
    expect(notice).to_have_count(0)
    expect(page.get_by_text("Could not load")).to_have_count(0)


def test_the_jobs_and_datasets_tabs_list_them_as_of_an_instant(
    shared: Page, server: ServerProcess, first_training: dict[str, Any]
) -> None:
    page = shared
    then = first_training["ended_at_iso"]
    # The dbt model's later input is a dataset now, first named after the first training.
    assert api(server, "datasets", search=SHIFTS)["total"] == 1
    assert api(server, "datasets", search=SHIFTS, as_of=then)["total"] == 0
    page.goto(f"{server.url}/?{urlencode({'tab': 'datasets', 'q': SHIFTS})}")
    datasets = page.get_by_test_id("dataset-table")
    expect(datasets.locator("tr.catalog-row")).to_have_count(1)
    as_of = page.get_by_test_id("catalog-as-of-input")
    as_of.fill(then)
    as_of.press("Enter")
    page.wait_for_function(
        "want => new URLSearchParams(location.search).get('as_of') === want", arg=then
    )
    expect(page.get_by_test_id("history-banner")).to_contain_text("Historical view")
    expect(page.get_by_text("No datasets match as of")).to_be_visible()
    # By keyboard: the button goes with the banner, the focus to the field it emptied.
    page.get_by_test_id("back-to-now").focus()
    page.keyboard.press("Enter")
    expect(as_of).to_be_focused()
    expect(datasets.locator("tr.catalog-row")).to_have_count(1)
    expect(page.get_by_test_id("history-banner")).to_have_count(0)
    assert url_param(page, "as_of") is None

    # Datasets then: when each was last updated is not known then (the API's 0), not 1970.
    page.goto(f"{server.url}/?{urlencode({'tab': 'datasets', 'q': 'driver', 'as_of': then})}")
    expect(datasets.locator("tr.catalog-row").first).to_be_visible()
    expect(datasets).not_to_contain_text("1970")

    # The training job then: its latest run is the first training run, not today's.
    now = api(server, "jobs", search="train_driver_ranking")["jobs"][0]
    past = api(server, "jobs", search="train_driver_ranking", as_of=then)["jobs"][0]
    assert past["latest_run_id"] == first_training["run_id"] != now["latest_run_id"]
    # A link with the Lineage tab's other times: they are left out, the instant kept.
    lineage_only = {"seen": "custom", "seen_since": then, "changes_since": then}
    link = {"tab": "jobs", "q": "train_driver_ranking", "as_of": then, **lineage_only}
    page.goto(f"{server.url}/?{urlencode(link)}")
    page.wait_for_function(
        "() => ['seen', 'seen_since', 'changes_since']"
        ".every(k => !new URLSearchParams(location.search).has(k))"
    )
    assert url_param(page, "as_of") == then
    jobs = page.get_by_test_id("job-table")
    row = jobs.locator("tr.catalog-row")
    expect(row).to_have_count(1)
    expect(as_of).to_have_value(then)
    # The exact instant is shown whole.
    assert as_of.evaluate("el => el.scrollWidth <= el.clientWidth"), as_of.evaluate(
        "el => [el.scrollWidth, el.clientWidth]"
    )
    expect(row).to_contain_text(past["latest_run"]["state"])
    # Its details answer as of then too: the runs started by then only.
    row.click()
    started = api(server, "runs", job_name="train_driver_ranking", limit=100)["runs"]
    by_then = {r["run_id"] for r in started if parse_us(r["started_at_iso"]) <= parse_us(then)}
    assert 0 < len(by_then) < len(started)
    runs = page.get_by_test_id("run-history")
    expect(runs.locator("tr.run-row")).to_have_count(len(by_then))
    assert set(runs.locator("tr.run-row").evaluate_all("rs => rs.map(r => r.dataset.runId)")) == (
        by_then
    )


def test_the_time_buttons_that_go_leave_the_focus_on_the_as_of_field(
    shared: Page, server: ServerProcess, first_training: dict[str, Any]
) -> None:
    page = shared
    as_of = page.get_by_test_id("as-of-input")
    # "Back to now": the banner and its button are gone; the focus is not left on <body>.
    open_url(page, server, as_of=first_training["ended_at_iso"])
    page.get_by_test_id("back-to-now").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => !new URLSearchParams(location.search).has('as_of')")
    expect(as_of).to_be_focused()
    # "as of this run" on the Runs tab: the Lineage tab as of its end, focus on that time.
    page.goto(f"{server.url}/?{urlencode({'tab': 'runs', 'job': 'train_driver_ranking'})}")
    row = page.locator(f"tr[data-run-id='{first_training['run_id']}']")
    row.get_by_role("button", name="as of this run").focus()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "want => new URLSearchParams(location.search).get('as_of') === want",
        arg=first_training["ended_at_iso"],
    )
    expect(as_of).to_be_focused()
    expect(as_of).to_have_value(first_training["ended_at_iso"])


def test_as_of_a_time_still_to_come_says_the_lineage_shown_is_now(
    shared: Page, server: ServerProcess, first_training: dict[str, Any]
) -> None:
    page = shared
    open_url(page, server, as_of="2999-01-01T00:00:00Z")
    banner = page.get_by_test_id("history-banner")
    expect(banner).to_contain_text("a time still to come: the lineage now")
    open_url(page, server, as_of=first_training["ended_at_iso"])
    expect(banner).to_contain_text("Historical view")
    expect(banner).not_to_contain_text("still to come")
