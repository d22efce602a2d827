"""The consumer's public entry point for in-process use: the lineage store without HTTP.

The producer's self-reporting uses it when the producer and the consumer are
enabled in one feature_store.yaml: events take the path of an HTTP ingest
request without the HTTP (the JSON body is parsed, each event validated and
derived by the consumer's intake code, and the rows committed by
:meth:`IngestPipeline.write_now` on the consumer's database), and
``feast teardown`` resets the project's namespace. The store is opened (and
its schema brought up to date) on first use only. Nothing else of the
consumer is meant to be imported from outside it.
"""

from __future__ import annotations

import threading

from sqlalchemy import Engine

from feast_lineage.consumer.intake.body import parse_events
from feast_lineage.consumer.intake.facet_memo import FacetMemo
from feast_lineage.consumer.intake.pipeline import IngestPipeline
from feast_lineage.consumer.intake.problems import InvalidEvent
from feast_lineage.consumer.store.admin import reset as store_reset
from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema
from feast_lineage.consumer.store.engine.meta import ensure_meta
from feast_lineage.consumer.store.write.rows import RowBatch
from feast_lineage.event_time import now_us
from feast_lineage.identity import namespace_id


class LocalStoreError(Exception):
    """Some events could not be stored; the message says why."""


class LocalStore:
    """The consumer's store, written in-process."""

    def __init__(self, database_url: str) -> None:
        self._url = database_url
        self._lock = threading.Lock()
        self._engine: Engine | None = None
        self._pipeline: IngestPipeline | None = None
        self._memo = FacetMemo()

    def _open(self) -> IngestPipeline:
        if self._pipeline is None:
            engine = create_store_engine(self._url)
            upgrade_schema(engine)
            with engine.begin() as conn:
                ensure_meta(conn)
            self._engine = engine
            self._pipeline = IngestPipeline(engine)
            self._pipeline.load_dictionary()
        return self._pipeline

    def write(self, payloads: list[bytes]) -> None:
        """Store serialized events; raises LocalStoreError when any is refused."""
        if not payloads:
            return
        body = b"[" + b",".join(payloads) + b"]"
        with self._lock:
            pipeline = self._open()
            parsed = parse_events(
                body, now_us(), max_events=len(payloads), memo=self._memo, codec=pipeline.codec
            )
            valid = [item for item in parsed.results if isinstance(item, RowBatch)]
            invalid = [item for item in parsed.results if isinstance(item, InvalidEvent)]
            outcomes = pipeline.write_now(valid) if valid else []
        failures = [str(err) for err in invalid] + [str(o) for o in outcomes if o is not None]
        if failures:
            raise LocalStoreError(
                f"{len(failures)} of {len(payloads)} events were not stored: {failures[0]}"
            )

    @property
    def engine(self) -> Engine:
        self._open()
        assert self._engine is not None
        return self._engine

    def reset_namespace(self, namespace: str) -> dict[str, int]:
        """Delete everything of ``namespace``, as the admin reset does; rows removed per table."""
        removed = store_reset.reset_namespace(self.engine, namespace_id(namespace))
        return dict(removed.counts)

    def close(self) -> None:
        with self._lock:
            if self._engine is not None:
                self._engine.dispose()
            self._engine = None
            self._pipeline = None
