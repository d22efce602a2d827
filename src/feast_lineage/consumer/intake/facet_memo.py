"""Remembering which blob a facet payload went to, so repeated facets are not hashed again."""

from __future__ import annotations

from typing import Any

import orjson

from feast_lineage import canonical_json


class FacetMemo:
    """The fingerprint and blob id of the last payload seen per (owner, facet name).

    Most facets repeat unchanged from event to event (a dataset's schema);
    fingerprinting a payload's plain serialization and comparing it with the
    last one's is far cheaper than serializing canonically and hashing it
    again. (Not ``==``: Python holds 1, 1.0 and true equal, JSON does not.)
    An entry holds a 64-bit fingerprint, not the payload, so the memo stays
    small however large the facets. Bounded; safe to share between threads
    (a lost race only costs a recomputation).
    """

    def __init__(self, limit: int = 50_000) -> None:
        self._items: dict[tuple[Any, str], tuple[int, str]] = {}
        self._limit = limit

    @staticmethod
    def fingerprint(payload: Any) -> int:
        return hash(orjson.dumps(payload))

    def get(self, key: tuple[Any, str], fingerprint: int) -> str | None:
        hit = self._items.get(key)
        return hit[1] if hit is not None and hit[0] == fingerprint else None

    def clear(self) -> None:
        self._items = {}

    def put(self, key: tuple[Any, str], fingerprint: int, blob_id: str) -> None:
        if len(self._items) >= self._limit:
            self._items.clear()
        self._items[key] = (fingerprint, blob_id)

    def digest(self, owner: int, name: str, value: Any) -> str:
        """``value``'s canonical digest, remembered per (owner, ``"version:" + name``)."""
        key = (owner, "version:" + name)
        fingerprint = self.fingerprint(value)
        known = self.get(key, fingerprint)
        if known is None:
            known = canonical_json.digest(canonical_json.dumps(value))
            self.put(key, fingerprint, known)
        return known
