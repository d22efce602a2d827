"""The JSON schema of an ingest body, from the very types :mod:`.validation` checks.

The OpenAPI document of ``POST /api/v1/lineage`` and ``/lineage/batch`` uses
it, so what it declares is what the server takes: a RunEvent (it has
``run``), a DatasetEvent (``dataset`` and no ``run``) or a JobEvent (``job``
and neither), or an array of them. Facets are free-form objects, as the
spec allows, and the document states what the server refuses anywhere in
an event, so that it is never looser than the server (a generated client,
or a fuzzer, that keeps to it is never refused):

* a string holds no NUL character (``pattern`` :data:`NO_NUL`);
* a number is within 64 bits (:data:`JSON_VALUE`, the ``JsonValue``
  schema every free-form value refers to: from -2^63 to 2^64-1);
* ``eventTime`` is a ``date-time`` whose year is 1901 to 9998 (the server
  takes 1900 to 9999 *in UTC*; an offset moves a time across a year, so the
  document leaves the edge years out rather than be looser).

The body size limit (``max_request_bytes``), ``max_batch_events`` and the
nesting limit (254 levels) are settings and bounds JSON Schema cannot say
here; docs/api.md lists them.
"""

from __future__ import annotations

from typing import Any

from feast_lineage.consumer.intake.validation import EVENT_KINDS, event_adapter

NO_NUL = "^[^\\u0000]*$"
# Years 1901 to 9998 (see the module's docstring), then the date-time.
EVENT_TIME_PATTERN = "^(190[1-9]|19[1-9][0-9]|[2-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])-"
JSON_VALUE_REF = "#/components/schemas/JsonValue"
_ANY = {"$ref": JSON_VALUE_REF}
# Any JSON value the server stores as it is: the free-form parts of an event.
JSON_VALUE: dict[str, Any] = {
    "title": "JsonValue",
    "description": (
        "Any JSON value, as stored: strings without a NUL character, numbers within "
        "64 bits (-2^63 to 2^64-1; send larger ones as strings)"
    ),
    "anyOf": [
        {"type": "string", "pattern": NO_NUL},
        {"type": "number", "minimum": -(2**63), "maximum": 2**64 - 1},
        {"type": "boolean"},
        {"type": "null"},
        {"type": "array", "items": _ANY},
        {"type": "object", "propertyNames": {"pattern": NO_NUL}, "additionalProperties": _ANY},
    ],
}

_TITLES = {"run": "RunEvent", "dataset": "DatasetEvent", "job": "JobEvent"}
# The keys that make an event of an earlier kind (validation.event_kind's order).
_NOT_KEYS = {"run": [], "dataset": ["run"], "job": ["run", "dataset"]}


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """``node`` with every ``$ref`` into ``defs`` replaced by what it names (no cycles)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inline(defs[ref.removeprefix("#/$defs/")], defs)
        return {key: _inline(value, defs) for key, value in node.items() if key != "$defs"}
    if isinstance(node, list):
        return [_inline(value, defs) for value in node]
    return node


def _exact(node: Any) -> Any:
    """``node`` with the server's limits on every string and free-form part."""
    if isinstance(node, list):
        return [_exact(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _exact(value) for key, value in node.items()}
    if out.get("type") == "string" and not {"enum", "pattern", "format"} & out.keys():
        out["pattern"] = NO_NUL
    if out.get("type") == "object":
        if out.get("additionalProperties", True) is True:
            out["additionalProperties"] = _ANY
        names = out.get("propertyNames")
        out["propertyNames"] = {**(names if isinstance(names, dict) else {}), "pattern": NO_NUL}
    return out


def event_schema(kind: str) -> dict[str, Any]:
    """The schema of one kind of event (``run``, ``dataset`` or ``job``)."""
    raw = event_adapter(kind).json_schema()
    schema: dict[str, Any] = _exact(_inline(raw, raw.get("$defs", {})))
    schema["title"] = _TITLES[kind]
    schema["properties"]["eventTime"].update(format="date-time", pattern=EVENT_TIME_PATTERN)
    excluded = _NOT_KEYS[kind]
    if excluded:
        schema["not"] = {"anyOf": [{"required": [key]} for key in excluded]}
    return schema


def body_schema(*, array_only: bool = False) -> dict[str, Any]:
    """An event or an array of events (an array only, with ``array_only``).

    An empty array is taken (and stores nothing); ``max_batch_events`` bounds
    an array, a limit of the server's configuration.
    """
    one = {"anyOf": [event_schema(kind) for kind in EVENT_KINDS]}
    array = {"type": "array", "items": one}
    return array if array_only else {"anyOf": [*one["anyOf"], array]}
