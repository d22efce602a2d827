"""The assessment a process keeps between reads, and how it is brought up to date.

:func:`.health_states.base` reads everything health is computed from (every
node, the failed runs, every written dataset's latest writes, the whole
current graph, the feature views' materializations: about 130 ms of CPU on
the 1M-event store). A process keeps it under the :func:`.store_marker`
it was read at. When the store has changed by new events only (the same
generation and lowest event id, a highest id at most :data:`MOST_NEW`
higher), :func:`refresh`
reads again only what those events touched (:mod:`.health_changes`): the
touched jobs' failed runs, the touched datasets' latest writes, the steps
into and out of the touched nodes, those nodes' rows, the touched views'
materializations; then derives the rest in memory as a whole read does
(:func:`.health_states.finish`). A prune or a reset (a new generation)
reads everything again. The result equals a whole read of the same store
(tests/consumer/services/test_health_cache.py).

The walk from the causes is kept while the graph and the causes are the
same; what a problem reaches, while the graph and the nodes are. Each
request then applies its own now: states are exact, never late.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Hashable, Mapping

from sqlalchemy import Connection

from feast_lineage.consumer.services.health_states import (
    Assessment,
    Cause,
    _failed,
    _freshness,
    _materialized,
    _spread,
    at,
    base,
    compute,
    finish,
    stale_causes,
    stale_count,
)
from feast_lineage.consumer.store.read import health as h
from feast_lineage.consumer.store.read import health_changes as changes

_CHANGES = 64  # graph changes remembered: a walk kept across more is walked again
MOST_NEW = 20_000  # more new event ids than this: read everything again (a bulk import)

# The store state and the freshness rules a base was read for
Key = tuple[h.StoreMarker, tuple[tuple[str, float], ...]]


def refresh(
    conn: Connection, kept: Assessment, touched: changes.Touched, rules: Mapping[str, float]
) -> Assessment:
    """``kept`` (a :func:`.base`) brought up to date with what ``touched`` names: equal to
    a whole read of the store as it is now, if the events after ``kept`` touched only those."""
    nodes = touched.jobs | touched.datasets
    if not nodes:
        return kept
    found = Assessment(
        0,
        causes=dict(kept.causes),
        freshness=dict(kept.freshness),
        nodes=dict(kept.nodes),
        materialized_to=dict(kept.materialized_to),
        graph_marker=kept.graph_marker,
        node_keys=kept.node_keys,  # a node's key never changes
    )
    # The steps into and out of the touched nodes, read again (any other step is unchanged).
    out = h.steps(conn, nodes, downstream=True)
    into = [h.Step(s.far, s.near, s.deeper) for s in h.steps(conn, nodes, downstream=False)]
    fresh = set(out) | set(into)
    was = {s for s in kept.graph if s.near in nodes or s.far in nodes}
    removed, added = was - fresh, fresh - was
    # The touched nodes' rows, and their neighbours' (a parent job or an alias first named)
    around = nodes | {s.near for s in fresh} | {s.far for s in fresh}
    rows = h.node_info(conn, around)
    renamed = {n for n, info in rows.items() if kept.nodes.get(n) != info}
    found.nodes.update(rows)
    if removed or added or renamed:
        found.graph = (kept.graph - removed) | added
        assert kept.downstream is not None
        assert kept.upstream is not None
        found.downstream = kept.downstream.replaced(removed, added)
        found.upstream = kept.upstream.replaced(removed, added)
        found.graph_marker = None  # the caller's new marker
        # A walk from elsewhere is unchanged unless it reached one of these
        found.dirty = frozenset({s.near for s in removed | added} | renamed)
    else:
        found.graph, found.downstream, found.upstream = kept.graph, kept.downstream, kept.upstream
    _failed(conn, found, sorted(touched.jobs))
    _freshness(conn, found, rules, sorted(touched.datasets))
    _materialized(conn, found, nodes)
    finish(found)
    return found


class HealthCache:
    """What a process's assessments share while the store is unchanged (module doc)."""

    def __init__(self, most_reaches: int = 4096) -> None:
        self._lock = threading.Lock()
        # (key, what its events seen, the base)
        self._base: tuple[Key, changes.Seen, Assessment] | None = None
        self._spread: tuple[object, frozenset[int], Assessment] | None = None
        self._reaches: OrderedDict[Hashable, object] = OrderedDict()
        self._stale: tuple[object, dict[int, Cause]] | None = None
        self._most = most_reaches
        # graph marker -> the one before it and the nodes whose steps or rows changed between
        self._changes: OrderedDict[object, tuple[object, frozenset[int]]] = OrderedDict()

    def _current(
        self, conn: Connection, rules: Mapping[str, float]
    ) -> tuple[Key, changes.Seen, Assessment]:
        """The base for the store as it is: the kept one, brought up to date, or read whole."""
        marker = h.store_marker(conn)
        key: Key = (marker, tuple(rules.items()))
        with self._lock:
            kept = self._base
        if kept is not None and kept[0] == key and not kept[1].gaps:
            return kept
        if kept is not None and _follows(kept[0], key):
            touched = changes.touched_since(conn, kept[1])
            if kept[0] == key and not (touched.jobs or touched.datasets):
                return kept  # the gaps are still gaps
            found = refresh(conn, kept[2], touched, rules)
            seen = touched.seen
        else:
            found, seen = base(conn, rules), changes.seen_now(conn, marker.high)
        found.marker = key  # (a refresh that found nothing new returns the kept base itself)
        if found.graph_marker is None:
            found.graph_marker = key
        current = (key, seen, found)
        with self._lock:
            self._base = current
            if kept is not None and found.dirty is not None and found is not kept[2]:
                self._changes[key] = (kept[2].graph_marker, found.dirty)
                while len(self._changes) > _CHANGES:
                    self._changes.popitem(last=False)
        return current

    def assessment(self, conn: Connection, rules: Mapping[str, float], now_us: int) -> Assessment:
        key, _seen, kept = self._current(conn, rules)
        count = stale_count(kept, now_us)
        with self._lock:
            known, spread = self._stale, self._spread
        if known is None or known[0] != (key, count):
            known = ((key, count), stale_causes(kept, count))
            with self._lock:
                self._stale = known
        found = at(kept, now_us, known[1])
        causes = frozenset(found.causes)
        if spread is not None and spread[0] == kept.graph_marker and spread[1] == causes:
            found.at_risk = spread[2].at_risk
            return found
        _spread(conn, found)
        with self._lock:
            self._spread = (kept.graph_marker, causes, found)
        return found

    def walked(self, key: Hashable, marker: object) -> object | None:
        """What :meth:`keep_walked` kept under ``key`` for the graph at ``marker``: kept for an
        earlier graph too, when no change since touched a node it reached."""
        entry = self.known(key)
        if entry is None:
            return None
        walked: tuple[object, Collection[int], object] = entry  # type: ignore[assignment]
        at, reached, value = walked
        if at == marker:
            return value
        if not self._unchanged(at, marker, reached):
            return None
        self.keep(key, (marker, reached, value))
        return value

    def keep_walked(
        self, key: Hashable, marker: object, reached: Collection[int], value: object
    ) -> None:
        """Keep ``value``, what a walk that reached ``reached`` over the graph at ``marker``
        gave."""
        self.keep(key, (marker, reached, value))

    def _unchanged(self, since: object, now: object, reached: Collection[int]) -> bool:
        """Whether no graph change from ``since`` to ``now`` touched a node of ``reached``."""
        for _ in range(_CHANGES):
            if now == since:
                return True
            with self._lock:
                change = self._changes.get(now)
            if change is None:
                return False
            now, dirty = change
            if not dirty.isdisjoint(reached):
                return False
        return now == since

    def reach(self, key: Hashable, walk: Callable[[], object]) -> object:
        """``walk()``'s answer, kept under ``key`` (it must name the store state) while it is."""
        value = self.known(key)
        if value is None:
            value = walk()
            self.keep(key, value)
        return value

    def known(self, key: Hashable) -> object | None:
        """What :meth:`keep` kept under ``key``, if it still is."""
        with self._lock:
            if key in self._reaches:
                self._reaches.move_to_end(key)
                return self._reaches[key]
        return None

    def keep(self, key: Hashable, value: object) -> None:
        with self._lock:
            self._reaches[key] = value
            while len(self._reaches) > self._most:
                self._reaches.popitem(last=False)


def _follows(before: Key, now: Key) -> bool:
    """Whether the store at key ``now`` differs from ``before`` by new events only."""
    (was, rules_was), (marker, rules) = before, now
    return bool(
        rules_was == rules
        and was.generation == marker.generation
        and (was.low == marker.low or was.high == 0)  # (an empty store kept nothing)
        and was.high <= marker.high <= was.high + MOST_NEW
    )


def assess(
    conn: Connection, rules: Mapping[str, float], now_us: int, cache: HealthCache | None = None
) -> Assessment:
    """The health of every node as of ``now_us``: the cache's when it holds, else computed."""
    if cache is None:
        return compute(conn, rules, now_us)
    return cache.assessment(conn, rules, now_us)


__all__ = ["HealthCache", "assess", "refresh"]
