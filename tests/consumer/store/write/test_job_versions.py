"""Job versions, written through the real ingest path on SQLite, PostgreSQL and MariaDB.

A version is what defines a job: the tables it reads and writes, its
source facets and its jobType. These tests read the versions back with the
store's own reads (:mod:`feast_lineage.consumer.store.read.job_versions`)
and the tables, and hold that delivery in any order, with duplicates and
in any batching, stores exactly what in-order delivery stores.
"""

from __future__ import annotations

import uuid
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feast_lineage.consumer.store.admin.reset import reset_namespace
from feast_lineage.consumer.store.read.job_versions import (
    JobVersionRow,
    current_version,
    one_version,
    version_page,
)
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from feast_lineage.identity import job_id, namespace_id
from tests.factories import at, dataset, facet, job_event, run_event
from tests.store_helpers import Store, ingest_shuffled

JOB = ("spark://cluster", "daily_orders")
JID = job_id(*JOB)


def new_run() -> str:
    return str(uuid.uuid4())


def versions(store: Store, job: int = JID) -> list[JobVersionRow]:
    with store.engine.connect() as conn:
        return version_page(conn, job, None, None, 0, 1000)[1]


def current(store: Store, job: int = JID) -> str | None:
    with store.engine.connect() as conn:
        return current_version(conn, job)


def tables(row: JobVersionRow) -> tuple[Any, Any]:
    return row.content.inputs, row.content.outputs


def run(
    kind: str,
    run_id: str,
    sec: float,
    *,
    inputs: tuple[str, ...] = ("orders",),
    outputs: tuple[str, ...] = (),
    sql: str | None = None,
    job_type: str | None = None,
    producer: str = "https://example.com/spark/1.0",
    output_facets: dict[str, Any] | None = None,
) -> dict[str, Any]:
    job_facets: dict[str, Any] = {}
    if sql is not None:
        job_facets["sql"] = {"_producer": producer, "_schemaURL": "s", "query": sql}
    if job_type is not None:
        job_facets["jobType"] = facet(processingType="BATCH", integration="SPARK", jobType=job_type)
    return run_event(
        kind,
        run_id=run_id,
        job=JOB,
        time=at(sec),
        inputs=[dataset("s3://raw", name) for name in inputs],
        outputs=[dataset("s3://lake", name, **(output_facets or {})) for name in outputs],
        job_facets=job_facets,
    )


def test_a_run_is_one_version_whatever_its_events_list(store: Store) -> None:
    """START lists the inputs, COMPLETE the outputs: the run ran one version of both."""
    r = new_run()
    store.ingest(run("START", r, 1, sql="select 1"))
    (partial,) = versions(store)
    assert tables(partial) == ((("s3://raw", "orders"),), ())
    store.ingest(run("COMPLETE", r, 2, inputs=(), outputs=("daily",)))
    (version,) = versions(store)
    assert tables(version) == ((("s3://raw", "orders"),), (("s3://lake", "daily"),))
    assert version.run_count == 1
    assert version.latest_run is not None
    assert version.latest_run.run_id == r
    assert version.latest_run.state == "COMPLETE"
    assert version.first_us == parse_us(at(1))  # the run's start
    assert current(store) == version.id
    # The partial version no run ran any more is gone.
    assert store.count(t.job_versions) == 1


def test_runs_of_an_unchanged_job_share_one_version(store: Store) -> None:
    for i in range(3):
        store.ingest(run("COMPLETE", new_run(), i, outputs=("daily",), sql="select 1"))
    (version,) = versions(store)
    assert version.run_count == 3
    assert version.first_us == parse_us(at(0))
    assert version.latest_run is not None
    assert version.latest_run.started_us == parse_us(at(2))


def test_a_page_until_an_instant_counts_the_runs_started_before_it(store: Store) -> None:
    """``until`` (exclusive) bounds the runs read, not only the versions listed: a version's
    run count and latest run are those of its runs started before it, the latest run in
    its state then (one that ended at or after ``until`` was running)."""
    a, b, c, d = (new_run() for _ in range(4))
    store.ingest(
        run("START", a, 0, sql="select 1"),
        run("COMPLETE", a, 5, sql="select 1", outputs=("daily",)),
        run("START", b, 10, sql="select 1"),
        run("COMPLETE", b, 30, sql="select 1", outputs=("daily",)),
        run("START", c, 40, sql="select 1"),
        run("COMPLETE", c, 45, sql="select 1", outputs=("daily",)),
        run("COMPLETE", d, 50, sql="select 2", outputs=("daily",)),
    )

    def page(until: float | None) -> tuple[int, list[JobVersionRow]]:
        with store.engine.connect() as conn:
            bound = None if until is None else parse_us(at(until))
            return version_page(conn, JID, None, bound, 0, 1000)

    total, (first,) = page(20)
    assert total == 1
    assert first.run_count == 2
    assert first.first_us == parse_us(at(0))
    assert first.latest_run is not None
    assert first.latest_run.run_id == b
    assert first.latest_run.state == "RUNNING"  # it completed at 30, after 20
    (first,) = page(35)[1]
    assert first.latest_run is not None
    assert first.latest_run.state == "COMPLETE"
    assert first.run_count == 2
    newest, first = page(None)[1]
    assert first.run_count == 3
    assert first.latest_run is not None
    assert first.latest_run.run_id == c
    assert newest.run_count == 1
    assert page(0)[0] == 0  # until is exclusive: nothing started before the first run


def test_a_moving_partition_counts_as_its_table(store: Store) -> None:
    """``t/date=...`` moves every run; a Spark path with a TABLE symlink counts as the table."""
    for day in range(1, 4):
        part = f"orders_daily/date=2026-12-0{day}/region=eu"
        table = facet(identifiers=[{"namespace": "hive://meta", "name": "db.t", "type": "TABLE"}])
        located = f"warehouse/t/date=2026-12-0{day}"
        store.ingest(
            run_event(
                "COMPLETE",
                run_id=new_run(),
                job=JOB,
                time=at(day),
                inputs=[dataset("s3://raw", part)],
                outputs=[dataset("s3://lake", located, symlinks=table)],
            )
        )
    (version,) = versions(store)
    assert tables(version) == (
        (("s3://raw", "orders_daily"),),
        (("hive://meta", "db.t"),),
    )
    assert version.run_count == 3


def test_each_defining_change_is_a_version_and_a_return_is_the_earlier_one(store: Store) -> None:
    specs: list[dict[str, Any]] = [
        {"sql": "select 1"},
        {"sql": "select 1", "producer": "https://example.com/spark/2.0"},  # same version
        {"sql": "select 2"},  # sql changed
        {"sql": "select 2", "job_type": "QUERY"},  # jobType added
        {"sql": "select 2", "job_type": "QUERY", "inputs": ("orders", "customers")},
        {"sql": "select 2", "job_type": "QUERY", "outputs": ("daily",), "inputs": ("orders",)},
        {"sql": "select 1"},  # back to the first definition
    ]
    for i, spec in enumerate(specs):
        store.ingest(run("COMPLETE", new_run(), i, **spec))
    found = versions(store)
    assert len(found) == 5
    first = found[-1]
    assert first.run_count == 3  # runs 0, 1 and 6
    assert current(store) == first.id
    assert [v.first_us for v in found] == sorted((v.first_us for v in found), reverse=True)
    assert dict(found[0].content.sources).keys() == {"sql", "jobType"}


def test_a_job_event_is_a_version_without_runs(store: Store) -> None:
    store.ingest(run("COMPLETE", new_run(), 1, outputs=("daily",)))
    store.ingest(
        job_event(
            *JOB,
            time=at(5),
            inputs=[dataset("s3://raw", "orders")],
            outputs=[dataset("s3://lake", "weekly")],
        )
    )
    newest, oldest = versions(store)
    assert newest.run_count == 0
    assert newest.latest_run is None
    assert tables(newest)[1] == (("s3://lake", "weekly"),)
    assert current(store) == newest.id
    assert oldest.run_count == 1


def test_a_late_event_never_changes_another_runs_version(store: Store) -> None:
    a, b = new_run(), new_run()
    store.ingest(run("COMPLETE", a, 1, outputs=("daily",)))
    store.ingest(run("COMPLETE", b, 3, outputs=("daily",), sql="select 9"))
    ids = {v.id for v in versions(store)}
    store.ingest(run("START", a, 0.5, inputs=("orders",)))  # late, adds nothing new
    assert {v.id for v in versions(store)} == ids
    with store.engine.connect() as conn:
        kept = one_version(conn, JID, sorted(ids)[0])
    assert kept is not None


def test_a_runs_parts_are_one_row_merged_with_each_event(store: Store) -> None:
    """The run's row holds its parts: a later event merges with them, a repeat changes nothing."""
    r = new_run()
    store.ingest(run("START", r, 1, inputs=("orders", "c/date=1"), sql="q1"))
    store.ingest(run("COMPLETE", r, 2, inputs=(), outputs=("y/part=2",), sql="q2"))
    (row,) = store.rows(t.run_versions)
    parts = orjson.loads(row["parts"])
    assert [p[0] for p in parts["io"]] == ["input", "input", "output"]
    assert {(p[3], p[4]) for p in parts["io"]} == {
        ("s3://raw", "c"),
        ("s3://raw", "orders"),
        ("s3://lake", "y"),
    }
    assert set(parts["sources"]) == {"sql"}  # the latest of each facet, with its rank
    (version,) = versions(store)
    assert tables(version) == (
        (("s3://raw", "c"), ("s3://raw", "orders")),
        (("s3://lake", "y"),),
    )
    assert store.count(t.job_versions) == 1


def test_an_event_reads_its_runs_one_row_and_a_repeat_writes_nothing(sqlite_url: str) -> None:
    store = Store(sqlite_url)  # SQLite traces what the writer hands the driver
    r = new_run()
    store.ingest(run("START", r, 1, inputs=("orders", "customers"), sql="q1"))
    complete = run("COMPLETE", r, 2, inputs=(), outputs=("daily",), sql="q1")
    statements = store.traced_statements(lambda: store.ingest(complete))
    touching = [s for s in statements if "run_versions" in s or "job_versions" in s]
    verbs = [s.lstrip().split(None, 1)[0].upper() for s in touching]
    # One read of the run's row (with its start), its row written, the new
    # version inserted, the START's partial version dropped: nothing per part.
    assert verbs == ["SELECT", "INSERT", "INSERT", "DELETE"]
    # The writer knows what it stored of the run: a repeat reads nothing either.
    again = store.traced_statements(lambda: store.ingest(complete))
    assert not [s for s in again if "run_versions" in s or "job_versions" in s]
    # Another process does not know it: it reads the run's row, and writes nothing.
    other = Store(sqlite_url)
    again = other.traced_statements(lambda: other.ingest(complete))
    touching = [s for s in again if "run_versions" in s or "job_versions" in s]
    assert [s.lstrip().split(None, 1)[0].upper() for s in touching] == ["SELECT"]
    assert len(versions(store)) == 1
    other.close()
    store.close()


def test_a_known_run_is_read_again_when_an_event_adds_to_it(sqlite_url: str) -> None:
    """What the writer remembers of a run only spares events that add nothing to it."""
    store = Store(sqlite_url)
    r = new_run()
    store.ingest(run("START", r, 5, inputs=("orders",), outputs=("daily",), sql="q1"))
    store.ingest(run("COMPLETE", r, 6, inputs=("orders",), outputs=("daily",), sql="q1"))
    (before,) = versions(store)

    def verbs(event: dict[str, Any]) -> list[str]:
        statements = store.traced_statements(lambda: store.ingest(event))
        touching = [s for s in statements if "run_versions" in s or "job_versions" in s]
        return [s.lstrip().split(None, 1)[0].upper() for s in touching]

    # A new input: read, a new version.
    assert verbs(run("RUNNING", r, 5.5, inputs=("customers",), sql="q1"))[0] == "SELECT"
    (after,) = versions(store)
    assert after.id != before.id
    assert after.content.inputs == (("s3://raw", "customers"), ("s3://raw", "orders"))
    # A later sql facet (a higher rank): read, another version.
    assert verbs(run("RUNNING", r, 7, inputs=(), sql="q2"))[0] == "SELECT"
    # An earlier START: the run's start moves, and its version's time with it.
    assert verbs(run("START", r, 4, inputs=("orders",), sql="q1"))[0] == "SELECT"
    (latest,) = versions(store)
    assert latest.first_us == parse_us(at(4))
    # An earlier sql facet adds nothing: nothing read.
    assert verbs(run("RUNNING", r, 4.5, inputs=("orders",), sql="q3")) == []
    store.close()


# --- the property: any order, any duplication, any batching ---------------------------

_spec = st.fixed_dictionaries(
    {
        "run": st.integers(0, 3),
        "type": st.sampled_from(["START", "RUNNING", "COMPLETE", "FAIL"]),
        "time": st.integers(0, 20),
        "inputs": st.sets(st.sampled_from(["a", "b", "c/date=1", "c/date=2"]), max_size=2),
        "outputs": st.sets(st.sampled_from(["x", "y/part=1", "y/part=2"]), max_size=2),
        "sql": st.sampled_from([None, "q1", "q2"]),
        "job_type": st.sampled_from([None, "QUERY"]),
        "job_event": st.booleans(),
    }
)


def _event(spec: dict[str, Any], runs: list[str], index: int) -> dict[str, Any]:
    if spec["job_event"] and spec["run"] == 0:
        facets = {"sql": facet(query=spec["sql"])} if spec["sql"] else {}
        return job_event(
            *JOB,
            time=at(spec["time"] + index / 100),
            inputs=[dataset("s3://raw", n) for n in sorted(spec["inputs"])],
            outputs=[dataset("s3://lake", n) for n in sorted(spec["outputs"])],
            **facets,
        )
    return run(
        spec["type"],
        runs[spec["run"]],
        spec["time"] + index / 100,
        inputs=tuple(sorted(spec["inputs"])),
        outputs=tuple(sorted(spec["outputs"])),
        sql=spec["sql"],
        job_type=spec["job_type"],
    )


def _snapshot(store: Store) -> dict[str, Any]:
    def rows(table: Any) -> list[tuple[Any, ...]]:
        return sorted(tuple(sorted(r.items())) for r in store.rows(table))

    return {
        "versions": versions(store),
        "current": current(store),
        "tables": {
            table.name: rows(table)
            for table in (
                t.job_versions,
                t.run_versions,
                t.job_sources,
            )
        },
    }


@pytest.mark.slow
def test_any_order_and_duplication_gives_the_versions_of_in_order_delivery(
    two_stores: tuple[Store, Store],
) -> None:
    a, b = two_stores
    examples = 40 if a.dialect == "sqlite" else 12

    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.lists(_spec, min_size=1, max_size=8), st.data())
    def check(specs: list[dict[str, Any]], data: st.DataObject) -> None:
        a.reset()
        b.reset()
        runs = [new_run() for _ in range(4)]
        events = [_event(spec, runs, i) for i, spec in enumerate(specs)]
        in_order = sorted(events, key=lambda e: e["eventTime"])
        a.ingest_each(in_order)
        ingest_shuffled(b, events, data, max_dups=4)
        assert _snapshot(a) == _snapshot(b)
        # Each run ran the version of the union of what its events listed.
        for version in versions(a):
            assert version.run_count >= 0
        ran = {r["run_key"] for r in a.rows(t.run_versions)}
        assert set(runs) & {e["run"]["runId"] for e in events if "run" in e} <= ran

    check()


def test_a_reset_forgets_what_the_writer_knew_of_its_runs(sqlite_url: str) -> None:
    """After a reset (a new generation) the same events store the run's version again."""
    store = Store(sqlite_url)
    r = new_run()
    start = run("START", r, 1, inputs=("orders",), outputs=("daily",), sql="q1")
    complete = run("COMPLETE", r, 2, inputs=("orders",), outputs=("daily",), sql="q1")
    store.ingest(start)
    store.ingest(complete)
    reset_namespace(store.engine, namespace_id(JOB[0]))
    assert store.count(t.run_versions) == 0
    store.ingest(complete)  # what the writer knew of the run is gone with the generation
    (version,) = versions(store)
    assert tables(version) == ((("s3://raw", "orders"),), (("s3://lake", "daily"),))
    assert [row["run_key"] for row in store.rows(t.run_versions)] == [r]
    store.close()
