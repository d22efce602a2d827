"""Run trees do not depend on the order events arrive in, nor on duplicates."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feast_lineage.consumer.store.admin.prune import prune
from feast_lineage.consumer.store.read.run_tree import run_tree, tree_root
from feast_lineage.event_time import parse_us
from tests.factories import at, facet, run_event
from tests.store_helpers import Store, ingest_shuffled

NS = "airflow://prod"


def _ids(n: int) -> list[str]:
    return [str(uuid.UUID(int=i + 1)) for i in range(n)]


@st.composite
def _hierarchies(draw: st.DrawFn) -> dict[str, Any]:
    """Runs 1 to 4 deep: each run's parent (an earlier run, or none), and what it says."""
    n = draw(st.integers(1, 10))
    parents: list[int | None] = []
    depth: list[int] = []
    for i in range(n):
        choices = [j for j in range(i) if depth[j] < 3]
        parent = draw(st.one_of(st.none(), st.sampled_from(choices))) if choices else None
        parents.append(parent)
        depth.append(0 if parent is None else depth[parent] + 1)
    return {
        "parents": parents,
        "names_root": draw(st.lists(st.booleans(), min_size=n, max_size=n)),
        "sent": draw(st.lists(st.booleans(), min_size=n, max_size=n)),  # some never arrive
        "states": draw(st.lists(st.sampled_from(["COMPLETE", "FAIL"]), min_size=n, max_size=n)),
    }


def _events(h: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]]]:
    parents = h["parents"]
    ids = _ids(len(parents))

    def root_of(i: int) -> int:
        while parents[i] is not None:
            i = parents[i]
        return i

    events = []
    for i, parent in enumerate(parents):
        if not h["sent"][i]:
            continue
        facets: dict[str, Any] = {}
        if parent is not None:
            link: dict[str, Any] = {
                "run": {"runId": ids[parent]},
                "job": {"namespace": NS, "name": f"job{parent}"},
            }
            if h["names_root"][i]:
                root = root_of(i)
                link["root"] = {
                    "run": {"runId": ids[root]},
                    "job": {"namespace": NS, "name": f"job{root}"},
                }
            facets["parent"] = facet(**link)
        for state, t in (("START", i), (h["states"][i], 20 + i)):
            events.append(
                run_event(state, run_id=ids[i], job=(NS, f"job{i}"), time=at(t), run_facets=facets)
            )
    return ids, events


def _trees(store: Store, ids: list[str]) -> dict[str, Any]:
    with store.engine.connect() as conn:
        return {run_id: run_tree(conn, run_id, None) for run_id in ids}


@pytest.mark.slow
def test_run_trees_do_not_depend_on_order_or_duplication(
    two_stores: tuple[Store, Store],
) -> None:
    a, b = two_stores
    examples = 40 if a.dialect == "sqlite" else 10

    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(_hierarchies(), st.data())
    def check(h: dict[str, Any], data: st.DataObject) -> None:
        a.reset()
        b.reset()
        ids, events = _events(h)
        if not events:
            return
        a.ingest_each(events)
        ingest_shuffled(b, events, data, max_dups=4)
        sent = [run_id for run_id, s in zip(ids, h["sent"], strict=True) if s]
        in_order = _trees(a, sent)
        assert in_order == _trees(b, sent)
        # Where every run arrived, each tree is exactly the generated one.
        if all(h["sent"]):
            parents = h["parents"]
            for i, run_id in enumerate(ids):
                tree = in_order[run_id]
                assert tree is not None
                assert not tree.truncated
                root = i
                while parents[root] is not None:
                    root = parents[root]
                assert tree.root_run_id == ids[root]
                members = {j for j in range(len(ids)) if _root(parents, j) == root}
                assert {n.run_id for n in tree.runs} == {ids[j] for j in members}
                for node in tree.runs:
                    j = ids.index(node.run_id)
                    assert node.depth == _depth(parents, j)
                    assert node.tree_parent == (None if parents[j] is None else ids[parents[j]])
                    assert not node.missing
        # A run reaches the tree of its root when the root arrived and the way up is
        # whole, or a run on the way (up to the first parent that never arrived)
        # names the root; it then has the root's tree.
        for i, run_id in enumerate(ids):
            root = _root(h["parents"], i)
            if not (h["sent"][i] and h["sent"][root] and _reaches_root(h, i)):
                continue
            tree = in_order[run_id]
            assert tree is not None
            assert tree.root_run_id == ids[root]
            assert tree == in_order[ids[root]]
            whole = all(h["sent"][j] for j in _chain(h["parents"], i))
            (node,) = [n for n in tree.runs if n.run_id == run_id]
            assert not whole or node.depth == _depth(h["parents"], i)
        # A run whose parent never arrived still finds the root it names.
        with a.engine.connect() as conn:
            for i, run_id in enumerate(ids):
                if h["sent"][i] and h["parents"][i] is not None and h["names_root"][i]:
                    assert tree_root(conn, run_id) == ids[_root(h["parents"], i)]

    check()


def _root(parents: list[int | None], i: int) -> int:
    while (p := parents[i]) is not None:
        i = p
    return i


def _depth(parents: list[int | None], i: int) -> int:
    d = 0
    while (p := parents[i]) is not None:
        i, d = p, d + 1
    return d


def _chain(parents: list[int | None], i: int) -> list[int]:
    out = []
    while (p := parents[i]) is not None:
        out.append(p)
        i = p
    return out


def _reaches_root(h: dict[str, Any], i: int) -> bool:
    parents, sent, names_root = h["parents"], h["sent"], h["names_root"]
    j = i
    while (p := parents[j]) is not None:
        if names_root[j]:
            return True
        if not sent[p]:
            return False
        j = p
    return True


def _child_of(parent: str, child: str, start: float, end: float) -> list[dict[str, Any]]:
    link = facet(run={"runId": parent}, job={"namespace": NS, "name": "dag"})
    return [
        run_event(
            state, run_id=child, job=(NS, "dag.task"), time=at(t), run_facets={"parent": link}
        )
        for state, t in (("START", start), ("COMPLETE", end))
    ]


def test_a_parent_retention_pruned_is_pruned_and_one_that_never_came_is_missing(
    store: Store,
) -> None:
    """Retention pruned the DAG run; its task, still running past the horizon, stays.

    The task started before the horizon, so its missing parent is named
    ``pruned``; a parent whose children all started after the horizon never
    arrived (it would have been running then): ``missing`` only.
    """
    dag, task, lost, late, next_dag = _ids(5)
    store.ingest_each(
        [
            run_event("START", run_id=dag, job=(NS, "dag"), time=at(1)),
            run_event("COMPLETE", run_id=dag, job=(NS, "dag"), time=at(2)),
            # The DAG's next run, its last before the horizon: retention keeps that one.
            run_event("COMPLETE", run_id=next_dag, job=(NS, "dag"), time=at(50)),
            *_child_of(dag, task, 3, 200),
            *_child_of(lost, late, 150, 160),
        ]
    )
    with store.engine.connect() as conn:
        before = run_tree(conn, task, None)
    assert before is not None
    assert [(n.run_id, n.missing, n.pruned) for n in before.runs] == [
        (dag, False, False),
        (task, False, False),
    ]
    prune(store.engine, parse_us(at(100)))
    with store.engine.connect() as conn:
        after = run_tree(conn, task, None)
        never = run_tree(conn, late, None)
    assert after is not None
    assert never is not None
    assert [(n.run_id, n.missing, n.pruned) for n in after.runs] == [
        (dag, True, True),
        (task, False, False),
    ]
    assert [(n.run_id, n.missing, n.pruned) for n in never.runs] == [
        (lost, True, False),
        (late, False, False),
    ]
