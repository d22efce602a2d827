"""Retention and reset of dataset versions: the current version stays, the horizon is known."""

from __future__ import annotations

import pytest

from feast_lineage.consumer.store.admin import dataset_versions
from feast_lineage.consumer.store.admin.prune import prune
from feast_lineage.consumer.store.admin.reset import reset_all, reset_namespace
from feast_lineage.consumer.store.read.dataset_version_page import History, one, page
from feast_lineage.consumer.store.read.dataset_versions import horizon, observations, versions
from feast_lineage.consumer.store.read.health import KEEP_WRITES, recent_writes
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id, namespace_id
from tests.factories import at, dataset, facet, run_event, schema_facet
from tests.store_helpers import Store


def _us(seconds: float) -> int:
    return parse_us(at(seconds))


def _write(t_s: float, *names: str, ns: str = "lake", name: str = "t") -> dict[str, object]:
    out = dataset(ns, name, schema=schema_facet(*names)) if names else dataset(ns, name)
    return run_event("COMPLETE", time=at(t_s), outputs=[out])


def _answer(store: Store, ns: str = "lake", name: str = "t") -> list[tuple[int, tuple[str, ...]]]:
    with store.engine.connect() as conn:
        found = versions(observations(conn, dataset_id(ns, name)), horizon(conn))
        # the page read answers the same past the horizon
        history = History(conn, dataset_id(ns, name), horizon(conn))
        assert page(history, None, None, 0, 100) == (len(found), found[::-1])
        for i, version in enumerate(found):
            assert one(history, version.row.id) == (version, found[i - 1] if i else None)
    return [(v.row.time_us, v.changes) for v in found]


def test_a_prune_keeps_each_datasets_current_version_and_what_it_carries(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Versions only: the latest writes health learns from are kept too (the test below)
    monkeypatch.setattr(dataset_versions, "KEEP_WRITES", 0)
    store.ingest(_write(0, "a"), _write(1), _write(2, "a", "b"), _write(3), _write(100, "a", "b"))
    store.ingest(_write(1, "x", name="old"), _write(2, name="old"))
    before = _answer(store)
    removed = prune(store.engine, _us(50))
    assert removed.get("dataset_versions") == 2  # t at 0 and 1; old keeps both rows
    with store.engine.connect() as conn:
        assert horizon(conn) == _us(50)
    # Of the versions before the horizon, the last (t=3) stays, with the schema it carried.
    assert _answer(store) == [before[3], before[4]]
    with store.engine.connect() as conn:
        (last, newest) = versions(observations(conn, dataset_id("lake", "t")), horizon(conn))
        assert last.schema_id == newest.schema_id is not None
        assert last.previous_id is None
        # A dataset whose versions are all older keeps its current one.
        (current,) = versions(observations(conn, dataset_id("lake", "old")), horizon(conn))
        assert current.row.time_us == _us(2)
        assert current.schema_id is not None


def test_a_prune_keeps_the_latest_writes_health_learns_an_interval_from(store: Store) -> None:
    """Each dataset keeps its KEEP_WRITES latest writes, older than the cutoff or not, so a
    prune never leaves it too few to learn its expected interval from."""
    store.ingest(*[_write(i) for i in range(15)], _write(100))
    store.ingest(*[_write(i, name="few") for i in range(4)])
    with store.engine.connect() as conn:
        before = recent_writes(conn, None, KEEP_WRITES)
    removed = prune(store.engine, _us(50))
    with store.engine.connect() as conn:
        assert recent_writes(conn, None, KEEP_WRITES) == before
    assert removed.get("dataset_versions") == 5  # t at 0 to 4: older than its latest 11
    assert len(before[dataset_id("lake", "t")]) == KEEP_WRITES


def test_a_prune_keeps_the_data_writes_health_learns_from_past_feast_definitions(
    store: Store,
) -> None:
    """Feast's definition runs (apply) are no writes for health: a prune keeps the
    KEEP_WRITES latest data writes however many applies came after them."""
    kind = {"feast_job_kind": facet(kind="definition", feast_project="p")}
    applies = [
        run_event(
            "COMPLETE",
            job=("p", "feast_apply_feature_view_v"),
            time=at(100 + i),
            outputs=[dataset("lake", "t")],
            job_facets=kind,
        )
        for i in range(KEEP_WRITES)
    ]
    store.ingest(*[_write(i) for i in range(15)], *applies)
    with store.engine.connect() as conn:
        before = recent_writes(conn, None, KEEP_WRITES)
    assert before[dataset_id("lake", "t")] == [_us(i) for i in range(14, 3, -1)]
    prune(store.engine, _us(50))
    with store.engine.connect() as conn:
        assert recent_writes(conn, None, KEEP_WRITES) == before


def test_a_namespace_reset_deletes_its_versions_and_keeps_the_blobs_others_point_at(
    store: Store,
) -> None:
    store.ingest(_write(0, "a", ns="gone"), _write(0, "a", ns="kept"))
    reset_namespace(store.engine, namespace_id("gone"))
    rows = store.rows(t.dataset_versions)
    assert {r["dataset_id"] for r in rows} == {dataset_id("kept", "t")}
    (kept,) = rows
    assert store.one(t.facet_blobs, t.facet_blobs.c.id == kept["schema_id"]) is not None
    reset_all(store.engine)
    assert store.rows(t.dataset_versions) == []
