"""The per-app objects built in the lifespan and reached through dependencies."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import Engine

from feast_lineage.consumer.access.authorizers import Authorizer, OpenAuthorizer
from feast_lineage.consumer.intake.body_pace import BodyPace
from feast_lineage.consumer.intake.budget import BodyBudget
from feast_lineage.consumer.intake.facet_memo import FacetMemo
from feast_lineage.consumer.intake.memory import (
    body_budget_bytes,
    container_memory_limit,
    resident_bytes,
    return_memory,
)
from feast_lineage.consumer.intake.pipeline import IngestPipeline
from feast_lineage.consumer.services.health_cache import HealthCache
from feast_lineage.consumer.services.ingest import Intake
from feast_lineage.consumer.services.retention import Retention
from feast_lineage.consumer.settings import AppSettings
from feast_lineage.consumer.store.engine.database import snapshot_reads
from feast_lineage.consumer.store.read.positions import PositionCache
from feast_lineage.event_time import now_us

log = logging.getLogger(__name__)


@dataclass
class ConsumerState:
    settings: AppSettings
    engine: Engine
    pipeline: IngestPipeline
    facet_memo: FacetMemo = field(default_factory=FacetMemo)
    authorizer: Authorizer = field(default_factory=OpenAuthorizer)
    positions: PositionCache = field(default_factory=PositionCache)
    retention: Retention = field(default_factory=Retention)
    clock: Callable[[], int] = now_us  # health's "now" (tests set their own)
    health_cache: HealthCache = field(default_factory=HealthCache)
    bodies: BodyBudget = field(init=False)
    intake: Intake = field(init=False)
    pace: Callable[[], BodyPace] = field(init=False)  # a new request body's time limits
    read_engine: Engine = field(init=False)  # the read services' (one snapshot an answer)

    def __post_init__(self) -> None:
        self.read_engine = snapshot_reads(self.engine)
        consumer = self.settings.consumer
        self.bodies = BodyBudget(
            body_budget_bytes(
                consumer.max_request_bytes,
                configured=consumer.body_budget_bytes,
                memory_limit=container_memory_limit(self.settings.cgroup_root),
                workers=self.settings.workers,
            )
        )
        self.pace = lambda: BodyPace(
            consumer.body_read_timeout_seconds, consumer.body_min_rate_bytes_per_second
        )
        self.intake = Intake(
            pipeline=self.pipeline,
            memo=self.facet_memo,
            max_request_bytes=consumer.max_request_bytes,
            max_batch_events=consumer.max_batch_events,
            naive_event_time=consumer.naive_event_time,
        )

    def return_memory(self) -> None:
        """After a spike of large bodies: the per-process caches emptied, memory given back."""
        before = resident_bytes()
        return_memory(self.facet_memo, _WriteCacheOf(self.pipeline))
        after = resident_bytes()
        if before is not None and after is not None:
            log.info(
                "memory given back after a spike of request bodies: %d MiB resident, was %d MiB",
                after // 2**20,
                before // 2**20,
            )


class _WriteCacheOf:
    def __init__(self, pipeline: IngestPipeline) -> None:
        self._pipeline = pipeline

    def clear(self) -> None:
        self._pipeline.forget_cache()
