"""The JSON schema of an ingest body, from the very types :mod:`.validation` checks.

The OpenAPI document of ``POST /api/v1/lineage`` and ``/lineage/batch`` uses
it, so what it declares is what the server takes: a RunEvent (it has
``run``), a DatasetEvent (``dataset`` and no ``run``) or a JobEvent (``job``
and neither), or an array of them. Facets are free-form objects, as the
spec allows; what the server refuses inside them (NUL characters, integers
beyond 64 bits) and the body size limit cannot be said in JSON Schema, and
docs/api.md lists them.
"""

from __future__ import annotations

from typing import Any

from feast_lineage.consumer.intake.validation import EVENT_KINDS, event_adapter

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


def event_schema(kind: str) -> dict[str, Any]:
    """The schema of one kind of event (``run``, ``dataset`` or ``job``)."""
    raw = event_adapter(kind).json_schema()
    schema: dict[str, Any] = _inline(raw, raw.get("$defs", {}))
    schema["title"] = _TITLES[kind]
    schema["properties"]["eventTime"]["format"] = "date-time"
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
