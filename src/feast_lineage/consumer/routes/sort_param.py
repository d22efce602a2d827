"""The ``sort`` query parameter of the job and run lists: a key, ``-`` before it for descending."""

from __future__ import annotations

from typing import Any

from feast_lineage.consumer.errors import parameter
from feast_lineage.consumer.routes.params import invalid
from feast_lineage.consumer.store.read.sorting import Sort


def sort_values(keys: tuple[str, ...]) -> list[str]:
    """What ``sort`` accepts: each key, and each key with ``-`` before it."""
    return [*keys, *(f"-{k}" for k in keys)]


def sort_schema(keys: tuple[str, ...]) -> dict[str, Any]:
    return {"enum": sort_values(keys)}


def parse_sort(value: str | None, keys: tuple[str, ...], default: Sort) -> Sort:
    """``value`` as a :class:`Sort`; a 400 naming the parameter and its values when unknown."""
    if value is None:
        return default
    if value not in sort_values(keys):
        raise invalid(
            f"{parameter('query', 'sort')}: {value!r} is not one of {', '.join(keys)}; "
            "put '-' before a key to sort descending (e.g. -" + keys[0] + ")"
        )
    return Sort(value.lstrip("-"), value.startswith("-"))
