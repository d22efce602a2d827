"""Explicit lineage in the store: the spec's examples, current edges, order and duplication."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from feast_lineage.consumer.store.admin.reset import reset_all, reset_namespace
from feast_lineage.consumer.store.read.explicit import (
    count_explicit_edges,
    current_explicit_edge,
    explicit_edges_among,
)
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.identity import namespace_id
from tests.factories import at, dataset, dataset_event, facet, job_event, run_event
from tests.store_helpers import Store, ingest_shuffled
from tests.test_explicit_lineage import AF, EXPECTED, WH, example

# (source "kind:ns:name", target "kind:ns:name", edge type, origin)
Edge = tuple[str, str, str, str]
OWN = ("airflow://production", "own.job")


def _names(store: Store) -> dict[int, str]:
    out = {r["id"]: f"job:{r['namespace']}:{r['name']}" for r in store.rows(t.jobs)}
    out.update({r["id"]: f"dataset:{r['namespace']}:{r['name']}" for r in store.rows(t.datasets)})
    return out


def stored(store: Store, *, current: bool) -> set[Edge]:
    x = t.explicit_edges.alias("x")
    stmt = select(x.c.src_id, x.c.dst_id, x.c.edge_type, x.c.origin)
    if current:
        stmt = stmt.where(current_explicit_edge(x))
    names = _names(store)
    with store.engine.connect() as conn:
        return {(names[s], names[d], kind, origin) for s, d, kind, origin in conn.execute(stmt)}


def _key(node: Any) -> str:
    return f"{node.kind}:{node.namespace}:{node.name}"


def expected(name: str, origin: str) -> set[Edge]:
    return {(_key(s), _key(d), kind, origin) for s, d, kind in EXPECTED[name]}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_spec_example_yields_exactly_its_edges_declared_and_observed(
    store: Store, name: str
) -> None:
    store.ingest(job_event(*OWN, lineage=example(name)))
    assert stored(store, current=False) == stored(store, current=True) == expected(name, "declared")
    store.ingest(run_event("COMPLETE", job=OWN, time=at(1), job_facets={"lineage": example(name)}))
    assert stored(store, current=True) == expected(name, "declared") | expected(name, "observed")
    # Every node the edges name is stored (a job only named is a stub).
    for edge in stored(store, current=True):
        assert edge[0] in _names(store).values()
        assert edge[1] in _names(store).values()


def test_the_dataset_to_dataset_example_links_two_datasets_and_their_columns(store: Store) -> None:
    store.ingest(
        dataset_event(WH, "public.customer_summary", lineage=example("dataset-to-dataset"))
    )
    target = f"dataset:{WH}:public.customer_summary"
    assert stored(store, current=True) == {
        (f"dataset:{WH}:public.customers", target, "dataset_to_dataset", "declared")
    }
    (column,) = store.rows(t.column_edges)
    assert (column["dst_field"], column["src_name"], column["src_field"]) == (
        "customer_id",
        "public.customers",
        "id",
    )
    assert column["origin"] == "declared"
    assert column["job_id"] == 0


def test_the_latest_declaration_wins_whatever_the_order(store: Store) -> None:
    first = job_event(*OWN, time=at(1), lineage=example("implicit-job"))
    second = job_event(*OWN, time=at(2), lineage=example("mixed-sources"))
    store.ingest(second)
    store.ingest(first)  # older: kept as history, not current
    assert stored(store, current=True) == expected("mixed-sources", "declared")
    assert stored(store, current=False) == expected("mixed-sources", "declared") | expected(
        "implicit-job", "declared"
    )


def test_a_columnlineage_facet_of_the_same_event_wins_over_field_entries(store: Store) -> None:
    target = dataset(
        WH,
        "public.customer_summary",
        lineage=example("dataset-to-dataset"),
        columnLineage=facet(
            fields={"a": {"inputFields": [{"namespace": WH, "name": "src", "field": "b"}]}}
        ),
    )
    store.ingest(run_event("COMPLETE", job=OWN, outputs=[target]))
    assert {(r["dst_field"], r["src_field"]) for r in store.rows(t.column_edges)} == {("a", "b")}


def test_job_dependencies_and_counts_and_edges_among(store: Store) -> None:
    deps = facet(
        upstream=[{"job": {"namespace": AF, "name": "extract"}}],
        downstream=[{"job": {"namespace": "other", "name": "report"}}],
    )
    store.ingest(run_event("COMPLETE", job=OWN, run_facets={"jobDependencies": deps}))
    own = f"job:{OWN[0]}:{OWN[1]}"
    assert stored(store, current=True) == {
        (f"job:{AF}:extract", own, "job_to_job", "observed"),
        (own, "job:other:report", "job_to_job", "observed"),
    }
    with store.engine.connect() as conn:
        assert count_explicit_edges(conn, None) == 2
        assert count_explicit_edges(conn, {namespace_id(AF)}) == 1
        ids = {i for i, n in _names(store).items() if "other" not in n}
        assert [(e.edge_type, e.origin) for e in explicit_edges_among(conn, ids)] == [
            ("job_to_job", "observed")
        ]


def test_a_namespace_reset_removes_its_explicit_edges(store: Store) -> None:
    store.ingest(
        job_event(*OWN, lineage=example("job-to-job")),
        dataset_event(WH, "public.customer_summary", lineage=example("dataset-to-dataset")),
    )
    removed = reset_namespace(store.engine, namespace_id(AF))
    assert removed.get("explicit_edges") == 1
    assert removed.get("explicit_lineage") == 1
    assert {e[2] for e in stored(store, current=False)} == {"dataset_to_dataset"}
    removed = reset_all(store.engine)
    assert stored(store, current=False) == set()
    assert store.rows(t.explicit_lineage) == []


# --- order and duplication ------------------------------------------------------

_SPECS = st.fixed_dictionaries(
    {
        "example": st.sampled_from(sorted(EXPECTED)),
        "kind": st.sampled_from(["job", "run"]),  # declared or observed
        "type": st.sampled_from(["START", "COMPLETE"]),
    }
)


@pytest.mark.slow
def test_explicit_edges_do_not_depend_on_order_or_duplication(
    two_stores: tuple[Store, Store],
) -> None:
    """JobEvents and RunEvents of one job stating lineage, sent in any order, some twice."""
    a, b = two_stores
    examples = 40 if a.dialect == "sqlite" else 10

    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.lists(_SPECS, min_size=1, max_size=6), st.data())
    def check(specs: list[dict[str, Any]], data: st.DataObject) -> None:
        a.reset()
        b.reset()
        events = [
            job_event(*OWN, time=at(i), lineage=example(spec["example"]))
            if spec["kind"] == "job"
            else run_event(
                spec["type"], job=OWN, time=at(i), job_facets={"lineage": example(spec["example"])}
            )
            for i, spec in enumerate(specs)
        ]
        for event in events:
            a.ingest(event)
        ingest_shuffled(b, events, data, max_dups=3)

        assert stored(a, current=False) == stored(b, current=False)
        assert sorted(a.rows(t.explicit_lineage), key=repr) == sorted(
            b.rows(t.explicit_lineage), key=repr
        )
        assert sorted(a.rows(t.column_lineage), key=repr) == sorted(
            b.rows(t.column_lineage), key=repr
        )
        # Current: the latest declaration and the latest observation.
        wanted: set[Edge] = set()
        for kind, origin in (("job", "declared"), ("run", "observed")):
            mine = [s for s in specs if s["kind"] == kind]
            if mine:
                wanted |= expected(mine[-1]["example"], origin)
        assert stored(a, current=True) == stored(b, current=True) == wanted

    check()


def test_stored_payload_is_the_event_as_sent(store: Store) -> None:
    lineage = example("job-to-job")
    store.ingest(job_event(*OWN, lineage=lineage))
    assert store.job_facets(*OWN)["lineage"] == orjson.loads(orjson.dumps(lineage))
