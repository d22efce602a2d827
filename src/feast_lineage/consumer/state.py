"""The per-app objects built in the lifespan and reached through dependencies."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine

from feast_lineage.consumer.ingest.pipeline import IngestPipeline
from feast_lineage.consumer.settings import AppSettings


@dataclass
class ConsumerState:
    settings: AppSettings
    engine: Engine
    pipeline: IngestPipeline
