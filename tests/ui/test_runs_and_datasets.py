"""Runs and datasets up front (issue 28): failures, job states, the Runs tab, dataset pages."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, expect

from tests.server_process import ServerProcess
from tests.ui.conftest import api, node, ui_server, url_param, wait_graph

Shoot = Callable[[Page, str], Path]
OOM = "java.lang.OutOfMemoryError: Java heap space"


def test_a_failed_run_shows_its_error_and_its_stack_trace_folded(
    page: Page, server: ServerProcess, shoot: Shoot
) -> None:
    page.goto(
        f"{server.url}/?tab=jobs&node_type=job&node_ns=spark%3A%2F%2Fml-team"
        "&node=train_driver_ranking"
    )
    history = page.get_by_test_id("run-history")
    error = history.get_by_test_id("run-error")
    expect(error).to_have_count(1)  # the one failed run of the two
    expect(error).to_contain_text(OOM)
    stack = error.get_by_test_id("run-stack")
    expect(stack.locator("pre")).not_to_be_visible()  # folded
    stack.locator("summary").click()
    expect(stack.locator("pre")).to_be_visible()
    expect(stack.locator("pre")).to_contain_text("RandomForest$.findBestSplits")
    shoot(page, "failed-run-error")


def test_job_nodes_show_their_latest_run_state(page: Page, server: ServerProcess) -> None:
    states = {
        (j["job_namespace"], j["job_name"]): j["latest_run"]["state"]
        for j in api(server, "jobs", limit=1000)["jobs"]
        if j["latest_run"]
    }
    assert states[("spark://ml-team", "train_driver_ranking")] == "COMPLETE"
    page.goto(server.url)
    wait_graph(page)
    train = node(page, "train_driver_ranking", "job")
    expect(train.locator(".lnode")).to_have_attribute("data-state", "completed")
    expect(train.locator(".lnode-state")).to_have_text("completed")
    # Every drawn job with a run shows its state; the Feast apply jobs never ran.
    shown = page.eval_on_selector_all(
        ".lnode[data-kind=job][data-state]", "els => els.map(e => e.dataset.state)"
    )
    assert shown
    assert set(shown) <= {"completed", "failed", "running", "aborted"}


def test_the_jobs_table_shows_the_latest_run_and_sorts_on_the_server(
    page: Page, server: ServerProcess, shoot: Shoot
) -> None:
    page.goto(f"{server.url}/?tab=jobs")
    table = page.get_by_test_id("job-table")
    row = table.locator("tr.catalog-row", has_text="train_driver_ranking")
    expect(row.locator("td[data-column=latest_state]")).to_have_text("COMPLETE")
    expect(row.locator("td[data-column=latest_duration]")).not_to_have_text("—")
    expect(row.locator("td[data-column=latest_started]")).not_to_have_text("—")

    for header, sort in (("Duration", "latest_duration"), ("Duration", "-latest_duration")):
        table.locator("th", has_text=header).get_by_role("button").click()
        page.wait_for_function(f"() => location.search.includes('sort={sort}')")
        expected = [j["job_name"] for j in api(server, "jobs", sort=sort, limit=50)["jobs"]]
        expect(table.locator("tr.catalog-row td[data-column=name] .strong")).to_have_text(expected)
    assert table.locator("th[aria-sort=descending]").inner_text().startswith("Duration")
    shoot(page, "jobs-sorted")


def test_the_datasets_table_sorts_by_any_column_on_the_server(
    page: Page, server: ServerProcess
) -> None:
    page.goto(f"{server.url}/?tab=datasets")
    table = page.get_by_test_id("dataset-table")
    for header, sort in (("Producer", "producer"), ("Kind", "kind"), ("Updated", "updated")):
        table.locator("th", has_text=header).get_by_role("button").click()
        page.wait_for_function(
            f"() => new URLSearchParams(location.search).get('sort') === '{sort}'"
        )
        expected = [
            d["dataset_name"] for d in api(server, "datasets", sort=sort, limit=50)["datasets"]
        ]
        expect(table.locator("tr.catalog-row td[data-column=name] .strong")).to_have_text(expected)


def test_the_runs_tab_filters_pages_and_sorts_runs_across_jobs(
    page: Page, server: ServerProcess, shoot: Shoot
) -> None:
    total = api(server, "runs", limit=1)["total"]
    page.goto(f"{server.url}/?tab=runs")
    table = page.get_by_test_id("run-list")
    expect(page.get_by_test_id("pager-count")).to_contain_text(f"of {total} runs")

    page.get_by_label("Run state filter").select_option("FAIL")
    failed = api(server, "runs", state="FAIL")["runs"]
    expect(table.locator("tr.runs-row")).to_have_count(len(failed))
    expect(table.locator("tr.runs-row[data-state=FAIL]")).to_have_count(len(failed))
    expect(table.get_by_test_id("run-error").filter(has_text=OOM)).to_have_count(1)

    page.get_by_label("Run job filter").fill("DRIVER_RANK")  # part of the name, any case
    expect(table.locator("tr.runs-row")).to_have_count(1)
    expect(table.locator("tr.runs-row td[data-column=job]")).to_contain_text("train_driver_ranking")
    shoot(page, "runs-failed")

    page.get_by_role("button", name="Clear filters").click()
    expect(page.get_by_test_id("pager-count")).to_contain_text(f"of {total} runs")
    table.locator("th", has_text="Duration").get_by_role("button").click()
    page.wait_for_function("() => location.search.includes('sort=duration')")
    expected = [r["run_id"] for r in api(server, "runs", sort="duration", limit=50)["runs"]]
    ids = page.eval_on_selector_all("tr.runs-row", "rows => rows.map(r => r.dataset.runId)")
    assert ids == expected

    page.get_by_label("Runs from time").fill("2999-01-01T00:00")
    expect(page.get_by_text("No run matches these filters")).to_be_visible()
    # The URL keeps its UTC instant (the browser's midnight, in UTC).
    utc = page.evaluate("() => new Date(2999, 0, 1).toISOString().replace('.000Z', 'Z')")
    assert url_param(page, "since") == utc


def test_the_events_job_filter_matches_part_of_the_name(page: Page, server: ServerProcess) -> None:
    total = api(server, "events", job_search="driver_rank", limit=1)["total"]
    assert total > 0
    page.goto(f"{server.url}/?tab=events")
    page.get_by_label("Job filter").fill("driver_rank")
    expect(page.get_by_test_id("pager-count")).to_contain_text(f"of {total} events")
    names = page.eval_on_selector_all("tr.event-row", "rows => rows.map(r => r.textContent)")
    assert all("train_driver_ranking" in n for n in names)


def test_a_datasets_panel_shows_writers_readers_latest_write_and_schema(
    page: Page, server: ServerProcess, shoot: Shoot
) -> None:
    page.goto(
        f"{server.url}/?tab=datasets&node_type=dataset&node_ns=mlflow%3A%2F%2Ftracking%3A5000"
        "&node=models%2Fdriver_ranking"
    )
    panel = page.get_by_test_id("details-panel")
    expect(panel.get_by_test_id("dataset-writers")).to_contain_text("train_driver_ranking")
    expect(panel.get_by_test_id("dataset-readers")).to_contain_text("No job reads it")
    latest = panel.get_by_test_id("latest-write")
    expect(latest).to_contain_text("COMPLETE")
    expect(latest).to_contain_text("train_driver_ranking")
    expect(latest.locator(".row", has_text="Rows")).to_contain_text("1")
    expect(panel.get_by_test_id("schema-table")).to_contain_text("score")

    # The staging trips: written by Airflow with rows and bytes, read by dbt.
    page.goto(f"{server.url}/?tab=datasets&q=staging")
    page.get_by_test_id("dataset-table").locator("tr.catalog-row").first.click()
    latest = panel.get_by_test_id("latest-write")
    expect(latest.locator(".row", has_text="Bytes")).to_contain_text("MiB")
    expect(panel.get_by_test_id("dataset-readers").locator("li")).not_to_have_count(0)
    shoot(page, "dataset-panel")


def _event(producer: str, job: str, time: str, **io: Any) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": time,
        "producer": producer,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "etl", "name": job},
        "inputs": io.get("inputs", []),
        "outputs": io.get("outputs", []),
    }


def test_a_read_does_not_change_who_produced_a_dataset_and_producers_read_well(
    page: Page, quickstart_repo: Path, tmp_path: Path
) -> None:
    """airflow writes raw.public.trips, a later Spark job only reads it: still airflow's."""
    store = f"sqlite:///{tmp_path / 'lineage.db'}"
    env = {"FEAST_OPENLINEAGE_CONSUMER_CONNECTION_STRING": store}
    trips = {"namespace": "postgres://db:5432", "name": "raw.public.trips"}
    airflow = "https://github.com/apache/airflow/tree/providers-openlineage/2.3.0"
    spark = "https://github.com/OpenLineage/OpenLineage/tree/1.34.0/integration/spark"
    stress = "https://loadgen.example.com/synthetic-stress/1.0"
    with ui_server(quickstart_repo, env=env) as server:
        events = [
            _event(airflow, "extract", "2026-01-01T00:00:00Z", outputs=[trips]),
            _event(spark, "train", "2026-01-01T01:00:00Z", inputs=[trips]),
            _event(stress, "stress_job", "2026-01-01T02:00:00Z"),
        ]
        for event in events:
            httpx.post(f"{server.url}/api/v1/lineage", json=event, timeout=30).raise_for_status()
        page.goto(f"{server.url}/?tab=datasets")
        row = page.get_by_test_id("dataset-table").locator(
            "tr.catalog-row", has_text="raw.public.trips"
        )
        expect(row.locator("td[data-column=producer]")).to_have_text("airflow")
        page.goto(f"{server.url}/?tab=jobs")
        row = page.get_by_test_id("job-table").locator("tr.catalog-row", has_text="stress_job")
        expect(row.locator("td[data-column=producer]")).to_have_text(
            "loadgen.example.com/synthetic-stress/1.0"
        )
        page.goto(server.url)
        wait_graph(page)
        trips_node = node(page, "raw.public.trips")
        expect(trips_node.locator(".lnode-producer")).to_have_text("airflow")


def _runs_moved(same_second: bool) -> Callable[[Any], None]:
    """The runs page with each run started (and ended) a second apart; ``same_second``:
    the second run starts 250 ms after the first, in its second."""

    def handle(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        for i, run in enumerate(body["runs"]):
            run["started_at_iso"] = f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z"
            run["ended_at_iso"] = f"2026-01-01T01:{i // 60:02d}:{i % 60:02d}Z"
        if same_second:
            body["runs"][1]["started_at_iso"] = "2026-01-01T00:00:00.250000Z"
        route.fulfill(response=answer, json=body)

    return handle


def test_the_runs_tab_shows_milliseconds_where_two_runs_share_a_second(
    page: Page, server: ServerProcess
) -> None:
    pattern = re.compile(r".*/openlineage/runs\?.*")
    table = page.get_by_test_id("run-list")
    started = table.locator("tr.runs-row td[data-column=started]")
    ended = table.locator("tr.runs-row td[data-column=ended]")
    for same_second in (False, True):
        page.route(pattern, _runs_moved(same_second))
        try:
            page.goto(f"{server.url}/?tab=runs")
            expect(started.first).to_be_visible()
            starts = started.all_inner_texts()
            assert len(starts) > 2, starts
            # To the second when no two share one; else to the millisecond, the column through.
            assert all(("." in text) == same_second for text in starts), starts
            if same_second:
                assert starts[0] != starts[1], starts
                assert starts[1].endswith(".250"), starts
            assert not any("." in text for text in ended.all_inner_texts())
            # The tooltip gives the instant exactly, as the API says it (UTC).
            assert (started.nth(1).locator("time").get_attribute("title") or "").startswith(
                "UTC: 2026-01-01T00:00:00.250000Z" if same_second else "UTC: 2026-01-01T00:00:01Z"
            )
        finally:
            page.unroute(pattern)
