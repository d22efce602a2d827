"""Real events of other producers (../shared/openlineage/events) through the ingest API.

Files are classified by content (tests/fixture_events.py). What only
SOURCES.md can tell is kept in the small tables below.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.consumer.routes.test_ingest import BATCH, LINEAGE, assert_error, post, stored_events
from tests.fixture_events import (
    Fixture,
    TemplateFiller,
    contains_placeholder,
    load_fixtures,
    missing_fields,
    sample_for_regex,
)

FIXTURES = load_fixtures()

# The per-file table of SOURCES.md, counted by class. (Its TOTAL row says
# "malformed 1", but no file in the tree fails to parse and no per-file row
# says malformed: the per-file table is what holds.)
SOURCES_FILE_COUNTS = {"complete": 26, "lenient": 11, "partial": 33, "templated": 35}

# SOURCES.md: structurally valid, but a facet breaks its standard facet
# schema. Facets are kept verbatim and not checked, so these are accepted.
FACET_INVALID = {
    "ol_proxy_fluentd/events/event_invalid_dataset_facet.json",
    "ol_proxy_fluentd/events/event_invalid_input_dataset_facet.json",
    "ol_proxy_fluentd/events/event_invalid_job_facet.json",
    "ol_proxy_fluentd/events/event_invalid_output_dataset_facet.json",
    "ol_proxy_fluentd/events/event_invalid_run_facet.json",
    "ol_proxy_fluentd/events/event_full.json",  # dataQualityMetrics lacks columnMetrics
    "marquez/open_lineage/event_full.json",
}
# SOURCES.md: without schemaURL (Marquez accepts them; so do we).
LENIENT_GROUPS = {"marquez/apples/", "marquez/open_lineage/listener/"}
# Two groups carry the very same event: stored once.
SAME_CONTENT = (
    "marquez/open_lineage/event_simple.json",
    "ol_proxy_fluentd/events/event_simple.json",
)


def of_kind(*kinds: str) -> list[Fixture]:
    return [f for f in FIXTURES if f.kind in kinds]


def canonical(event: Any) -> str:
    return json.dumps(event, sort_keys=True)


def test_classification_agrees_with_sources_md() -> None:
    counts = Counter(f.kind for f in FIXTURES)
    assert counts == SOURCES_FILE_COUNTS
    by_name = {f.name: f for f in FIXTURES}
    assert {by_name[name].kind for name in FACET_INVALID} == {"complete"}
    lenient = {f.name for f in of_kind("lenient")}
    assert lenient == {n for n in by_name if n.startswith(tuple(LENIENT_GROUPS))} | {
        "marquez/open_lineage/event_without_schema_url.json"
    }
    assert by_name[SAME_CONTENT[0]].value == by_name[SAME_CONTENT[1]].value


def test_complete_and_lenient_events_are_accepted_and_stored(client: TestClient) -> None:
    accepted = of_kind("complete", "lenient")
    failures = []
    for fixture in accepted:
        response = post(client, LINEAGE, fixture.value)
        if response.status_code != 201:
            failures.append(f"{fixture.name}: {response.status_code} {response.text[:300]}")
    assert not failures, "\n".join(failures)
    stored = stored_events(client)
    distinct = {canonical(f.value) for f in accepted}
    assert len(distinct) == len(accepted) - 1  # SAME_CONTENT
    assert len(stored) == len(distinct)
    # Stored verbatim: every key and custom facet as sent (no credentials in these files).
    assert {canonical(e) for e in stored} == distinct
    for fixture in accepted:
        run_id = fixture.value.get("run", {}).get("runId")
        if run_id:
            assert client.get(f"/api/v1/lineage/openlineage/runs/{run_id}").status_code == 200


def test_partial_events_are_400_naming_each_missing_field(client: TestClient) -> None:
    failures = []
    for fixture in of_kind("partial"):
        missing = missing_fields(fixture.value)
        assert missing, fixture.name
        response = post(client, LINEAGE, fixture.value)
        try:
            error = assert_error(response, 400, "invalid_event")
            paths = {d["path"] for d in error["details"]}
            assert set(missing) <= paths, (missing, paths)
            assert missing[0] in error["message"]
            if missing == ["$"]:  # no run, job or dataset at all
                assert "'job'" in error["message"]
        except AssertionError as err:
            failures.append(f"{fixture.name}: {err}")
    assert not failures, "\n".join(failures)
    assert stored_events(client) == []


def test_malformed_files_are_400(client: TestClient) -> None:
    # No shared file is malformed today; damaged copies of real ones stand in.
    bodies = {f.name: f.text.encode() for f in of_kind("malformed")}
    for fixture in of_kind("complete")[::3]:
        text = fixture.text.encode()
        bodies[f"{fixture.name} cut short"] = text[: len(text) // 2]
        bodies[f"{fixture.name} missing a comma"] = text.replace(b",", b"", 1)
    for name, content in bodies.items():
        error = assert_error(post(client, LINEAGE, content), 400, "invalid_json")
        assert "JSON" in error["message"], name
    assert stored_events(client) == []


def filled(fixture: Fixture) -> Any:
    value = TemplateFiller(fixture.group).fill_file(fixture.value)
    assert not contains_placeholder(value), fixture.name
    return value


def test_templated_events_are_accepted_once_filled(client: TestClient) -> None:
    failures = []
    sent: list[dict[str, Any]] = []
    for fixture in of_kind("templated"):
        value = filled(fixture)
        if isinstance(value, list):  # dbt and Marquez ship batches
            response, expected = post(client, BATCH, value), 204
            sent += value
        else:
            response, expected = post(client, LINEAGE, value), 201
            sent.append(value)
        if response.status_code != expected:
            failures.append(f"{fixture.name}: {response.status_code} {response.text[:300]}")
    assert not failures, "\n".join(failures)
    assert len(sent) == 172  # SOURCES.md: 172 templated events
    stored = stored_events(client)
    assert len(stored) == len({canonical(e) for e in sent}) == len(sent)


def test_filled_dbt_runs_follow_their_events(client: TestClient) -> None:
    fixture = next(f for f in FIXTURES if f.name == "ol_dbt/fail/result.json")
    events = filled(fixture)
    assert post(client, BATCH, events).status_code == 204
    terminal = {e["run"]["runId"]: e["eventType"] for e in events if e["eventType"] != "START"}
    assert sorted(Counter(terminal.values()).items()) == [("COMPLETE", 2), ("FAIL", 1)]
    for run_id, state in terminal.items():
        run = client.get(f"/api/v1/lineage/openlineage/runs/{run_id}")
        assert run.status_code == 200, run.text
        assert run.json()["state"] == state
        assert run.json()["ended_at"] is not None


# --- the filler itself ----------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern",
    [
        r"1\.\d+\.\d+",
        r"2\.\d+.*",
        r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}",
        r".*/spark-warehouse/t1",
        r"file:.*/spark-warehouse",
        r"writing_to_big_query.adaptive_spark_plan._spark-bigquery-application_.*",
    ],
)
def test_regex_placeholders_get_a_matching_sample(pattern: str) -> None:
    assert re.fullmatch(pattern, sample_for_regex(pattern))


def test_filled_runs_pair_up_by_job_and_times_increase() -> None:
    fixture = next(f for f in FIXTURES if f.name == "ol_dbt/small/result.json")
    start, complete = filled(fixture)
    assert start["run"]["runId"] == complete["run"]["runId"]
    assert start["eventTime"] < complete["eventTime"]
    parent = start["run"]["facets"]["parent"]["run"]["runId"]
    assert parent == complete["run"]["facets"]["parent"]["run"]["runId"]
    assert parent != start["run"]["runId"]
    assert start["producer"].startswith("https://github.com/OpenLineage/")
