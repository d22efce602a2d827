"""The open problems (``/health``) and what a node's failure would reach (``/impact``).

States come from :mod:`.health_states`; what a problem reaches is walked
downstream through every node, as the spread that puts nodes at risk walks,
so a problem reaches what the graph puts at risk naming it. A caller is
shown the reached nodes it may see, with their distances; a node it may not
see is neither listed, nor counted, nor named in a path (docs/api.md,
Lineage health).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import Connection

from feast_lineage.consumer.errors import Conflict, NotFound
from feast_lineage.consumer.schemas import (
    Clamped,
    HealthPage,
    HealthProblem,
    Impact,
    ReachGroups,
    ReachTotals,
)
from feast_lineage.consumer.services import not_found, reach
from feast_lineage.consumer.services.bounds import MAX_DEPTH, clamp_depth
from feast_lineage.consumer.services.graph import _visible_start, build_nodes, node_key
from feast_lineage.consumer.services.health_cache import assess
from feast_lineage.consumer.services.health_states import Assessment, Cause
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.read import graph as g
from feast_lineage.consumer.store.read import health as h
from feast_lineage.consumer.store.read.graph import NodeKind
from feast_lineage.event_time import to_iso
from feast_lineage.identity import dataset_id, job_id

MAX_PROBLEMS_PAGE = 200
ProblemKind = Literal["failed", "stale"]


Reach = tuple[reach.Walked, dict[int, h.NodeInfo]]


def _reaches(
    conn: Connection, read: StoreReader, starts: list[int], health: Assessment
) -> dict[int, Reach]:
    """What each of ``starts`` (causes) reaches, kept while the store is as it was assessed.

    The walks go over the graph the assessment read whole, through every node
    as the spread that puts nodes at risk does (which of them a caller sees is
    :func:`_grouped`'s), and take the nodes' infos it read (else read them,
    every reached node's at once). A walk is the same for every caller: it is
    kept once.
    """
    cache, marker = read.health_cache, health.graph_marker
    keys = {s: ("reach", s, MAX_DEPTH) for s in starts}
    keep = cache is not None and marker is not None
    out: dict[int, Reach] = {}
    for start in starts:
        kept = cache.walked(keys[start], marker) if cache is not None and keep else None
        if kept is not None:
            out[start] = kept  # type: ignore[assignment]
    fetch = health.downstream.fetcher(conn) if health.downstream is not None else None
    walks = {s: reach.walk(conn, [s], MAX_DEPTH, fetch=fetch) for s in starts if s not in out}
    reached = {n for w in walks.values() for n in w.distance}
    infos = health.nodes if health.nodes else h.node_info(conn, reached)
    for start, walked in walks.items():
        out[start] = (walked, infos)
        if cache is not None and keep:
            cache.keep_walked(keys[start], marker, walked.distance.keys(), out[start])
    return out


def _visible(read: StoreReader, infos: dict[int, h.NodeInfo]) -> Callable[[int], bool] | None:
    """Which reached nodes the caller may see (None: all of them)."""
    scope = read.scope
    if scope.is_everything:
        return None
    return lambda n: (info := infos.get(n)) is not None and scope.allows_id(info.ns_id)


def _key(infos: dict[int, h.NodeInfo], memo: dict[int, str] | None = None) -> Callable[[int], str]:
    """A node's API id; ``memo`` keeps them (a node's id names its kind, namespace and name:
    its key never changes)."""
    known = {} if memo is None else memo

    def key(n: int) -> str:
        found = known.get(n)
        if found is None:
            info = infos[n]
            found = known[n] = node_key(info.kind, info.namespace, info.name)
        return found

    return key


def _grouped(
    read: StoreReader, start: int, found: Reach, health: Assessment
) -> tuple[ReachGroups, ReachTotals]:
    """What a problem reaches, by group: kept with its walk (sorting a thousand reached nodes
    by name costs more than walking to them)."""
    cache, marker = read.health_cache, health.graph_marker
    # What the caller may see of the walk: kept per scope
    kept_as = ("grouped", start, MAX_DEPTH, read.scope.cache_key())
    keep = cache is not None and marker is not None
    kept = cache.walked(kept_as, marker) if cache is not None and keep else None
    if kept is not None:
        return kept  # type: ignore[return-value]
    walked, infos = found
    key, visible = _key(infos, health.node_keys), _visible(read, infos)
    answer = reach.grouped(walked, infos, key, terminal_only=True, visible=visible)
    if cache is not None and keep:
        cache.keep_walked(kept_as, marker, walked.distance.keys(), answer)
    return answer


def _problems(
    conn: Connection, read: StoreReader, causes: list[Cause], health: Assessment
) -> list[HealthProblem]:
    """A page of problems: their nodes built at once, what each reaches (:func:`_reaches`)."""
    ns_ids = read.scope.ns_ids
    rows = {r.id: r for r in g.nodes_by_id(conn, [c.node for c in causes], ns_ids, visible=ns_ids)}
    shown = [c for c in causes if c.node in rows]
    nodes, _ = build_nodes(conn, [rows[c.node] for c in shown], read, health=health)
    reaches = _reaches(conn, read, [c.node for c in shown], health)
    out: list[HealthProblem] = []
    for cause, node in zip(shown, nodes, strict=True):
        groups, totals = _grouped(read, cause.node, reaches[cause.node], health)
        out.append(
            HealthProblem(
                id=f"{cause.kind}:{node['id']}",
                kind=cause.kind,
                node=node,
                since=to_iso(cause.since_us) or "",
                error=cause.error,
                run_id=cause.run_id,
                expected_interval_seconds=cause.interval_s,
                last_write=to_iso(cause.last_write_us),
                reaches=groups,
                reach_totals=totals,
            )
        )
    return out


def health_page(
    read: StoreReader,
    *,
    namespace: str | None,
    kind: ProblemKind | None,
    limit: int,
    offset: int,
) -> HealthPage:
    """The open problems the caller may see, newest first."""
    limit = max(1, min(limit, MAX_PROBLEMS_PAGE))
    scope = read.scope.narrow(namespace)
    with read.engine.connect() as conn:
        health = assess(conn, read.freshness, read.clock(), read.health_cache)
        visible = [
            c
            for c in health.causes.values()
            if (kind is None or c.kind == kind)
            and c.node in health.infos
            and scope.allows_id(health.infos[c.node].ns_id)
        ]
        visible.sort(key=lambda c: (-c.since_us, c.kind, c.node))
        problems = _problems(conn, read, visible[offset : offset + limit], health)
    return HealthPage(problems=problems, total=len(visible), limit=limit, offset=offset)


def _impact_walk(conn: Connection, read: StoreReader, start: int, depth: int) -> Reach:
    """The walk of ``/impact``: over the kept assessment's graph when the process keeps one,
    through every node as the spread does (which of them the caller sees is grouping's).

    The assessment holds every step of the current graph (read by the same
    statement as a step of the walk) and every node's info, brought up to
    date with the store before it answers, so the walk needs no statement.
    """
    if read.health_cache is None:
        walked = reach.walk(conn, [start], depth)
        return walked, h.node_info(conn, walked.distance)
    health = assess(conn, read.freshness, read.clock(), read.health_cache)
    fetch = health.downstream.fetcher(conn) if health.downstream is not None else None
    walked = reach.walk(conn, [start], depth, fetch=fetch)
    return walked, health.nodes if health.nodes else h.node_info(conn, walked.distance)


def impact(read: StoreReader, *, kind: NodeKind, namespace: str, name: str, depth: int) -> Impact:
    """Every visible node downstream of one node, with one shortest path each, by group."""
    clamped: list[Clamped] = []
    depth = clamp_depth(depth, clamped)
    start = job_id(namespace, name) if kind == "job" else dataset_id(namespace, name)
    with read.engine.connect() as conn:
        node = _visible_start(conn, kind, start, namespace, read.scope)
        if node is None:
            raise NotFound(
                f"no such {kind} (or it is not visible); check node_type, namespace and name; "
                + not_found.nodes(kind)
            )
        walked, infos = _impact_walk(conn, read, node, depth)
        visible = _visible(read, infos)
        groups, totals = reach.grouped(walked, infos, _key(infos), False, visible=visible)
    if node not in infos:
        raise Conflict("the node vanished while it was read; retry")
    return Impact(
        root=_key(infos)(node),
        depth=depth,
        affected=groups,
        totals=totals,
        clamped=clamped,
    )


# At most this many series per health gauge (docs/api.md, Metrics): the
# largest lags (or at-risk services, or namespaces) first.
MAX_SERIES = 1000

Series = list[tuple[tuple[str, str], float]]


@dataclass(frozen=True, slots=True)
class HealthFigures:
    """The health gauges of ``/metrics``, computed from the store at the scrape."""

    materialization_lag: Series  # (namespace, name) of a feature view -> seconds
    source_lag: Series
    service_at_risk: Series  # (namespace, name) of a feature service -> 0 or 1
    failed_jobs: list[tuple[tuple[str], float]]  # (namespace,) -> count
    stale_datasets: list[tuple[tuple[str], float]]


def _top(series: Series) -> Series:
    return sorted(series, key=lambda s: (-s[1], s[0]))[:MAX_SERIES]


def _per_namespace(health: Assessment, kind: str) -> list[tuple[tuple[str], float]]:
    counts: dict[str, int] = {}
    for cause in health.causes.values():
        info = health.infos.get(cause.node)
        if cause.kind == kind and info is not None:
            counts[info.namespace] = counts.get(info.namespace, 0) + 1
    ranked = sorted(counts.items(), key=lambda c: (-c[1], c[0]))[:MAX_SERIES]
    return [((namespace,), float(n)) for namespace, n in ranked]


def health_figures(read: StoreReader) -> HealthFigures:
    """Every namespace's figures (``/metrics`` is for callers who may see them all)."""
    with read.engine.connect() as conn:
        health = assess(conn, read.freshness, read.clock(), read.health_cache)
    mat: Series = []
    src: Series = []
    risk: Series = []
    for node, (mat_lag, src_lag) in health.lags.items():
        info = health.infos[node]
        labels = (info.namespace, info.name)
        if info.feast_type == "feature_service":
            risk.append((labels, 1.0 if node in health.at_risk else 0.0))
            continue
        if mat_lag is not None:
            mat.append((labels, mat_lag))
        if src_lag is not None:
            src.append((labels, src_lag))
    return HealthFigures(
        materialization_lag=_top(mat),
        source_lag=_top(src),
        service_at_risk=_top(risk),
        failed_jobs=_per_namespace(health, "failed"),
        stale_datasets=_per_namespace(health, "stale"),
    )
