"""Each node's health as of now: failed, stale, at risk, unknown or ok (docs/api.md, Health).

Computed at read time from the store (runs, dataset versions, the current
graph), as of ``StoreReader.clock``; nothing is kept at ingest
(docs/performance.md, Health). The causes (failed jobs, stale datasets)
and the walk that puts their downstream at risk are unscoped: a cause in a
hidden namespace still puts a visible node at risk, and :meth:`health`
names it only as "a hidden upstream".

Expected intervals, in order: the ``freshness`` setting (the first
"namespace/name" glob that matches), Feast's knowledge for a feature view
(its materialization cadence learned from its materialize runs, else its
``ttl``), else learned from the dataset's own writes: the median of its
last :data:`KEEP` - 1 intervals times :data:`FACTOR`. The median ignores
one late run or one backfill burst; three times it lets a job slip by two
runs before anyone is paged. Fewer than :data:`MIN_INTERVALS` intervals is
too little history: ``unknown``.
"""

from __future__ import annotations

import itertools
import statistics
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Literal

from sqlalchemy import Connection

from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.schemas import HealthCause, HealthState, IntervalSource, NodeHealth
from feast_lineage.consumer.services import reach
from feast_lineage.consumer.store.read import common as read_common
from feast_lineage.consumer.store.read import health as h
from feast_lineage.consumer.store.read.run_facets import run_facets
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us, to_iso

KEEP = 11  # writes read per dataset: ten intervals
MIN_INTERVALS = 3
FACTOR = 3.0
CAUSE_DEPTH = 20  # how far downstream a cause puts nodes at risk
MAX_CAUSES = 5  # nearest causes named per node
FEATURE_VIEWS = ("feature_view", "stream_feature_view", "on_demand_feature_view")
SOURCE_DEPTH = 4  # steps upstream of a feature view to its data source's dataset
_US = 1_000_000

CauseKind = Literal["failed", "stale"]


@dataclass(frozen=True, slots=True)
class Cause:
    node: int
    kind: CauseKind
    since_us: int
    error: str | None = None
    run_id: str | None = None
    interval_s: float | None = None
    last_write_us: int | None = None


@dataclass(frozen=True, slots=True)
class Freshness:
    last_write_us: int | None
    interval_s: float | None
    source: IntervalSource | None


@dataclass(slots=True)
class Assessment:
    """The health of the store's nodes as of ``now_us``."""

    now_us: int
    causes: dict[int, Cause] = field(default_factory=dict)
    freshness: dict[int, Freshness] = field(default_factory=dict)
    # node -> its nearest causes: (cause, distance)
    at_risk: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    infos: dict[int, h.NodeInfo] = field(default_factory=dict)
    # feature view or service -> (materialization lag, source lag) in seconds
    lags: dict[int, tuple[float | None, float | None]] = field(default_factory=dict)

    def state(self, node: int) -> HealthState:
        cause = self.causes.get(node)
        if cause is not None:
            return cause.kind
        if node in self.at_risk:
            return "at_risk"
        fresh = self.freshness.get(node)
        if fresh is not None and fresh.interval_s is None:
            return "unknown"
        return "ok"

    def health(self, node: int, scope: Scope, key: Callable[[int], str]) -> NodeHealth | None:
        """Why ``node`` is in its state, with hidden causes unnamed; None when nothing to say."""
        cause, fresh, lags = self.causes.get(node), self.freshness.get(node), self.lags.get(node)
        risks = self.at_risk.get(node, [])
        if cause is None and fresh is None and lags is None and not risks:
            return None
        return NodeHealth(
            causes=[self._cause(c, d, scope, key) for c, d in risks],
            since=to_iso(cause.since_us) if cause else None,
            error=cause.error if cause else None,
            materialization_lag_seconds=lags[0] if lags else None,
            source_lag_seconds=lags[1] if lags else None,
            expected_interval_seconds=fresh.interval_s if fresh else None,
            interval_source=fresh.source if fresh else None,
            last_write=to_iso(fresh.last_write_us) if fresh and fresh.last_write_us else None,
        )

    def _cause(
        self, node: int, distance: int, scope: Scope, key: Callable[[int], str]
    ) -> HealthCause:
        info = self.infos.get(node)
        kind = self.causes[node].kind
        if info is None or not scope.allows_id(info.ns_id):
            return HealthCause(node=None, state=kind, distance=distance, label="a hidden upstream")
        return HealthCause(
            node=key(node), state=kind, distance=distance, label=f"{info.namespace}/{info.name}"
        )


def learned_interval(writes: list[int]) -> float | None:
    """Seconds: the median of the intervals between ``writes`` (newest first) times FACTOR."""
    gaps = [(a - b) / _US for a, b in itertools.pairwise(writes) if a > b]
    if len(gaps) < MIN_INTERVALS:
        return None
    return statistics.median(gaps) * FACTOR


def configured_interval(rules: Mapping[str, float], namespace: str, name: str) -> float | None:
    """The first ``freshness`` glob matching "namespace/name"."""
    path = f"{namespace}/{name}"
    for glob, seconds in rules.items():
        if fnmatchcase(path, glob):
            return float(seconds)
    return None


def _ttl(facets: Mapping[str, object]) -> float | None:
    facet = facets.get("feast_feature_view")
    ttl = facet.get("ttl_seconds") if isinstance(facet, dict) else None
    return float(ttl) if isinstance(ttl, int | float) and ttl > 0 else None


def _interval(
    info: h.NodeInfo,
    writes: list[int],
    rules: Mapping[str, float],
    facets: Mapping[int, Mapping[str, object]],
) -> tuple[float | None, IntervalSource | None]:
    configured = configured_interval(rules, info.namespace, info.name)
    if configured is not None:
        return configured, "configured"
    learned = learned_interval(writes)
    if info.feast_type in FEATURE_VIEWS:
        cadence = learned if learned is not None else _ttl(facets.get(info.id, {}))
        if cadence is not None:
            return cadence, "feast"
    if learned is not None:
        return learned, "learned"
    return None, None


def _failed(conn: Connection, found: Assessment) -> None:
    failed = h.failed_jobs(conn)
    facets = run_facets(conn, [f.run_id for f in failed])
    for f in failed:
        error = facets[f.run_id].facets.get("errorMessage") if f.run_id in facets else None
        message = error.get("message") if isinstance(error, dict) else None
        found.causes[f.job_id] = Cause(
            f.job_id,
            "failed",
            f.ended_us,
            error=message if isinstance(message, str) else None,
            run_id=f.run_id,
        )


def _stale(conn: Connection, found: Assessment, rules: Mapping[str, float]) -> None:
    writes = h.recent_writes(conn, None, KEEP)
    written = sorted(writes)
    found.infos.update(h.node_info(conn, written))
    views = [i for i in written if found.infos[i].feast_type in FEATURE_VIEWS]
    facets = read_common.facets_of(conn, t.dataset_facets, views)
    for did in written:
        info, times = found.infos[did], writes.get(did, [])
        interval, source = _interval(info, times, rules, facets)
        last = times[0] if times else None
        found.freshness[did] = Freshness(last, interval, source)
        if interval is not None and last is not None:
            due = last + int(interval * _US)
            if found.now_us > due:
                found.causes[did] = Cause(
                    did, "stale", due, interval_s=interval, last_write_us=last
                )


def _spread(conn: Connection, found: Assessment) -> None:
    """Put every node downstream of a cause at risk, naming its nearest causes.

    One breadth-first walk from every cause at once, a query per level: each
    node keeps the causes at its least distance (at most MAX_CAUSES).
    """
    best: dict[int, int] = dict.fromkeys(found.causes, 0)
    nearest: dict[int, list[int]] = {c: [c] for c in found.causes}
    frontier, deeper, level = sorted(found.causes), set[int](), 0
    while frontier:
        same: set[int] = set()
        for step in h.steps(conn, frontier, downstream=True):
            far_level = level + step.deeper
            if far_level > CAUSE_DEPTH or best.get(step.far, far_level) < far_level:
                continue
            if step.far not in best:
                best[step.far] = far_level
                (same if step.deeper == 0 else deeper).add(step.far)
            _merge(nearest.setdefault(step.far, []), nearest[step.near])
        if same:
            frontier = sorted(same)
            continue
        frontier, deeper, level = sorted(deeper), set(), level + 1
    for node, causes in nearest.items():
        if node not in found.causes:
            found.at_risk[node] = [(c, best[node]) for c in sorted(causes)]
    found.infos.update(h.node_info(conn, set(found.causes) - set(found.infos)))


def _merge(into: list[int], causes: list[int]) -> None:
    for cause in causes:
        if len(into) >= MAX_CAUSES:
            return
        if cause not in into:
            into.append(cause)


def compute(conn: Connection, rules: Mapping[str, float], now_us: int) -> Assessment:
    """The health of every node as of ``now_us`` (microseconds), from the store."""
    found = Assessment(now_us)
    _failed(conn, found)
    _stale(conn, found, rules)
    _spread(conn, found)
    _lags(conn, found)
    return found


class HealthCache:
    """The process's latest assessment, reused while the store is unchanged and it is recent.

    An assessment reads every written dataset's recent writes and walks the
    graph from every cause (about a second on the 1M-event store); reads
    share it until an event is stored, pruned or reset (:func:`.store_marker`)
    or :data:`REUSE_US` pass (a dataset becomes stale with time alone).
    """

    def __init__(self, reuse_us: int) -> None:
        self.reuse_us = reuse_us
        self._lock = threading.Lock()
        self._kept: tuple[object, Assessment] | None = None

    def assessment(self, conn: Connection, rules: Mapping[str, float], now_us: int) -> Assessment:
        key = (h.store_marker(conn), tuple(rules.items()))
        with self._lock:
            kept = self._kept
        if kept is not None and kept[0] == key and 0 <= now_us - kept[1].now_us < self.reuse_us:
            return kept[1]
        fresh = compute(conn, rules, now_us)
        with self._lock:
            self._kept = (key, fresh)
        return fresh


REUSE_US = 5_000_000


def assess(
    conn: Connection, rules: Mapping[str, float], now_us: int, cache: HealthCache | None = None
) -> Assessment:
    """The health of every node as of ``now_us``: the cache's when it holds, else computed."""
    if cache is None:
        return compute(conn, rules, now_us)
    return cache.assessment(conn, rules, now_us)


def _materialized_to(conn: Connection, views: list[int]) -> dict[int, int]:
    """Feature view -> the end of the interval its latest materialization wrote."""
    runs = h.latest_writing_runs(conn, views)
    texts = {v: _uuid(run) for v, run in runs.items()}
    facets = run_facets(conn, set(texts.values()))
    out: dict[int, int] = {}
    for view, run in texts.items():
        facet = facets[run].facets.get("feast_materialization") if run in facets else None
        end = facet.get("end_date") if isinstance(facet, dict) else None
        if isinstance(end, str):
            try:
                out[view] = parse_us(end)
            except ValueError:
                continue
    return out


def _uuid(value: bytes) -> str:
    text = value.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def _source_written(conn: Connection, view: int, found: Assessment) -> int | None:
    """The latest write of a dataset upstream of ``view`` that is no Feast object of its own."""
    walked = reach.walk(conn, [view], SOURCE_DEPTH, downstream=False)
    infos = h.node_info(conn, walked.distance)
    sources = [
        n
        for n, i in infos.items()
        if n != view and i.kind == "dataset" and i.feast_type in (None, "data_source")
    ]
    writes = h.recent_writes(conn, sources, 1)
    return max((w[0] for w in writes.values() if w), default=None)


def _online_stores(conn: Connection, views: list[h.NodeInfo]) -> dict[int, int]:
    """Feature view -> its online store's dataset (``online_store/<view>``, same namespace),
    which Feast's materialize runs write (they read the feature view)."""
    stores = {
        (s.ns_id, s.name.split("/", 1)[-1]): s.id for s in h.feast_datasets(conn, ("online_store",))
    }
    out: dict[int, int] = {}
    for view in views:
        store = stores.get((view.ns_id, view.name.split("/", 1)[-1]))
        if store is not None:
            out[view.id] = store
    return out


def _lags(conn: Connection, found: Assessment) -> None:
    """Each feature view's lags; a feature service takes its worst view's."""
    views = h.feast_datasets(conn, FEATURE_VIEWS)
    services = h.feast_datasets(conn, ("feature_service",))
    stores = _online_stores(conn, views)
    ended = _materialized_to(conn, [v.id for v in views] + list(stores.values()))
    now = found.now_us
    for view in views:
        found.infos[view.id] = view
        source = _source_written(conn, view.id, found)
        # Materialized to: a run writing the view itself, or (Feast's shape) its online store.
        ends = [ended[i] for i in (view.id, stores.get(view.id)) if i is not None and i in ended]
        mat = (now - max(ends)) / _US if ends else None
        found.lags[view.id] = (mat, (now - source) / _US if source is not None else None)
    for service in services:
        found.infos[service.id] = service
        walked = reach.walk(conn, [service.id], 2, downstream=False)
        mine = [found.lags[n] for n in walked.distance if n in found.lags and n != service.id]
        mats = [m for m, _ in mine if m is not None]
        srcs = [s for _, s in mine if s is not None]
        found.lags[service.id] = (max(mats, default=None), max(srcs, default=None))
