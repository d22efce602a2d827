"""A job's version then in Chromium (views/details/JobVersions.tsx, ChangeSection.tsx).

A version that only a run under way at an instant ran (its START before the
instant, its COMPLETE, with other inputs and outputs, after) is no version the
store keeps: the server answers it only with ``until``, which the UI sends as of
the time control's instant or, for a diff's version then, as of the URL's
``jobver_at``. When the time control's instant changes (Back to now, another As of),
a version open stays read as of the instant it was opened at, which the URL's
``jobver_at`` keeps and its header names (history/jobVersionAt.ts); back at that
instant, ``jobver_at`` goes. A malformed ``jobver_at`` is named in the link's note with
the malformed times. The quickstart has no such run, so this module posts its own
history to a fresh server.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from playwright.sync_api import Locator, Page, expect

from tests.server_process import ServerProcess, write_repo
from tests.ui.conftest import OL, api, ui_server, url_param, wait_graph

PRODUCER = "https://scheduler.example.com/shop/1.0"
SPEC = "https://openlineage.io/spec/2-0-2/OpenLineage.json"
SHOP = "shop"
WAREHOUSE = "warehouse"
JOB = {"node_type": "job", "node_ns": SHOP, "node": "load_orders"}
READ_AT_START = "raw.orders"
# Named only in the run's COMPLETE, after the instant.
READ_LATER = "raw.refunds"
WRITTEN_LATER = "mart.orders"


@dataclass(frozen=True)
class History:
    server: ServerProcess
    then: str  # T1: the run was under way
    version_then: str  # what its START defined (read raw.orders, wrote nothing)
    version_now: str  # what its START and COMPLETE define


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _event(kind: str, at: datetime, run_id: str, inputs: list[str], outputs: list[str]) -> Any:
    return {
        "eventType": kind,
        "eventTime": _iso(at),
        "producer": PRODUCER,
        "schemaURL": SPEC,
        "job": {"namespace": SHOP, "name": JOB["node"]},
        "run": {"runId": run_id},
        "inputs": [{"namespace": WAREHOUSE, "name": n} for n in inputs],
        "outputs": [{"namespace": WAREHOUSE, "name": n} for n in outputs],
    }


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[History]:
    """One run of the job: START at T0 reading raw.orders, the instant T1, COMPLETE at T2
    reading raw.refunds too and writing mart.orders. Its one run makes "changes since T1"
    a redefinition: the job's version then is the START's, now the run's whole one."""
    now = datetime.now(UTC).replace(microsecond=0)
    t0, t1, t2 = (now - timedelta(hours=h) for h in (3, 2, 1))
    run_id = str(uuid.uuid4())
    events = [
        _event("START", t0, run_id, [READ_AT_START], []),
        _event("COMPLETE", t2, run_id, [READ_LATER], [WRITTEN_LATER]),
    ]
    repo = write_repo(tmp_path_factory.mktemp("versions-then") / "repo", project="then")
    with ui_server(repo) as running:
        posted = httpx.post(f"{running.url}/api/v1/lineage/batch", json=events, timeout=60)
        assert posted.status_code in (200, 204), posted.text
        then = _iso(t1)
        diff = api(running, "lineage/diff", **{"from": then, "to": "9999-12-31T00:00:00Z"})
        (change,) = diff["job_changes"]
        assert change["changed"] == ["inputs", "outputs"], change
        versions = f"jobs/{SHOP}/{JOB['node']}/versions"
        (final,) = api(running, versions)["versions"]
        assert change["to_version"] == final["id"]
        # What makes the URL's instant needed: without `until` the version then is not found.
        missing = httpx.get(f"{running.url}{OL}/{versions}/{change['from_version']}", timeout=30)
        assert missing.status_code == 404, missing.text
        yield History(running, then, change["from_version"], final["id"])


def _open(page: Page, url: str) -> Locator:
    """Load ``url``; the details panel."""
    page.goto(url)
    wait_graph(page)
    return page.get_by_test_id("details-panel")


def _listed(panel: Locator) -> Locator:
    """The rows of the job's Versions list in the details panel."""
    return panel.get_by_test_id("job-versions").locator("li.job-version")


def _shows_version_then(panel: Locator, history: History) -> None:
    """The version then is open with what the run's START named, not a failure."""
    detail = panel.get_by_test_id("job-version-detail")
    expect(detail).to_have_attribute("data-version-id", history.version_then)
    expect(detail).to_contain_text(f"Inputs: {READ_AT_START}")
    expect(detail).to_contain_text("Outputs: none")
    expect(detail).not_to_contain_text(READ_LATER)
    expect(panel.get_by_text("Could not load")).to_have_count(0)


def test_as_of_an_instant_the_version_a_run_under_way_then_ran_opens(
    page: Page, history: History
) -> None:
    server = history.server
    panel = _open(page, f"{server.url}/?{urlencode({**JOB, 'as_of': history.then})}")
    # Listed as the one current then, the only one run by then.
    listed = _listed(panel)
    expect(listed).to_have_count(1)
    expect(listed).to_have_attribute("data-version-id", history.version_then)
    expect(listed).to_have_attribute("data-current", "true")
    listed.get_by_role("button").first.click()
    page.wait_for_function(
        f"() => new URLSearchParams(location.search).get('jobver') === '{history.version_then}'"
    )
    _shows_version_then(panel, history)
    # Read as of the time control's instant, which the URL keeps: a link opens it again.
    assert url_param(page, "as_of") == history.then
    assert url_param(page, "jobver_at") is None
    _shows_version_then(_open(page, page.url), history)


def test_changes_since_an_instant_the_job_s_version_then_opens_as_of_that_instant(
    page: Page, history: History
) -> None:
    server = history.server
    since = history.then
    panel = _open(page, f"{server.url}/?{urlencode({**JOB, 'changes_since': since})}")
    change = panel.get_by_test_id("change-section")
    expect(change).to_contain_text("inputs, outputs changed")
    # Now, the job's versions list only its final one: the version then is read as of since.
    expect(_listed(panel)).to_have_attribute("data-version-id", history.version_now)
    change.get_by_test_id("change-version-then").click()
    _shows_version_then(panel, history)
    assert url_param(page, "jobver") == history.version_then
    assert url_param(page, "jobver_at") == since
    link = page.url

    # The version now is read now: the instant goes from the URL.
    change.get_by_test_id("change-version-now").click()
    detail = panel.get_by_test_id("job-version-detail")
    expect(detail).to_have_attribute("data-version-id", history.version_now)
    expect(detail).to_contain_text(f"Inputs: {READ_AT_START}, {READ_LATER}")
    expect(detail).to_contain_text(f"Outputs: {WRITTEN_LATER}")
    assert url_param(page, "jobver_at") is None

    # A link to the version then opens it again.
    _shows_version_then(_open(page, link), history)
    expect(panel.get_by_test_id("change-section")).to_contain_text("inputs, outputs changed")


def _read_at(panel: Locator) -> Locator:
    """What the open version's header says it is read as of (when not the time control's)."""
    return panel.get_by_test_id("job-version-detail").get_by_test_id("version-read-at")


def test_back_to_now_the_version_open_as_of_an_instant_stays_read_as_of_it(
    page: Page, history: History
) -> None:
    server = history.server
    panel = _open(page, f"{server.url}/?{urlencode({**JOB, 'as_of': history.then})}")
    listed = _listed(panel)
    listed.get_by_role("button").first.click()
    _shows_version_then(panel, history)
    # Read as of the time control's instant: the header names none.
    expect(_read_at(panel)).to_have_count(0)
    as_of_then = page.url

    page.get_by_test_id("back-to-now").click()
    page.wait_for_function("() => !new URLSearchParams(location.search).has('as_of')")
    # Now, the job's Versions list its final version only ...
    expect(listed).to_have_attribute("data-version-id", history.version_now)
    # ... and the version open stays the one it was, read as of the instant it was opened at,
    # which its header names; the URL keeps that instant, so a link opens it again.
    assert url_param(page, "jobver") == history.version_then
    assert url_param(page, "jobver_at") == history.then
    _shows_version_then(panel, history)
    expect(_read_at(panel)).to_contain_text("as of")
    expect(_read_at(panel).locator("time")).to_have_attribute("datetime", history.then)
    _shows_version_then(_open(page, page.url), history)
    expect(_read_at(panel).locator("time")).to_have_attribute("datetime", history.then)

    # Back in the browser: as of the instant again, the version read as of the time control's.
    page.go_back()
    page.wait_for_url(as_of_then)
    _shows_version_then(panel, history)
    expect(_read_at(panel)).to_have_count(0)


def test_as_of_an_earlier_instant_the_version_open_now_stays_read_as_of_now(
    page: Page, history: History
) -> None:
    server = history.server
    panel = _open(page, f"{server.url}/?{urlencode(JOB)}")
    listed = _listed(panel)
    expect(listed).to_have_attribute("data-version-id", history.version_now)
    listed.get_by_role("button").first.click()
    detail = panel.get_by_test_id("job-version-detail")
    expect(detail).to_have_attribute("data-version-id", history.version_now)
    expect(_read_at(panel)).to_have_count(0)

    # As of T1 the job's version was another (the one its run under way then ran); the
    # version open now (no run had run it by then) stays open, read as of now.
    page.get_by_test_id("as-of-input").fill(history.then)
    page.get_by_test_id("as-of-input").press("Enter")
    expect(listed).to_have_attribute("data-version-id", history.version_then)
    assert url_param(page, "as_of") == history.then
    assert url_param(page, "jobver") == history.version_now
    assert url_param(page, "jobver_at") == "now"
    expect(detail).to_have_attribute("data-version-id", history.version_now)
    expect(detail).to_contain_text(f"Inputs: {READ_AT_START}, {READ_LATER}")
    expect(detail).to_contain_text(f"Outputs: {WRITTEN_LATER}")
    expect(_read_at(panel)).to_have_text("as of now")
    expect(panel.get_by_text("Could not load")).to_have_count(0)


def _url_lacks(page: Page, key: str) -> None:
    page.wait_for_function(f"() => !new URLSearchParams(location.search).has('{key}')")


def test_a_malformed_jobver_at_in_a_link_is_named_with_the_malformed_times_and_left_out(
    page: Page, history: History
) -> None:
    server = history.server
    version = {**JOB, "as_of": history.then, "jobver": history.version_then}
    # It was passed over without a word (the version read as of the time control's), and
    # the link kept it.
    panel = _open(page, f"{server.url}/?{urlencode({**version, 'jobver_at': 'garbage'})}")
    note = page.get_by_test_id("time-link-note")
    expect(note).to_contain_text("jobver_at=garbage")
    expect(note).to_contain_text("jobver_at takes an ISO 8601 instant such as")
    expect(note).to_contain_text(", or now.")
    expect(note).to_contain_text("It was left out")
    # Read as of the time control's instant, which the URL now says alone.
    _url_lacks(page, "jobver_at")
    assert url_param(page, "as_of") == history.then
    assert url_param(page, "jobver") == history.version_then
    _shows_version_then(panel, history)
    expect(_read_at(panel)).to_have_count(0)
    note.get_by_role("button", name="Dismiss").click()
    expect(note).to_have_count(0)

    # Listed with another malformed time the link gives, each named.
    _open(
        page,
        f"{server.url}/?"
        + urlencode({**version, "changes_since": "soon", "jobver_at": "2026-13-01T00:00:00Z"}),
    )
    expect(note).to_contain_text("changes_since=soon")
    expect(note).to_contain_text("jobver_at=2026-13-01T00:00:00Z")
    expect(note).to_contain_text("They were left out")
    _url_lacks(page, "jobver_at")
    _url_lacks(page, "changes_since")
    _shows_version_then(panel, history)

    # "now" is no malformed jobver_at: the version now, read as of now as of T1, is kept.
    now = {**version, "jobver": history.version_now, "jobver_at": "now"}
    _open(page, f"{server.url}/?{urlencode(now)}")
    detail = panel.get_by_test_id("job-version-detail")
    expect(detail).to_have_attribute("data-version-id", history.version_now)
    expect(_read_at(panel)).to_have_text("as of now")
    assert url_param(page, "jobver_at") == "now"
    expect(note).to_have_count(0)
    # Nor is an instant in another form: it is written in the server's, quietly.
    offset = {**JOB, "jobver": history.version_then}
    _open(page, f"{server.url}/?{urlencode({**offset, 'jobver_at': history.then[:-1] + '+00:00'})}")
    page.wait_for_function(
        f"() => new URLSearchParams(location.search).get('jobver_at') === '{history.then}'"
    )
    _shows_version_then(panel, history)
    expect(_read_at(panel).locator("time")).to_have_attribute("datetime", history.then)
    expect(note).to_have_count(0)


def test_back_at_the_instant_a_version_was_read_as_of_jobver_at_goes_from_the_url(
    page: Page, history: History
) -> None:
    server = history.server
    panel = _open(page, f"{server.url}/?{urlencode({**JOB, 'as_of': history.then})}")
    _listed(panel).get_by_role("button").first.click()
    _shows_version_then(panel, history)
    page.get_by_test_id("back-to-now").click()
    _url_lacks(page, "as_of")
    assert url_param(page, "jobver_at") == history.then
    carried = page.url

    # As of that instant again, the version is read as of the time control's: jobver_at
    # (which stayed) goes, in the same history entry, and the header names no instant.
    page.get_by_test_id("as-of-input").fill(history.then)
    page.get_by_test_id("as-of-input").press("Enter")
    page.wait_for_function("() => new URLSearchParams(location.search).has('as_of')")
    assert url_param(page, "as_of") == history.then
    _url_lacks(page, "jobver_at")
    assert url_param(page, "jobver") == history.version_then
    _shows_version_then(panel, history)
    expect(_read_at(panel)).to_have_count(0)
    back_at_it = page.url

    # Back and Forward give each entry as it was.
    page.go_back()
    page.wait_for_url(carried)
    _shows_version_then(panel, history)
    expect(_read_at(panel).locator("time")).to_have_attribute("datetime", history.then)
    page.go_forward()
    page.wait_for_url(back_at_it)
    _shows_version_then(panel, history)
    expect(_read_at(panel)).to_have_count(0)

    # A link that names the time control's instant twice says it once (the same instant
    # in another form too).
    version = {**JOB, "as_of": history.then, "jobver": history.version_then}
    for given in (history.then, history.then.replace("Z", "+00:00")):
        _open(page, f"{server.url}/?{urlencode({**version, 'jobver_at': given})}")
        _url_lacks(page, "jobver_at")
        assert url_param(page, "as_of") == history.then
        _shows_version_then(panel, history)
        expect(_read_at(panel)).to_have_count(0)
        expect(page.get_by_test_id("time-link-note")).to_have_count(0)


def test_back_to_now_a_version_carried_as_of_now_drops_jobver_at(
    page: Page, history: History
) -> None:
    server = history.server
    panel = _open(page, f"{server.url}/?{urlencode(JOB)}")
    _listed(panel).get_by_role("button").first.click()
    detail = panel.get_by_test_id("job-version-detail")
    expect(detail).to_have_attribute("data-version-id", history.version_now)
    page.get_by_test_id("as-of-input").fill(history.then)
    page.get_by_test_id("as-of-input").press("Enter")
    page.wait_for_function("() => new URLSearchParams(location.search).get('jobver_at') === 'now'")
    expect(_read_at(panel)).to_have_text("as of now")
    carried = page.url

    page.get_by_test_id("back-to-now").click()
    _url_lacks(page, "as_of")
    _url_lacks(page, "jobver_at")
    assert url_param(page, "jobver") == history.version_now
    expect(detail).to_have_attribute("data-version-id", history.version_now)
    expect(_read_at(panel)).to_have_count(0)

    page.go_back()
    page.wait_for_url(carried)
    expect(detail).to_have_attribute("data-version-id", history.version_now)
    expect(_read_at(panel)).to_have_text("as of now")
