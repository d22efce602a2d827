"""Structural validation of OpenLineage 2-0-2 events."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from feast_lineage.consumer.intake.problems import EventProblem, InvalidEvent
from feast_lineage.consumer.intake.validation import event_kind, json_path, validate_event
from feast_lineage.event_time import parse_us
from tests.factories import at, dataset, dataset_event, facet, job_event, run_event

Event = dict[str, Any]


def problems(event: Any) -> list[tuple[str, str]]:
    with pytest.raises(InvalidEvent) as caught:
        validate_event(event)
    assert str(caught.value)  # the exception text lists the problems too
    return [(p.path, p.message) for p in caught.value.problems]


def edited(event: Event, change: Callable[[Event], None]) -> Event:
    copied = copy.deepcopy(event)
    change(copied)
    return copied


RUN = run_event(
    "START",
    inputs=[dataset("s3://b", "in1"), dataset("s3://b", "in2")],
    outputs=[dataset("s3://b", "out")],
)


# --- kinds -------------------------------------------------------------------


def test_kinds_are_told_apart_by_structure() -> None:
    assert validate_event(run_event())[0] == "run"
    assert validate_event(dataset_event("s3://b", "x"))[0] == "dataset"
    assert validate_event(job_event("ns", "j"))[0] == "job"


def test_structure_wins_over_schema_url() -> None:
    event = dataset_event("s3://b", "x")
    event["schemaURL"] = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunEvent"
    assert validate_event(event)[0] == "dataset"
    job = job_event("ns", "j")
    job["schemaURL"] = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunEvent"
    assert event_kind(job) == "job"


def test_a_run_makes_a_run_event() -> None:
    # A RunEvent has run and job; a JobEvent has job and no run.
    assert event_kind({"run": {}, "job": {}}) == "run"
    assert event_kind({"job": {}}) == "job"
    assert event_kind({"dataset": {}}) == "dataset"


def test_schema_url_is_optional() -> None:
    for event in (run_event(), dataset_event("s3://b", "x"), job_event("ns", "j")):
        del event["schemaURL"]
        validate_event(event)


def test_event_type_is_optional_on_a_run_event() -> None:
    assert validate_event(run_event(None))[0] == "run"


def test_unknown_fields_are_allowed() -> None:
    event = run_event()
    event["x-custom"] = {"anything": [1, 2]}
    event["run"]["extra"] = True
    event["job"]["extra"] = "x"
    validate_event(event)


@pytest.mark.parametrize("value", [[], "event", 3, None])
def test_an_event_must_be_an_object(value: Any) -> None:
    assert problems(value) == [("$", "an event must be a JSON object")]


def test_something_else_is_not_an_event() -> None:
    ((path, message),) = problems({"eventTime": at(0), "producer": "p"})
    assert path == "$"
    assert "RunEvent needs 'run' and 'job'" in message


# --- event times -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-01-01T12:00:00Z", "2026-01-01T12:00:00Z"),
        ("2026-01-01T12:00:00.123456789Z", "2026-01-01T12:00:00.123456Z"),
        ("2026-01-01T12:00:00.123456789", "2026-01-01T12:00:00.123456Z"),
        ("2026-01-01T12:00:00", "2026-01-01T12:00:00Z"),
        ("2026-01-01T14:00:00.5+02:00", "2026-01-01T12:00:00.5Z"),
    ],
)
def test_event_time_is_normalized(text: str, expected: str) -> None:
    event = run_event(time=text)
    assert validate_event(event) == ("run", parse_us(expected))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("tomorrow morning", "is not a date-time of the accepted form"),
        ("2026-02-30T00:00:00Z", "is not a valid date-time"),
        ("", "send an RFC 3339 date-time such as 2024-05-01T12:00:00Z"),
        ("2026-01-01", "is a date without a time"),
        ("2026-W01-1T00:00:00Z", "is an ISO week date"),
        (1767268800, "must be a string"),
        (None, "must be a string"),
    ],
)
def test_bad_event_times(value: Any, message: str) -> None:
    ((path, text),) = problems(edited(run_event(), lambda e: e.update(eventTime=value)))
    assert path == "$.eventTime"
    assert message in text


# --- required fields and types ---------------------------------------------------


def _del(*keys: Any) -> Callable[[Event], None]:
    def change(event: Event) -> None:
        target: Any = event
        for key in keys[:-1]:
            target = target[key]
        del target[keys[-1]]

    return change


def _set(value: Any, *keys: Any) -> Callable[[Event], None]:
    def change(event: Event) -> None:
        target: Any = event
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    return change


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (_del("run", "runId"), [("$.run.runId", "is required")]),
        (_del("job"), [("$.job", "is required")]),
        (_del("job", "namespace"), [("$.job.namespace", "is required")]),
        (_del("job", "name"), [("$.job.name", "is required")]),
        (_del("eventTime"), [("$.eventTime", "is required")]),
        (_del("producer"), [("$.producer", "is required")]),
        (_del("inputs", 1, "namespace"), [("$.inputs[1].namespace", "is required")]),
        (_del("outputs", 0, "name"), [("$.outputs[0].name", "is required")]),
        (_set("", "job", "name"), [("$.job.name", "must not be empty")]),
        (_set("", "producer"), [("$.producer", "must not be empty")]),
        (_set(["ns"], "job", "namespace"), [("$.job.namespace", "must be a string")]),
        (_set(7, "inputs", 1, "name"), [("$.inputs[1].name", "must be a string")]),
        (_set(None, "producer"), [("$.producer", "must be a string")]),
        (_set("x", "run"), [("$.run", "must be a JSON object")]),
        (_set(None, "job"), [("$.job", "must be a JSON object")]),
        (_set({}, "inputs"), [("$.inputs", "must be a JSON array")]),
        (_set("in", "outputs"), [("$.outputs", "must be a JSON array")]),
        (_set(["x"], "inputs"), [("$.inputs[0]", "must be a JSON object")]),
        (
            _set("not-a-uuid", "run", "runId"),
            [("$.run.runId", "must be a UUID such as 3f8e2a1c-5b7d-4c9e-8f6a-2d1b0c9e7a54")],
        ),
        (_set(12345, "run", "runId"), [("$.run.runId", "must be a UUID string")]),
        (
            _set("DONE", "eventType"),
            [("$.eventType", "must be one of START, RUNNING, COMPLETE, ABORT, FAIL, OTHER")],
        ),
        (
            _set("a" * 5000, "job", "name"),
            [("$.job.name", "is too long (at most 4096 characters)")],
        ),
    ],
)
def test_run_event_problems_have_exact_paths(
    change: Callable[[Event], None], expected: list[tuple[str, str]]
) -> None:
    assert problems(edited(RUN, change)) == expected


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (_set([], "run", "facets"), "$.run.facets"),
        (_set("x", "job", "facets"), "$.job.facets"),
        (_set({"nominalTime": "2026"}, "run", "facets"), "$.run.facets.nominalTime"),
        (_set({"sql": None}, "job", "facets"), "$.job.facets.sql"),
        (_set({"schema": 3}, "inputs", 1, "facets"), "$.inputs[1].facets.schema"),
        (_set({"my-facet": []}, "outputs", 0, "facets"), '$.outputs[0].facets["my-facet"]'),
        (_set({"q": []}, "inputs", 0, "inputFacets"), "$.inputs[0].inputFacets.q"),
        (_set("x", "outputs", 0, "outputFacets"), "$.outputs[0].outputFacets"),
    ],
)
def test_facets_must_be_objects(change: Callable[[Event], None], path: str) -> None:
    assert problems(edited(RUN, change)) == [(path, "must be a JSON object")]


def test_facet_contents_are_not_checked() -> None:
    # Custom facets and facets that stray from the standard schemas are kept.
    event = run_event(
        run_facets={"custom": {"anything": [1, None, {"x": True}]}, "empty": {}},
        job_facets={"sql": facet(query=42)},
        inputs=[dataset("s3://b", "x", schema=facet(fields="not a list"))],
    )
    validate_event(event)


def test_bad_facet_names() -> None:
    assert problems(edited(RUN, _set({"": {}}, "job", "facets"))) == [
        ('$.job.facets[""]', "the key must not be empty")
    ]
    ((path, message),) = problems(edited(RUN, _set({"f" * 300: {}}, "job", "facets")))
    assert path == "$.job.facets." + "f" * 300
    assert message == "the key is too long (at most 255 characters)"


def test_every_problem_is_reported() -> None:
    event = edited(RUN, _del("run", "runId"))
    event["job"]["name"] = ""
    event["inputs"][1]["facets"] = {"schema": 1}
    assert problems(event) == [
        ("$.run.runId", "is required"),
        ("$.job.name", "must not be empty"),
        ("$.inputs[1].facets.schema", "must be a JSON object"),
    ]


def test_problems_are_capped() -> None:
    event = run_event(inputs=[{"namespace": i, "name": "x"} for i in range(50)])
    found = problems(event)
    assert len(found) == 20
    assert found[0] == ("$.inputs[0].namespace", "must be a string")


def test_dataset_event_problems() -> None:
    event = dataset_event("s3://b", "x")
    assert problems(edited(event, _del("dataset", "name"))) == [("$.dataset.name", "is required")]
    assert problems(edited(event, _set("x", "dataset"))) == [("$.dataset", "must be a JSON object")]
    assert problems(edited(event, _set({"symlinks": 1}, "dataset", "facets"))) == [
        ("$.dataset.facets.symlinks", "must be a JSON object")
    ]


def test_job_event_problems() -> None:
    event = job_event("ns", "j", inputs=[dataset("s3://b", "x")])
    assert problems(edited(event, _del("inputs", 0, "name"))) == [
        ("$.inputs[0].name", "is required")
    ]
    assert problems(edited(event, _set(5, "job", "namespace"))) == [
        ("$.job.namespace", "must be a string")
    ]


@pytest.mark.parametrize(
    ("loc", "path"),
    [
        ((), "$"),
        (("run", "runId"), "$.run.runId"),
        (("inputs", 1, "namespace"), "$.inputs[1].namespace"),
        (("facets", "my-facet"), '$.facets["my-facet"]'),
        (("facets", 'a"b'), '$.facets["a\\"b"]'),
        (("facets", ""), '$.facets[""]'),
        (("facets", "it's"), """$.facets["it's"]"""),
        (("facets", "a\nb"), '$.facets["a\\nb"]'),
    ],
)
def test_json_path(loc: tuple[int | str, ...], path: str) -> None:
    assert json_path(loc) == path


def test_event_problem_as_dict() -> None:
    assert EventProblem("$.x", "is required").as_dict() == {"path": "$.x", "message": "is required"}
