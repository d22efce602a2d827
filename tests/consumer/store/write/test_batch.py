"""The store's write side, driven through the real ingest path on SQLite and PostgreSQL.

Events are parsed, validated and derived as the server does, then written by
``IngestPipeline.write_now`` (one group commit per call); the rows are read
back with plain SQLAlchemy queries.
"""

from __future__ import annotations

import itertools
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feast_lineage import canonical_json
from feast_lineage.consumer.intake.pipeline import IngestPipeline
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.write.cache import WriteCache
from feast_lineage.consumer.store.write.sqlite_touch import TOUCH_MAX_EVENTS
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id, job_id
from tests.factories import at, dataset, dataset_event, facet, job_event, run_event, schema_facet
from tests.store_helpers import RECEIVED_US, Store, ingest_shuffled


def us(seconds: float) -> int:
    return parse_us(at(seconds))


def new_run() -> str:
    return str(uuid.uuid4())


# --- run state ----------------------------------------------------------------------


def test_start_then_complete(store: Store) -> None:
    run_id = new_run()
    store.ingest(run_event("START", run_id=run_id, time=at(10)))
    run = store.run(run_id)
    assert run is not None
    assert (run["state"], run["started_us"], run["ended_us"]) == ("RUNNING", us(10), None)
    store.ingest(run_event("COMPLETE", run_id=run_id, time=at(70)))
    run = store.run(run_id)
    assert run is not None
    assert (run["state"], run["started_us"], run["ended_us"]) == ("COMPLETE", us(10), us(70))
    assert (run["first_event_us"], run["last_event_us"]) == (us(10), us(70))
    assert run["job_id"] == job_id("airflow://prod", "etl.load")


def test_a_late_event_never_reopens_a_terminal_run(store: Store) -> None:
    cases = {}
    for terminal in ("COMPLETE", "FAIL", "ABORT"):
        for late in ("START", "RUNNING", "OTHER", None):
            run_id = cases[(terminal, late)] = new_run()
            store.ingest(run_event("START", run_id=run_id, time=at(0)))
            store.ingest(run_event(terminal, run_id=run_id, time=at(60)))
            # Arrives last, and even carries a later eventTime.
            store.ingest(run_event(late, run_id=run_id, time=at(120)))
    for (terminal, late), run_id in cases.items():
        run = store.run(run_id)
        assert run is not None
        assert (run["state"], run["ended_us"]) == (terminal, us(60)), (terminal, late)
        assert run["last_event_us"] == us(120)


def test_complete_arriving_before_start(store: Store) -> None:
    run_id = new_run()
    store.ingest(run_event("COMPLETE", run_id=run_id, time=at(90)))
    run = store.run(run_id)
    assert run is not None
    # No START seen yet: the run started, as far as we know, at its first event.
    assert (run["state"], run["started_us"], run["ended_us"]) == ("COMPLETE", us(90), us(90))
    store.ingest(run_event("START", run_id=run_id, time=at(30)))
    run = store.run(run_id)
    assert run is not None
    assert (run["state"], run["started_us"], run["ended_us"]) == ("COMPLETE", us(30), us(90))
    assert run["start_event_us"] == us(30)


def test_started_is_the_start_event_not_an_earlier_event(store: Store) -> None:
    run_id = new_run()
    store.ingest_each(
        [
            run_event("OTHER", run_id=run_id, time=at(5)),
            run_event("START", run_id=run_id, time=at(20)),
            run_event("START", run_id=run_id, time=at(15)),
        ]
    )
    run = store.run(run_id)
    assert run is not None
    assert (run["first_event_us"], run["start_event_us"], run["started_us"]) == (
        us(5),
        us(15),
        us(15),
    )
    assert run["state"] == "RUNNING"


def test_the_latest_terminal_event_wins(store: Store) -> None:
    run_id = new_run()
    store.ingest(run_event("FAIL", run_id=run_id, time=at(50)))
    store.ingest(run_event("COMPLETE", run_id=run_id, time=at(40)))
    run = store.run(run_id)
    assert run is not None
    assert (run["state"], run["ended_us"]) == ("FAIL", us(50))


def test_running_after_start_and_other_before(store: Store) -> None:
    run_id = new_run()
    store.ingest(run_event("RUNNING", run_id=run_id, time=at(2)))
    store.ingest(run_event("OTHER", run_id=run_id, time=at(3)))
    run = store.run(run_id)
    assert run is not None
    # OTHER carries no state: the run is still running.
    assert run["state"] == "RUNNING"


def test_run_times_ignore_the_server_clock(store: Store) -> None:
    run_id = new_run()
    store.ingest(run_event("START", run_id=run_id, time="2001-02-03T04:05:06.789Z"))
    run = store.run(run_id)
    assert run is not None
    assert run["started_us"] == parse_us("2001-02-03T04:05:06.789Z")
    (row,) = store.rows(t.events)
    assert row["received_us"] == RECEIVED_US
    assert row["event_time_us"] == run["started_us"]


def test_parent_and_root_run_ids(store: Store) -> None:
    run_id, parent, root = new_run(), new_run(), new_run()
    start = run_event("START", run_id=run_id, parent=(parent, ("airflow://prod", "dag")))
    start["run"]["facets"]["parent"]["root"] = {
        "run": {"runId": root},
        "job": {"namespace": "airflow://prod", "name": "nightly"},
    }
    store.ingest(run_event("COMPLETE", run_id=run_id, time=at(9)))
    store.ingest(start)
    run = store.run(run_id)
    assert run is not None
    assert (run["parent_run_id"], run["root_run_id"]) == (parent, root)


# --- order independence: a property ------------------------------------------------

_TYPES = ["START", "RUNNING", "COMPLETE", "FAIL", "ABORT", "OTHER", None]
# Few distinct instants, some spelled several ways, so equal times are common.
_TIMES = [
    "2026-01-01T12:00:00Z",
    "2026-01-01T14:00:00+02:00",
    "2026-01-01T12:00:01Z",
    "2026-01-01T12:00:01.000000999Z",
    "2026-01-01T12:00:02.5",
    "2026-01-01T12:00:03Z",
]
_PARENTS = [None, "0d6c1f0e-8a51-4f4e-9a8e-3c1d0b6a2f01", "7b1e0c2d-4f3a-4b5c-8d6e-9f0a1b2c3d4e"]

_event_specs = st.fixed_dictionaries(
    {
        "type": st.sampled_from(_TYPES),
        "time": st.sampled_from(_TIMES),
        "run_facets": st.sets(st.sampled_from(["nominalTime", "custom", "errorMessage"])),
        "job_facets": st.sets(st.sampled_from(["sql", "jobType"])),
        "parent": st.sampled_from(_PARENTS),
        "inputs": st.sets(st.integers(0, 2)),
        "outputs": st.sets(st.integers(0, 1)),
        "io_facets": st.booleans(),
    }
)


def _build(spec: dict[str, Any], index: int, run_id: str, tag: str) -> dict[str, Any]:
    value = {"event": index, "nested": {"flag": index % 2 == 0, "n": [index, None]}}

    def ds(ns: str, name: str, facet_key: str) -> dict[str, Any]:
        d = dataset(ns, name, schema=schema_facet(f"f{index}"))
        if spec["io_facets"]:
            d[facet_key] = {"stats": facet(rowCount=index)}
        return d

    event = run_event(
        spec["type"],
        run_id=run_id,
        job=("airflow://prod", f"job-{tag}"),
        time=spec["time"],
        run_facets={name: facet(**value) for name in sorted(spec["run_facets"])},
        job_facets={name: facet(**value) for name in sorted(spec["job_facets"])},
        inputs=[ds("s3://raw", f"in{i}-{tag}", "inputFacets") for i in sorted(spec["inputs"])],
        outputs=[ds("s3://out", f"o{i}-{tag}", "outputFacets") for i in sorted(spec["outputs"])],
    )
    if spec["parent"] is not None:
        event["run"]["facets"]["parent"] = facet(
            run={"runId": spec["parent"]}, job={"namespace": "airflow://prod", "name": f"dag-{tag}"}
        )
    return event


def _snapshot(store: Store, run_id: str, tag: str) -> dict[str, Any]:
    jid = job_id("airflow://prod", f"job-{tag}")
    dids = [dataset_id("s3://raw", f"in{i}-{tag}") for i in range(3)] + [
        dataset_id("s3://out", f"o{i}-{tag}") for i in range(2)
    ]
    # With their times: an edge dates from the earliest event that stated it.
    edges = store.rows(t.lineage_edges, t.lineage_edges.c.dst_id.in_([jid, *dids]))
    return {
        "run": store.run(run_id),
        "run_facets": store.run_facets(run_id),
        "run_io": store.run_io(run_id),
        "job": store.one(t.jobs, t.jobs.c.id == jid),
        "job_facets": store.facets(t.job_facets, jid),
        "datasets": sorted(
            store.rows(t.datasets, t.datasets.c.id.in_(dids)), key=lambda r: r["id"]
        ),
        "dataset_facets": {d: store.facets(t.dataset_facets, d) for d in dids},
        "edges": sorted(edges, key=lambda e: (e["src_id"], e["dst_id"], e["edge_type"])),
        "events": sorted(r["event_key"] for r in store.rows(t.events, t.events.c.run_id == run_id)),
    }


def _expected_run(specs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run the OpenLineage run cycle implies, computed independently of the store."""
    times = [parse_us(s["time"]) for s in specs]
    starts = [tm for s, tm in zip(specs, times, strict=True) if s["type"] == "START"]
    terminal = [
        (tm, s["type"])
        for s, tm in zip(specs, times, strict=True)
        if s["type"] in {"COMPLETE", "FAIL", "ABORT"}
    ]
    running = [s for s in specs if s["type"] in {"START", "RUNNING"}]
    expected: dict[str, Any] = {
        "first_event_us": min(times),
        "last_event_us": max(times),
        "start_event_us": min(starts) if starts else None,
        "started_us": min(starts) if starts else min(times),
    }
    if terminal:
        ended = max(tm for tm, _ in terminal)
        expected["ended_us"] = ended
        expected["state"] = {ty for tm, ty in terminal if tm == ended}  # a tie: any of these
    else:
        expected["ended_us"] = None
        expected["state"] = {"RUNNING"} if running else {"OTHER"}
    parents = [s["parent"] for s in specs if s["parent"] is not None]
    expected["parents"] = set(parents) if parents else {None}
    return expected


def _property_settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@pytest.mark.slow
def test_every_order_and_duplication_gives_the_same_store(
    two_stores: tuple[Store, Store],
) -> None:
    """A: each event once, in order, one transaction each. B: shuffled, duplicated, batched."""
    a, b = two_stores
    examples = 50 if a.dialect == "sqlite" else 15

    @_property_settings(examples)
    @given(st.lists(_event_specs, min_size=1, max_size=7), st.data())
    def check(specs: list[dict[str, Any]], data: st.DataObject) -> None:
        run_id = new_run()
        tag = run_id[:8]
        events = [_build(spec, i, run_id, tag) for i, spec in enumerate(specs)]
        a.ingest_each(events)
        ingest_shuffled(b, events, data, max_dups=4)

        snap_a, snap_b = _snapshot(a, run_id, tag), _snapshot(b, run_id, tag)
        assert snap_a == snap_b
        assert len(snap_a["events"]) == len({canonical_json.dumps(e) for e in events})

        run = snap_a["run"]
        expected = _expected_run(specs)
        assert run["state"] in expected.pop("state")
        assert run["parent_run_id"] in expected.pop("parents")
        assert {k: run[k] for k in expected} == expected
        # Every facet name ever sent is there, with the latest event's value.
        sent_names = set().union(*(s["run_facets"] for s in specs))
        assert set(snap_a["run_facets"]) == sent_names | (
            {"parent"} if any(s["parent"] for s in specs) else set()
        )
        for name in sent_names:
            carriers = [
                (parse_us(s["time"]), i) for i, s in enumerate(specs) if name in s["run_facets"]
            ]
            latest = max(tm for tm, _ in carriers)
            winners = {i for tm, i in carriers if tm == latest}
            assert snap_a["run_facets"][name]["event"] in winners

    check()


# --- small transactions: unchanged indexed values are not rewritten ------------------
#
# On SQLite, a transaction of a few events first moves rows whose indexed
# columns keep their values (a facet whose blob repeats, a dataset whose URI
# repeats, a run whose start and parent stay) with a narrower UPDATE; larger
# transactions use the upserts alone. Both must store exactly the same.


def _repeating_events(run_id: str) -> list[dict[str, Any]]:
    """Values that repeat, change and come back, so a stale rank would show."""
    parent_low, parent_high = "00000000-0000-4000-8000-000000000001", new_run()

    def event(kind: str | None, sec: float, value: str, parent: str) -> dict[str, Any]:
        uri = f"postgres://db:5432/{value}"
        return run_event(
            kind,
            run_id=run_id,
            job=("airflow://prod", "repeat"),
            time=at(sec),
            inputs=[
                dataset("s3://raw", "orders", schema=schema_facet(value), dataSource=facet(uri=uri))
            ],
            parent=(parent, ("airflow://prod", "dag")),
            run_facets={"custom": facet(value=value)},
            job_facets={"sql": facet(query=value)},
        )

    return [
        event("START", 2, "a", parent_high),
        event("RUNNING", 4, "a", parent_high),  # the same values, later
        event("RUNNING", 3, "b", parent_high),  # different values, in between
        event("COMPLETE", 6, "a", parent_high),
        event("OTHER", 1, "a", parent_high),  # earliest event, not a START
        event("START", 0.5, "c", parent_low),  # an earlier START and a lower parent
        event("RUNNING", 5, "b", parent_high),  # later than every "a" but the COMPLETE
    ]


def _repeat_snapshot(store: Store, run_id: str) -> dict[str, Any]:
    ds = dataset_id("s3://raw", "orders")
    jid = job_id("airflow://prod", "repeat")

    def ranked(table: Any, owner: Any) -> list[tuple[Any, ...]]:
        rows = store.rows(table, table.c.owner_id == owner)
        return sorted((r["name"], r["rank"], r["blob_id"]) for r in rows)

    dataset_row = store.one(t.datasets, t.datasets.c.id == ds)
    assert dataset_row is not None
    return {
        "run": store.run(run_id),
        "dataset": {k: v for k, v in dataset_row.items() if k != "producer"},
        "job_facets": ranked(t.job_facets, jid),
        "dataset_facets": ranked(t.dataset_facets, ds),
        "values": (
            store.run_facets(run_id)["custom"]["value"],
            store.job_facets("airflow://prod", "repeat")["sql"]["query"],
            store.dataset_facets("s3://raw", "orders")["schema"]["fields"][0]["name"],
        ),
    }


@pytest.mark.parametrize(
    "order", [[0, 1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1, 0], [3, 1, 0, 6, 2, 5, 4]]
)
def test_one_event_transactions_store_what_one_transaction_stores(
    two_stores: tuple[Store, Store], order: list[int]
) -> None:
    a, b = two_stores
    run_id = new_run()
    events = _repeating_events(run_id)
    a.ingest_each(events[i] for i in order)  # small transactions
    large = events * 3  # one large transaction, every event three times
    assert len(large) > TOUCH_MAX_EVENTS
    b.ingest(*large)
    snap = _repeat_snapshot(a, run_id)
    assert snap == _repeat_snapshot(b, run_id)
    run = snap["run"]
    assert run is not None
    assert (run["state"], run["ended_us"]) == ("COMPLETE", us(6))
    assert (run["start_event_us"], run["started_us"]) == (us(0.5), us(0.5))
    assert (run["first_event_us"], run["last_event_us"]) == (us(0.5), us(6))
    assert run["parent_run_id"] == "00000000-0000-4000-8000-000000000001"
    assert snap["values"] == ("a", "a", "a")  # the COMPLETE at 6 s is the latest
    assert snap["dataset"]["datasource_uri"] == "postgres://db:5432/a"


# --- idempotency ------------------------------------------------------------------------


def _rich_event(run_id: str, event_type: str = "COMPLETE", seconds: float = 1) -> dict[str, Any]:
    return run_event(
        event_type,
        run_id=run_id,
        time=at(seconds),
        inputs=[
            dataset(
                "s3://raw",
                "orders",
                schema=schema_facet("id", "amount"),
                symlinks=facet(identifiers=[{"namespace": "hive://m", "name": "raw.orders"}]),
                dataSource=facet(uri="s3://raw/orders"),
            )
        ],
        outputs=[dataset("s3://clean", "orders", schema=schema_facet("id"))],
        parent=(new_run(), ("airflow://prod", "dag")),
        run_facets={"custom": facet(v=1)},
        job_facets={"sql": facet(query="select 1")},
    )


def _counts(store: Store) -> dict[str, int]:
    return {table.name: store.count(table) for table in t.metadata.sorted_tables}


def test_the_same_event_twice_in_one_batch_is_stored_once(store: Store) -> None:
    event = _rich_event(new_run())
    store.ingest(event, event)
    counts = _counts(store)
    assert counts["feast_lineage_events"] == 1
    assert counts["feast_lineage_runs"] == 1
    assert counts["feast_lineage_run_io"] == 2
    assert counts["feast_lineage_edges"] == 3  # input, output, parent
    assert counts["feast_lineage_dataset_symlinks"] == 1


def test_the_same_event_in_two_batches_is_stored_once(store: Store) -> None:
    run_id = new_run()
    event = _rich_event(run_id)
    store.ingest(event)
    first = _counts(store)
    snapshot = (store.rows(t.runs), store.rows(t.jobs), store.rows(t.datasets))
    store.ingest(event)
    store.ingest(run_event("START", run_id=new_run()), event)
    assert store.count(t.events, t.events.c.run_id == run_id) == 1
    after = _counts(store)
    assert after["feast_lineage_events"] == first["feast_lineage_events"] + 1
    assert store.rows(t.runs, t.runs.c.run_id == run_id) == [
        r for r in snapshot[0] if r["run_id"] == run_id
    ]
    for name in (
        "feast_lineage_run_io",
        "feast_lineage_dataset_symlinks",
        "feast_lineage_facet_blobs",
    ):
        assert after[name] == first[name]


def test_a_fresh_writer_does_not_duplicate_either(store: Store) -> None:
    # A restarted server has an empty cache: the database itself deduplicates.
    event = _rich_event(new_run())
    store.ingest(event)
    before = _counts(store)
    again = Store(store.url)
    try:
        again.ingest(event)
    finally:
        again.close()
    assert _counts(store) == before


def test_equal_events_in_different_key_order_are_one_event(store: Store) -> None:
    event = _rich_event(new_run())
    reordered = orjson.loads(orjson.dumps(dict(reversed(list(event.items())))))
    store.ingest(event)
    store.ingest(reordered)
    assert store.count(t.events) == 1


# --- facets merge key by key ------------------------------------------------------------


def test_job_facets_merge_key_by_key(store: Store) -> None:
    job = ("airflow://prod", "merge.job")
    store.ingest(
        run_event(job=job, time=at(1), job_facets={"sql": facet(q=1), "owner": facet(who="a")})
    )
    store.ingest(run_event(job=job, time=at(2), job_facets={"sql": facet(q=2)}))
    facets = store.job_facets(*job)
    assert facets["sql"]["q"] == 2
    assert facets["owner"]["who"] == "a"
    # An older event arriving late changes nothing it carries.
    store.ingest(
        run_event(job=job, time=at(0), job_facets={"sql": facet(q=0), "owner": facet(who="z")})
    )
    facets = store.job_facets(*job)
    assert (facets["sql"]["q"], facets["owner"]["who"]) == (2, "a")
    # ...but adds what nothing newer carries.
    store.ingest(run_event(job=job, time=at(0), job_facets={"docs": facet(url="x")}))
    assert set(store.job_facets(*job)) == {"sql", "owner", "docs"}


def test_dataset_facets_merge_key_by_key(store: Store) -> None:
    store.ingest(
        dataset_event(
            "s3://b", "x", time=at(5), schema=schema_facet("a"), ownership=facet(owners=["x"])
        )
    )
    store.ingest(
        run_event(time=at(9), inputs=[dataset("s3://b", "x", schema=schema_facet("a", "b"))])
    )
    store.ingest(dataset_event("s3://b", "x", time=at(1), schema=schema_facet("old")))
    facets = store.dataset_facets("s3://b", "x")
    assert [f["name"] for f in facets["schema"]["fields"]] == ["a", "b"]
    assert facets["ownership"]["owners"] == ["x"]
    row = store.dataset("s3://b", "x")
    assert row is not None
    assert (row["created_us"], row["updated_us"]) == (us(1), us(9))


def test_run_facets_merge_key_by_key(store: Store) -> None:
    run_id = new_run()
    store.ingest(
        run_event(
            "COMPLETE",
            run_id=run_id,
            time=at(10),
            run_facets={"errorMessage": facet(message="late"), "stats": facet(n=2)},
        )
    )
    store.ingest(
        run_event(
            "START",
            run_id=run_id,
            time=at(1),
            run_facets={"nominalTime": facet(start=at(0)), "stats": facet(n=1)},
        )
    )
    facets = store.run_facets(run_id)
    assert set(facets) == {"errorMessage", "stats", "nominalTime"}
    assert facets["stats"]["n"] == 2


def test_times_before_1970_are_ordered_too(store: Store) -> None:
    run_id, job = new_run(), ("ns", "old")
    late = "1965-06-01T00:00:00Z"
    early = "1960-06-01T00:00:00.5Z"
    store.ingest(
        run_event("COMPLETE", run_id=run_id, job=job, time=late, job_facets={"f": {"v": 2}})
    )
    store.ingest(run_event("FAIL", run_id=run_id, job=job, time=early, job_facets={"f": {"v": 1}}))
    store.ingest(run_event("START", run_id=run_id, job=job, time=early))
    run = store.run(run_id)
    assert run is not None
    assert (run["state"], run["started_us"], run["ended_us"]) == (
        "COMPLETE",
        parse_us(early),
        parse_us(late),
    )
    assert store.job_facets(*job)["f"] == {"v": 2}


def test_run_io_facets_follow_the_latest_event(store: Store) -> None:
    run_id = new_run()
    out = ("s3://b", "out")
    later = dataset(*out)
    later["outputFacets"] = {"outputStatistics": facet(rowCount=100)}
    earlier = dataset(*out)
    earlier["outputFacets"] = {"outputStatistics": facet(rowCount=1)}
    store.ingest(run_event("COMPLETE", run_id=run_id, time=at(9), outputs=[later]))
    store.ingest(run_event("RUNNING", run_id=run_id, time=at(5), outputs=[earlier]))
    assert store.run_io(run_id) == {
        (dataset_id(*out), "output"): {"outputStatistics": facet(rowCount=100)}
    }
    # An event that names the dataset without facets, later still, clears them.
    store.ingest(run_event("COMPLETE", run_id=run_id, time=at(10), outputs=[dataset(*out)]))
    assert store.run_io(run_id) == {(dataset_id(*out), "output"): None}


def test_custom_facets_are_kept_verbatim(store: Store) -> None:
    custom = {
        "_producer": "https://example.com/my-producer",
        "_schemaURL": "https://example.com/schemas/MyFacet.json",
        "nothing": None,
        "numbers": [0, -1, 1.5, 1e-7, 12345678901234567],
        "flags": [True, False],
        "text": 'ünïcødé \t \n "quoted" <tag> \\u0000',
        "empty": {},
        "deep": {"a": {"b": {"c": [[], [{}]]}}},
    }
    run_id = new_run()
    store.ingest(
        run_event(
            run_id=run_id,
            run_facets={"my_custom": custom},
            job_facets={"my_custom": custom},
            inputs=[dataset("s3://b", "x", my_custom=custom)],
        )
    )
    assert store.run_facets(run_id)["my_custom"] == custom
    assert store.job_facets("airflow://prod", "etl.load")["my_custom"] == custom
    assert store.dataset_facets("s3://b", "x")["my_custom"] == custom
    # The stored event is the event as sent.
    (payload,) = store.payloads()
    assert payload["run"]["facets"]["my_custom"] == custom


def test_facet_values_equal_in_python_are_kept_apart(store: Store) -> None:
    # 1, 1.0 and true compare equal in Python but are different JSON.
    job = ("ns", "typed")
    for seconds, value in enumerate([1, True, 1.0, 0, False]):
        store.ingest(run_event(job=job, time=at(seconds), job_facets={"v": {"value": value}}))
        stored = store.job_facets(*job)["v"]["value"]
        assert stored == value
        assert type(stored) is type(value)


# --- graph edges -----------------------------------------------------------------------


def test_io_edges_without_a_cross_product(store: Store) -> None:
    job = ("airflow://prod", "fan")
    store.ingest(
        run_event(
            job=job,
            inputs=[dataset("s3://raw", f"in{i}") for i in range(3)],
            outputs=[dataset("s3://out", f"out{i}") for i in range(2)],
        )
    )
    rows = store.rows(t.lineage_edges)
    assert len(rows) == 5
    jid = job_id(*job)
    assert {(r["src_id"], r["dst_id"], r["edge_type"]) for r in rows} == {
        *((dataset_id("s3://raw", f"in{i}"), jid, "input") for i in range(3)),
        *((jid, dataset_id("s3://out", f"out{i}"), "output") for i in range(2)),
    }
    assert not [r for r in rows if r["src_kind"] == r["dst_kind"] == "dataset"]
    assert store.count(t.run_io) == 5


def test_parent_and_root_edges_and_stub_jobs(store: Store) -> None:
    child, parent, root = ("ns", "task"), ("ns", "dag"), ("ns", "nightly")
    event = run_event(job=child, parent=(new_run(), parent))
    event["run"]["facets"]["parent"]["root"] = {
        "run": {"runId": new_run()},
        "job": {"namespace": root[0], "name": root[1]},
    }
    store.ingest(event)
    assert store.edges() == {
        (job_id(*parent), job_id(*child), "parent"),
        (job_id(*root), job_id(*child), "root"),
    }
    for stub in (parent, root):
        row = store.job(*stub)
        assert row is not None
        assert row["producer"] is None
    # The parent's own event later fills in its stub.
    store.ingest(run_event(job=parent, time=at(3)))
    row = store.job(*parent)
    assert row is not None
    assert row["producer"] == "https://github.com/feast-lineage/tests"
    assert row["updated_us"] == us(3)
    # A stub arriving after the real job does not erase it.
    store.ingest(run_event(job=("ns", "task2"), time=at(9), parent=(new_run(), parent)))
    row = store.job(*parent)
    assert row is not None
    assert row["producer"] == "https://github.com/feast-lineage/tests"
    assert row["updated_us"] == us(3)


def test_root_edge_only_when_root_job_differs_from_parent(store: Store) -> None:
    child, parent = ("ns", "task"), ("ns", "dag")
    event = run_event(job=child, parent=(new_run(), parent))
    event["run"]["facets"]["parent"]["root"] = {
        "run": {"runId": new_run()},
        "job": {"namespace": parent[0], "name": parent[1]},
    }
    store.ingest(event)
    assert store.edges() == {(job_id(*parent), job_id(*child), "parent")}


# --- current edges: those of the job's latest run ---------------------------------------


def _ds(*names: str) -> list[dict[str, Any]]:
    return [dataset("s3://b", name) for name in names]


def _current(store: Store, job: tuple[str, str], kind: str) -> set[str]:
    """The names of the job's current input (or output) datasets."""
    jid = job_id(*job)
    names = {dataset_id("s3://b", n): n for n in "ABCDEFGHXYZ"}
    dataset_end, job_end = (0, 1) if kind == "input" else (1, 0)  # input: dataset -> job
    return {
        names[edge[dataset_end]]
        for edge in store.current_edges()
        if edge[2] == kind and edge[job_end] == jid
    }


def _input_edges(store: Store, job: tuple[str, str]) -> set[str]:
    return _current(store, job, "input")


def _output_edges(store: Store, job: tuple[str, str]) -> set[str]:
    return _current(store, job, "output")


def test_a_jobs_current_edges_are_those_of_its_latest_run(store: Store) -> None:
    job = ("spark://prod", "etl")
    one, two = new_run(), new_run()
    store.ingest(
        run_event("START", run_id=one, job=job, time=at(1), inputs=_ds("A", "B")),
        run_event("COMPLETE", run_id=one, job=job, time=at(2), outputs=_ds("X")),
    )
    assert (_input_edges(store, job), _output_edges(store, job)) == ({"A", "B"}, {"X"})
    # The next run reads A and C: B is no longer an input. Until it lists
    # outputs, the outputs of the run before stay.
    store.ingest(run_event("START", run_id=two, job=job, time=at(3), inputs=_ds("A", "C")))
    assert (_input_edges(store, job), _output_edges(store, job)) == ({"A", "C"}, {"X"})
    store.ingest(run_event("COMPLETE", run_id=two, job=job, time=at(4), outputs=_ds("Y")))
    assert (_input_edges(store, job), _output_edges(store, job)) == ({"A", "C"}, {"Y"})
    # Every edge stays stored, as history.
    assert len(store.edges()) == 5


def test_a_run_that_failed_before_writing_keeps_the_earlier_outputs(store: Store) -> None:
    job = ("spark://prod", "etl")
    one, two = new_run(), new_run()
    store.ingest(
        run_event("COMPLETE", run_id=one, job=job, time=at(1), inputs=_ds("A"), outputs=_ds("X")),
        run_event("START", run_id=two, job=job, time=at(2), inputs=_ds("A")),
        run_event("FAIL", run_id=two, job=job, time=at(3)),
    )
    assert (_input_edges(store, job), _output_edges(store, job)) == ({"A"}, {"X"})


def test_overlapping_runs_keep_every_input_of_the_latest(store: Store) -> None:
    # The latest event listing inputs is the first run's, which read A and B
    # (A in its first event only); the second run's A does not hide it.
    job = ("spark://prod", "etl")
    one, two = new_run(), new_run()
    store.ingest_each(
        [
            run_event("START", run_id=one, job=job, time=at(1), inputs=_ds("A", "B")),
            run_event("START", run_id=two, job=job, time=at(2), inputs=_ds("A", "C")),
            run_event("RUNNING", run_id=one, job=job, time=at(3), inputs=_ds("B")),
        ]
    )
    assert _input_edges(store, job) == {"A", "B"}


def test_job_events_count_as_runs_of_their_own(store: Store) -> None:
    job = ("dbt://analytics", "model")
    store.ingest(job_event(*job, time=at(1), inputs=_ds("A"), outputs=_ds("X")))
    store.ingest(job_event(*job, time=at(2), inputs=_ds("B")))
    assert (_input_edges(store, job), _output_edges(store, job)) == ({"B"}, {"X"})
    store.ingest(run_event("COMPLETE", job=job, time=at(3), inputs=_ds("C"), outputs=_ds("Y")))
    assert (_input_edges(store, job), _output_edges(store, job)) == ({"C"}, {"Y"})
    # An earlier event arriving late changes nothing.
    store.ingest(job_event(*job, time=at(0), inputs=_ds("D"), outputs=_ds("Z")))
    assert (_input_edges(store, job), _output_edges(store, job)) == ({"C"}, {"Y"})


_RUN_SPECS = st.fixed_dictionaries(
    {
        "run": st.integers(0, 2),
        "type": st.sampled_from(["START", "RUNNING", "COMPLETE", "FAIL"]),
        "inputs": st.sets(st.sampled_from("ABCD")),
        "outputs": st.sets(st.sampled_from("XYZ")),
    }
)


@pytest.mark.slow
def test_current_edges_do_not_depend_on_arrival(two_stores: tuple[Store, Store]) -> None:
    """Events of three runs of one job, in any order, duplicated, in any batches."""
    a, b = two_stores
    examples = 40 if a.dialect == "sqlite" else 10

    @_property_settings(examples)
    @given(st.lists(_RUN_SPECS, min_size=1, max_size=7), st.data())
    def check(specs: list[dict[str, Any]], data: st.DataObject) -> None:
        job = ("spark://prod", f"etl-{new_run()[:8]}")
        runs = [new_run() for _ in range(3)]
        # Distinct times: the latest event is the one with the greatest time.
        events = [
            run_event(
                spec["type"],
                run_id=runs[spec["run"]],
                job=job,
                time=at(i),
                inputs=_ds(*sorted(spec["inputs"])),
                outputs=_ds(*sorted(spec["outputs"])),
            )
            for i, spec in enumerate(specs)
        ]
        a.ingest_each(events)
        ingest_shuffled(b, events, data, max_dups=3)

        def expected(key: str) -> set[str]:
            listing = [i for i, spec in enumerate(specs) if spec[key]]
            if not listing:
                return set()
            run = specs[max(listing)]["run"]
            return set().union(*(spec[key] for spec in specs if spec["run"] == run))

        for store in (a, b):
            assert _input_edges(store, job) == expected("inputs")
            assert _output_edges(store, job) == expected("outputs")

    check()


def test_symlinks_from_the_facet_are_stored(store: Store) -> None:
    store.ingest(
        dataset_event(
            "s3://b",
            "warehouse/orders",
            symlinks=facet(
                identifiers=[
                    {"namespace": "hive://metastore", "name": "db.orders", "type": "TABLE"}
                ]
            ),
        )
    )
    (row,) = store.rows(t.dataset_symlinks)
    assert (row["dataset_id"], row["alias_id"]) == (
        dataset_id("s3://b", "warehouse/orders"),
        dataset_id("hive://metastore", "db.orders"),
    )
    assert (row["alias_namespace"], row["alias_name"], row["alias_type"], row["source"]) == (
        "hive://metastore",
        "db.orders",
        "TABLE",
        "symlink",
    )


def _linked(store: Store, a: tuple[str, str], b: tuple[str, str]) -> bool:
    ida, idb = dataset_id(*a), dataset_id(*b)
    return any({ida, idb} == {x, y} for x, y, _ in store.symlinks())


def test_equal_data_source_uris_link_datasets(store: Store) -> None:
    for together in (True, False):
        uri = f"postgres://db:5432/feast/public.orders_{together}"
        a, b = ("spark://cluster", f"orders_{together}"), ("feast_demo", f"source_{together}")
        events = [
            run_event(inputs=[dataset(*a, dataSource=facet(uri=uri))]),
            dataset_event(*b, dataSource=facet(uri=uri)),
        ]
        if together:
            store.ingest(*events)
        else:
            store.ingest_each(events)
        assert _linked(store, a, b)
    assert {s for _, _, s in store.symlinks()} == {"datasource"}


def test_data_source_equal_to_an_identity_uri_links(store: Store) -> None:
    for identity_first in (True, False):
        path = f"/data/x_{identity_first}.parquet"
        events = [
            dataset_event("file", path),
            dataset_event(
                "feast_demo", f"x_{identity_first}", dataSource=facet(uri="file://" + path)
            ),
        ]
        store.ingest_each(events if identity_first else list(reversed(events)))
        assert _linked(store, ("file", path), ("feast_demo", f"x_{identity_first}"))


def _link_times(store: Store) -> dict[frozenset[int], int]:
    return {
        frozenset((r["dataset_id"], r["alias_id"])): r["created_us"]
        for r in store.rows(t.dataset_symlinks)
    }


def test_a_data_source_link_dates_from_when_both_named_the_uri_not_the_batchs_last_event(
    store: Store,
) -> None:
    """One batch (a producer's buffer, the quickstart's post) that states the URIs early and
    again later: the link holds from the later of the two first statements; it was dated by
    the batch's latest event, so an as_of between them lost it."""
    uri = "s3://bucket/warehouse/orders"
    a, b = ("spark://cluster", "orders"), ("feast_demo", "orders_source")
    path = "/data/train.parquet"
    c, d = ("file", path), ("feast_demo", "training_set")
    store.ingest(
        dataset_event(*a, time=at(1), dataSource=facet(uri=uri)),
        dataset_event(*d, time=at(1), dataSource=facet(uri="file://" + path)),
        dataset_event(*b, time=at(2), dataSource=facet(uri=uri)),
        dataset_event(*c, time=at(3)),
        dataset_event(*a, time=at(5), dataSource=facet(uri=uri)),
        dataset_event(*b, time=at(6), dataSource=facet(uri=uri)),
        dataset_event(*c, time=at(7)),
        dataset_event(*d, time=at(8), dataSource=facet(uri="file://" + path)),
    )
    times = _link_times(store)
    assert times[frozenset((dataset_id(*a), dataset_id(*b)))] == parse_us(at(2))
    assert times[frozenset((dataset_id(*c), dataset_id(*d)))] == parse_us(at(3))
    # A dataset stored before: the link dates from its first sight, or the new one's statement.
    e = ("hive://metastore", "orders")
    store.ingest(
        dataset_event(*e, time=at(9), dataSource=facet(uri=uri)),
        dataset_event(*e, time=at(12), dataSource=facet(uri=uri)),
    )
    assert _link_times(store)[frozenset((dataset_id(*a), dataset_id(*e)))] == parse_us(at(9))


def test_a_data_source_link_dates_from_the_uri_not_from_a_first_event_without_it(
    store: Store,
) -> None:
    """A client's START that names the dataset without facets, then its COMPLETE with the
    dataSource, one event a post (as OpenLineage clients send): the link dates from the
    COMPLETE, not the START."""
    uri = "s3://bucket/warehouse/trips"
    b, a = ("feast_demo", "trips_source"), ("spark://cluster", "trips")
    store.ingest(dataset_event(*b, time=at(0), dataSource=facet(uri=uri)))
    store.ingest(dataset_event(*a, time=at(1)))
    store.ingest(dataset_event(*a, time=at(5), dataSource=facet(uri=uri)))
    assert _link_times(store)[frozenset((dataset_id(*a), dataset_id(*b)))] == parse_us(at(5))


def test_a_data_source_link_never_moves_a_symlinks_facets_link(store: Store) -> None:
    """Two datasets a symlinks facet linked first (its owner the lower id, the row a dataSource
    link would take): a writer that does not know it (another process) leaves its time."""
    uri = "s3://bucket/warehouse/events"
    a, b = sorted(
        [("s3://bucket", "warehouse/events"), ("hive://metastore", "db.events")],
        key=lambda node: dataset_id(*node),
    )
    alias = {"namespace": b[0], "name": b[1], "type": "TABLE"}
    store.ingest(dataset_event(*a, time=at(9), symlinks=facet(identifiers=[alias])))
    store.pipeline = IngestPipeline(store.engine)  # another writer: nothing cached
    store.ingest(dataset_event(*b, time=at(2), dataSource=facet(uri=uri)))
    store.ingest(dataset_event(*a, time=at(1), dataSource=facet(uri=uri)))
    rows = store.rows(t.dataset_symlinks)
    assert [(r["source"], r["created_us"]) for r in rows] == [("symlink", parse_us(at(9)))]


def test_a_named_dataset_nothing_links_to_costs_no_lookup_of_its_own(store: Store) -> None:
    """New files (a dataset named by its URI) with no dataSource naming them: linking reads
    nothing of theirs (a new partition every run is the common case)."""
    if store.dialect != "sqlite":
        pytest.skip("SQLite's trace callback shows the statements; the rule is the same")
    store.ingest(dataset_event("file", "/data/first.parquet", time=at(0)))

    def write() -> None:
        store.ingest(*(dataset_event("file", f"/data/p{i}.parquet", time=at(i)) for i in range(5)))

    lookups = [
        st
        for st in store.traced_statements(write)
        if st.lstrip().startswith(
            "SELECT feast_lineage_datasets.id, feast_lineage_datasets.created_us"
        )
    ]
    assert lookups == []


@pytest.mark.slow
def test_a_data_source_link_time_does_not_depend_on_arrival_order(store: Store) -> None:
    """Datasets that name one URI in every event: the link dates from the later of their
    first statements, whatever the order, batching and duplication of delivery."""
    examples = 40 if store.dialect == "sqlite" else 10
    times = st.lists(st.integers(1, 40), min_size=1, max_size=3, unique=True)

    @_property_settings(examples)
    @given(times, times, times, times, st.data())
    def check(ta: list[int], tb: list[int], tc: list[int], td: list[int], data: Any) -> None:
        tag = new_run()[:8]
        uri, path = f"s3://bucket/{tag}/orders", f"/data/{tag}.parquet"
        a, b = ("spark://cluster", f"orders_{tag}"), ("feast_demo", f"orders_{tag}")
        c, d = ("file", path), ("feast_demo", f"training_{tag}")
        events = [dataset_event(*a, time=at(x), dataSource=facet(uri=uri)) for x in ta]
        events += [dataset_event(*b, time=at(x), dataSource=facet(uri=uri)) for x in tb]
        events += [dataset_event(*c, time=at(x)) for x in tc]
        events += [
            dataset_event(*d, time=at(x), dataSource=facet(uri="file://" + path)) for x in td
        ]
        ingest_shuffled(store, events, data, max_dups=3)
        links = _link_times(store)
        ab = frozenset((dataset_id(*a), dataset_id(*b)))
        cd = frozenset((dataset_id(*c), dataset_id(*d)))
        assert links[ab] == parse_us(at(max(min(ta), min(tb))))
        assert links[cd] == parse_us(at(max(min(tc), min(td))))

    check()


def test_a_container_uri_links_nothing(store: Store) -> None:
    uri = "postgres://db:5432/feast"
    store.ingest(
        run_event(
            job=("ns", "reader"),
            inputs=[
                dataset("postgres://db:5432", f"feast.public.t{i}", dataSource=facet(uri=uri))
                for i in range(3)
            ],
        )
    )
    assert store.symlinks() == set()


def test_a_uri_without_a_path_links_nothing(store: Store) -> None:
    store.ingest_each(
        [
            dataset_event("a", "x", dataSource=facet(uri="kafka://broker:9092")),
            dataset_event("b", "y", dataSource=facet(uri="kafka://broker:9092")),
        ]
    )
    assert store.symlinks() == set()


def test_uri_links_do_not_depend_on_arrival_order(store: Store) -> None:
    # Two datasets of one namespace share the URI: it names a container, so
    # nothing links, whichever of the three arrives first.
    for n, order in enumerate([(0, 1, 2), (0, 2, 1), (2, 0, 1), (1, 2, 0), (1, 0, 2)]):
        uri = f"postgres://db:5432/feast{n}"
        events = [
            dataset_event("postgres://db:5432", f"feast{n}.public.a", dataSource=facet(uri=uri)),
            dataset_event("spark://cluster", f"a{n}", dataSource=facet(uri=uri)),
            dataset_event("postgres://db:5432", f"feast{n}.public.b", dataSource=facet(uri=uri)),
        ]
        store.ingest_each([events[i] for i in order])
        assert store.symlinks() == set(), order


def test_uri_links_are_the_same_in_either_order(store: Store) -> None:
    for order in ((0, 1), (1, 0)):
        uri = f"s3://bucket/path/orders{order[0]}.parquet"
        names = [("spark://c", f"orders{order[0]}"), ("feast_demo", f"orders{order[0]}")]
        events = [dataset_event(*name, dataSource=facet(uri=uri)) for name in names]
        store.ingest_each([events[i] for i in order])
        a, b = sorted(dataset_id(*name) for name in names)
        # One row per pair, from the lower id, whichever arrived first.
        assert {link for link in store.symlinks() if {a, b} & set(link)} == {(a, b, "datasource")}


def _aliases(*names: str) -> dict[str, Any]:
    return facet(identifiers=[{"namespace": "hive://m", "name": n, "type": "TABLE"} for n in names])


@pytest.mark.parametrize("order", list(itertools.permutations(range(4))))
def test_a_datasets_current_aliases_are_those_of_its_latest_symlinks_facet(
    store: Store, order: tuple[int, ...]
) -> None:
    events = [
        dataset_event("s3://b", "orders", time=at(1), symlinks=_aliases("h1", "h2")),
        dataset_event("s3://b", "orders", time=at(2), symlinks=_aliases("h1", "h3")),
        # Later, without the facet: the facet keeps its latest value.
        dataset_event("s3://b", "orders", time=at(3), schema=schema_facet("id")),
        # An earlier value arriving late changes nothing.
        dataset_event("s3://b", "orders", time=at(0), symlinks=_aliases("h4")),
    ]
    store.ingest_each(events[i] for i in order)
    me = dataset_id("s3://b", "orders")
    assert store.current_symlinks() == {
        (me, dataset_id("hive://m", "h1"), "symlink"),
        (me, dataset_id("hive://m", "h3"), "symlink"),
    }
    assert len(store.symlinks()) == 4  # every alias stays stored


def test_an_alias_comes_back_when_the_facet_names_it_again(store: Store) -> None:
    store.ingest(dataset_event("s3://b", "orders", time=at(1), symlinks=_aliases("h1")))
    store.ingest(dataset_event("s3://b", "orders", time=at(2), symlinks=_aliases("h2")))
    store.ingest(dataset_event("s3://b", "orders", time=at(3), symlinks=_aliases("h1")))
    me = dataset_id("s3://b", "orders")
    assert store.current_symlinks() == {(me, dataset_id("hive://m", "h1"), "symlink")}


def test_a_data_source_link_ends_when_the_uris_differ(store: Store) -> None:
    uri = "s3://bucket/path/orders.parquet"
    spark, feast = ("spark://c", "orders"), ("feast_demo", "orders")
    store.ingest(
        dataset_event(*spark, time=at(1), dataSource=facet(uri=uri)),
        dataset_event(*feast, time=at(1), dataSource=facet(uri=uri)),
    )
    a, b = sorted((dataset_id(*spark), dataset_id(*feast)))
    assert store.current_symlinks() == {(a, b, "datasource")}
    # The Feast source now reads another file: the two are no longer one.
    store.ingest(dataset_event(*feast, time=at(2), dataSource=facet(uri=uri + ".v2")))
    assert store.current_symlinks() == set()
    assert store.symlinks() == {(a, b, "datasource")}
    # And back.
    store.ingest(dataset_event(*feast, time=at(3), dataSource=facet(uri=uri)))
    assert store.current_symlinks() == {(a, b, "datasource")}


def test_dataset_and_job_events_are_stored(store: Store) -> None:
    store.ingest(
        dataset_event("s3://b", "x", time=at(4), schema=schema_facet("a")),
        job_event("ns", "j", time=at(5), inputs=[dataset("s3://b", "x")], sql=facet(q="q")),
    )
    assert {(r["kind"], r["run_id"]) for r in store.rows(t.events)} == {
        ("dataset", None),
        ("job", None),
    }
    assert store.rows(t.runs) == []
    assert store.edges() == {(dataset_id("s3://b", "x"), job_id("ns", "j"), "input")}
    assert store.job_facets("ns", "j") == {"sql": facet(q="q")}
    assert store.dataset_facets("s3://b", "x") == {"schema": schema_facet("a")}


# --- credentials ------------------------------------------------------------------------

PASSWORD = "hunter2-s3cr3t"


def test_no_password_is_stored_anywhere(store: Store) -> None:
    dirty = [
        run_event(
            run_id=new_run(),
            job=(f"postgres://etl:{PASSWORD}@db:5432", "load"),
            inputs=[
                dataset(
                    f"postgres://feast:{PASSWORD}@db:5432",
                    "feast.public.orders",
                    dataSource=facet(uri=f"postgresql://feast:{PASSWORD}@db:5432/feast"),
                    symlinks=facet(
                        identifiers=[
                            {"namespace": f"mysql://root:{PASSWORD}@mysql", "name": "orders"}
                        ]
                    ),
                )
            ],
            outputs=[
                dataset(
                    "s3://bucket",
                    "out",
                    dataSource=facet(uri=f"s3://bucket/out?X-Amz-Signature={PASSWORD}&v=1"),
                )
            ],
            parent=(new_run(), (f"airflow://admin:{PASSWORD}@af", "dag")),
            run_facets={
                "errorMessage": facet(message=f"connect postgres://u:{PASSWORD}@db failed")
            },
        ),
        dataset_event(
            "jdbc", "x", dataSource=facet(uri=f"jdbc:postgresql://u:{PASSWORD}@db/x?ssl=true")
        ),
    ]
    store.ingest(*dirty)
    assert PASSWORD not in store.all_text()
    ds = store.dataset("postgres://db:5432", "feast.public.orders")
    assert ds is not None
    assert ds["datasource_uri"] == "postgresql://db:5432/feast"
    assert store.job("postgres://db:5432", "load") is not None
    if store.dialect == "sqlite":
        store.close()
        db_file = Path(store.url.removeprefix("sqlite:///"))
        for path in db_file.parent.glob(db_file.name + "*"):  # the file, its WAL and SHM
            assert PASSWORD.encode() not in path.read_bytes()


# --- every lookup is indexed -----------------------------------------------------------------


@pytest.mark.parametrize("store", ["sqlite"], indirect=True)
def test_every_write_statement_uses_an_index(store: Store) -> None:
    # Prime the store so the planner sees existing rows, then capture a realistic batch.
    def batch(offset: int) -> list[dict[str, Any]]:
        out = []
        for i in range(offset, offset + 20):
            run_id = new_run()
            ds = [
                dataset(
                    "postgres://db:5432",
                    f"feast.t{i}.{k}",
                    schema=schema_facet(*(f"c{n}" for n in range(12))),
                    dataSource=facet(uri=f"postgres://db:5432/feast.t{i}.{k}"),
                    symlinks=facet(identifiers=[{"namespace": "hive://m", "name": f"t{i}.{k}"}]),
                )
                for k in range(3)
            ]
            for event_type, sec in (("START", i), ("COMPLETE", i + 0.5)):
                out.append(
                    run_event(
                        event_type,
                        run_id=run_id,
                        job=("airflow://prod", f"job{i % 7}"),
                        time=at(sec),
                        inputs=ds[:2],
                        outputs=ds[2:],
                        parent=(new_run(), ("airflow://prod", "dag")),
                        run_facets={"nominalTime": facet(start=at(sec))},
                        job_facets={"sql": facet(query=f"select {i}")},
                    )
                )
            out.append(dataset_event("file", f"/data/t{i}.parquet", time=at(i)))
            container = facet(uri="postgres://db:5432/feast")
            out.append(dataset_event("postgres://db:5432", f"c{i}", dataSource=container))
            out.append(job_event("ns", f"j{i}", time=at(i), inputs=ds[:1]))
        return out

    store.ingest(*batch(0))

    # The writer hands compiled SQL straight to the driver, so statements are
    # captured by SQLite itself (see tests.store_helpers.traced_statements).
    def write() -> None:
        store.ingest(*batch(100))
        store.ingest(*batch(100))  # again: now everything conflicts
        for single in batch(100)[:5]:  # small transactions, which update in place first
            store.ingest(single)

    seen, scans = store.full_scans(store.traced_statements(write))
    assert scans == []
    checked = len(seen)
    verbs = {st.split(None, 2)[0] + " " + st.split(None, 3)[2] for st in seen}
    assert "DELETE feast_lineage_dataset_symlinks" in verbs  # a container URI unlinks
    for table in ("runs", "datasets", "dataset_facets", "job_facets"):
        update = f"UPDATE feast_lineage_{table} "  # small transactions update in place first
        assert any(st.lstrip().startswith(update) for st in seen), update
    assert checked >= 8  # events, blobs, jobs, datasets, runs, run_io, edges, facets, lookups


def test_write_cache_forgets_the_least_recently_used_rows_first() -> None:
    cache = WriteCache(limit=3)
    for blob in ("a", "b", "c"):
        cache.blobs.add(blob)
    cache.blobs.add("a")  # used again: now the most recent
    cache.blobs.add("d")  # past the limit: "b" goes, not "a"
    assert "a" in cache.blobs
    assert "b" not in cache.blobs
    assert "c" in cache.blobs
    assert "d" in cache.blobs
    cache.sync("7")  # another generation: nothing is known stored any more
    assert "a" not in cache.blobs
