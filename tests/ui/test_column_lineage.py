"""The column view (issue 25) in Chromium, on the quickstart's data.

One column path goes from the raw trips table's ``accepted`` column through
Airflow (extract_trips), dbt (analytics.driver_hourly_stats) and Feast (the
data source, the feature view, the feature service) to the model Spark
trains; dbt's join and grouping columns reach the feature's data source as
INDIRECT edges.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlparse

from playwright.sync_api import Page, expect

from tests.server_process import ServerProcess
from tests.ui.conftest import node, wait_graph

Shoot = Callable[[Page, str], Path]

RAW = ("postgres://warehouse:5432", "raw.public.trips")
SERVICE = ("driver_ranking", "feature_service/driver_activity_v1")
FEATURE = "driver_hourly_stats:conv_rate"


def query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def wait_columns(page: Page) -> None:
    page.wait_for_selector("[data-testid=column-ready]", state="attached", timeout=30_000)
    page.wait_for_function("() => document.querySelectorAll('.column-edge').length > 0")


def path_rows(page: Page) -> list[str]:
    """Every column on the traced path, as "dataset.field"."""
    rows: list[str] = page.eval_on_selector_all(
        ".cbox .crow.on-path",
        "els => els.map(e => e.closest('.cbox').dataset.box + '.' + e.dataset.field)",
    )
    return rows


POINT_ON_EDGE = """(sel) => {
  // A point of the edge's path that no other element covers (edges cross).
  const p = document.querySelector(sel);
  const edge = p.closest(".column-edge");
  const m = p.getScreenCTM();
  const length = p.getTotalLength();
  for (const t of [0.5, 0.35, 0.65, 0.2, 0.8, 0.1, 0.9, 0.05, 0.95]) {
    const q = p.getPointAtLength(length * t);
    const x = q.x * m.a + m.e, y = q.y * m.d + m.f;
    const hit = document.elementFromPoint(x, y);
    if (hit && hit.closest(".column-edge") === edge) return [x, y];
  }
  return null;
}"""


# How far the middle of an element is from the middle of the column canvas (px).
OFF_CENTRE = """(sel) => {
  const box = document.querySelector(sel).getBoundingClientRect();
  const canvas = document.querySelector('.column-canvas').getBoundingClientRect();
  return [canvas.left + canvas.width / 2 - (box.left + box.width / 2),
          canvas.top + canvas.height / 2 - (box.top + box.height / 2)];
}"""


def reveal(page: Page, selector: str) -> None:
    """Pan the column view (it never shrinks text to fit) until ``selector`` is in its middle."""
    dx, dy = page.evaluate(OFF_CENTRE, selector)
    canvas = page.locator(".column-canvas").bounding_box()
    assert canvas is not None
    # Drag the empty pane: the canvas's top middle, under the toolbar.
    x, y = canvas["x"] + canvas["width"] / 2, canvas["y"] + 8
    page.mouse.move(x, y)
    page.mouse.down()
    for step in range(1, 11):
        page.mouse.move(x + dx * step / 10, y + dy * step / 10)
    page.mouse.up()
    page.wait_for_timeout(200)


def edge_point(page: Page, selector: str) -> tuple[float, float]:
    point = page.evaluate(POINT_ON_EDGE, selector)
    if not point:
        reveal(page, selector)
        point = page.evaluate(POINT_ON_EDGE, selector)
    assert point, f"no point of {selector} is free to hover"
    return point[0], point[1]


def hover_edge(page: Page, selector: str) -> None:
    """Move the mouse onto the edge's drawn path, where no other edge covers it."""
    page.mouse.move(*edge_point(page, selector))


def edge_into(namespace: str, name: str, field: str) -> str:
    """The selector of a drawn edge into ``field`` of a dataset (ids: "source>target>job")."""
    return f'path.cedge[id*=">field:{namespace}:{name}:{field}>"]'


def test_a_feature_traces_back_to_the_raw_column_through_airflow_dbt_and_feast(
    page: Page, server: ServerProcess, shoot: Shoot
) -> None:
    # The feature service's panel lists its columns with their counts.
    page.goto(
        server.url
        + "/?"
        + urlencode({"node_type": "dataset", "node_ns": SERVICE[0], "node": SERVICE[1]})
    )
    counts = page.get_by_test_id("column-counts-list")
    row = counts.locator(f'tr[data-field="{FEATURE}"]')
    expect(row.get_by_test_id("col-upstream")).to_have_text("1")
    row.get_by_role("button", name=FEATURE).click()

    # The column view, in the URL.
    expect(page.get_by_test_id("column-view")).to_be_visible()
    wait_columns(page)
    assert query(page)["col"] == [FEATURE]
    assert query(page)["col_ds"] == [SERVICE[1]]
    page.get_by_label("Column direction").select_option("upstream")
    page.get_by_label("Column depth").select_option("5")
    assert query(page)["dir"] == ["upstream"]
    assert query(page)["depth"] == ["5"]
    page.wait_for_function(
        "() => document.querySelector('.cbox[data-box=\"raw.public.trips\"]') !== null"
    )
    wait_columns(page)
    on_path = path_rows(page)
    for hop in (
        "feature_service/driver_activity_v1." + FEATURE,
        "feature_view/driver_hourly_stats.conv_rate",
        "data_source/driver_hourly_stats_source.conv_rate",
        "staging/trips.accepted",
        "raw.public.trips.accepted",
    ):
        assert hop in on_path, f"{hop} not on the path: {on_path}"
    page.get_by_label("Close details").click()
    # The traced column is marked; the boxes fold the columns off the path.
    traced = page.locator(".crow.is-traced")
    expect(traced).to_have_count(1)
    expect(traced).to_have_attribute("data-field", FEATURE)
    raw = page.locator('.cbox[data-box="raw.public.trips"]')
    expect(raw.locator(".crow:not(.on-path)")).to_have_count(0)
    expect(raw.locator(".cbox-fold")).to_contain_text("more columns")
    # The data source's box is its parquet file too (a symlinked alias).
    expect(
        page.locator('.cbox[data-box="data_source/driver_hourly_stats_source"]')
    ).to_contain_text("1 alias")
    # Every producer's job on the path is one click away.
    jobs = page.get_by_test_id("column-jobs")
    for job in (
        "driver_features_daily.extract_trips",
        "analytics.driver_hourly_stats",
        "feast_apply_feature_view_driver_hourly_stats",
    ):
        expect(jobs.get_by_role("button", name=job, exact=True)).to_be_visible()

    # The dbt edge says its transformation on hover, and opens its job on click.
    selector = edge_into("driver_ranking", "data_source/driver_hourly_stats_source", "conv_rate")
    hover_edge(page, selector)
    tip = page.get_by_test_id("edge-tip")
    expect(tip).to_contain_text("DIRECT · AGGREGATION: avg(t.accepted::int)")
    expect(tip).to_contain_text("analytics.driver_hourly_stats")
    shoot(page, "column-lineage")
    page.mouse.click(*edge_point(page, selector))
    panel = page.get_by_test_id("details-panel")
    expect(panel.locator(".panel-title")).to_have_text("analytics.driver_hourly_stats")
    assert query(page)["node_type"] == ["job"]

    # Back to the dataset graph, with the browser's Back too.
    page.go_back()
    expect(page.get_by_test_id("column-view")).to_be_visible()
    page.get_by_test_id("columns-back").click()
    wait_graph(page)
    assert "col" not in query(page)
    expect(node(page, "driver_activity_v1")).to_be_visible()


def test_the_raw_column_traces_forward_to_the_model(page: Page, server: ServerProcess) -> None:
    page.goto(
        server.url
        + "/?"
        + urlencode(
            {
                "col_ns": RAW[0],
                "col_ds": RAW[1],
                "col": "accepted",
                "dir": "downstream",
                "depth": 10,
            }
        )
    )
    wait_columns(page)
    page.wait_for_function(
        "() => document.querySelector('.cbox[data-box=\"models/driver_ranking\"]') !== null"
    )
    on_path = path_rows(page)
    for hop in (
        "raw.public.trips.accepted",
        "staging/trips.accepted",
        "data_source/driver_hourly_stats_source.conv_rate",
        "feature_view/driver_hourly_stats.conv_rate",
        "saved_dataset/driver_training_set.conv_rate",
        "models/driver_ranking.score",
    ):
        assert hop in on_path, f"{hop} not on the path: {on_path}"
    # The model's edge: Spark's training, opened in one click.
    selector = edge_into("mlflow://tracking:5000", "models/driver_ranking", "score")
    hover_edge(page, selector)
    expect(page.get_by_test_id("edge-tip")).to_contain_text("gradient-boosted trees")
    page.mouse.click(*edge_point(page, selector))
    expect(page.get_by_test_id("details-panel").locator(".panel-title")).to_have_text(
        "train_driver_ranking"
    )
    # Clicking a column of a box traces that column instead.
    page.get_by_label("Close details").click()
    page.locator('.cbox[data-box="staging/trips"] .crow[data-field="accepted"] .crow-name').click()
    expect(page.get_by_test_id("column-traced")).to_contain_text("staging/trips")
    assert query(page)["col_ds"] == ["staging/trips"]
    # A box unfolds its other columns, and its head opens the dataset's panel.
    staging = page.locator('.cbox[data-box="staging/trips"]')
    expect(staging.locator(".crow")).to_have_count(1)
    staging.locator(".cbox-fold").click()
    expect(staging.locator(".crow")).to_have_count(8)
    staging.locator(".cbox-head").click()
    expect(page.get_by_test_id("details-panel").locator(".panel-title")).to_have_text(
        "staging/trips"
    )


def test_an_indirect_edge_is_drawn_dashed(page: Page, server: ServerProcess) -> None:
    page.goto(
        server.url
        + "/?"
        + urlencode(
            {
                "col_ns": SERVICE[0],
                "col_ds": SERVICE[1],
                "col": FEATURE,
                "dir": "upstream",
                "depth": 5,
            }
        )
    )
    wait_columns(page)
    dashed = page.locator("path.cedge-indirect")
    expect(dashed.first).to_be_attached()
    style = "(els) => els.map(e => getComputedStyle(e).strokeDasharray)"
    assert all(d not in ("none", "") for d in dashed.evaluate_all(style))
    solid = page.locator("path.cedge-direct")
    assert all(d in ("none", "") for d in solid.evaluate_all(style))
    # The INDIRECT edges end at the whole dataset: dbt's join and grouping columns.
    whole = page.locator('.cbox[data-box="data_source/driver_hourly_stats_source"] .crow.is-whole')
    expect(whole).to_have_count(1)
    hover_edge(page, 'path.cedge-indirect[id*="analytics.driver_hourly_stats"]')
    expect(page.get_by_test_id("edge-tip")).to_contain_text("INDIRECT")
    # Leaving INDIRECT edges out draws none.
    page.get_by_label("Include INDIRECT edges").uncheck()
    assert query(page)["col_indirect"] == ["0"]
    wait_columns(page)
    expect(page.locator("path.cedge-indirect")).to_have_count(0)
    expect(page.locator("path.cedge-direct").first).to_be_attached()
