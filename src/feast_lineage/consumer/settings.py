"""What one consumer app needs: the consumer settings and its database."""

from __future__ import annotations

from dataclasses import dataclass

from feast_lineage.config import ConsumerSettings, LineageConfig


@dataclass(frozen=True)
class AppSettings:
    consumer: ConsumerSettings
    database_url: str  # secret: never logged
    run_retention: bool = True  # False in an embedded server when standalone_server is set

    @classmethod
    def from_config(cls, config: LineageConfig, *, standalone: bool) -> AppSettings:
        consumer = config.consumer
        return cls(
            consumer=consumer,
            database_url=config.database_url(),
            run_retention=standalone or not consumer.standalone_server,
        )
