"""The store's payload dictionary: trained once from its events, used for later payloads,
read back by any process (store/write/payload_dictionary.py, store/schema/codec.py)."""

from __future__ import annotations

import subprocess
import sys
import uuid
from typing import Any

import orjson
import pytest
import zstandard
from alembic import command
from sqlalchemy import LargeBinary, select, type_coerce

from feast_lineage import canonical_json
from feast_lineage.consumer.embedded import LocalStore
from feast_lineage.consumer.intake.pipeline import IngestPipeline
from feast_lineage.consumer.store.admin.reset import reset_all
from feast_lineage.consumer.store.engine.database import alembic_config
from feast_lineage.consumer.store.schema import codec
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.write.payload_dictionary import MAX_SAMPLE, MIN_SAMPLES, samples
from tests.factories import at, dataset, run_event, schema_facet
from tests.store_helpers import Store

TRAIN_AFTER = 300


def _events(count: int, first: int = 0) -> list[dict[str, Any]]:
    """Runs of a few jobs reading and writing tables with schemas, as producers repeat them."""
    out = []
    for i in range(first, first + count):
        n = i % 7
        out.append(
            run_event(
                "COMPLETE" if i % 2 else "START",
                run_id=str(uuid.UUID(int=i + 1)),
                job=("airflow://prod", f"etl.load_{n}"),
                time=at(i),
                inputs=[dataset("postgres://db:5432", f"app.public.orders_{n}")],
                outputs=[
                    dataset(
                        "s3://lake",
                        f"warehouse/orders_{n}",
                        schema=schema_facet("order_id", "amount", "placed_at", f"region_{n}"),
                    )
                ],
                job_facets={"jobType": {"processingType": "BATCH", "integration": "AIRFLOW"}},
            )
        )
    return out


def _store(url: str) -> Store:
    store = Store(url)
    store.pipeline = IngestPipeline(store.engine, train_after=TRAIN_AFTER)
    return store


def _write(store: Store, events: list[dict[str, Any]]) -> None:
    for start in range(0, len(events), 100):
        store.ingest(*events[start : start + 100])


def _frames(store: Store) -> list[tuple[int, bytes]]:
    """(event id, stored bytes) of every event, in id order."""
    e = t.events.c
    raw = type_coerce(e.payload, LargeBinary)
    with store.engine.connect() as conn:
        return [(i, bytes(p)) for i, p in conn.execute(select(e.id, raw).order_by(e.id))]


def _dict_id(frame: bytes) -> int:
    return int(zstandard.get_frame_parameters(frame).dict_id)


def _stored_events(store: Store) -> list[Any]:
    e = t.events.c
    with store.engine.connect() as conn:
        return [orjson.loads(p) for p in conn.execute(select(e.payload).order_by(e.id)).scalars()]


def test_a_writer_trains_a_dictionary_and_compresses_later_payloads_with_it(
    head_store_url: str,
) -> None:
    store = _store(head_store_url)
    events = _events(900)
    _write(store, events)

    dicts = store.rows(t.payload_dicts)
    assert len(dicts) == 1
    dict_id = dicts[0]["id"]
    assert store.pipeline.codec.dict_id == dict_id
    frames = _frames(store)
    ids = [_dict_id(f) for _, f in frames]
    # The first TRAIN_AFTER events were stored before it existed, each alone.
    assert ids[:TRAIN_AFTER] == [0] * TRAIN_AFTER
    assert ids[TRAIN_AFTER:] == [dict_id] * (900 - TRAIN_AFTER)
    # Every event reads back as it was sent.
    assert _stored_events(store) == [orjson.loads(canonical_json.dumps(e)) for e in events]
    # And takes far less room than compressed alone.
    later = [f for _, f in frames[TRAIN_AFTER:]]
    alone = [codec.compress(codec.decompress(f)) for f in later]
    assert sum(map(len, later)) < 0.6 * sum(map(len, alone))
    store.close()


def test_another_process_reads_the_payloads_of_a_dictionary_it_never_saw(
    head_store_url: str,
) -> None:
    store = _store(head_store_url)
    events = _events(TRAIN_AFTER + 100)
    _write(store, events)
    assert store.rows(t.payload_dicts)
    expected = canonical_json.digest(orjson.dumps(_stored_events(store)))
    # A fresh interpreter: its registry is empty, so it reads the dictionary from the store.
    # Sixteen readers at once, more than the engine's pool holds: the one that looks the
    # dictionary up must not wait for a connection of that pool, nor the others fail.
    script = (
        "import sys, orjson\n"
        "from concurrent.futures import ThreadPoolExecutor\n"
        "from sqlalchemy import select\n"
        "from feast_lineage import canonical_json\n"
        "from feast_lineage.consumer.store.engine.database import create_store_engine\n"
        "from feast_lineage.consumer.store.schema import tables as t\n"
        "engine = create_store_engine(sys.argv[1])\n"
        "def read(_):\n"
        "    with engine.connect() as conn:\n"
        "        rows = conn.execute(select(t.events.c.payload).order_by(t.events.c.id))\n"
        "        stored = [orjson.loads(p) for p in rows.scalars()]\n"
        "    return canonical_json.digest(orjson.dumps(stored))\n"
        "with ThreadPoolExecutor(16) as pool:\n"
        "    print(sorted(set(pool.map(read, range(16)))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, head_store_url],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.stdout.strip() == repr([expected])
    store.close()


def test_a_second_writer_takes_the_dictionary_the_first_stored(head_store_url: str) -> None:
    first = _store(head_store_url)
    _write(first, _events(TRAIN_AFTER + 100))
    [stored] = first.rows(t.payload_dicts)
    second = Store(head_store_url)
    second.pipeline = IngestPipeline(second.engine, train_after=50)
    second.ingest(*_events(60, first=10_000))
    # It looked after those 60, found the first writer's and trained none of its own: the
    # next events are compressed with it.
    assert first.rows(t.payload_dicts) == [stored]
    assert second.pipeline.codec.dict_id == stored["id"]
    second.ingest(*_events(1, first=20_000))
    assert _dict_id(_frames(second)[-1][1]) == stored["id"]
    first.close()
    second.close()


def test_a_store_with_too_few_events_trains_nothing_yet(tmp_path: Any) -> None:
    store = Store(f"sqlite:///{tmp_path / 'lineage.db'}")
    store.pipeline = IngestPipeline(store.engine, train_after=20)
    _write(store, _events(MIN_SAMPLES - 1))
    assert store.rows(t.payload_dicts) == []
    assert {_dict_id(f) for _, f in _frames(store)} == {0}
    _write(store, _events(21, first=MIN_SAMPLES))  # now enough, and it looks again
    assert len(store.rows(t.payload_dicts)) == 1
    store.close()


def test_a_payload_of_a_dictionary_no_open_store_holds_is_refused() -> None:
    samples = [orjson.dumps(e) for e in _events(400)]
    stranger = zstandard.ZstdCompressionDict(zstandard.train_dictionary(8192, samples).as_bytes())
    frame = zstandard.ZstdCompressor(dict_data=stranger).compress(samples[0])
    with pytest.raises(codec.UnknownDictionary, match=str(stranger.dict_id())):
        codec.decompress(frame)


def test_a_store_whose_payloads_use_its_dictionary_refuses_to_downgrade_below_it(
    tmp_path: Any,
) -> None:
    store = _store(f"sqlite:///{tmp_path / 'lineage.db'}")
    events = _events(TRAIN_AFTER + 100)
    _write(store, events)
    config = alembic_config(store.engine)
    with store.engine.begin() as conn:
        config.attributes["connection"] = conn
        with pytest.raises(RuntimeError, match="unreadable"):
            command.downgrade(config, "0024")
    # Nothing lost: the dictionary stays, and every event reads back.
    assert len(store.rows(t.payload_dicts)) == 1
    assert _stored_events(store) == [orjson.loads(canonical_json.dumps(e)) for e in events]
    store.close()


def test_a_dictionary_that_cannot_be_stored_never_fails_the_ingest(tmp_path: Any) -> None:
    store = _store(f"sqlite:///{tmp_path / 'lineage.db'}")
    with store.engine.begin() as conn:  # the store refuses it (here: its table is gone)
        conn.exec_driver_sql("DROP TABLE feast_lineage_payload_dicts")
    store.pipeline.load_dictionary()  # as a server starts: logged, not raised
    events = _events(TRAIN_AFTER + 100)
    _write(store, events)  # every write succeeds, the one that looks too
    assert store.pipeline.codec.dict_id == 0
    assert _stored_events(store) == [orjson.loads(canonical_json.dumps(e)) for e in events]
    store.close()


def test_a_store_opened_with_enough_events_and_no_dictionary_trains_one_at_once(
    tmp_path: Any,
) -> None:
    url = f"sqlite:///{tmp_path / 'lineage.db'}"
    before = Store(url)
    before.pipeline = IngestPipeline(before.engine, train_after=10_000)  # as before 0025
    _write(before, _events(TRAIN_AFTER + 100))
    assert before.rows(t.payload_dicts) == []
    store = _store(url)
    store.pipeline.load_dictionary()  # as a server starts, or the embedded store opens
    [stored] = store.rows(t.payload_dicts)
    assert store.pipeline.codec.dict_id == stored["id"]
    store.ingest(*_events(1, first=20_000))  # its first event already uses it
    assert _dict_id(_frames(store)[-1][1]) == stored["id"]
    before.close()
    store.close()


def test_the_embedded_store_compresses_with_the_stores_dictionary(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'lineage.db'}"
    store = _store(url)
    _write(store, _events(TRAIN_AFTER + 100))
    [stored] = store.rows(t.payload_dicts)
    local = LocalStore(url)
    local.write([orjson.dumps(e) for e in _events(20, first=20_000)])
    assert {_dict_id(f) for _, f in _frames(store)[-20:]} == {stored["id"]}
    local.close()
    store.close()


def test_large_events_are_no_samples(tmp_path: Any) -> None:
    store = _store(f"sqlite:///{tmp_path / 'lineage.db'}")
    small = _events(MIN_SAMPLES)
    large = _events(3, first=MIN_SAMPLES)
    for e in large:
        e["job"]["facets"]["documentation"] = {
            "_producer": "https://example.com/p",
            "_schemaURL": "https://example.com/s",
            "description": "x" * (MAX_SAMPLE + 1),
        }
    _write(store, small + large)
    with store.engine.connect() as conn:
        texts = samples(conn)
    assert len(texts) == MIN_SAMPLES
    assert max(map(len, texts)) <= MAX_SAMPLE
    store.close()


def test_a_full_reset_keeps_the_dictionary_its_writers_go_on_using(head_store_url: str) -> None:
    store = _store(head_store_url)
    _write(store, _events(TRAIN_AFTER + 100))
    [stored] = store.rows(t.payload_dicts)
    reset_all(store.engine)
    assert store.count(t.events) == 0
    assert store.rows(t.payload_dicts) == [stored]
    later = _events(5, first=20_000)
    store.ingest(*later)
    assert {_dict_id(f) for _, f in _frames(store)} == {stored["id"]}
    assert _stored_events(store) == [orjson.loads(canonical_json.dumps(e)) for e in later]
    store.close()
