"""Structural validation of OpenLineage 2-0-2 events.

An event is a RunEvent when it has ``run``, a DatasetEvent when it has
``dataset``, and a JobEvent when it has ``job`` and no ``run`` (the spec's
own rule: the three are told apart by structure). The check covers what the
core schema requires and what the store relies on; facets must be objects but
their contents are kept verbatim and not checked, as the spec allows custom
facets and real producers send facets that stray from the standard schemas.
``schemaURL`` may be absent (Marquez's fixtures and some producers omit it).

Validation runs in pydantic-core (compiled), a few microseconds an event.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal, NamedTuple, NotRequired

import orjson
from pydantic import ConfigDict, Field, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from feast_lineage.consumer.intake.problems import EventProblem, InvalidEvent
from feast_lineage.event_time import EXPECTED_FORM, EventTimeError, parse_event_time

EventKind = Literal["run", "dataset", "job"]
EVENT_TYPES = ("START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER")

_Name = Annotated[str, Field(min_length=1, max_length=4096)]
_FacetName = Annotated[str, Field(min_length=1, max_length=255)]
Facets = dict[_FacetName, dict[str, Any]]
_ALLOW = ConfigDict(extra="allow")


class _Job(TypedDict):
    __pydantic_config__ = _ALLOW  # type: ignore[misc]
    namespace: _Name
    name: _Name
    facets: NotRequired[Facets]


class _Run(TypedDict):
    __pydantic_config__ = _ALLOW  # type: ignore[misc]
    runId: uuid.UUID
    facets: NotRequired[Facets]


class _Dataset(TypedDict):
    __pydantic_config__ = _ALLOW  # type: ignore[misc]
    namespace: _Name
    name: _Name
    facets: NotRequired[Facets]


class _InputDataset(_Dataset):
    inputFacets: NotRequired[Facets]


class _OutputDataset(_Dataset):
    outputFacets: NotRequired[Facets]


class _Base(TypedDict):
    __pydantic_config__ = _ALLOW  # type: ignore[misc]
    eventTime: str
    producer: Annotated[str, Field(min_length=1, max_length=4096)]
    schemaURL: NotRequired[str]


class _RunEvent(_Base):
    eventType: NotRequired[Literal["START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER"]]
    run: _Run
    job: _Job
    inputs: NotRequired[list[_InputDataset]]
    outputs: NotRequired[list[_OutputDataset]]


class _DatasetEvent(_Base):
    dataset: _Dataset


class _JobEvent(_Base):
    job: _Job
    inputs: NotRequired[list[_InputDataset]]
    outputs: NotRequired[list[_OutputDataset]]


_ADAPTERS: dict[EventKind, TypeAdapter[Any]] = {
    "run": TypeAdapter(_RunEvent),
    "dataset": TypeAdapter(_DatasetEvent),
    "job": TypeAdapter(_JobEvent),
}
EVENT_KINDS: tuple[EventKind, ...] = ("run", "dataset", "job")


def event_adapter(kind: str) -> TypeAdapter[Any]:
    """The pydantic adapter that checks events of ``kind`` (and gives their JSON schema)."""
    return _ADAPTERS[kind]  # type: ignore[index]


_MESSAGES = {
    "missing": "is required",
    "dict_type": "must be a JSON object",
    "list_type": "must be a JSON array",
    "string_type": "must be a string",
    "string_too_short": "must not be empty",
    "string_too_long": "is too long",
    "uuid_parsing": "must be a UUID such as 3f8e2a1c-5b7d-4c9e-8f6a-2d1b0c9e7a54",
    "uuid_type": "must be a UUID string",
    "literal_error": "must be one of " + ", ".join(EVENT_TYPES),
}


def json_path(loc: tuple[int | str, ...]) -> str:
    out = "$"
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.isidentifier():
            out += f".{part}"
        else:
            out += "[" + orjson.dumps(part).decode() + "]"
    return out


def event_kind(event: Any) -> EventKind:
    """Tell RunEvent, DatasetEvent and JobEvent apart by structure."""
    if not isinstance(event, dict):
        raise InvalidEvent([EventProblem("$", "an event must be a JSON object")])
    if "run" in event:
        return "run"
    if "dataset" in event:
        return "dataset"
    if "job" in event:
        return "job"
    raise InvalidEvent(
        [
            EventProblem(
                "$",
                "is not an OpenLineage event: a RunEvent needs 'run' and 'job', "
                "a DatasetEvent needs 'dataset', a JobEvent needs 'job'",
            )
        ]
    )


NaiveEventTime = Literal["utc", "refuse"]


class Checked(NamedTuple):
    kind: EventKind
    time_us: int
    naive_time: bool  # eventTime had no UTC offset and was taken as UTC


def validate_event(event: Any) -> tuple[EventKind, int]:
    """Check ``event``; return its kind and its event time in microseconds."""
    checked = check_event(event)
    return checked.kind, checked.time_us


def check_event(event: Any, naive_event_time: NaiveEventTime = "utc") -> Checked:
    """Check ``event``: its kind, its event time, and whether that had no UTC offset.

    A time without an offset is taken as UTC, or refused with
    ``naive_event_time="refuse"``.
    """
    kind = event_kind(event)
    try:
        _ADAPTERS[kind].validate_python(event, strict=False)
    except ValidationError as err:
        problems = []
        for item in err.errors(include_url=False, include_input=False)[:20]:
            message = _MESSAGES.get(item["type"], item["msg"])
            if item["type"] == "string_too_long":
                message += f" (at most {item.get('ctx', {}).get('max_length')} characters)"
            loc = item["loc"]
            if loc and loc[-1] == "[key]":  # pydantic's marker for a bad key of a dict
                loc, message = loc[:-1], "the key " + message
            problems.append(EventProblem(json_path(loc), message))
        raise InvalidEvent(problems) from None
    try:
        time_us, has_offset = parse_event_time(event["eventTime"])
    except EventTimeError as err:
        raise InvalidEvent([EventProblem("$.eventTime", str(err))]) from None
    if not has_offset and naive_event_time == "refuse":
        raise InvalidEvent(
            [
                EventProblem(
                    "$.eventTime",
                    f"{event['eventTime'][:64]!r} has no UTC offset, which this server "
                    f"refuses (naive_event_time: refuse); send {EXPECTED_FORM}",
                )
            ]
        )
    return Checked(kind, time_us, not has_offset)
