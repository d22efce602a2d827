"""Walks of the current graph that keep one shortest path to each node (impact, health).

A breadth-first walk in Python over one query per level
(:func:`~feast_lineage.consumer.store.read.health.steps`), or over the
steps a :class:`KnownSteps` holds (the whole graph, read once per store
state): a step across a symlink stays on the same level (aliases are one
dataset), as in the graph's own walk. A reached node's ``distance`` counts the
steps of its ``path`` but those across a symlink, which ``symlink_hops`` counts.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise

from sqlalchemy import Connection

from feast_lineage.consumer.schemas import Reached, ReachGroups, ReachTotals
from feast_lineage.consumer.store.read.health import NodeInfo, Step, steps

# At most this many reached nodes of one group in an answer (totals count all).
MAX_LISTED = 200


@dataclass(frozen=True, slots=True)
class Walked:
    """Node id -> its distance and the node it was reached from (None: a start)."""

    distance: dict[int, int]
    previous: dict[int, int | None]

    def path(self, node: int) -> list[int]:
        out = [node]
        while (before := self.previous.get(out[-1])) is not None:
            out.append(before)
        return out[::-1]


Fetch = Callable[[list[int]], list[Step]]


def walk(
    conn: Connection | None,
    starts: Collection[int],
    depth: int,
    *,
    downstream: bool = True,
    allowed: Callable[[int], bool] | None = None,
    fetch: Fetch | None = None,
) -> Walked:
    """Every node within ``depth`` steps of ``starts``; ``allowed`` keeps the walk on its nodes.

    ``fetch``: the steps out of a frontier (default: read from the store).
    """
    if fetch is None:
        assert conn is not None, "a walk without known steps reads them"
        store = conn
        fetch = lambda ids: steps(store, ids, downstream=downstream)  # noqa: E731
    distance = dict.fromkeys(starts, 0)
    previous: dict[int, int | None] = dict.fromkeys(starts)
    frontier = sorted(distance)
    deeper: list[int] = []  # found one level down, walked once this level's aliases are
    level = 0
    while frontier:
        same: list[int] = []
        for step in sorted(fetch(frontier)):
            far_level = level + step.deeper
            if step.far in distance or far_level > depth:
                continue
            if allowed is not None and not allowed(step.far):
                continue
            distance[step.far] = far_level
            previous[step.far] = step.near
            (same if step.deeper == 0 else deeper).append(step.far)
        if same:
            frontier = same
            continue
        frontier, deeper, level = deeper, [], level + 1
    return Walked(distance, previous)


class KnownSteps:
    """The steps out of every node a walk fetched, kept to walk again from other starts.

    :meth:`whole` holds every step of the current graph (read at once); else a
    node it does not know yet is read from the store (``conn``: the caller's
    connection) and kept. Holds for one store state (the caller keeps it under
    a :func:`.store_marker`); safe to share between threads (a node's steps are
    added whole).
    """

    def __init__(self, *, downstream: bool) -> None:
        self.downstream = downstream
        self._out: dict[int, list[Step]] = {}
        self._whole = False  # every step of the graph is known: a node not in _out has none

    @classmethod
    def whole(cls, every: Iterable[Step]) -> tuple[KnownSteps, KnownSteps]:
        """Every step of the graph (:func:`.every_step`, downstream), walked downstream and
        upstream (a step near -> far the other way is far -> near); each node's steps in
        order, whatever order ``every`` came in (a walk is then the same however it was read)."""
        down, up = cls(downstream=True), cls(downstream=False)
        d_out, u_out = down._out, up._out
        for step in sorted(every):
            near, far = step.near, step.far
            if near in d_out:
                d_out[near].append(step)
            else:
                d_out[near] = [step]
            back = Step(far, near, step.deeper)
            if far in u_out:
                u_out[far].append(back)
            else:
                u_out[far] = [back]
        down._whole = up._whole = True
        return down, up

    def replaced(self, removed: Collection[Step], added: Collection[Step]) -> KnownSteps:
        """A copy of a :meth:`whole` with ``removed`` gone and ``added`` in (both downstream
        steps): what :meth:`whole` of the changed graph holds, rebuilt for their nodes only."""
        assert self._whole, "only the whole graph is changed in place of a read"

        def oriented(step: Step) -> Step:
            return step if self.downstream else Step(step.far, step.near, step.deeper)

        gone = {oriented(s) for s in removed}
        new: dict[int, list[Step]] = {}
        for step in map(oriented, added):
            new.setdefault(step.near, []).append(step)
        out = KnownSteps(downstream=self.downstream)
        out._whole, out._out = True, dict(self._out)
        for node in {s.near for s in gone} | set(new):
            kept = [s for s in self._out.get(node, ()) if s not in gone]
            changed = sorted({*kept, *new.get(node, ())})
            if changed:
                out._out[node] = changed
            else:
                out._out.pop(node, None)
        return out

    def fetch(self, conn: Connection | None, ids: list[int]) -> list[Step]:
        known = self._out
        if self._whole:
            return [step for n in ids for step in known.get(n, ())]
        unknown = [n for n in ids if n not in known]
        if unknown:
            assert conn is not None, "steps not known are read"
            fresh: dict[int, list[Step]] = {n: [] for n in unknown}
            for step in steps(conn, unknown, downstream=self.downstream):
                fresh[step.near].append(step)
            known.update(fresh)
        return [step for n in ids for step in known[n]]

    def fetcher(self, conn: Connection | None) -> Fetch:
        return lambda ids: self.fetch(conn, ids)

    def walk(
        self,
        conn: Connection | None,
        start: int,
        depth: int,
        allowed: Callable[[int], bool] | None = None,
    ) -> Walked:
        fetch = self.fetcher(conn)
        return walk(conn, [start], depth, downstream=self.downstream, allowed=allowed, fetch=fetch)


def symlink_hops(walked: Walked, path: list[int]) -> int:
    """The hops of ``path`` across a symlink: those that stay on one level (they are free)."""
    level = walked.distance
    return sum(1 for near, far in pairwise(path) if level[near] == level[far])


def group_of(info: NodeInfo, downstream_ids: Collection[int] | None) -> str | None:
    """Which group a reached node falls in; None: not listed (``other`` is for terminal nodes)."""
    kind = info.feast_type
    if kind == "feature_service":
        return "feature_services"
    if kind == "feature_view" or kind == "on_demand_feature_view" or kind == "stream_feature_view":
        return "feature_views"
    if kind == "saved_dataset":
        return "saved_datasets"
    if downstream_ids is None or info.id not in downstream_ids:
        return "other"
    return None


def listed_before(walked: Walked, listed: Callable[[int], bool]) -> dict[int, int | None]:
    """Node -> the nearest node before it on its path that ``listed`` keeps (None: none).

    ``walked.previous`` holds each node after the node it was reached from (a walk adds
    them in the order it reaches them), so one pass in that order finds them all.
    """
    before: dict[int, int | None] = {}
    for node, near in walked.previous.items():
        before[node] = None if near is None else near if listed(near) else before[near]
    return before


def grouped(
    walked: Walked,
    infos: Mapping[int, NodeInfo],
    key: Callable[[int], str],
    terminal_only: bool,
    visible: Callable[[int], bool] | None = None,
) -> tuple[ReachGroups, ReachTotals]:
    """The reached nodes (not the starts) by group, nearest first, and each group's total.

    Only the nodes ``visible`` keeps (None: every node) are listed, counted and named in
    a path: the walk went through the others, which leave their steps in ``distance``
    and nothing else. A node is terminal when no listed node is reached through it.
    """
    groups = ReachGroups(feature_services=[], feature_views=[], saved_datasets=[], other=[])
    totals = ReachTotals(feature_services=0, feature_views=0, saved_datasets=0, other=0)

    def listed(n: int) -> bool:  # aliases never stored are no nodes
        return n in infos and (visible is None or visible(n))

    shown = [n for n, near in walked.previous.items() if near is not None and listed(n)]
    inner: set[int] | None = None
    if terminal_only:
        before = listed_before(walked, listed)
        inner = {b for n in shown if (b := before[n]) is not None}
    order = sorted(shown, key=lambda n: (walked.distance[n], key(n)))
    for node in order:
        info = infos[node]
        group = group_of(info, inner)
        if group is None:
            continue
        totals[group] += 1  # type: ignore[literal-required]
        listed_here: list[Reached] = groups[group]  # type: ignore[literal-required]
        if len(listed_here) < MAX_LISTED:
            path = [p for p in walked.path(node) if listed(p)]
            listed_here.append(
                Reached(
                    node=key(node),
                    type=info.kind,
                    namespace=info.namespace,
                    name=info.name,
                    distance=walked.distance[node],
                    path=[key(p) for p in path],
                    symlink_hops=symlink_hops(walked, path),
                )
            )
    return groups, totals


__all__ = [
    "MAX_LISTED",
    "Fetch",
    "KnownSteps",
    "Step",
    "Walked",
    "group_of",
    "grouped",
    "listed_before",
    "symlink_hops",
    "walk",
]
