"""The write contract's merges: a batch merged in any order holds the same rows."""

from __future__ import annotations

import itertools

from feast_lineage.consumer.store.write.rows import (
    DatasetRow,
    FacetRow,
    JobRow,
    RowBatch,
    merge_dataset,
    merge_job,
)


def job(updated: int, *, producer: str | None = "p", inputs: str | None = None) -> JobRow:
    return {
        "id": 1,
        "ns_id": 2,
        "namespace": "ns",
        "name": "job",
        "producer": producer,
        "created_us": updated,
        "updated_us": updated,
        "input_rank": inputs,
        "input_run": None if inputs is None else f"run-{inputs}",
        "output_rank": None,
        "output_run": None,
    }


def dataset(
    updated: int,
    *,
    uri_rank: str | None = None,
    feast: str | None = None,
    by: int = 2,
    writes: bool = True,
) -> DatasetRow:
    """A row of dataset 3 (of namespace 2) by an event at ``updated`` of namespace ``by``."""
    return {
        "id": 3,
        "ns_id": 2,
        "namespace": "ns",
        "name": "table",
        "producer": f"producer-{updated}",
        "producer_ns_id": by,
        "producer_rank": f"{int(writes)}{updated:020d}",  # a write, or a read's (not flipped)
        "datasource_uri": None if uri_rank is None else f"s3://b/{uri_rank}",
        "uri_id": None if uri_rank is None else int(uri_rank),
        "uri_rank": uri_rank,
        "identity_uri_id": None,
        "feast_type": feast,
        "feast_project": None if feast is None else "ns",
        "created_us": updated,
        "updated_us": updated,
        "updated_ns_id": by,
    }


def test_a_job_keeps_the_latest_inputs_and_the_earliest_creation() -> None:
    rows = [job(30, inputs="2"), job(10, inputs="9"), job(20, producer=None)]
    results = set()
    for order in itertools.permutations(rows):
        merged = order[0]
        for row in order[1:]:
            merged = merge_job(merged, row)
        assert merged["created_us"] == 10
        assert merged["updated_us"] == 30
        assert (merged["input_rank"], merged["input_run"]) == ("9", "run-9")
        results.add(tuple(sorted(merged.items())))
    assert len(results) == 1


def test_a_dataset_keeps_the_highest_ranked_uri_and_its_first_feast_type() -> None:
    a, b = dataset(10, uri_rank="5", feast="feature_view"), dataset(20, uri_rank="4")
    for merged in (merge_dataset(a, b), merge_dataset(b, a)):
        assert merged["datasource_uri"] == "s3://b/5"
        assert merged["uri_rank"] == "5"
        assert merged["producer"] == "producer-20"  # the latest event's
        assert merged["feast_type"] == "feature_view"
    # A merge never changes the rows it was given.
    assert b["uri_rank"] == "4"


def test_a_dataset_keeps_the_namespace_of_the_events_that_set_its_producer_and_update_time() -> (
    None
):
    """Its producer is the latest writer's (namespace 7) and its update time the latest
    event's, a read of namespace 9; a tie of update times keeps the least namespace, and
    an unknown one (a row stored before migration 0029) stays unknown: in any order."""
    rows = [
        dataset(10, by=2),
        dataset(20, by=7),
        dataset(30, by=9, writes=False),
        dataset(30, by=8, writes=False),
    ]
    for order in itertools.permutations(rows):
        merged = order[0]
        for row in order[1:]:
            merged = merge_dataset(merged, row)
        assert (merged["producer"], merged["producer_ns_id"]) == ("producer-20", 7)
        assert (merged["updated_us"], merged["updated_ns_id"]) == (30, 8)
    unknown = dataset(30, by=9, writes=False)
    unknown["updated_ns_id"] = None
    for pair in ((unknown, rows[3]), (rows[3], unknown)):
        assert merge_dataset(*pair)["updated_ns_id"] is None
    assert merge_dataset(unknown, dataset(31, by=9))["updated_ns_id"] == 9  # a later event


def test_a_batch_merge_keeps_the_highest_ranked_facet_and_the_earliest_edge() -> None:
    def batch(rank: str, created: int) -> RowBatch:
        out = RowBatch()
        facet: FacetRow = {"owner_id": 1, "name": "schema", "rank": rank, "blob_id": rank}
        facet["first_rank"] = rank
        out.job_facets[(1, "schema")] = facet
        out.edges[(1, 3, "output")] = {
            "src_id": 1,
            "dst_id": 3,
            "edge_type": "output",
            "src_kind": "job",
            "dst_kind": "dataset",
            "src_ns_id": 2,
            "dst_ns_id": 2,
            "created_us": created,
        }
        return out

    for first, second in ((batch("b", 1), batch("a", 2)), (batch("a", 2), batch("b", 1))):
        first.merge(second)
        assert first.job_facets[(1, "schema")]["blob_id"] == "b"
        assert first.job_facets[(1, "schema")].get("first_rank") == "a"  # its first statement
        assert len(first.edges) == 1
        assert first.edges[(1, 3, "output")]["created_us"] == 1  # the earliest, either order
