"""Administration: retention settings and statistics, and resets."""

from __future__ import annotations

from sqlalchemy import Engine

from feast_lineage.config.consumer import ConsumerSettings
from feast_lineage.consumer.schemas import (
    ResetResult,
    RetentionConfig,
    RetentionInfo,
    StorageStats,
)
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.services.retention import Retention
from feast_lineage.consumer.store import counters, maintenance
from feast_lineage.event_time import to_iso
from feast_lineage.identity import namespace_id


def retention_info(
    read: StoreReader, consumer: ConsumerSettings, retention: Retention
) -> RetentionInfo:
    engine, scope = read.engine, read.scope
    with engine.connect() as conn:
        found = maintenance.stats(conn, scope.ns_ids)
        counts = counters.read_all(conn) if scope.is_everything else None
    return RetentionInfo(
        config=RetentionConfig(
            retention_days=consumer.retention_days,
            retention_check_interval_hours=consumer.retention_check_interval_hours,
            standalone_server=consumer.standalone_server,
            runs_background_pruning=retention.running,
        ),
        storage=StorageStats(
            rows=found.rows,
            oldest_event_time=to_iso(found.oldest_event_us),
            newest_event_time=to_iso(found.newest_event_us),
            oldest_run_start=to_iso(found.oldest_run_us),
        ),
        # What the last prune removed is store-wide: only for unlimited callers.
        last_prune=retention.last(engine) if scope.is_everything else None,
        counters=counts,  # store-wide, like last_prune
    )


def reset(engine: Engine, namespace: str | None) -> ResetResult:
    if namespace is None:
        removed = maintenance.reset_all(engine)
    else:
        removed = maintenance.reset_namespace(engine, namespace_id(namespace))
    return ResetResult(namespace=namespace, removed=removed.counts)
