"""Migration 0021 derives the explicit lineage statements from the stored events."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, inspect, select

from feast_lineage.consumer.store.engine.database import create_store_engine
from feast_lineage.consumer.store.schema import tables as t
from tests.factories import at, dataset_event, facet, job_event, lineage_facet, run_event
from tests.store_helpers import Store, migrate

NS = "s3://l"
JOB = ("airflow://p", "load")


def _facet(source: str) -> dict[str, Any]:
    return lineage_facet(("DATASET", NS, "t", [("DATASET", NS, source)]))


def _events() -> list[dict[str, Any]]:
    """A, B, A declared by JobEvents (out of order), observed by a run, and a dataset's own."""
    return [
        job_event(*JOB, time=at(30), lineage=_facet("a")),
        job_event(*JOB, time=at(10), lineage=_facet("a")),
        run_event("COMPLETE", job=JOB, time=at(15), job_facets={"lineage": _facet("c")}),
        job_event(*JOB, time=at(20), lineage=_facet("b")),
        dataset_event(NS, "t", time=at(25), lineage=facet(inputs=[])),  # stated: feeds nothing
        dataset_event(NS, "t", time=at(26), lineage=facet(inputs=[_ref("a")])),
        job_event(*JOB, time=at(40)),  # no lineage: no statement
    ]


def _ref(name: str) -> dict[str, str]:
    return {"namespace": NS, "name": name, "type": "DATASET"}


def _statements(store: Store) -> list[tuple[Any, ...]]:
    st = t.explicit_statements.c
    with store.engine.connect() as conn:
        rows = conn.execute(select(st.owner_id, st.facet, st.origin, st.rank, st.digest)).all()
    return sorted(tuple(r) for r in rows)


def test_0021_states_each_event_that_carried_an_explicit_facet(store_url: str) -> None:
    store = Store(store_url)
    engine: Engine = create_store_engine(store_url)
    try:
        store.ingest_each(_events())
        live = _statements(store)
        assert len(live) == 6
        declared = [r for r in live if r[1] == "job_lineage" and r[2] == "declared"]
        assert [r[3][:20] for r in declared] == sorted(r[3][:20] for r in declared)
        assert declared[0][4] == declared[2][4] != declared[1][4]  # A, B, A
        migrate(engine, "0020", down=True)
        assert t.explicit_statements.name not in inspect(engine).get_table_names()
        migrate(engine, "head", chunk=2)  # events cross chunk boundaries
        assert _statements(store) == live
    finally:
        engine.dispose()
        store.close()
