"""The recursive column walk on every database: cycles, exact depth, aliases, scope, limit.

Each test stores events through the real ingest path and asks the column
lineage service (which runs :func:`walk_columns` once per direction), so
what the query could get wrong shows in the answer: a cycle that never
ends or repeats edges, a node reached by a short and a long path given the
long path's depth, edges one level too deep, an alias counted as a second
node, a hidden namespace walked through, a limit that keeps far nodes.
"""

from __future__ import annotations

from typing import Any

from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.services.columns import Direction, column_lineage
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.read.column_walk import walk_columns
from feast_lineage.consumer.store.read.positions import PositionCache
from feast_lineage.identity import dataset_id
from tests.factories import at, dataset, facet, run_event
from tests.store_helpers import Store

Field = tuple[str, str, str]  # (namespace, dataset, field)


def _cll(fields: dict[str, list[Field]], whole: list[Field] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    def item(ns: str, name: str, f: str, kind: str) -> dict[str, Any]:
        return {
            "namespace": ns,
            "name": name,
            "field": f,
            "transformations": [{"type": kind, "subtype": "IDENTITY"}],
        }

    return facet(
        fields={
            out: {"inputFields": [item(*src, "DIRECT") for src in sources]}
            for out, sources in fields.items()
        },
        dataset=[item(*src, "INDIRECT") for src in whole],
    )


def _write(
    job: str,
    output: tuple[str, str],
    fields: dict[str, list[Field]],
    *,
    whole: list[Field] = (),  # type: ignore[assignment]
    t: float = 0,
    **facets: Any,
) -> dict[str, Any]:
    inputs = sorted({(ns, name) for srcs in fields.values() for ns, name, _ in srcs})
    inputs += sorted({(ns, name) for ns, name, _ in whole} - set(inputs))
    return run_event(
        "COMPLETE",
        job=("spark", job),
        time=at(t),
        inputs=[dataset(ns, name) for ns, name in inputs],
        outputs=[dataset(*output, columnLineage=_cll(fields, whole), **facets)],
    )


def _ask(
    store: Store,
    name: str,
    field: str | None,
    *,
    direction: Direction = "upstream",
    depth: int = 5,
    indirect: bool = True,
    limit: int = 1000,
    scope: Scope | None = None,
    ns: str = "lake",
) -> dict[str, Any]:
    read = StoreReader(store.engine, scope or Scope.everything(), {}, PositionCache())
    return column_lineage(
        read,
        namespace=ns,
        name=name,
        field_name=field,
        direction=direction,
        depth=depth,
        indirect=indirect,
        limit=limit,
    )


def _id(name: str, field: str | None, ns: str = "lake") -> str:
    return f"field:{ns}:{name}:{field}" if field is not None else f"dataset:{ns}:{name}"


def _edges(body: dict[str, Any]) -> list[tuple[str, str]]:
    return [(e["source"], e["target"]) for e in body["edges"]]


def _depths(body: dict[str, Any]) -> dict[str, int]:
    return {n["id"]: n["depth"] for n in body["nodes"]}


def L(name: str, f: str) -> Field:
    return ("lake", name, f)


def test_a_cycle_ends_and_lists_each_edge_once(store: Store) -> None:
    store.ingest(
        _write("ab", ("lake", "b"), {"x": [L("a", "x")]}),
        _write("ba", ("lake", "a"), {"x": [L("b", "x")], "y": [L("a", "x")]}),
    )
    for depth in (1, 2, 5, 40):
        body = _ask(store, "a", "x", depth=depth)
        want = [(_id("b", "x"), _id("a", "x"))]
        if depth >= 2:
            want.insert(0, (_id("a", "x"), _id("b", "x")))
        assert _edges(body) == want, depth
        assert _depths(body) == {_id("a", "x"): 0, _id("b", "x"): 1}
    both = _ask(store, "a", "x", direction="both", depth=40)
    assert sorted(_edges(both)) == sorted(
        [
            (_id("a", "x"), _id("b", "x")),
            (_id("b", "x"), _id("a", "x")),
            (_id("a", "x"), _id("a", "y")),
        ]
    )
    assert _depths(both) == {_id("a", "x"): 0, _id("b", "x"): 1, _id("a", "y"): 1}


def test_depth_is_exact_and_a_shortcut_gives_the_least_depth(store: Store) -> None:
    # e.x -> a.x -> b.x -> c.x -> d.x, and a shortcut a.x -> d.x
    store.ingest(
        _write("ea", ("lake", "a"), {"x": [L("e", "x")]}),
        _write("ab", ("lake", "b"), {"x": [L("a", "x")]}),
        _write("bc", ("lake", "c"), {"x": [L("b", "x")]}),
        _write("cd", ("lake", "d"), {"x": [L("c", "x")]}),
        _write("ad", ("lake", "d"), {"x": [L("a", "x")]}),
    )
    one = _ask(store, "d", "x", depth=1)
    assert sorted(_edges(one)) == [(_id("a", "x"), _id("d", "x")), (_id("c", "x"), _id("d", "x"))]
    two = _ask(store, "d", "x", depth=2)
    assert (_id("e", "x"), _id("a", "x")) in _edges(two)  # through the shortcut
    assert (_id("b", "x"), _id("c", "x")) in _edges(two)
    assert (_id("a", "x"), _id("b", "x")) not in _edges(two)  # b.x is at depth 2: its inputs at 3
    assert _depths(two) == {
        _id("d", "x"): 0,
        _id("a", "x"): 1,
        _id("c", "x"): 1,
        _id("e", "x"): 2,
        _id("b", "x"): 2,
    }
    assert len(_edges(_ask(store, "d", "x", depth=3))) == 5
    assert _ask(store, "d", "x", depth=0)["edges"] == []
    down = _ask(store, "e", "x", direction="downstream", depth=2)
    assert _depths(down) == {
        _id("e", "x"): 0,
        _id("a", "x"): 1,
        _id("b", "x"): 2,
        _id("d", "x"): 2,
    }


def test_dataset_level_inputs_of_the_last_level_are_not_taken(store: Store) -> None:
    store.ingest(
        _write("src", ("lake", "m"), {"x": [L("s", "x")]}, whole=[L("f", "flag")]),
        _write("mid", ("lake", "o"), {"x": [L("m", "x")]}),
        _write("flags", ("lake", "f"), {"flag": [L("raw", "flag")]}),
    )
    one = _ask(store, "o", "x", depth=1)
    assert _edges(one) == [(_id("m", "x"), _id("o", "x"))]
    two = _ask(store, "o", "x", depth=2)
    assert sorted(_edges(two)) == sorted(
        [
            (_id("m", "x"), _id("o", "x")),
            (_id("s", "x"), _id("m", "x")),
            (_id("f", "flag"), _id("m", None)),
        ]
    )
    assert _depths(two)[_id("m", None)] == 1
    assert _depths(two)[_id("f", "flag")] == 2
    three = _ask(store, "o", "x", depth=3)
    assert (_id("raw", "flag"), _id("f", "flag")) in _edges(three)
    assert (_id("f", "flag"), _id("m", None)) not in _edges(_ask(store, "o", "x", indirect=False))


def test_aliases_are_one_node_through_a_chain_of_symlinks(store: Store) -> None:
    def links(*names: tuple[str, str]) -> dict[str, Any]:
        return facet(identifiers=[{"namespace": ns, "name": n, "type": "TABLE"} for ns, n in names])

    store.ingest(
        _write("j", ("lake", "t"), {"x": [L("a", "y")]}, symlinks=links(("hive", "db.t"))),
        # hive's name has an alias of its own: the three names are one dataset
        run_event(
            "COMPLETE",
            job=("spark", "cat"),
            outputs=[dataset("hive", "db.t", symlinks=links(("warehouse", "t")))],
        ),
        _write("k", ("lake", "u"), {"z": [("warehouse", "t", "x")]}, t=1),
        _write("l", ("lake", "v"), {"w": [L("u", "z")]}, t=2),
    )
    body = _ask(store, "t", "x", direction="both", depth=1)
    assert sorted(_edges(body)) == [
        (_id("a", "y"), _id("t", "x")),
        (_id("t", "x"), _id("u", "z")),
    ]
    node = next(n for n in body["nodes"] if n["id"] == _id("t", "x"))
    assert node["aliases"] == [
        {"namespace": "hive", "name": "db.t"},
        {"namespace": "warehouse", "name": "t"},
    ]
    deeper = _ask(store, "t", "x", direction="downstream", depth=2)
    assert _depths(deeper) == {_id("t", "x"): 0, _id("u", "z"): 1, _id("v", "w"): 2}
    # asked by an alias's name, the answer is named after it and finds the same edges
    via = _ask(store, "t", "x", ns="warehouse", direction="both", depth=1)
    assert sorted(_edges(via)) == [
        (_id("a", "y"), _id("t", "x", "warehouse")),
        (_id("t", "x", "warehouse"), _id("u", "z")),
    ]


def test_a_hidden_namespace_is_never_walked_through(store: Store) -> None:
    store.ingest(
        _write("in", ("secret", "s"), {"x": [L("a", "x")]}),
        _write("out", ("lake", "b"), {"x": [("secret", "s", "x")]}),
        _write("side", ("lake", "c"), {"x": [L("a", "x")]}),
        _write("on", ("lake", "d"), {"x": [L("c", "x")]}),
    )
    everything = _ask(store, "a", "x", direction="downstream")
    assert _id("b", "x") in _depths(everything)
    seen = _ask(store, "a", "x", direction="downstream", scope=Scope.of(["lake"]))
    assert _edges(seen) == [(_id("a", "x"), _id("c", "x")), (_id("c", "x"), _id("d", "x"))]
    start = dataset_id("lake", "a")
    with store.engine.connect() as conn:
        assert walk_columns(conn, start, None, "downstream", 5, True, frozenset()) == []


def test_limit_keeps_the_nearest_nodes_and_the_edges_among_them(store: Store) -> None:
    # o.x <- m{0..5}.x <- s{0..5}.x: six nodes at depth 1, six at depth 2
    events = [_write("o", ("lake", "o"), {"x": [L(f"m{i}", "x") for i in range(6)]})]
    events += [_write(f"m{i}", ("lake", f"m{i}"), {"x": [L(f"s{i}", "x")]}) for i in range(6)]
    store.ingest(*events)
    full = _ask(store, "o", "x", depth=2)
    assert len(full["nodes"]) == 13
    assert not full["truncated"]
    cut = _ask(store, "o", "x", depth=2, limit=9)
    assert cut["truncated"]
    assert len(cut["nodes"]) == 9
    kept = _depths(cut)
    assert sorted(kept.values()) == [0, 1, 1, 1, 1, 1, 1, 2, 2]
    assert all(src in kept and dst in kept for src, dst in _edges(cut))
    assert len(_edges(cut)) == 8
