"""What every read service is handed: the store, the caller's scope, and how to name things.

Routes build one :class:`StoreReader` per request (``deps.ReaderDep``) and
pass it to a service with the request's parameters; services know nothing
of HTTP.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from sqlalchemy import Engine

from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.services.health_cache import HealthCache
from feast_lineage.consumer.store.read.positions import PositionCache
from feast_lineage.event_time import now_us
from feast_lineage.registry.source import RegistrySource


@dataclass(frozen=True, slots=True)
class StoreReader:
    """A read of the lineage store on behalf of one caller."""

    engine: Engine
    scope: Scope
    # OpenLineage namespace -> Feast project, for naming Feast objects
    namespace_mapping: Mapping[str, str]
    positions: PositionCache  # deep pages of events and runs
    # "namespace/name" glob -> expected seconds between writes (health)
    freshness: Mapping[str, float] = field(default_factory=dict)
    clock: Callable[[], int] = now_us  # microseconds since the epoch: health's "now"
    health_cache: HealthCache | None = None  # the process's latest health assessment


@dataclass(frozen=True, slots=True)
class RegistryReader:
    """A read of the Feast registry on behalf of one caller."""

    source: RegistrySource
    scope: Scope
    producer_namespace: str  # the producer's namespace: a project's own is under it
