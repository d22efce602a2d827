"""From one validated event to the rows the store keeps (no database here)."""

from __future__ import annotations

import copy
import uuid
from typing import Any

import orjson
import pytest

from feast_lineage import canonical_json
from feast_lineage.consumer.intake.derive import derive
from feast_lineage.consumer.intake.facet_memo import FacetMemo
from feast_lineage.consumer.intake.validation import validate_event
from feast_lineage.consumer.store.write.rows import PendingBlob, RowBatch, blob_text
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id, job_id, namespace_id, text_id
from tests.factories import at, dataset, dataset_event, facet, job_event, run_event
from tests.store_helpers import event_payload

JOB = ("airflow://prod", "etl.load")
PARENT_JOB = ("airflow://prod", "etl")
ROOT_JOB = ("airflow://prod", "nightly")
PARENT_RUN = "0d6c1f0e-8a51-4f4e-9a8e-3c1d0b6a2f01"
ROOT_RUN = "7b1e0c2d-4f3a-4b5c-8d6e-9f0a1b2c3d4e"


def rows(event: dict[str, Any], received_us: int = 1) -> RowBatch:
    kind, time_us = validate_event(event)
    return derive(event, kind, time_us, received_us)


def only(values: Any) -> Any:
    (value,) = list(values)
    return value


# --- runs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event_type", "state", "priority", "ended", "start"),
    [
        ("START", "RUNNING", "1", False, True),
        ("RUNNING", "RUNNING", "1", False, False),
        ("COMPLETE", "COMPLETE", "2", True, False),
        ("FAIL", "FAIL", "2", True, False),
        ("ABORT", "ABORT", "2", True, False),
        ("OTHER", "OTHER", "0", False, False),
        (None, "OTHER", "0", False, False),
    ],
)
def test_run_row_of_each_event_type(
    event_type: str | None, state: str, priority: str, ended: bool, start: bool
) -> None:
    t = parse_us(at(30))
    run = only(rows(run_event(event_type, time=at(30))).runs)
    assert run["state"] == state
    assert run["state_rank"][0] == priority
    assert run["first_event_us"] == run["last_event_us"] == run["started_us"] == t
    assert run["ended_us"] == (t if ended else None)
    assert run["start_event_us"] == (t if start else None)


def test_state_rank_orders_terminal_then_time() -> None:
    def rank(event_type: str | None, seconds: float) -> str:
        return str(only(rows(run_event(event_type, time=at(seconds))).runs)["state_rank"])

    assert rank("COMPLETE", 1) > rank("START", 99) > rank("OTHER", 999)
    assert rank("FAIL", 2) > rank("COMPLETE", 1)
    assert rank("RUNNING", 2) > rank("START", 1)
    assert rank(None, 2) > rank("OTHER", 1)


def test_times_come_from_the_event_not_the_server_clock() -> None:
    event = run_event("COMPLETE", time="2020-02-02T02:02:02.5Z")
    a, b = rows(event, received_us=1), rows(event, received_us=10**17)
    assert a.runs == b.runs
    assert only(a.runs)["ended_us"] == parse_us("2020-02-02T02:02:02.5Z")
    assert only(a.events)["received_us"] == 1
    assert only(b.events)["received_us"] == 10**17
    # The event key (deduplication) ignores the receive time too.
    assert only(a.events)["event_key"] == only(b.events)["event_key"]


def test_run_ids_are_normalized() -> None:
    run_id = uuid.uuid4()
    ins = [dataset("s3://b", "x")]
    upper = rows(run_event(run_id=str(run_id).upper(), inputs=ins))
    bare = rows(run_event(run_id=run_id.hex, inputs=ins))
    braced = rows(run_event(run_id="{" + str(run_id) + "}", inputs=ins))
    canonical = rows(run_event(run_id=str(run_id), inputs=ins))
    for derived in (upper, bare, braced, canonical):
        assert only(derived.runs)["run_id"] == str(run_id)
        assert only(derived.events)["run_id"] == str(run_id)
        assert only(derived.run_io)[0] == str(run_id)


# --- parents -------------------------------------------------------------------


def _with_root(root_job: tuple[str, str]) -> dict[str, Any]:
    event = run_event(job=JOB, parent=(PARENT_RUN.upper(), PARENT_JOB))
    event["run"]["facets"]["parent"]["root"] = {
        "run": {"runId": ROOT_RUN},
        "job": {"namespace": root_job[0], "name": root_job[1]},
    }
    return event


def test_parent_and_root_make_job_edges_and_stub_jobs() -> None:
    derived = rows(_with_root(ROOT_JOB))
    run = only(derived.runs)
    assert run["parent_run_id"] == PARENT_RUN
    assert run["root_run_id"] == ROOT_RUN
    me, parent, root = job_id(*JOB), job_id(*PARENT_JOB), job_id(*ROOT_JOB)
    assert set(derived.edges) == {(parent, me, "parent"), (root, me, "root")}
    for key in ((parent, me, "parent"), (root, me, "root")):
        edge = derived.edges[key]
        assert (edge["src_kind"], edge["dst_kind"]) == ("job", "job")
        assert edge["src_ns_id"] == edge["dst_ns_id"] == namespace_id("airflow://prod")
    for stub in (parent, root):
        # A job only named by a parent facet: no producer, never "updated".
        assert derived.jobs[stub]["producer"] is None
        assert derived.jobs[stub]["updated_us"] == 0
    assert derived.jobs[me]["producer"] == "https://github.com/feast-lineage/tests"


def test_no_root_edge_when_the_root_job_is_the_parent_job() -> None:
    derived = rows(_with_root(PARENT_JOB))
    assert set(derived.edges) == {(job_id(*PARENT_JOB), job_id(*JOB), "parent")}
    assert only(derived.runs)["root_run_id"] == ROOT_RUN


def test_a_job_is_not_its_own_parent() -> None:
    derived = rows(run_event(job=JOB, parent=(PARENT_RUN, JOB)))
    assert derived.edges == {}
    assert only(derived.runs)["parent_run_id"] == PARENT_RUN
    assert derived.jobs[job_id(*JOB)]["producer"] is not None


@pytest.mark.parametrize(
    "parent",
    [
        {"run": {"runId": PARENT_RUN}},
        {"run": {"runId": PARENT_RUN}, "job": {"namespace": "", "name": "x"}},
        {"run": {"runId": PARENT_RUN}, "job": "airflow://prod/etl"},
    ],
)
def test_parent_without_a_usable_job_links_only_the_run(parent: dict[str, Any]) -> None:
    event = run_event(run_facets={"parent": parent})
    derived = rows(event)
    assert only(derived.runs)["parent_run_id"] == PARENT_RUN
    assert derived.edges == {}
    assert set(derived.jobs) == {job_id(*JOB)}


@pytest.mark.parametrize("run_id", ["not-a-uuid", 42, None, {"x": 1}])
def test_parent_with_a_bad_run_id_still_links_the_job(run_id: Any) -> None:
    event = run_event(
        run_facets={
            "parent": {
                "run": {"runId": run_id},
                "job": dict(zip(("namespace", "name"), PARENT_JOB, strict=True)),
            }
        }
    )
    derived = rows(event)
    assert only(derived.runs)["parent_run_id"] is None
    assert set(derived.edges) == {(job_id(*PARENT_JOB), job_id(*JOB), "parent")}


# --- inputs and outputs ----------------------------------------------------------


def test_no_cross_product_of_inputs_and_outputs() -> None:
    ins = [dataset("s3://raw", f"in{i}") for i in range(3)]
    outs = [dataset("s3://clean", f"out{i}") for i in range(2)]
    ins[0]["inputFacets"] = {"dataQualityMetrics": facet(rowCount=10)}
    outs[1]["outputFacets"] = {"outputStatistics": facet(rowCount=7, size=99)}
    derived = rows(run_event("COMPLETE", job=JOB, inputs=ins, outputs=outs))
    me = job_id(*JOB)
    expected = {(dataset_id("s3://raw", f"in{i}"), me, "input") for i in range(3)} | {
        (me, dataset_id("s3://clean", f"out{i}"), "output") for i in range(2)
    }
    assert set(derived.edges) == expected
    assert all({e["src_kind"], e["dst_kind"]} == {"dataset", "job"} for e in derived.edges.values())
    run_id = only(derived.runs)["run_id"]
    assert set(derived.run_io) == {
        (run_id, src, "input") for src, _, kind in expected if kind == "input"
    } | {(run_id, dst, "output") for _, dst, kind in expected if kind == "output"}
    # Which datasets a run used, no more: their facets in the run are read
    # back from the run's events (tests/consumer/store/read/test_run_facets.py).
    assert {tuple(row) for row in derived.run_io.values()} == {
        ("run_id", "dataset_id", "direction", "first_us")  # first_us: when it was first listed
    }
    assert len(derived.datasets) == 5


def test_a_dataset_read_and_written_by_one_run() -> None:
    same = dataset("s3://b", "x")
    derived = rows(run_event(job=JOB, inputs=[same], outputs=[copy.deepcopy(same)]))
    did, me = dataset_id("s3://b", "x"), job_id(*JOB)
    assert set(derived.edges) == {(did, me, "input"), (me, did, "output")}
    assert {k[2] for k in derived.run_io} == {"input", "output"}


def test_job_event_has_edges_but_no_run() -> None:
    derived = rows(
        job_event("ns", "j", inputs=[dataset("s3://b", "in")], outputs=[dataset("s3://b", "o")])
    )
    me = job_id("ns", "j")
    assert set(derived.edges) == {
        (dataset_id("s3://b", "in"), me, "input"),
        (me, dataset_id("s3://b", "o"), "output"),
    }
    assert derived.runs == []
    event = only(derived.events)
    assert (event["kind"], event["run_id"], event["event_type"]) == ("job", None, None)
    assert event["subject_id"] == me
    # Its inputs and outputs count as a run of their own, keyed by the event.
    key = event["event_key"]
    assert set(derived.run_io) == {
        (key, dataset_id("s3://b", "in"), "input"),
        (key, dataset_id("s3://b", "o"), "output"),
    }
    job = derived.jobs[me]
    assert (job["input_run"], job["output_run"]) == (key, key)


def test_dataset_event_has_only_the_dataset() -> None:
    derived = rows(dataset_event("s3://b", "x", schema=facet(fields=[])))
    did = dataset_id("s3://b", "x")
    assert set(derived.datasets) == {did}
    assert derived.jobs == {}
    assert derived.edges == {}
    assert set(derived.dataset_facets) == {(did, "schema")}
    assert only(derived.events)["subject_id"] == did
    assert only(derived.events)["kind"] == "dataset"


# --- symlinks and data sources ----------------------------------------------------


def test_symlinks_from_the_facet() -> None:
    identifiers = [
        {"namespace": "hive://metastore", "name": "db.orders", "type": "TABLE"},
        {"namespace": "s3://b", "name": "x"},  # itself: skipped
        {"namespace": "glue://eu", "name": "db.orders", "type": 7},
        {"namespace": "", "name": "x"},
        {"namespace": "ns"},
        "garbage",
    ]
    derived = rows(dataset_event("s3://b", "x", symlinks=facet(identifiers=identifiers)))
    did = dataset_id("s3://b", "x")
    assert set(derived.symlinks) == {
        (did, dataset_id("hive://metastore", "db.orders")),
        (did, dataset_id("glue://eu", "db.orders")),
    }
    hive = derived.symlinks[(did, dataset_id("hive://metastore", "db.orders"))]
    assert hive["alias_namespace"] == "hive://metastore"
    assert hive["alias_name"] == "db.orders"
    assert hive["alias_type"] == "TABLE"
    assert hive["source"] == "symlink"
    assert derived.symlinks[(did, dataset_id("glue://eu", "db.orders"))]["alias_type"] is None


@pytest.mark.parametrize("facet_value", [facet(identifiers="x"), facet()])
def test_malformed_symlinks_facet_is_kept_but_links_nothing(facet_value: Any) -> None:
    derived = rows(dataset_event("s3://b", "x", symlinks=facet_value))
    assert derived.symlinks == {}
    assert (dataset_id("s3://b", "x"), "symlinks") in derived.dataset_facets


def test_data_source_uri_is_cleaned_and_indexed() -> None:
    uri = "postgres://feast:hunter2@db:5432/feast"
    derived = rows(dataset_event("postgres://db:5432", "feast.public.t", dataSource=facet(uri=uri)))
    row = only(derived.datasets.values())
    assert row["datasource_uri"] == "postgres://db:5432/feast"
    assert row["uri_id"] == text_id("postgres://db:5432/feast")
    assert row["identity_uri_id"] == text_id("postgres://db:5432/feast.public.t")
    assert "hunter2" not in str(derived)
    assert "hunter2" not in str(event_payload(only(derived.events)))


def test_identity_uri_of_a_plain_namespace_is_none() -> None:
    row = only(rows(dataset_event("demo", "driver_stats")).datasets.values())
    assert row["identity_uri_id"] is None
    assert row["uri_id"] is None


@pytest.mark.parametrize(
    ("facets", "feast_type"),
    [
        ({"feast_feature_view": facet(mode="BATCH")}, "feature_view"),
        ({"feast_feature_view": facet(mode="ON_DEMAND")}, "on_demand_feature_view"),
        ({"feast_feature_view": facet(mode="STREAM")}, "stream_feature_view"),
        ({"feast_feature_service": facet()}, "feature_service"),
        ({"feast_data_source": facet()}, "data_source"),
        ({"feast_entity": facet()}, "entity"),
        ({"schema": facet()}, None),
    ],
)
def test_feast_objects_are_recognized(facets: dict[str, Any], feast_type: str | None) -> None:
    row = only(rows(dataset_event("demo", "driver_stats", **facets)).datasets.values())
    assert row["feast_type"] == feast_type
    assert row["feast_project"] == ("demo" if feast_type else None)


# --- facets ----------------------------------------------------------------------


def test_facets_point_at_content_addressed_blobs() -> None:
    custom = {"nested": {"b": [1, 2.5, None, True], "a": "é"}, "_producer": "x"}
    event = run_event(
        time=at(5),
        inputs=[dataset("s3://b", "x", custom=custom)],
        job_facets={"custom": custom, "sql": facet(query="select 1")},
    )
    derived = rows(event)
    dataset_row = only(derived.dataset_facets.values())
    job_rows = {k[1]: v for k, v in derived.job_facets.items()}
    # The same payload is one blob, whoever owns it.
    assert dataset_row["blob_id"] == job_rows["custom"]["blob_id"]
    assert len(derived.blobs) == 2
    assert orjson.loads(derived.blobs[dataset_row["blob_id"]]) == custom
    assert derived.blobs[dataset_row["blob_id"]] == canonical_json.dumps_str(custom)
    # Every facet of an event has the event's rank, which orders by event time.
    ranks = {dataset_row["rank"], *(r["rank"] for r in job_rows.values())}
    assert len(ranks) == 1

    def rank_at(seconds: float) -> str:
        other = rows(run_event(time=at(seconds), job_facets={"custom": custom}))
        return str(only(other.job_facets.values())["rank"])

    for seconds in (-(10**9), 4, 4.999999):
        assert rank_at(seconds) < only(ranks)
    assert rank_at(5.000001) > only(ranks)


def test_memo_reuses_blob_ids_of_unchanged_facets_and_defers_their_text() -> None:
    memo = FacetMemo()
    schema = facet(fields=[{"name": "a", "type": "int"}, {"name": "b", "type": "string"}])

    def derived_with(payload: dict[str, Any], seconds: float) -> tuple[str, Any]:
        event = run_event(time=at(seconds), job_facets={"schema": payload})
        kind, time_us = validate_event(event)
        out = derive(event, kind, time_us, 1, memo=memo)
        (row,) = out.job_facets.values()
        return row["blob_id"], out.blobs[row["blob_id"]]

    first_id, first = derived_with(schema, 1)
    assert first == canonical_json.dumps_str(schema)  # a miss: serialized now
    again_id, again = derived_with(copy.deepcopy(schema), 2)
    assert again_id == first_id
    assert isinstance(again, PendingBlob)  # a hit: serialized only if the writer needs it
    assert blob_text(again) == first
    # A changed payload, even one Python holds equal (1 == 1.0), is a new blob.
    changed = copy.deepcopy(schema)
    changed["fields"][0]["type"] = "long"
    changed_id, changed_text = derived_with(changed, 3)
    assert changed_id != first_id
    assert changed_text == canonical_json.dumps_str(changed)
    as_float = facet(version=1.0)
    as_int = facet(version=1)
    float_id, _ = derived_with(as_float, 4)
    int_id, int_text = derived_with(as_int, 5)
    assert float_id != int_id
    assert int_text == canonical_json.dumps_str(as_int)


def test_derive_does_not_modify_the_event() -> None:
    event = run_event(
        inputs=[
            dataset(
                "postgres://u:hunter2@db", "t", dataSource=facet(uri="postgres://u:hunter2@db/x")
            )
        ]
    )
    before = copy.deepcopy(event)
    derived = rows(event)
    assert event == before
    assert "hunter2" not in str(event_payload(only(derived.events)))


# --- merging ---------------------------------------------------------------------


def test_merge_keeps_the_latest_facet_and_node_times() -> None:
    run_id = str(uuid.uuid4())
    early = rows(run_event("START", run_id=run_id, time=at(1), job_facets={"a": facet(v=1)}))
    late = rows(run_event("COMPLETE", run_id=run_id, time=at(2), job_facets={"a": facet(v=2)}))
    for first, second in ((early, late), (late, early)):
        merged = RowBatch()
        merged.merge(first)
        merged.merge(second)
        (facet_row,) = merged.job_facets.values()
        assert orjson.loads(merged.blobs[facet_row["blob_id"]])["v"] == 2
        job = merged.jobs[job_id(*JOB)]
        assert (job["created_us"], job["updated_us"]) == (parse_us(at(1)), parse_us(at(2)))
        assert len(merged.runs) == 2
        assert len(merged.events) == 2


def test_merge_does_not_let_a_stub_erase_a_producer() -> None:
    child = rows(run_event(job=("ns", "child"), parent=(PARENT_RUN, ("ns", "parent")), time=at(9)))
    parent = rows(run_event(job=("ns", "parent"), time=at(1)))
    for first, second in ((child, parent), (parent, child)):
        merged = RowBatch()
        merged.merge(first)
        merged.merge(second)
        row = merged.jobs[job_id("ns", "parent")]
        assert row["producer"] == "https://github.com/feast-lineage/tests"
        assert row["updated_us"] == parse_us(at(1))
        assert row["created_us"] == parse_us(at(1))
