"""Rows this process knows are stored, so a steady stream of events does not rewrite them.

:class:`WriteCache` remembers blobs, edges (with the earliest time each is
known stated), symlinks and what symlinks facets
list, run inputs/outputs (with the earliest time each is known listed),
dataSource links, the columnLineage payloads whose column edges are stored,
the rank of each dataset state stored, job versions' source facet
payloads, the job version parts of recent runs and the longest run stored
in meta. It is dropped whenever the
store's ``generation`` changes (:mod:`.meta`), which reset and prune bump in
the same transaction as their deletes, also across processes.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Generic, NamedTuple, TypeVar


class _BoundedSet:
    """A set that forgets its least recently added items past ``limit``."""

    def __init__(self, limit: int) -> None:
        self._items: OrderedDict[Any, None] = OrderedDict()
        self._limit = limit

    def __contains__(self, item: object) -> bool:
        return item in self._items

    def add(self, item: Any) -> None:
        if item in self._items:
            self._items.move_to_end(item)  # still in use: forget others first
            return
        self._items[item] = None
        if len(self._items) > self._limit:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()


class _BoundedRanks:
    """The highest rank known stored per key, forgetting the least recently noted past ``limit``."""

    def __init__(self, limit: int) -> None:
        self._items: OrderedDict[Any, str] = OrderedDict()
        self._limit = limit

    def covers(self, key: Any, rank: str) -> bool:
        """A row of ``key`` ranked ``rank`` would change nothing stored."""
        known = self._items.get(key)
        return known is not None and known >= rank

    def note(self, key: Any, rank: str) -> None:
        known = self._items.get(key)
        if known is not None and known >= rank:
            self._items.move_to_end(key)
            return
        self._items[key] = rank
        self._items.move_to_end(key)
        if len(self._items) > self._limit:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()


V = TypeVar("V", int, str)


class _BoundedMinimum(Generic[V]):
    """Key -> the least value known stored, forgetting the least recently added past ``limit``."""

    def __init__(self, limit: int) -> None:
        self._items: OrderedDict[Any, V] = OrderedDict()
        self._limit = limit

    def covers(self, key: object, value: V) -> bool:
        """Whether a value at or below ``value`` is known stored under ``key``."""
        known = self._items.get(key)
        return known is not None and known <= value

    def least(self, key: object) -> V | None:
        """The least value known stored under ``key``, if any."""
        return self._items.get(key)

    def add(self, key: Any, value: V) -> None:
        known = self._items.get(key)
        if known is not None:
            self._items.move_to_end(key)
            if known <= value:
                return
        self._items[key] = value
        if len(self._items) > self._limit:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()


class KnownRun(NamedTuple):
    """A run's job version parts as stored after a commit of this process, and its START time.

    Parts only grow (a union, and per source facet the highest rank) and
    a run's start only falls once a START is stored, until a prune or reset
    (which change the generation): an event adding nothing to these
    changes nothing stored (:func:`..job_versions.adds_nothing`).
    """

    start_event_us: int
    io: frozenset[tuple[str, int, int, str, str]]
    sources: dict[str, tuple[str, str]]


class _BoundedMap:
    """Key -> value, forgetting the least recently put past ``limit``."""

    def __init__(self, limit: int) -> None:
        self._items: OrderedDict[Any, Any] = OrderedDict()
        self._limit = limit

    def get(self, key: object) -> Any:
        return self._items.get(key)

    def put(self, key: Any, value: Any) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        if len(self._items) > self._limit:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()


# Runs whose parts are remembered: their START and COMPLETE come close
# together; about 600 bytes a run.
RUN_PARTS_LIMIT = 8_192


class WriteCache:
    """Rows known to be in the store, valid for one store generation."""

    # About 200 bytes an entry: five sets of 32k stay under 35 MB a process.
    def __init__(self, limit: int = 32_768) -> None:
        self.generation: str | None = None
        self.blobs = _BoundedSet(limit)
        # (src, dst, edge type) -> the least created_us known stored
        self.edges: _BoundedMinimum[int] = _BoundedMinimum(limit)
        self.symlinks = _BoundedSet(limit)
        self.listings = _BoundedSet(limit)
        # (run, dataset, direction) -> the least first_us known stored
        self.run_io: _BoundedMinimum[int] = _BoundedMinimum(limit)
        # (dataset, facet, blob) -> the least first statement's rank known stored
        self.facet_values: _BoundedMinimum[str] = _BoundedMinimum(limit)
        # (dataset, URI id) -> the least time it was linked from (uri_links.py)
        self.uri_links: _BoundedMinimum[int] = _BoundedMinimum(limit)
        # (dataset, job, origin, digest): a columnLineage payload whose edges are stored
        self.column_reports = _BoundedSet(limit)
        # (owner, facet, origin, digest): an explicit lineage payload whose edges are stored
        self.explicit_reports = _BoundedSet(limit)
        # dataset state id -> the rank stored: a restatement that ranks no higher is not sent
        self.dataset_states = _BoundedRanks(limit)
        # (job, digest): a job version's source facet payload
        self.job_sources = _BoundedSet(limit)
        # run key -> KnownRun, and what this transaction stored (known once it commits)
        self.run_parts = _BoundedMap(min(limit, RUN_PARTS_LIMIT))
        self.pending_run_parts: dict[str, KnownRun] = {}
        # The run bounds known stored in meta (write/run_durations.py), and
        # what this transaction raised them to (known stored once it commits)
        self.run_bounds: dict[str, int] = {}
        self.pending_run_bounds: dict[str, int] = {}
        self.sql: dict[tuple[str, tuple[str, ...]], str] = {}

    def sync(self, generation: str) -> None:
        if generation != self.generation:
            self.blobs.clear()
            self.edges.clear()
            self.symlinks.clear()
            self.listings.clear()
            self.run_io.clear()
            self.facet_values.clear()
            self.uri_links.clear()
            self.column_reports.clear()
            self.explicit_reports.clear()
            self.dataset_states.clear()
            self.job_sources.clear()
            self.run_parts.clear()
            self.run_bounds.clear()
            self.generation = generation
