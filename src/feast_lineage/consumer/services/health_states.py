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

import bisect
import itertools
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import lru_cache
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

KEEP = h.KEEP_WRITES  # writes read per dataset: ten intervals (retention keeps them)
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
    # what the lags are computed from: feature view -> materialized to, its source's last write
    materialized_to: dict[int, int] = field(default_factory=dict)
    source_written: dict[int, int] = field(default_factory=dict)
    service_views: dict[int, list[int]] = field(default_factory=dict)  # service -> its views
    marker: object = None  # the store state it was computed for (:func:`.store_marker`)
    dues: list[int] = field(default_factory=list)  # when each dataset turns stale, in order
    due_ids: list[int] = field(default_factory=list)  # the datasets, in the same order
    # the current graph (read whole once per store state): the spread's and the problems' walks
    downstream: reach.KnownSteps | None = None
    nodes: dict[int, h.NodeInfo] = field(default_factory=dict)  # every node (read whole too)
    graph: frozenset[h.Step] = frozenset()  # every step of the current graph, downstream
    upstream: reach.KnownSteps | None = None
    # the marker when the graph or a node last changed: what a walk's answer is kept under
    graph_marker: object = None
    node_keys: dict[int, str] = field(default_factory=dict)  # node -> its API id, as asked
    # a refresh that changed the graph: the nodes whose steps or rows it changed
    dirty: frozenset[int] | None = None

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
        end = self._materialized_end(node) if lags else None
        return NodeHealth(
            causes=[self._cause(c, d, scope, key) for c, d in risks],
            since=_iso(cause.since_us) if cause else None,
            error=cause.error if cause else None,
            materialization_lag_seconds=lags[0] if lags else None,
            materialized_to=_iso(end) if end is not None else None,
            source_lag_seconds=lags[1] if lags else None,
            expected_interval_seconds=fresh.interval_s if fresh else None,
            interval_source=fresh.source if fresh else None,
            last_write=_iso(fresh.last_write_us) if fresh and fresh.last_write_us else None,
        )

    def _materialized_end(self, node: int) -> int | None:
        """A feature view's materialized-to time; a service's worst view's (the earliest),
        as its lag is."""
        end = self.materialized_to.get(node)
        if end is not None:
            return end
        views = self.service_views.get(node, ())
        return min(
            (self.materialized_to[v] for v in views if v in self.materialized_to), default=None
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


@lru_cache(maxsize=1 << 14)
def _iso(us: int) -> str | None:
    return to_iso(us)


def learned_interval(writes: list[int]) -> float | None:
    """Seconds: the median of the intervals between ``writes`` (newest first) times FACTOR."""
    gaps = sorted([(a - b) / _US for a, b in itertools.pairwise(writes) if a > b])
    n = len(gaps)
    if n < MIN_INTERVALS:
        return None
    # statistics.median's, without its checks (2,000 datasets an assessment)
    median = gaps[n // 2] if n % 2 else (gaps[n // 2 - 1] + gaps[n // 2]) / 2
    return median * FACTOR


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


def _failed(conn: Connection, found: Assessment, job_ids: Collection[int] | None = None) -> None:
    """The failed jobs (of ``job_ids`` only, their causes replaced; None: of every job)."""
    if job_ids is not None:
        for job in job_ids:
            found.causes.pop(job, None)
    failed = h.failed_jobs(conn, job_ids)
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


def _freshness(
    conn: Connection,
    found: Assessment,
    rules: Mapping[str, float],
    dataset_ids: Collection[int] | None = None,
) -> None:
    """Each written dataset's latest write and expected interval (nothing here depends on now);
    of ``dataset_ids`` only (replaced), None: of every dataset."""
    if dataset_ids is not None:
        for did in dataset_ids:
            found.freshness.pop(did, None)
    writes = h.recent_writes(conn, dataset_ids, KEEP)
    written = sorted(writes)
    views = [i for i in written if found.nodes[i].feast_type in FEATURE_VIEWS]
    facets = read_common.facets_of(conn, t.dataset_facets, views)
    for did in written:
        info, times = found.nodes[did], writes.get(did, [])
        interval, source = _interval(info, times, rules, facets)
        found.freshness[did] = Freshness(times[0] if times else None, interval, source)


def _dues(found: Assessment) -> None:
    """When each dataset with an interval turns stale, earliest first."""
    dues = sorted(
        (fresh.last_write_us + int(fresh.interval_s * _US), did)
        for did, fresh in found.freshness.items()
        if fresh.interval_s is not None and fresh.last_write_us is not None
    )
    found.dues = [due for due, _ in dues]
    found.due_ids = [did for _, did in dues]


def stale_count(kept: Assessment, now_us: int) -> int:
    """How many datasets are stale at ``now_us``: the first this many of ``kept.due_ids``."""
    return bisect.bisect_left(kept.dues, now_us)


def stale_causes(kept: Assessment, count: int) -> dict[int, Cause]:
    """The first ``count`` datasets to turn stale, as causes."""
    out: dict[int, Cause] = {}
    for due, did in zip(kept.dues[:count], kept.due_ids[:count], strict=True):
        fresh = kept.freshness[did]
        out[did] = Cause(
            did, "stale", due, interval_s=fresh.interval_s, last_write_us=fresh.last_write_us
        )
    return out


def _spread(conn: Connection, found: Assessment) -> None:
    """Put every node downstream of a cause at risk, naming its nearest causes.

    One breadth-first walk from every cause at once, over the graph :func:`base`
    read (else a query per level): each node keeps the causes at its least
    distance (at most MAX_CAUSES).
    """
    if found.downstream is None:
        found.downstream = reach.KnownSteps(downstream=True)
    known = found.downstream
    best: dict[int, int] = dict.fromkeys(found.causes, 0)
    nearest: dict[int, list[int]] = {c: [c] for c in found.causes}
    frontier, deeper, level = sorted(found.causes), set[int](), 0
    while frontier:
        same: set[int] = set()
        # lineage and explicit steps before symlinks, as the store's query lists them
        for step in sorted(known.fetch(conn, frontier), key=lambda s: -s.deeper):
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


def _merge(into: list[int], causes: list[int]) -> None:
    for cause in causes:
        if len(into) >= MAX_CAUSES:
            return
        if cause not in into:
            into.append(cause)


def base(conn: Connection, rules: Mapping[str, float]) -> Assessment:
    """What an assessment reads from the store and that does not depend on now."""
    found = Assessment(0, nodes=h.every_node(conn))
    _failed(conn, found)
    _freshness(conn, found, rules)
    # One read of the whole current graph (cheaper than a read per level once the walks
    # reach most nodes, as the spread from every stale dataset does).
    found.graph = frozenset(h.every_step(conn, downstream=True))
    found.downstream, found.upstream = reach.KnownSteps.whole(found.graph)
    _materialized(conn, found, None)
    finish(found)
    return found


def finish(found: Assessment) -> None:
    """What a base derives in memory from what it read: the lags' sources (walked over the
    graph), when each dataset turns stale, the infos of every node it speaks of."""
    _lag_sources(found)
    _dues(found)
    found.infos = {n: found.nodes[n] for n in found.freshness}
    found.infos.update((n, found.nodes[n]) for n in found.causes if n in found.nodes)
    found.infos.update((i.id, i) for i in _feast(found, (*FEATURE_VIEWS, "feature_service")))


def at(kept: Assessment, now_us: int, stale: dict[int, Cause] | None = None) -> Assessment:
    """``kept`` (a :func:`base`) as of ``now_us``: stale datasets (``stale`` when the caller
    knows them) and lags; not yet spread."""
    if stale is None:
        stale = stale_causes(kept, stale_count(kept, now_us))
    found = Assessment(
        now_us,
        causes={**kept.causes, **stale},
        freshness=kept.freshness,
        infos=kept.infos,
        materialized_to=kept.materialized_to,
        source_written=kept.source_written,
        service_views=kept.service_views,
        marker=kept.marker,
        downstream=kept.downstream,
        nodes=kept.nodes,
        graph=kept.graph,
        upstream=kept.upstream,
        graph_marker=kept.graph_marker,
        node_keys=kept.node_keys,
    )
    _lag_seconds(found)
    return found


def compute(conn: Connection, rules: Mapping[str, float], now_us: int) -> Assessment:
    """The health of every node as of ``now_us`` (microseconds), from the store."""
    found = at(base(conn, rules), now_us)
    _spread(conn, found)
    return found


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


def _source_written(known: reach.KnownSteps, view: int, found: Assessment) -> int | None:
    """The latest write of a dataset upstream of ``view`` that is no Feast object of its own
    (every written dataset's latest write and info are in ``found`` already)."""
    walked = known.walk(None, view, SOURCE_DEPTH)
    writes = [
        fresh.last_write_us
        for n in walked.distance
        if n != view
        and (fresh := found.freshness.get(n)) is not None
        and fresh.last_write_us is not None
        and (info := found.nodes.get(n)) is not None
        and info.kind == "dataset"
        and info.feast_type in (None, "data_source")
    ]
    return max(writes, default=None)


def _feast(found: Assessment, feast_types: tuple[str, ...]) -> list[h.NodeInfo]:
    """Every dataset standing for a Feast object of one of ``feast_types``."""
    return [i for i in found.nodes.values() if i.kind == "dataset" and i.feast_type in feast_types]


def _online_stores(found: Assessment, views: list[h.NodeInfo]) -> dict[int, int]:
    """Feature view -> its online store's dataset (``online_store/<view>``, same namespace),
    which Feast's materialize runs write (they read the feature view)."""
    stores = {(s.ns_id, s.name.split("/", 1)[-1]): s.id for s in _feast(found, ("online_store",))}
    out: dict[int, int] = {}
    for view in views:
        store = stores.get((view.ns_id, view.name.split("/", 1)[-1]))
        if store is not None:
            out[view.id] = store
    return out


def _materialized(conn: Connection, found: Assessment, touched: Collection[int] | None) -> None:
    """Each feature view's materialized-to time (of the views whose own dataset or online store
    is among ``touched`` only, replaced; None: of every view)."""
    views = _feast(found, FEATURE_VIEWS)
    stores = _online_stores(found, views)
    if touched is not None:
        views = [v for v in views if v.id in touched or stores.get(v.id) in touched]
        for view in views:
            found.materialized_to.pop(view.id, None)
    if not views:
        return
    ended = _materialized_to(
        conn, [v.id for v in views] + [stores[v.id] for v in views if v.id in stores]
    )
    for view in views:
        # Materialized to: a run writing the view itself, or (Feast's shape) its online store.
        ends = [ended[i] for i in (view.id, stores.get(view.id)) if i is not None and i in ended]
        if ends:
            found.materialized_to[view.id] = max(ends)


def _lag_sources(found: Assessment) -> None:
    """Each feature view's source's latest write; the services' views (walked upstream over
    the whole graph, in memory)."""
    known = found.upstream
    assert known is not None  # read by base, kept by a refresh
    views = _feast(found, FEATURE_VIEWS)
    services = _feast(found, ("feature_service",))
    found.source_written, found.service_views = {}, {}
    for view in views:
        source = _source_written(known, view.id, found)
        if source is not None:
            found.source_written[view.id] = source
    view_ids = {v.id for v in views}
    for service in services:
        walked = known.walk(None, service.id, 2)
        found.service_views[service.id] = sorted(n for n in walked.distance if n in view_ids)


def _lag_seconds(found: Assessment) -> None:
    """Each feature view's lags as of now; a feature service takes its worst view's."""
    now = found.now_us
    for view, info in found.infos.items():
        if info.feast_type not in FEATURE_VIEWS:
            continue
        ended, source = found.materialized_to.get(view), found.source_written.get(view)
        found.lags[view] = (
            (now - ended) / _US if ended is not None else None,
            (now - source) / _US if source is not None else None,
        )
    for service, views in found.service_views.items():
        mine = [found.lags[v] for v in views if v in found.lags]
        mats = [m for m, _ in mine if m is not None]
        srcs = [s for _, s in mine if s is not None]
        found.lags[service] = (max(mats, default=None), max(srcs, default=None))
