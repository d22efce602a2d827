"""eventTime at ingest: forms refused, leap seconds, times without an offset.

Over HTTP, on a SQLite file, a real PostgreSQL and a real MariaDB database.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import AppFactory
from tests.consumer.routes.test_ingest import BATCH, LINEAGE, assert_error, post
from tests.factories import run_event

RETENTION = "/api/v1/lineage/openlineage/retention"
EVENTS = "/api/v1/lineage/openlineage/events"
FORM = "send an RFC 3339 date-time such as 2024-05-01T12:00:00Z"


def event_times(client: TestClient) -> list[str]:
    items = client.get(EVENTS, params={"limit": 1000}).json()["events"]
    return sorted(item["event_time_iso"] for item in items)


def naive_count(client: TestClient) -> int:
    counters: dict[str, int] = client.get(RETENTION).json()["counters"]
    return counters["naive_event_times"]


@pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)  # refused before SQL
@pytest.mark.parametrize(
    ("time", "problem"),
    [
        ("2026-01-01", "is a date without a time"),
        ("2026-W01-1T00:00:00Z", "is an ISO week date"),
        ("2026-W01-1", "is an ISO week date"),
        (" 2026-01-01T12:00:00Z", "has whitespace before or after the date-time"),
    ],
)
def test_a_date_alone_or_a_week_date_is_refused_naming_the_field_and_the_form(
    client: TestClient, time: str, problem: str
) -> None:
    error = assert_error(
        post(client, LINEAGE, run_event(time=time)), 400, "invalid_event", "$.eventTime"
    )
    assert problem in error["message"]
    assert FORM in error["message"]
    assert event_times(client) == []


def test_a_leap_second_is_stored_as_the_last_microsecond_of_its_minute(
    client: TestClient,
) -> None:
    answer = post(client, LINEAGE, run_event(time="2016-12-31T23:59:60Z"))
    assert answer.status_code == 201, answer.text
    assert "warnings" not in answer.json()
    assert event_times(client) == ["2016-12-31T23:59:59.999999Z"]


def test_a_time_without_an_offset_is_stored_as_utc_with_a_warning(client: TestClient) -> None:
    answer = post(client, LINEAGE, run_event(time="2026-01-01T12:00:00"))
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert body["status"] == "created"
    assert body["summary"] == {"received": 1, "successful": 1, "failed": 0}
    (warning,) = body["warnings"]
    assert warning["code"] == "naive_event_time"
    assert warning["path"] == "$.eventTime"
    assert warning["count"] == 1
    assert "'2026-01-01T12:00:00' has no UTC offset and was taken as UTC" in warning["message"]
    assert "send Z or an offset such as +02:00" in warning["message"]
    assert answer.headers["Lineage-Warning"] == "naive_event_time; count=1; path=$.eventTime"
    assert event_times(client) == ["2026-01-01T12:00:00Z"]
    assert naive_count(client) == 1


def test_times_with_an_offset_get_no_warning(client: TestClient) -> None:
    answer = post(client, LINEAGE, [run_event(time="2026-01-01T12:00:00+02:00")])
    assert answer.status_code == 200, answer.text
    assert "warnings" not in answer.json()
    assert "Lineage-Warning" not in answer.headers
    assert naive_count(client) == 0


def _batch(times: list[str]) -> list[dict[str, Any]]:
    return [run_event(time=time) for time in times]


def test_an_array_gets_one_warning_counting_its_naive_times(client: TestClient) -> None:
    times = ["2026-01-01T12:00:00Z", "2026-01-01T12:00:01", "2026-01-01T12:00:02"]
    answer = post(client, LINEAGE, _batch(times))
    assert answer.status_code == 200, answer.text
    (warning,) = answer.json()["warnings"]
    assert (warning["path"], warning["count"]) == ("$[1].eventTime", 2)
    assert warning["message"].startswith("2 events have an eventTime without a UTC offset")
    assert answer.headers["Lineage-Warning"] == "naive_event_time; count=2; path=$[1].eventTime"
    assert naive_count(client) == 2


def test_the_batch_endpoint_keeps_204_and_warns_in_a_header(client: TestClient) -> None:
    answer = post(client, BATCH, _batch(["2026-01-01T12:00:00", "2026-01-01T12:00:01Z"]))
    assert answer.status_code == 204, answer.text
    assert answer.content == b""
    assert answer.headers["Lineage-Warning"] == "naive_event_time; count=1; path=$[0].eventTime"
    assert naive_count(client) == 1


def test_a_partial_answer_carries_the_warning_too(client: TestClient) -> None:
    events = _batch(["2026-01-01T12:00:00", "2026-01-01"])
    answer = post(client, LINEAGE, events)
    assert answer.status_code == 207, answer.text
    body = answer.json()
    assert [e["path"] for e in body["errors"]] == ["$[1].eventTime"]
    assert [(w["path"], w["count"]) for w in body["warnings"]] == [("$[0].eventTime", 1)]


def test_the_counter_adds_up_across_requests(client: TestClient) -> None:
    for second in range(3):
        post(client, LINEAGE, run_event(time=f"2026-01-01T12:00:0{second}"))
    post(client, LINEAGE, run_event(time="2026-01-01T12:00:09Z"))
    assert naive_count(client) == 3


def test_naive_event_time_refuse_refuses_them_naming_the_field(make_client: AppFactory) -> None:
    client = make_client(naive_event_time="refuse")
    assert_error(
        post(client, LINEAGE, run_event(time="2026-01-01T12:00:00")),
        400,
        "invalid_event",
        "$.eventTime",
        "has no UTC offset, which this server refuses (naive_event_time: refuse)",
        FORM,
    )
    assert event_times(client) == []
    answer = post(client, LINEAGE, run_event(time="2026-01-01T12:00:00Z"))
    assert answer.status_code == 201, answer.text
    assert event_times(client) == ["2026-01-01T12:00:00Z"]
    assert naive_count(client) == 0
