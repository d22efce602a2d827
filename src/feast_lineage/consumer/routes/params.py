"""Query and path parameters that several read routes take, declared exactly as checked.

A parameter with a fixed set of values declares them as an ``enum`` in the
OpenAPI document (upper case, as OpenLineage writes them, or lower case) and
is checked here with a message that lists them; a run id is a hyphenated
UUID (``format: uuid``), as OpenLineage producers write it.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, overload
from urllib.parse import unquote

from fastapi import Query, Request

from feast_lineage.consumer.errors import LineageError, parameter
from feast_lineage.consumer.lineage_model import Direction
from feast_lineage.consumer.sent_path import sent_path
from feast_lineage.event_time import MAX_US, EventTimeError, parse_us

EVENT_TYPES = ("START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER")
RUN_STATES = ("RUNNING", "COMPLETE", "FAIL", "ABORT", "OTHER")
NODE_TYPES = ("job", "dataset")
UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
_UUID = re.compile(UUID_PATTERN)
EXAMPLE_RUN_ID = "0190e6a1-7c3f-7b6e-9a1d-3f2b8c4d5e6f"

# The direction of a subgraph or of column lineage.
DirectionParam = Annotated[Direction, Query(description="upstream, downstream or both")]


def either_case(values: tuple[str, ...]) -> list[str]:
    """``values`` as given, in lower case and in upper case: what a filter accepts."""
    return list(
        dict.fromkeys([*values, *(v.lower() for v in values), *(v.upper() for v in values)])
    )


def enum_schema(values: list[str]) -> dict[str, Any]:
    return {"enum": values}


RUN_ID_SCHEMA: dict[str, Any] = {"format": "uuid", "pattern": UUID_PATTERN}
# An RFC 3339 date-time (2024-05-01T12:00:00Z); the server also takes other ISO 8601 forms.
DATE_TIME: dict[str, Any] = {"format": "date-time"}


def invalid(message: str) -> LineageError:
    return LineageError(message, code="invalid_parameter")


def one_of(where: str, value: str | None, values: tuple[str, ...]) -> str | None:
    """The one of ``values`` that ``value`` is, in upper or lower case; else a 400."""
    if value is None:
        return None
    if value not in either_case(values):
        raise invalid(
            f"{where}: {value!r} is not one of {', '.join(values)} (in upper or lower case)"
        )
    return next(v for v in values if v.upper() == value.upper())


def node_type(where: str, value: str, fix: str = "") -> Literal["job", "dataset"]:
    """``job`` or ``dataset``; else a 400 naming ``where`` (and saying ``fix``, when given)."""
    if value not in NODE_TYPES:
        raise invalid(f"{where}: {value!r} is not job or dataset{fix}")
    return "job" if value == "job" else "dataset"


_SPACED_OFFSET = re.compile(r"\d \d\d(:?\d\d)?$")


def parse_time(name: str, value: str | None) -> int | None:
    """A time query parameter in microseconds; a 400 naming it when it is not a date-time."""
    if value is None:
        return None
    try:
        return parse_us(value, bounded=False)
    except EventTimeError as err:
        # A '+' left unencoded in a query string arrives as a space before the offset.
        hint = "; in a URL write an offset's '+' as %2B" if _SPACED_OFFSET.search(value) else ""
        raise invalid(f"{parameter('query', name)}: {err}{hint}") from None


def time_range(since: str | None, until: str | None) -> tuple[int | None, int | None]:
    """``since`` and ``until`` in microseconds: the window [since, until).

    Equal bounds are an empty window (nothing matches, as a client paging
    through time windows expects); ``since`` after ``until`` is a 400, as
    the two were surely swapped. An ``until`` at the last instant
    (9999-12-31T23:59:59.999999Z, or one an offset carries past it) bounds
    nothing: no time is after it, and exclusive it would leave out what is
    stamped exactly then.
    """
    since_us, until_us = parse_time("since", since), parse_time("until", until)
    if since_us is not None and until_us is not None and since_us > until_us:
        raise invalid(
            f"{parameter('query', 'since')} ({since}) is after 'until' ({until}), so nothing "
            "can match; swap them"
        )
    if until_us == MAX_US and since_us != MAX_US:
        until_us = None
    return since_us, until_us


@overload
def run_id(where: str, value: str) -> str: ...
@overload
def run_id(where: str, value: str | None) -> str | None: ...


def run_id(where: str, value: str | None) -> str | None:
    """A run id as the store keys it (lower case), when ``value`` is a hyphenated UUID."""
    if value is None:
        return None
    if not _UUID.fullmatch(value):
        raise invalid(f"{where}: {value!r} is not a UUID; pass one such as {EXAMPLE_RUN_ID}")
    return value.lower()


def encoded_segments(request: Request, mark: str, decoded: str) -> list[str]:
    """The path's segments after ``mark``, still percent-encoded (so ``%2F`` stays in one).

    ``decoded`` (the route's own parameters joined by ``/``) serves where the
    server gives no raw path.
    """
    text = sent_path(request.scope)
    if text is not None:
        at = text.find(mark)
        return text[at + len(mark) :].split("/") if at >= 0 else []
    return decoded.split("/")


def decode_segments(parts: list[str]) -> list[str]:
    """Each percent-encoded segment as text; a 400 when one is not valid UTF-8."""
    try:
        return [unquote(p, errors="strict") for p in parts]
    except UnicodeDecodeError:
        raise LineageError(
            "the path is not valid percent-encoded UTF-8", code="invalid_parameter"
        ) from None
