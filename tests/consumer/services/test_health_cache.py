"""The kept assessment, brought up to date after each ingest, equals one computed from scratch.

Generated histories over a small Feast-shaped graph that changes as it
goes (a job's inputs move from a dataset to its alias, a parent job
appears, an explicit lineage facet is restated, a feature view is
materialized through its online store, a dataset event writes a source),
delivered in any order in drawn batches: after every batch the process's
cache (refreshed from the events since its last read) holds exactly what a
whole read of the store gives, on SQLite, PostgreSQL and MariaDB.
"""

from __future__ import annotations

import uuid
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feast_lineage.consumer.services.health_cache import HealthCache
from feast_lineage.consumer.services.health_states import Assessment, compute
from feast_lineage.consumer.store.read import health as h
from feast_lineage.consumer.store.read import health_changes as changes
from feast_lineage.event_time import parse_us
from feast_lineage.identity import job_id
from tests.factories import at, dataset, dataset_event, facet, run_event
from tests.store_helpers import Store
from tests.test_explicit_lineage import EXPECTED, example

UP, DOWN, OWN = ("airflow", "up"), ("airflow", "down"), ("airflow://production", "own.job")
MAT, SERVE, DAG = ("ml", "materialize"), ("ml", "serve"), ("airflow", "dag")
RAW, ALIAS, OUT = ("warehouse", "raw"), ("s3://b", "raw"), ("warehouse", "out")
FV = ("ml", "feature_view/fv")
STORE = ("ml", "online_store/fv")
FS = ("ml", "feature_service/fs")
STATES = ["COMPLETE", "FAIL", "ABORT"]
# What an assessment holds (its marker and the walk indexes built from ``graph`` aside)
FIELDS = (
    "causes",
    "freshness",
    "at_risk",
    "infos",
    "lags",
    "materialized_to",
    "source_written",
    "service_views",
    "nodes",
    "graph",
)


def _raw(symlink: bool) -> dict[str, Any]:
    if not symlink:
        return dataset(*RAW)
    alias = facet(identifiers=[{"namespace": ALIAS[0], "name": ALIAS[1], "type": "FILE"}])
    return dataset(*RAW, symlinks=alias)


def _event(kind: str, state: str, minute: int, variant: int) -> dict[str, Any]:
    """One event of ``kind``; ``variant`` picks among its shapes (inputs, facets, parent)."""
    time = at(60 * minute)
    run = str(uuid.uuid4())
    if kind == "up":
        return run_event(state, run_id=run, job=UP, time=time, outputs=[_raw(variant % 2 == 1)])
    if kind == "down":
        source = dataset(*(RAW if variant % 2 else ALIAS))
        parent = (str(uuid.uuid4()), DAG) if variant % 3 == 0 else None
        facets: dict[str, Any] = {}
        if variant % 3 == 1:  # a parent with a root job of its own (a root edge is no step)
            facets["parent"] = facet(
                run={"runId": str(uuid.uuid4())},
                job={"namespace": DAG[0], "name": "task_group"},
                root={
                    "run": {"runId": str(uuid.uuid4())},
                    "job": {"namespace": DAG[0], "name": "root_dag"},
                },
            )
        return run_event(
            state,
            run_id=run,
            job=DOWN,
            time=time,
            inputs=[source],
            outputs=[dataset(*OUT)],
            parent=parent,
            run_facets=facets,
        )
    if kind == "materialize":
        view = dataset(*FV, feast_feature_view=facet(name="fv", ttl_seconds=600 * (variant % 3)))
        online = dataset(*STORE, feast_online_store=facet(name="fv"))
        window = facet(feature_views=["fv"], start_date=at(0), end_date=time, rows_written=1)
        return run_event(
            state,
            run_id=run,
            job=MAT,
            time=time,
            inputs=[dataset(*RAW)],
            outputs=[view] if variant % 2 else [online],
            run_facets={"feast_materialization": window},
        )
    if kind == "serve":
        service = dataset(*FS, feast_feature_service=facet(name="fs"))
        return run_event(
            state, run_id=run, job=SERVE, time=time, inputs=[dataset(*FV)], outputs=[service]
        )
    if kind == "own":
        name = sorted(EXPECTED)[variant % len(EXPECTED)]
        return run_event(
            state, run_id=run, job=OWN, time=time, job_facets={"lineage": example(name)}
        )
    return dataset_event(*RAW, time=time)


_events = st.lists(
    st.tuples(
        st.sampled_from(["up", "down", "materialize", "serve", "own", "dataset"]),
        st.sampled_from(STATES),
        st.integers(0, 120),
        st.integers(0, 5),
    ),
    min_size=2,
    max_size=14,
)


def _held(found: Assessment) -> dict[str, Any]:
    return {name: getattr(found, name) for name in FIELDS}


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    drawn=_events,
    cuts=st.lists(st.booleans(), min_size=14, max_size=14),
    now_minute=st.integers(30, 400),
    rules=st.sampled_from([{}, {"warehouse/out": 1800.0}]),
)
def test_the_kept_assessment_equals_one_computed_afresh_after_every_ingest(
    store: Store,
    drawn: list[tuple[str, str, int, int]],
    cuts: list[bool],
    now_minute: int,
    rules: dict[str, float],
) -> None:
    store.reset()
    cache = HealthCache()
    now_us = parse_us(at(60 * now_minute))
    events = [_event(*d) for d in drawn]
    batches: list[list[dict[str, Any]]] = [[]]
    for event, cut in zip(events, cuts, strict=False):
        batches[-1].append(event)
        if cut:
            batches.append([])
    with store.engine.connect() as conn:
        cache.assessment(conn, rules, now_us)  # an empty store, kept
    for batch in [b for b in batches if b]:
        store.ingest(*batch)
        with store.engine.connect() as conn:
            kept = cache.assessment(conn, rules, now_us)
            afresh = compute(conn, rules, now_us)
        assert _held(kept) == _held(afresh)
        for walks in ("downstream", "upstream"):  # the walk indexes, changed in place
            ours, theirs = getattr(kept, walks), getattr(afresh, walks)
            assert {n: ours.fetch(None, [n]) for n in afresh.nodes} == {
                n: theirs.fetch(None, [n]) for n in afresh.nodes
            }
        assert {n: kept.state(n) for n in kept.nodes} == {n: afresh.state(n) for n in kept.nodes}


def test_an_event_in_a_gap_is_read_when_it_commits(store: Store) -> None:
    """An id missing below the highest read (a transaction still to commit) is read again."""
    store.reset()
    store.ingest(run_event("COMPLETE", job=UP, time=at(0), outputs=[dataset(*RAW)]))
    store.ingest(run_event("FAIL", job=DOWN, time=at(60), inputs=[dataset(*RAW)]))
    with store.engine.connect() as conn:
        high = h.store_marker(conn).high
        assert changes.seen_now(conn, high) == changes.Seen(high, frozenset())
        # As if the second event's id had not committed when the store was read
        touched = changes.touched_since(conn, changes.Seen(high, frozenset({high})))
        nothing = changes.touched_since(conn, changes.Seen(high, frozenset()))
    assert job_id(*DOWN) in touched.jobs
    assert touched.seen == changes.Seen(high, frozenset())
    assert not nothing.jobs
    assert not nothing.datasets
