"""Administration: retention settings and statistics, and resets."""

from __future__ import annotations

from sqlalchemy import Engine

from feast_lineage.config.consumer import ConsumerSettings
from feast_lineage.consumer.errors import NotFound
from feast_lineage.consumer.feast_shape import ms
from feast_lineage.consumer.schemas import (
    ResetResult,
    RetentionConfig,
    RetentionInfo,
    RetentionStorage,
    StorageStats,
    StoredCount,
)
from feast_lineage.consumer.services import not_found
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.services.retention import Retention
from feast_lineage.consumer.store.admin import reset as store_reset
from feast_lineage.consumer.store.admin import stats as store_stats
from feast_lineage.consumer.store.engine import counters
from feast_lineage.event_time import to_iso
from feast_lineage.identity import namespace_id


def retention_info(
    read: StoreReader, consumer: ConsumerSettings, retention: Retention
) -> RetentionInfo:
    engine, scope = read.engine, read.scope
    with engine.connect() as conn:
        found = store_stats.stats(conn, scope.ns_ids)
        counts = counters.read_all(conn) if scope.is_everything else None
    rows = found.rows
    interval = consumer.retention_check_interval_hours
    return RetentionInfo(
        retention_days=consumer.retention_days,
        retention_enabled=consumer.retention_days > 0,
        check_interval_hours=int(interval) if float(interval).is_integer() else interval,
        storage=RetentionStorage(
            events=StoredCount(count=rows["events"], oldest_ms=ms(found.oldest_event_us)),
            runs=StoredCount(count=rows["runs"], oldest_ms=ms(found.oldest_run_us)),
            jobs=StoredCount(count=rows["jobs"], oldest_ms=ms(found.oldest_job_us)),
            datasets=StoredCount(count=rows["datasets"], oldest_ms=ms(found.oldest_dataset_us)),
        ),
        config=RetentionConfig(
            retention_days=consumer.retention_days,
            retention_check_interval_hours=consumer.retention_check_interval_hours,
            standalone_server=consumer.standalone_server,
            runs_background_pruning=retention.running,
        ),
        storage_stats=StorageStats(
            rows=rows,
            oldest_event_time=to_iso(found.oldest_event_us),
            newest_event_time=to_iso(found.newest_event_us),
            oldest_run_start=to_iso(found.oldest_run_us),
        ),
        # What the last prune removed is store-wide: only for unlimited callers.
        last_prune=retention.last(engine) if scope.is_everything else None,
        counters=counts,  # store-wide, like last_prune
    )


def reset(engine: Engine, namespace: str | None) -> ResetResult:
    """Delete everything, or one namespace (a namespace nothing is stored in is not found).

    A mistyped namespace must not look like a reset that worked.
    """
    if namespace is None:
        removed = store_reset.reset_all(engine)
    else:
        ns_id = namespace_id(namespace)
        if not store_reset.namespace_stored(engine, ns_id):
            raise NotFound(
                f"no namespace {namespace!r} is stored, so nothing was reset; "
                f"{not_found.NAMESPACES} (check the spelling)"
            )
        removed = store_reset.reset_namespace(engine, ns_id)
    what = f"namespace: {namespace}" if namespace is not None else "all lineage data"
    return ResetResult(
        status="success", message=f"Purged {what}", namespace=namespace, removed=removed.counts
    )
