"""Times in the browser's time zone, the zone named (Session 18).

The UI shows every time in the browser's zone while the API, the logs and the
docs speak UTC. The zone is named beside each time field and in each column of
times, a local time typed into As of lands in the URL as its UTC instant, and
each shown time's tooltip gives its UTC instant. The browser runs at
Asia/Kolkata (UTC+05:30 all year: a half-hour offset, no daylight saving), so
no text that is really UTC passes by chance.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.server_process import ServerProcess
from tests.ui.conftest import OL, VIEWPORT, PageErrors, api, url_param, wait_graph

ZONE = "Asia/Kolkata"
NEW_YORK = "America/New_York"
TRAIN = {"node_type": "job", "node_ns": "spark://ml-team", "node": "train_driver_ranking"}


@contextmanager
def opened_at(browser: Browser, zone: str) -> Iterator[Page]:
    """A fresh page in a browser at ``zone`` that fails the test on a JavaScript error."""
    context = browser.new_context(viewport=VIEWPORT, timezone_id=zone)  # type: ignore[arg-type]
    opened = context.new_page()
    errors = PageErrors()
    opened.on("console", errors.on_console)
    opened.on("pageerror", errors.on_page_error)
    try:
        yield opened
    finally:
        context.close()
    assert not errors.errors, f"the page logged errors: {errors.errors}"


@pytest.fixture
def kolkata(browser: Browser) -> Iterator[Page]:
    """A fresh page in a browser at Asia/Kolkata that fails the test on a JavaScript error."""
    with opened_at(browser, ZONE) as opened:
        yield opened


def local(iso: str) -> str:
    """An API instant as the page shows it at Asia/Kolkata, to the second."""
    at = datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(ZoneInfo(ZONE))
    return at.strftime("%Y-%m-%d %H:%M:%S")


def tooltip(iso: str) -> re.Pattern[str]:
    """A shown time's tooltip: its UTC instant as the API says it, then it at Asia/Kolkata."""
    return re.compile(
        rf"^UTC: {re.escape(iso)}\n{ZONE}: {re.escape(local(iso))}\.\d{{6}} \(UTC\+05:30\)$"
    )


def header(table: Locator, column: str) -> Locator:
    return table.locator(f"th[data-column={column}]")


def test_as_of_names_the_zone_it_reads_and_lands_in_the_url_in_utc(
    kolkata: Page, server: ServerProcess
) -> None:
    page = kolkata
    page.goto(server.url)
    wait_graph(page)
    as_of = page.get_by_label("As of (empty: now)")
    # Each time field names the zone it reads a typed time in, visibly and as its description.
    expect(page.get_by_test_id("as-of-input-zone")).to_have_text(ZONE)
    expect(as_of).to_have_accessible_description(ZONE)
    expect(
        page.get_by_label("Changes since (empty: no comparison)")
    ).to_have_accessible_description(ZONE)
    # 09:00 at Kolkata is 03:30 UTC: the URL keeps the instant in UTC.
    as_of.fill("2026-03-01 09:00")
    as_of.press("Enter")
    page.wait_for_function(
        "() => new URLSearchParams(location.search).get('as_of') === '2026-03-01T03:30:00Z'"
    )
    banner = page.get_by_test_id("history-banner")
    expect(banner).to_contain_text(f"as it stood at 2026-03-01 09:00:00 {ZONE}.")
    expect(banner.locator("time")).to_have_attribute("title", tooltip("2026-03-01T03:30:00Z"))
    # An instant typed with an offset is read in it, and the field says so while it is typed.
    as_of.fill("2026-03-01T09:00:00+02:00")
    expect(page.get_by_test_id("as-of-input-zone")).to_have_text("UTC+02:00")
    as_of.press("Enter")
    page.wait_for_function(
        "() => new URLSearchParams(location.search).get('as_of') === '2026-03-01T07:00:00Z'"
    )
    expect(as_of).to_have_value("2026-03-01 12:30:00")
    expect(page.get_by_test_id("as-of-input-zone")).to_have_text(ZONE)
    as_of.fill("2026-03-01T09:00:00Z")
    expect(page.get_by_test_id("as-of-input-zone")).to_have_text("UTC")

    # The Jobs tab's As of too.
    page.goto(f"{server.url}/?{urlencode({'tab': 'jobs'})}")
    catalog_as_of = page.get_by_test_id("catalog-as-of-input")
    expect(catalog_as_of).to_have_accessible_description(ZONE)
    catalog_as_of.fill("2026-03-01 00:00")
    catalog_as_of.press("Enter")
    page.wait_for_function(
        "() => new URLSearchParams(location.search).get('as_of') === '2026-02-28T18:30:00Z'"
    )
    assert url_param(page, "as_of") == "2026-02-28T18:30:00Z"


def test_each_column_of_times_names_the_zone_and_each_time_gives_utc_on_hover(
    kolkata: Page, server: ServerProcess
) -> None:
    page = kolkata
    runs = api(server, "runs", limit=50)["runs"]
    page.goto(f"{server.url}/?tab=runs")
    table = page.get_by_test_id("run-list")
    expect(header(table, "started")).to_contain_text(f"Started ({ZONE})")
    expect(header(table, "ended")).to_contain_text(f"Ended ({ZONE})")
    expect(page.get_by_label("Runs from time")).to_have_accessible_description(ZONE)
    expect(page.get_by_label("Runs until time")).to_have_accessible_description(ZONE)
    first: dict[str, Any] = runs[0]
    started = table.locator(f"tr[data-run-id='{first['run_id']}'] td[data-column=started] time")
    expect(started).to_have_text(re.compile(rf"^{re.escape(local(first['started_at_iso']))}"))
    expect(started).to_have_attribute("title", tooltip(first["started_at_iso"]))

    events = api(server, "events", limit=1)["events"]
    page.goto(f"{server.url}/?tab=events")
    table = page.get_by_test_id("events-table")
    expect(table.locator("th").first).to_have_text(f"Event time ({ZONE})")
    expect(page.get_by_label("From time")).to_have_accessible_description(ZONE)
    expect(page.get_by_label("Until time")).to_have_accessible_description(ZONE)
    when = table.locator(f"tr[data-event-id='{events[0]['id']}'] time")
    expect(when).to_have_attribute("title", tooltip(events[0]["event_time_iso"]))

    page.goto(f"{server.url}/?tab=jobs")
    table = page.get_by_test_id("job-table")
    expect(header(table, "latest_started")).to_contain_text(f"Started ({ZONE})")
    expect(header(table, "updated")).to_contain_text(f"Updated ({ZONE})")
    expect(table.locator("td[data-column=updated] time").first).to_have_attribute(
        "title", re.compile(r"^UTC: \d{4}-\d\d-\d\dT[\d:.]+Z\n")
    )

    # The details panel: its lists of times name the zone; a time in a sentence names it after it.
    page.goto(f"{server.url}/?{urlencode({'tab': 'jobs', **TRAIN})}")
    panel = page.get_by_test_id("details-panel")
    expect(panel.get_by_test_id("runs-table").locator("th").nth(2)).to_have_text(
        f"Started ({ZONE})"
    )
    expect(panel.get_by_test_id("job-versions-head")).to_have_text(f"First run ({ZONE})")
    job = next(j for j in api(server, "jobs", limit=1000)["jobs"] if j["job_name"] == TRAIN["node"])
    updated = panel.locator(".panel-meta time")
    expect(updated).to_have_text(f"{local(job['updated_at_iso'])} {ZONE}")
    expect(updated).to_have_attribute("title", tooltip(job["updated_at_iso"]))


def a_cut(times: list[str]) -> datetime:
    """A whole minute (UTC) with some of ``times`` before it and some at or after it."""
    at = sorted(datetime.fromisoformat(t.replace("Z", "+00:00")) for t in times)
    cuts = sorted(
        {
            t.replace(second=0, microsecond=0)
            for t in at
            if t.replace(second=0, microsecond=0) > at[0]
        }
    )
    assert cuts, f"all of {times} are in one minute"
    return cuts[len(cuts) // 2]


def z(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def in_zone(at: datetime, zone: str, form: str = "%Y-%m-%d %H:%M:%S") -> str:
    return at.astimezone(ZoneInfo(zone)).strftime(form)


FILTERS = [
    # tab, the field's label, the list's API path, the time each item is filtered on
    ("events", "From time", "events", "event_time_iso"),
    ("runs", "Runs from time", "runs", "started_at_iso"),
]


@pytest.mark.parametrize(("tab", "label", "path", "time_key"), FILTERS)
def test_an_events_or_runs_time_filter_lands_in_the_url_in_utc_and_means_the_same_elsewhere(
    browser: Browser, server: ServerProcess, tab: str, label: str, path: str, time_key: str
) -> None:
    # The filters kept a typed time as local text (since=2026-11-28T02:00): a colleague in
    # another zone opening the link listed another time range.
    cut = a_cut([item[time_key] for item in api(server, path, limit=1000)[path]])
    listed = api(server, path, since=z(cut), limit=1)["total"]
    assert 0 < listed < api(server, path, limit=1)["total"]
    with opened_at(browser, ZONE) as page:
        asked: list[str] = []
        page.on("request", lambda r: asked.append(r.url) if f"{OL}/{path}?" in r.url else None)
        page.goto(f"{server.url}/?tab={tab}")
        field = page.get_by_label(label)
        field.fill(in_zone(cut, ZONE, "%Y-%m-%d %H:%M"))
        field.press("Enter")
        # The URL keeps the UTC instant, and the API is asked for it.
        page.wait_for_function(
            f"() => new URLSearchParams(location.search).get('since') === '{z(cut)}'"
        )
        expect(page.get_by_test_id("pager-count")).to_contain_text(f"of {listed} {path}")
        assert any(parse_qs(urlparse(url).query).get("since") == [z(cut)] for url in asked)
        expect(field).to_have_value(in_zone(cut, ZONE))
        link = page.url
        # A link made before (local text, no zone) still means the time at Asia/Kolkata,
        # and the URL is rewritten to its instant.
        old = urlencode({"tab": tab, "since": in_zone(cut, ZONE, "%Y-%m-%dT%H:%M")})
        page.goto(f"{server.url}/?{old}")
        page.wait_for_function(
            f"() => new URLSearchParams(location.search).get('since') === '{z(cut)}'"
        )
        expect(field).to_have_value(in_zone(cut, ZONE))
        expect(page.get_by_test_id("pager-count")).to_contain_text(f"of {listed} {path}")
        # A filter time that is no time: the note names the zone a local time is read in.
        page.goto(f"{server.url}/?{urlencode({'tab': tab, 'until': '2026-04-31'})}")
        expect(page.get_by_test_id("time-link-note")).to_contain_text(f"in your time zone, {ZONE}")
    # At New York, the link shows the same instant, in New York's time, and the same list.
    with opened_at(browser, NEW_YORK) as page:
        page.goto(link)
        field = page.get_by_label(label)
        expect(field).to_have_value(in_zone(cut, NEW_YORK))
        expect(field).to_have_accessible_description(NEW_YORK)
        expect(page.get_by_test_id("pager-count")).to_contain_text(f"of {listed} {path}")
        assert url_param(page, "since") == z(cut)
