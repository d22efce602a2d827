"""Column edges in the store: every producer's facets, current edges, order and duplication."""

from __future__ import annotations

import uuid
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from feast_lineage.consumer.store.admin.reset import reset_namespace
from feast_lineage.consumer.store.read.columns import current_column_edge
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.write import batch as writes
from feast_lineage.consumer.store.write.column_rows import column_edge_rows
from feast_lineage.event_time import parse_us
from feast_lineage.identity import namespace_id
from tests.factories import at, dataset, dataset_event, facet, job_event, run_event
from tests.fixture_events import TemplateFiller, load_fixtures
from tests.store_helpers import Store, ingest_shuffled

# (dst ns, dst name, dst field or None, src ns, src name, src field, job ns, job name,
#  transformations as (type, subtype, description, masking) tuples)
Edge = tuple[Any, ...]


def _stored(store: Store, *, current: bool) -> set[Edge]:
    e = t.column_edges.alias("e")
    p = t.column_lineage.alias("p")
    d, j = t.datasets.alias("d"), t.jobs.alias("j")
    stmt = (
        select(
            d.c.namespace,
            d.c.name,
            e.c.dst_field,
            e.c.src_namespace,
            e.c.src_name,
            e.c.src_field,
            j.c.namespace,
            j.c.name,
            e.c.transformations,
        )
        .select_from(e)
        .join(d, d.c.id == e.c.dst_dataset_id)
        .outerjoin(j, j.c.id == e.c.job_id)
    )
    if current:
        stmt = stmt.join(p, current_column_edge(e, p))

    out: set[Edge] = set()
    with store.engine.connect() as conn:
        for row in conn.execute(stmt):
            transformations = tuple(
                (x["type"], x.get("subtype"), x.get("description"), x.get("masking"))
                for x in orjson.loads(row[-1])
            )
            out.add((*row[:-1], transformations))
    return out


def _stated(event: dict[str, Any]) -> set[Edge]:
    """The edges a columnLineage facet states, read straight from the event (the oracle)."""
    if "dataset" in event and "job" not in event:
        written, job = [event["dataset"]], (None, None)
    else:
        written, job = event.get("outputs") or [], (event["job"]["namespace"], event["job"]["name"])
    found: dict[Edge, list[Any]] = {}
    for ds in written:
        facet_value = (ds.get("facets") or {}).get("columnLineage")
        if not isinstance(facet_value, dict):
            continue
        entries: list[tuple[str | None, dict[str, Any], list[Any]]] = []
        for out_field, spec in (facet_value.get("fields") or {}).items():
            legacy = []
            if spec.get("transformationType") or spec.get("transformationDescription"):
                kind = spec.get("transformationType")
                legacy = [
                    (
                        "DIRECT",
                        kind,
                        spec.get("transformationDescription"),
                        kind == "MASKED" or None,
                    )
                ]
            entries += [(out_field, item, legacy) for item in spec.get("inputFields") or []]
        entries += [(None, item, []) for item in facet_value.get("dataset") or []]
        for out_field, item, legacy in entries:
            if not all(item.get(k) for k in ("namespace", "name", "field")):
                continue  # the spec requires all three: such an entry states no edge
            key = (ds["namespace"], ds["name"], out_field, item["namespace"], item["name"])
            key += (item["field"], *job)
            own = [
                (x["type"], x.get("subtype"), x.get("description"), x.get("masking"))
                for x in item.get("transformations") or []
            ]
            merged = found.setdefault(key, [])
            merged += [x for x in (own or legacy) if x not in merged]
    return {(*key, tuple(value)) for key, value in found.items()}


def _time(event: dict[str, Any]) -> int:
    return parse_us(event["eventTime"])


_CLL_FIXTURES = [f for f in load_fixtures() if f.kind != "malformed" and "columnLineage" in f.text]


def test_every_fixture_with_column_lineage_is_checked() -> None:
    groups = {f.group for f in _CLL_FIXTURES}
    assert len(_CLL_FIXTURES) == 24
    assert {
        "ol_spark_container",
        "ol_hive",
        "ol_dbt",
        "compat_producer_expected",
        "marquez",
    } <= groups


@pytest.mark.parametrize("fixture", _CLL_FIXTURES, ids=lambda f: f.name)
def test_each_fixture_yields_exactly_the_edges_its_facets_state(store: Store, fixture: Any) -> None:
    value = TemplateFiller(fixture.group).fill_file(fixture.value)
    events = value if isinstance(value, list) else [value]
    for event in events:  # Spark's partial-match events may name no job
        job = event.setdefault("job", {"namespace": "spark"})
        job.setdefault("name", "spark_test_job")
        for ds in [*event.get("inputs", []), *event.get("outputs", [])]:
            ds.setdefault("namespace", "jdbc")  # the JDBC events name none
    store.ingest(*events)
    stated = set().union(*(_stated(e) for e in events))
    assert stated or '"inputFields"' not in fixture.text, fixture.name
    assert _stored(store, current=True) <= _stored(store, current=False) == stated
    # Current: per (output dataset, job), the edges of its latest facet.
    latest: dict[tuple[Any, ...], dict[str, Any]] = {}
    for event in events:
        for edge in _stated(event):
            key = (edge[0], edge[1], edge[6], edge[7])
            if key not in latest or _time(event) >= _time(latest[key]):
                latest[key] = event
    expected = {
        edge
        for key, event in latest.items()
        for edge in _stated(event)
        if (edge[0], edge[1], edge[6], edge[7]) == key
    }
    assert _stored(store, current=True) == expected


def cll(*pairs: tuple[str, str], dataset_level: tuple[str, ...] = ()) -> dict[str, Any]:
    """out field <- in field of dataset lake.src, DIRECT; plus dataset-level INDIRECT inputs."""
    fields: dict[str, Any] = {}
    for out, src in pairs:
        fields.setdefault(out, {"inputFields": []})["inputFields"].append(
            {
                "namespace": "lake",
                "name": "src",
                "field": src,
                "transformations": [{"type": "DIRECT", "subtype": "IDENTITY"}],
            }
        )
    inputs = [
        {
            "namespace": "lake",
            "name": "src",
            "field": f,
            "transformations": [{"type": "INDIRECT", "subtype": "FILTER"}],
        }
        for f in dataset_level
    ]
    return facet(fields=fields, dataset=inputs) if inputs else facet(fields=fields)


def test_versions_1_0_and_1_2_and_dataset_level_inputs(store: Store) -> None:
    legacy = facet(
        fields={
            "a": {
                "inputFields": [{"namespace": "lake", "name": "src", "field": "x"}],
                "transformationType": "MASKED",
                "transformationDescription": "sha256(x)",
            },
            "b": {"inputFields": [{"namespace": "lake", "name": "src", "field": "y"}]},
            "bad": {"inputFields": [{"namespace": "lake", "field": "no name"}]},
        }
    )
    store.ingest(
        run_event(
            "COMPLETE", job=("spark", "old"), outputs=[dataset("lake", "t1", columnLineage=legacy)]
        ),
        run_event(
            "COMPLETE",
            job=("spark", "new"),
            outputs=[
                dataset("lake", "t2", columnLineage=cll(("a", "x"), dataset_level=("k", "w")))
            ],
        ),
        dataset_event("lake", "t3", columnLineage=cll(("c", "x"))),
    )
    direct = (("DIRECT", "IDENTITY", None, None),)
    assert _stored(store, current=True) == {
        (
            "lake",
            "t1",
            "a",
            "lake",
            "src",
            "x",
            "spark",
            "old",
            (("DIRECT", "MASKED", "sha256(x)", True),),
        ),
        ("lake", "t1", "b", "lake", "src", "y", "spark", "old", ()),
        ("lake", "t2", "a", "lake", "src", "x", "spark", "new", direct),
        # Dataset-level inputs: one edge each, to the whole dataset (no field).
        (
            "lake",
            "t2",
            None,
            "lake",
            "src",
            "k",
            "spark",
            "new",
            (("INDIRECT", "FILTER", None, None),),
        ),
        (
            "lake",
            "t2",
            None,
            "lake",
            "src",
            "w",
            "spark",
            "new",
            (("INDIRECT", "FILTER", None, None),),
        ),
        # A DatasetEvent's column lineage has no job.
        ("lake", "t3", "c", "lake", "src", "x", None, None, direct),
    }


def test_credentials_in_names_are_never_stored(store: Store) -> None:
    lineage = facet(
        fields={
            "a": {
                "inputFields": [
                    {"namespace": "postgres://user:s3cret@db:5432", "name": "t", "field": "x"}
                ]
            }
        }
    )
    store.ingest(run_event("COMPLETE", outputs=[dataset("lake", "t", columnLineage=lineage)]))
    rows = store.rows(t.column_edges)
    assert rows
    assert "s3cret" not in repr(rows)


def test_job_events_and_run_events_share_the_current_pointer(store: Store) -> None:
    store.ingest(
        job_event(
            "spark",
            "j",
            time=at(2),
            outputs=[dataset("lake", "t", columnLineage=cll(("a", "new")))],
        ),
        run_event(
            "COMPLETE",
            job=("spark", "j"),
            time=at(1),
            outputs=[dataset("lake", "t", columnLineage=cll(("a", "old")))],
        ),
    )
    assert {e[5] for e in _stored(store, current=True)} == {"new"}
    assert {e[5] for e in _stored(store, current=False)} == {"new", "old"}


def test_reset_of_a_namespace_removes_its_column_edges(store: Store) -> None:
    store.ingest(
        run_event(
            "COMPLETE",
            job=("spark", "j"),
            outputs=[dataset("lake", "t", columnLineage=cll(("a", "x")))],
        ),
        run_event(
            "COMPLETE",
            job=("other", "k"),
            outputs=[dataset("keep", "u", columnLineage=cll(("b", "y")))],
        ),
    )
    removed = reset_namespace(store.engine, namespace_id("spark"))
    assert removed.get("column_edges") == 1
    assert removed.get("column_lineage") == 1
    assert {e[1] for e in _stored(store, current=False)} == {"u"}
    removed = reset_namespace(store.engine, namespace_id("lake"))  # the sources
    assert _stored(store, current=False) == set()


def test_a_payload_sent_again_builds_its_edges_once(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[Any] = []

    def counted(report: Any, pending: Any) -> Any:
        built.append(report)
        return column_edge_rows(report, pending)

    monkeypatch.setattr(writes, "column_edge_rows", counted)
    run_id = str(uuid.uuid4())
    lineage = cll(("a", "x"), ("b", "y"))
    for i, kind in enumerate(("START", "RUNNING", "COMPLETE")):  # as Spark sends it
        store.ingest(
            run_event(
                kind,
                run_id=run_id,
                job=("spark", "j"),
                time=at(i),
                outputs=[dataset("lake", "t", columnLineage=lineage)],
            )
        )
    store.ingest(  # the next run, the same lineage
        run_event(
            "COMPLETE",
            job=("spark", "j"),
            time=at(5),
            outputs=[dataset("lake", "t", columnLineage=lineage)],
        )
    )
    assert len(built) == 1
    assert {(e[2], e[5]) for e in _stored(store, current=True)} == {("a", "x"), ("b", "y")}


def test_a_payload_whose_edges_were_removed_writes_them_again(store: Store) -> None:
    def send(time: str) -> None:
        store.ingest(
            run_event(
                "COMPLETE",
                job=("spark", "j"),
                time=time,
                outputs=[dataset("lake", "t", columnLineage=cll(("a", "x")))],
            )
        )

    send(at(1))
    reset_namespace(store.engine, namespace_id("spark"))
    assert _stored(store, current=False) == set()
    send(at(2))  # the writer must not take the payload for stored
    assert {(e[2], e[5]) for e in _stored(store, current=True)} == {("a", "x")}


# --- order and duplication ------------------------------------------------------

_SPECS = st.fixed_dictionaries(
    {
        "job": st.sampled_from(["w1", "w2"]),
        "type": st.sampled_from(["START", "RUNNING", "COMPLETE"]),
        "pairs": st.sets(
            st.sampled_from([("a", "x"), ("a", "y"), ("b", "x"), ("b", "z")]), max_size=3
        ),
        "whole": st.sets(st.sampled_from(["k", "w"]), max_size=1),
        "writes": st.booleans(),  # False: the job's run writes another dataset instead
    }
)


@pytest.mark.slow
def test_column_edges_do_not_depend_on_order_or_duplication(
    two_stores: tuple[Store, Store],
) -> None:
    """Two writers of one dataset, each run repeating its facet on START, RUNNING, COMPLETE."""
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
            run_event(
                spec["type"],
                job=("spark", spec["job"]),
                time=at(i),
                outputs=[
                    dataset(
                        "lake",
                        "t",
                        columnLineage=cll(
                            *sorted(spec["pairs"]), dataset_level=tuple(spec["whole"])
                        ),
                    )
                    if spec["writes"]
                    else dataset("lake", "elsewhere")
                ],
            )
            for i, spec in enumerate(specs)
        ]
        for event in events:
            a.ingest(event)
        ingest_shuffled(b, events, data, max_dups=3)

        assert _stored(a, current=False) == _stored(b, current=False)
        assert sorted(a.rows(t.column_lineage), key=repr) == sorted(
            b.rows(t.column_lineage), key=repr
        )
        assert len(a.rows(t.column_edges)) == len(b.rows(t.column_edges))
        # Current: each writer's latest event, if it wrote t.
        expected: set[Edge] = set()
        for job in ("w1", "w2"):
            mine = [i for i, s in enumerate(specs) if s["job"] == job]
            if mine and specs[mine[-1]]["writes"]:
                expected |= _stated(events[mine[-1]])
        assert _stored(a, current=True) == _stored(b, current=True) == expected

    check()
