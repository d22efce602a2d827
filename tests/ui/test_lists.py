"""The Events, Jobs and Datasets tabs, and shared links, in Chromium."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.server_process import ServerProcess
from tests.ui.conftest import VIEWPORT, node_labels, wait_graph

Shoot = Callable[[Page, str], Path]


def total_events(server: ServerProcess, **filters: str) -> int:
    answer = httpx.get(
        f"{server.url}/api/v1/lineage/openlineage/events", params={**filters, "limit": 1}
    )
    answer.raise_for_status()
    total: int = answer.json()["total"]
    return total


def query_offset(page: Page) -> str | None:
    return parse_qs(urlparse(page.url).query).get("offset", [None])[0]


def first_event_ids(page: Page) -> list[str]:
    ids: list[str] = page.eval_on_selector_all(
        "tr.event-row", "rows => rows.map(r => r.dataset.eventId)"
    )
    return ids


def test_the_events_tab_pages_newest_first_through_the_whole_store(
    page: Page, server: ServerProcess, shoot: Shoot
) -> None:
    total = total_events(server)
    # Feast's own events, and the 34 of Airflow, dbt and Spark: pages of 25.
    assert total_events(server, namespace="driver_ranking") > 0
    assert total > 50
    last = (total - 1) // 25 * 25  # the offset of the last page
    page.goto(server.url)
    page.get_by_role("tab", name="Events").click()
    table = page.get_by_test_id("events-table")
    expect(table.locator("tr.event-row")).to_have_count(min(50, total))
    page.get_by_label("Events per page").select_option("25")
    expect(table.locator("tr.event-row")).to_have_count(25)
    count = page.get_by_test_id("pager-count")
    expect(count).to_have_text(f"1–25 of {total} events")
    first_page = first_event_ids(page)
    times = page.eval_on_selector_all(
        "tr.event-row td:first-child", "cells => cells.map(c => c.textContent)"
    )
    assert times == sorted(times, reverse=True), "events are not newest first"
    shoot(page, "events")

    page.get_by_role("button", name="Next page").click()
    expect(count).to_have_text(f"26–50 of {total} events")
    assert not set(first_event_ids(page)) & set(first_page)
    assert query_offset(page) == "25"
    page.get_by_role("button", name="First page").click()
    expect(count).to_have_text(f"1–25 of {total} events")
    expect(page.get_by_role("button", name="Previous page")).to_be_disabled()
    page.get_by_role("button", name="Last page").click()
    expect(count).to_have_text(f"{last + 1}–{total} of {total} events")
    expect(page.get_by_role("button", name="Next page")).to_be_disabled()
    # The browser's back button goes back a page.
    page.go_back()
    expect(count).to_have_text(f"1–25 of {total} events")


def test_the_events_tab_filters_and_shows_each_event_as_json(
    page: Page, server: ServerProcess, shoot: Shoot
) -> None:
    page.goto(f"{server.url}/?tab=events")
    table = page.get_by_test_id("events-table")
    expect(table.locator("tr.event-row").first).to_be_visible()

    page.get_by_label("Event type filter").select_option("FAIL")
    fails = total_events(server, event_type="FAIL")
    # Airflow's task and DAG on the failed night and today, the first Spark training
    assert fails == 5
    expect(table.locator("tr.event-row")).to_have_count(fails)
    assert set(table.locator(".state-badge").all_inner_texts()) == {"FAIL"}

    page.get_by_label("Job filter").fill("train_driver_ranking")
    expect(table.locator("tr.event-row")).to_have_count(1)
    expect(table).to_contain_text("spark://ml-team")

    page.get_by_label("Event type filter").select_option("")
    expect(table.locator("tr.event-row")).to_have_count(6)  # three runs, two events each
    page.get_by_label("Namespace filter").select_option("airflow://prod-cluster")
    expect(page.get_by_text("No event matches these filters")).to_be_visible()
    page.get_by_role("button", name="Clear all filters").click()
    expect(table.locator("tr.event-row")).to_have_count(min(50, total_events(server)))

    # A time range: nothing happened in the future.
    page.get_by_label("From time").fill("2099-01-01T00:00")
    expect(page.get_by_text("No event matches these filters")).to_be_visible()
    page.get_by_label("From time").fill("")
    page.get_by_label("Until time").fill("2000-01-01T00:00")
    expect(page.get_by_text("No event matches these filters")).to_be_visible()
    page.get_by_role("button", name="Clear all filters").click()

    # Readable JSON of one event.
    page.get_by_label("Job filter").fill("analytics.driver_hourly_stats")
    page.get_by_label("Event type filter").select_option("COMPLETE")
    expect(table.locator("tr.event-row")).to_have_count(3)  # two nights and today
    table.locator("tr.event-row").first.click()
    json = page.locator(".event-json .json")
    expect(json).to_contain_text('eventType: "COMPLETE"')
    expect(json).to_contain_text("outputStatistics")
    expect(json).to_contain_text("rowCount: 840")
    shoot(page, "events-json")


def test_jobs_and_datasets_are_searchable_lists_that_open_the_details(
    page: Page, server: ServerProcess, shoot: Shoot
) -> None:
    page.goto(server.url)
    page.get_by_role("tab", name="Datasets").click()
    table = page.get_by_test_id("dataset-table")
    expect(table.locator("tbody tr").first).to_be_visible()
    page.get_by_label("Search datasets").fill("driver_trips")
    expect(table.locator("tbody tr")).to_have_count(2)  # the file and the warehouse table
    page.get_by_label("Search datasets").fill("feature_view/driver_hourly")
    expect(table.locator("tbody tr")).to_have_count(1)
    table.locator("tbody tr").first.click()
    panel = page.get_by_test_id("details-panel")
    expect(panel.get_by_test_id("schema-table")).to_contain_text("conv_rate")
    shoot(page, "datasets")

    page.get_by_role("tab", name="Jobs").click()
    jobs = page.get_by_test_id("job-table")
    page.get_by_label("Search jobs").fill("train_driver")
    expect(jobs.locator("tbody tr")).to_have_count(1)
    jobs.locator("tbody tr").first.click()
    expect(page.get_by_test_id("runs-table").locator("tr.run-row")).to_have_count(3)
    shoot(page, "jobs")

    # From the list to the job's place in the graph.
    page.get_by_test_id("details-panel").get_by_role("button", name="Show lineage").click()
    wait_graph(page)
    expect(page.get_by_test_id("focus-controls")).to_contain_text("train_driver_ranking")
    assert "models/driver_ranking" in node_labels(page)


def test_a_shared_link_opens_the_same_view(
    browser: Browser, page: Page, server: ServerProcess
) -> None:
    # Build a view by clicking, then open its URL in a new browser context.
    page.goto(server.url)
    wait_graph(page)
    page.get_by_label("Search nodes").fill("analytics.driver_hourly")
    page.get_by_label("Search nodes").press("Enter")
    page.get_by_label("Depth").select_option("1")
    page.get_by_label("Direction").select_option("downstream")
    expect(page.locator(".canvas")).to_have_attribute("data-nodes", "2")
    link = page.url

    other = browser.new_context(viewport=VIEWPORT)  # type: ignore[arg-type]
    try:
        shared = other.new_page()
        shared.goto(link)
        wait_graph(shared)
        expect(shared.get_by_label("Depth")).to_have_value("1")
        expect(shared.get_by_label("Direction")).to_have_value("downstream")
        expect(shared.get_by_test_id("focus-controls")).to_contain_text(
            "analytics.driver_hourly_stats"
        )
        assert sorted(node_labels(shared)) == [
            "analytics.driver_hourly_stats",
            "driver_hourly_stats_source",
        ]
        expect(shared.get_by_test_id("details-panel").locator(".panel-title")).to_have_text(
            "analytics.driver_hourly_stats"
        )
        expect(shared.get_by_test_id("runs-table").locator("tr.run-row")).to_have_count(3)

        # The events tab's filters and page too.
        params = {"tab": "events", "type": "COMPLETE", "limit": "25", "offset": "25"}
        shared.goto(f"{server.url}/?{urlencode(params)}")
        expect(shared.get_by_label("Event type filter")).to_have_value("COMPLETE")
        completes = total_events(server, event_type="COMPLETE")
        expect(shared.get_by_test_id("pager-count")).to_have_text(
            re.compile(rf"^26–{min(50, completes)} of {completes} events")
        )
        # The browser's back button returns to the previous view.
        shared.go_back()
        wait_graph(shared)
        expect(shared.get_by_test_id("focus-controls")).to_be_visible()
    finally:
        other.close()


def test_the_events_tab_shows_milliseconds_where_two_events_share_a_second(
    page: Page, server: ServerProcess
) -> None:
    pattern = re.compile(r".*/openlineage/events\?.*")

    def moved(same_second: bool) -> Callable[[Any], None]:
        def handle(route: Any) -> None:
            answer = route.fetch()
            body = answer.json()
            for i, item in enumerate(body["events"]):
                item["event_time_iso"] = f"2026-01-01T00:{59 - i // 60:02d}:{59 - i % 60:02d}Z"
            if same_second:
                body["events"][1]["event_time_iso"] = "2026-01-01T00:59:59.001000Z"
            route.fulfill(response=answer, json=body)

        return handle

    times = page.locator("tr.event-row td:first-child")
    for same_second in (False, True):
        page.route(pattern, moved(same_second))
        try:
            page.goto(f"{server.url}/?tab=events")
            expect(times.first).to_be_visible()
            shown = times.all_inner_texts()
            assert len(shown) > 2, shown
            assert all(("." in text) == same_second for text in shown), shown
            if same_second:
                assert shown[1].endswith(".001"), shown
                assert shown[0].endswith(".000"), shown
        finally:
            page.unroute(pattern)


# The field's mark (styles.css): a red border, as the Lineage tab's time fields have.
INVALID_BORDER = "rgb(185, 28, 28)"


def test_an_impossible_date_in_an_events_or_runs_link_is_marked_and_named(
    page: Page, server: ServerProcess
) -> None:
    # February 30th and April 31st were left out of the filter, but their fields showed them
    # unmarked: the page listed every event (run) under a time range it did not use.
    cases = [
        ("events", "since", "2026-02-30T10:00", "From time", "events"),
        ("runs", "until", "2026-04-31", "Runs until time", "runs"),
    ]
    for tab, key, value, label, noun in cases:
        total = httpx.get(f"{server.url}/api/v1/lineage/openlineage/{noun}", params={"limit": 1})
        page.goto(f"{server.url}/?{urlencode({'tab': tab, key: value})}")
        field = page.get_by_label(label)
        expect(field).to_have_value(value.replace("T", " "))
        expect(field).to_have_attribute("aria-invalid", "true")
        assert field.evaluate("el => getComputedStyle(el).borderColor") == INVALID_BORDER
        note = page.get_by_test_id("time-link-note")
        expect(note).to_contain_text(f"{key}={value}")
        expect(note).to_contain_text("2026-11-28 02:00")  # the form it takes
        expect(note).to_contain_text(f"every {noun[:-1]}")  # what the page shows instead
        expect(page.get_by_test_id("pager-count")).to_contain_text(
            f"of {total.json()['total']} {noun}"
        )
        note.get_by_role("button", name="Dismiss").click()
        expect(note).to_have_count(0)
        # A real time typed over it is used (its UTC instant in the URL), and the mark goes.
        field.fill("2000-01-01 00:00")
        field.press("Enter")
        utc = page.evaluate("() => new Date(2000, 0, 1).toISOString().replace('.000Z', 'Z')")
        page.wait_for_function(
            f"() => new URLSearchParams(location.search).get('{key}') === '{utc}'"
        )
        expect(field).not_to_have_attribute("aria-invalid", "true")


def test_a_link_value_the_events_or_runs_tab_ignores_is_no_filter(
    page: Page, server: ServerProcess
) -> None:
    # state=BOGUS (type=BOGUS) is no run state (event type): the tab lists every run (event),
    # yet the note said it showed "the runs the other filters match", none being set.
    cases = [
        ("events", "type", "COMPLETE", "events"),
        ("runs", "state", "FAIL", "runs"),
    ]
    for tab, key, valid, noun in cases:
        total = httpx.get(f"{server.url}/api/v1/lineage/openlineage/{noun}", params={"limit": 1})
        page.goto(f"{server.url}/?{urlencode({'tab': tab, key: 'BOGUS', 'until': '2026-04-31'})}")
        note = page.get_by_test_id("time-link-note")
        expect(note).to_contain_text(f"every {noun[:-1]},")
        expect(note).not_to_contain_text("other filters")
        expect(page.get_by_test_id("pager-count")).to_contain_text(
            f"of {total.json()['total']} {noun}"
        )
        # A value the tab takes is a filter.
        page.goto(f"{server.url}/?{urlencode({'tab': tab, key: valid, 'until': '2026-04-31'})}")
        expect(page.get_by_test_id("time-link-note")).to_contain_text(
            f"the {noun} the other filters match"
        )


def test_the_events_or_runs_dropdown_shows_the_type_or_state_the_tab_filters_on(
    page: Page, server: ServerProcess
) -> None:
    # A link's state=fail (type=complete) is FAIL (COMPLETE), in any case, yet the dropdown
    # showed "Any state" ("Any type"): it held the link's text, which is no option.
    cases = [
        ("events", "type", "complete", "COMPLETE", "Event type filter", "event_type"),
        ("runs", "state", "fail", "FAIL", "Run state filter", "state"),
    ]
    for tab, key, written, value, label, param in cases:
        url = f"{server.url}/api/v1/lineage/openlineage/{tab}"
        total = httpx.get(url, params={"limit": 1}).json()["total"]
        matching = httpx.get(url, params={param: value, "limit": 1}).json()["total"]
        assert 0 < matching < total, (tab, matching, total)
        page.goto(f"{server.url}/?{urlencode({'tab': tab, key: written})}")
        expect(page.get_by_test_id("pager-count")).to_contain_text(f"of {matching} {tab}")
        expect(page.get_by_label(label)).to_have_value(value)
        # A value the tab ignores is no filter: the dropdown shows none.
        page.goto(f"{server.url}/?{urlencode({'tab': tab, key: 'BOGUS'})}")
        expect(page.get_by_test_id("pager-count")).to_contain_text(f"of {total} {tab}")
        expect(page.get_by_label(label)).to_have_value("")
