"""The Lineage tab in Chromium, on the quickstart's data, against a real server."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from playwright.sync_api import Page, expect

from tests.server_process import ServerProcess
from tests.ui.conftest import node, node_labels, steady, wait_graph

Shoot = Callable[[Page, str], Path]

# From the raw table through Airflow, dbt and Feast to the model Spark trains.
PIPELINE = [
    "raw.public.trips",
    "driver_features_daily.extract_trips",
    "staging/trips",
    "driver_features_daily.export_daily_trips",
    "analytics.driver_hourly_stats",
    "driver_daily_trips_source",
    "driver_hourly_stats_source",
    "vals_to_add",
    "driver",
    "driver_hourly_stats",
    "driver_daily_trips",
    "transformed_conv_rate",
    "driver_activity_v1",
    "driver_activity_v2",
    "driver_training_set",
    "train_driver_ranking",
    "models/driver_ranking",
]


def query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def kind_of(page: Page, label: str) -> list[str]:
    kinds: list[str] = page.eval_on_selector_all(
        ".lnode",
        "(els, label) => els.filter(e => e.dataset.label === label).map(e => e.dataset.kind)",
        label,
    )
    return kinds


def test_the_graph_joins_every_producer_in_one_picture(
    page: Page, server: ServerProcess, shoot: Shoot
) -> None:
    page.goto(server.url)
    wait_graph(page)
    labels = node_labels(page)
    missing = [name for name in PIPELINE if name not in labels]
    assert not missing, f"not drawn: {missing}; drawn: {labels}"
    # Shapes and colours follow the kind of node.
    assert kind_of(page, "raw.public.trips") == ["dataset"]
    assert kind_of(page, "train_driver_ranking") == ["job"]
    assert kind_of(page, "driver_hourly_stats_source") == ["data_source"]
    assert kind_of(page, "driver") == ["entity"]
    assert kind_of(page, "transformed_conv_rate") == ["on_demand_feature_view"]
    assert kind_of(page, "driver_activity_v1") == ["feature_service"]
    assert kind_of(page, "driver_training_set") == ["saved_dataset"]
    assert sorted(kind_of(page, "driver_hourly_stats")) == ["feature_view", "online_store"]
    assert "feast_materialize" in labels  # a Feast run job
    # Feast's apply jobs are folded into edges unless asked for.
    assert not [label for label in labels if label.startswith("feast_apply_")]
    # The same data under three names is one node listing the others.
    for alias in ("driver_trips.parquet", "driver_stats.parquet", "exports.public.driver_trips"):
        assert alias not in labels
    trips = node(page, "driver_daily_trips_source")
    expect(trips.locator(".lnode-aliases")).to_have_text(re.compile(r"2 aliases"))
    # Producers are named on their nodes.
    expect(node(page, "analytics.driver_hourly_stats").locator(".lnode-producer")).to_have_text(
        "dbt"
    )
    expect(node(page, "raw.public.trips").locator(".lnode-producer")).to_have_text("airflow")
    shoot(page, "lineage-overview")

    page.get_by_label("Jobs shown").select_option("all")
    wait_graph(page)
    expect(
        page.locator('.lnode[data-label="feast_apply_feature_view_driver_hourly_stats"]')
    ).to_have_count(1)
    assert query(page)["jobs"] == ["all"]


def test_search_focuses_a_node_and_its_upstream_to_a_depth(
    page: Page, server: ServerProcess, shoot: Shoot
) -> None:
    page.goto(server.url)
    wait_graph(page)
    search = page.get_by_label("Search nodes")
    search.fill("models/driver")
    expect(page.get_by_role("option").first).to_contain_text("models/driver_ranking")
    search.press("Enter")
    expect(page.get_by_test_id("focus-controls")).to_contain_text("models/driver_ranking")
    page.get_by_label("Direction").select_option("upstream")
    page.get_by_label("Depth").select_option("20")
    wait_graph(page)
    expect(page.locator('.lnode[data-label="raw.public.trips"]')).to_have_count(1)
    labels = set(node_labels(page))
    # Upstream of the model: its training set, Feast's definitions, dbt, Airflow, the raw table.
    assert {
        "driver_training_set",
        "transformed_conv_rate",
        "driver_hourly_stats_source",
        "analytics.driver_hourly_stats",
        "raw.public.trips",
    } <= labels
    # Not upstream: the other service, the daily trips view, the online stores.
    assert "driver_activity_v2" not in labels
    assert "driver_daily_trips" not in labels
    assert kind_of(page, "driver_hourly_stats") == ["feature_view"]  # no online store
    expect(page.locator(".lnode.is-center")).to_contain_text("models/driver_ranking")
    shoot(page, "lineage-focus-upstream")
    assert query(page)["dir"] == ["upstream"]
    assert query(page)["depth"] == ["20"]

    page.get_by_label("Depth").select_option("1")
    expect(page.locator(".canvas")).to_have_attribute("data-nodes", "2")
    wait_graph(page)
    assert sorted(node_labels(page)) == ["models/driver_ranking", "train_driver_ranking"]

    page.get_by_role("button", name="Show whole graph").click()
    expect(page.get_by_test_id("focus-controls")).to_have_count(0)
    wait_graph(page)
    assert "driver_activity_v2" in node_labels(page)


def test_hovering_a_node_lights_its_path(page: Page, server: ServerProcess, shoot: Shoot) -> None:
    page.goto(server.url)
    wait_graph(page)
    steady(node(page, "train_driver_ranking")).hover()  # not while the view still moves
    expect(page.locator(".canvas")).to_have_attribute("data-lit", "")
    expect(node(page, "raw.public.trips").locator(".lnode")).to_have_class(re.compile("lit-on"))
    unrelated = node(page, "driver_activity_v2").locator(".lnode")
    expect(unrelated).not_to_have_class(re.compile("lit-on"))
    expect(unrelated).to_have_css("opacity", "0.25")  # dimmed
    lit_edges = page.locator(".react-flow__edge-path.lit-on")
    assert lit_edges.count() >= 8
    shoot(page, "lineage-hover")
    page.mouse.move(5, 500)
    expect(page.locator(".canvas[data-lit]")).to_have_count(0)
    expect(unrelated).to_have_css("opacity", "1")


def test_the_feast_only_switch_shows_the_registry_graph(
    page: Page, server: ServerProcess, shoot: Shoot
) -> None:
    page.goto(server.url)
    wait_graph(page)
    before = page.get_by_test_id("graph-counts").inner_text()
    page.locator("label.switch").click()
    # The registry graph waits for Feast's import on a loaded machine: allow it a minute.
    expect(page.locator(".canvas")).not_to_have_attribute(
        "data-nodes", before.split()[0], timeout=60_000
    )
    wait_graph(page)
    assert query(page)["view"] == ["feast"]
    labels = set(node_labels(page))
    assert {
        "driver",
        "vals_to_add",
        "driver_hourly_stats_source",
        "driver_hourly_stats",
        "transformed_conv_rate",
        "driver_activity_v2",
        "driver_training_set",
    } <= labels
    for other in ("raw.public.trips", "train_driver_ranking", "analytics.driver_hourly_stats"):
        assert other not in labels
    assert kind_of(page, "driver_hourly_stats") == ["feature_view"]
    expect(page.locator(".lnode-producer").first).to_have_text("feast registry")
    shoot(page, "lineage-feast-only")

    node(page, "driver_hourly_stats").click()
    panel = page.get_by_test_id("details-panel")
    expect(panel).to_contain_text("from the registry")
    expect(panel.get_by_test_id("feast-facets")).to_contain_text("1 day")
    expect(panel.get_by_test_id("schema-table")).to_contain_text("conv_rate")
    expect(panel).to_contain_text("driver_hourly_stats_source")  # built from
    shoot(page, "lineage-feast-only-details")

    # Back to the OpenLineage graph, keeping the node open.
    page.locator("label.switch").click()
    wait_graph(page)
    assert "raw.public.trips" in node_labels(page)
    expect(page.get_by_test_id("details-panel")).to_contain_text("TTL")
    assert query(page)["node_type"] == ["dataset"]


def test_clicking_a_node_opens_its_schema_feast_metadata_and_aliases(
    page: Page, server: ServerProcess, shoot: Shoot
) -> None:
    page.goto(server.url)
    wait_graph(page)
    node(page, "driver_hourly_stats", "feature_view").click()
    panel = page.get_by_test_id("details-panel")
    schema = panel.get_by_test_id("schema-table")
    for field in ("conv_rate", "acc_rate", "avg_daily_trips", "Average trips per day"):
        expect(schema).to_contain_text(field)
    feast = panel.get_by_test_id("feast-facets")
    expect(feast).to_contain_text("1 day")
    expect(feast).to_contain_text("driver")
    expect(feast).to_contain_text("fleet-data@example.com")
    expect(feast).to_contain_text("team=fleet")
    expect(panel).to_contain_text("Driver statistics per hour")  # documentation
    shoot(page, "details-feature-view")

    page.get_by_role("button", name="Close details").click()  # it may cover the next node
    expect(panel).to_have_count(0)
    node(page, "driver_daily_trips_source").click()
    aliases = panel.get_by_test_id("aliases")
    expect(aliases).to_contain_text("exports.public.driver_trips")
    expect(aliases).to_contain_text("driver_trips.parquet")
    expect(panel.get_by_test_id("datasource-uri")).to_contain_text("file:///")
    shoot(page, "details-aliases")


def test_a_job_shows_its_run_history_and_each_runs_inputs_and_outputs(
    page: Page, server: ServerProcess, shoot: Shoot
) -> None:
    page.goto(server.url)
    wait_graph(page)
    node(page, "analytics.driver_hourly_stats").click()
    runs = page.get_by_test_id("runs-table")
    # two nights and today's run: the night the extract failed never ran dbt
    expect(runs.locator("tbody tr")).to_have_count(3)
    expect(runs).to_contain_text("COMPLETE")
    expect(runs).to_contain_text("840")  # rows written
    expect(runs).to_contain_text("8 min 0 s")  # duration
    expect(page.get_by_test_id("details-panel")).to_contain_text("select t.driver_id")  # SQL

    # The open panel may cover the next node (where depends on the layout): close it first.
    page.get_by_role("button", name="Close details").click()
    expect(page.get_by_test_id("details-panel")).to_have_count(0)
    node(page, "train_driver_ranking").click()
    expect(page.get_by_test_id("details-panel").locator(".panel-title")).to_have_text(
        "train_driver_ranking"
    )
    # newest first: today's training, then the first one's success and failure
    expect(runs.locator(".state-badge")).to_have_text(["COMPLETE", "COMPLETE", "FAIL"])
    complete = runs.locator("tr.run-row").first
    complete.get_by_role("button", name="inputs & outputs").click()
    io = page.get_by_test_id("run-io")
    expect(io).to_contain_text("Inputs (1)")
    expect(io).to_contain_text("driver_training_set.parquet")
    expect(io).to_contain_text("Outputs (1)")
    expect(io).to_contain_text("models/driver_ranking")
    assert query(page)["run"]
    shoot(page, "details-job-runs")

    # An output opens its own details.
    io.get_by_role("button", name="models/driver_ranking").click()
    expect(page.get_by_test_id("details-panel").locator(".panel-title")).to_have_text(
        "models/driver_ranking"
    )
