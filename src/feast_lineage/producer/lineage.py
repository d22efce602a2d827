"""The lineage of one feature store: its settings, sinks and events.

:meth:`StoreLineage.for_store` reads the ``openlineage`` section of the
store's configuration (wherever the Feast release keeps it), plus the
``FEAST_OPENLINEAGE_*`` environment, and returns None when lineage is off. A configuration that
cannot work is logged once as a warning and lineage is off for that store:
Feast itself goes on. Every public method here swallows its own errors.
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from feast_lineage.config import ConfigError, LineageConfig
from feast_lineage.config.loader import config_from_data
from feast_lineage.producer import naming
from feast_lineage.producer.changes import Changes, diff
from feast_lineage.producer.describe import Describer, StoreTypes
from feast_lineage.producer.emitter import ClientSink, Emitter, LocalSink, Sink
from feast_lineage.producer.operation_events import EventFactory
from feast_lineage.producer.transports import build_client
from feast_lineage.registry.objects import ProjectObjects, read_project
from feast_lineage.registry.repo_config import lineage_section
from feast_lineage.uris import strip_credentials

if TYPE_CHECKING:
    from feast_lineage.consumer.embedded import LocalStore

log = logging.getLogger("feast_lineage.producer")
T = TypeVar("T")


class OnceLog:
    """Logs a warning the first time its key is seen, later ones at debug level."""

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def warn(self, key: str, message: str, *args: Any) -> None:
        with self._lock:
            first = key not in self._seen
            self._seen.add(key)
        log.log(logging.WARNING if first else logging.DEBUG, message, *args)


# A repository's configuration problems, once per process (every FeatureStore
# of the repository would repeat them); keys name the repository.
_config_warnings = OnceLog()


def lineage_config_of(
    repo_config: Any, repo_path: Path, section: Mapping[str, Any] | None = None
) -> LineageConfig:
    """The lineage configuration of a Feast RepoConfig.

    ``section`` is its ``openlineage`` section, read before Feast was handed
    a copy without it (:mod:`feast_lineage.registry.repo_config`); by
    default it is read from ``repo_config`` itself.
    """
    registry = repo_config.registry
    data: dict[str, Any] = {
        "project": repo_config.project,
        "registry": {
            "registry_type": getattr(registry, "registry_type", "file"),
            "path": getattr(registry, "path", None),
        },
        "openlineage": lineage_section(repo_config) if section is None else dict(section),
    }
    return config_from_data(data, repo_path, consumer_database=False)


@dataclass(frozen=True)
class SyncResult:
    """What a lineage sync sent: events, and the sinks that took or refused them."""

    events: int
    sinks: list[str]
    failed: list[str]


class StoreLineage:
    """Lineage for one FeatureStore: everything the hooks need."""

    def __init__(self, config: LineageConfig, repo_config: Any, repo_path: Path) -> None:
        self.config = config
        self.settings = config.producer
        self.repo_path = repo_path
        self.project = config.project
        self.namespace = self.settings.namespace_for(config.project)
        self.store_types = StoreTypes.of(repo_config)
        self._warnings = OnceLog()
        self.local_store: LocalStore | None = self._local_store()
        sinks: list[Sink] = []
        if self.settings.enabled:
            if self.local_store is not None:
                sinks.append(LocalSink(self.local_store))
            client = self._client(bool(sinks))
            if client is not None:
                sinks.insert(0, ClientSink(client))
        self.emitter = Emitter(sinks)
        # Close the transports (HTTP sessions, Kafka producers) with the store.
        weakref.finalize(self, self.emitter.close)
        describer = Describer(
            producer=naming.producer_uri(self.settings),
            server=naming.lineage_server(self.settings),
            project=config.project,
            repo_path=repo_path,
            store_types=self.store_types,
            offline_store=getattr(repo_config, "offline_store", None),
        )
        self.events = EventFactory(describer, self.namespace)

    def _local_store(self) -> LocalStore | None:
        """The in-process consumer (self-reporting, the teardown hook), when it can work.

        A consumer section that cannot work here (no database for it, a
        driver that is not installed) skips the in-process consumer only:
        Feast ignores that section outside its lineage server, and so does
        the producer, which goes on emitting through its transport.
        """
        if not self.config.consumer.enabled:
            return None
        try:
            url = self.config.database_url()
        except ConfigError as err:
            _config_warnings.warn(
                f"consumer:{self.repo_path}:{err}",
                "OpenLineage's in-process consumer is skipped, so events are not stored in a "
                "local lineage store and teardown removes no lineage (%s)%s. To fix: do as "
                "it says, or set openlineage.consumer.enabled: false if no lineage store "
                "should be kept here",
                err,
                "; events still go to the configured transport" if self.settings.enabled else "",
            )
            return None
        from feast_lineage.consumer.embedded import LocalStore

        return LocalStore(url)

    def _client(self, local_sink: bool) -> Any:
        url = self.settings.transport_url
        if self.settings.transport_type is None and url:
            # The spec: an unset type defers to openlineage-python's defaults,
            # which do not read transport_url. Say so rather than leave the
            # events going somewhere unexpected.
            _config_warnings.warn(
                f"untyped-url:{self.repo_path}",
                "openlineage.transport_url is set but openlineage.transport_type is not, so "
                "the OpenLineage client's defaults decide where events go (OPENLINEAGE_URL, "
                "openlineage.yml, or the console); set transport_type: http to send them to %s",
                strip_credentials(url),
            )
        try:
            return build_client(self.settings, self.repo_path, local_sink=local_sink)
        except Exception as err:
            _config_warnings.warn(
                f"transport:{self.repo_path}:{err}",
                "OpenLineage transport %r is unusable, so no events go to it: %s",
                self.settings.transport_type,
                err,
            )
            return None

    @classmethod
    def for_store(cls, store: Any, section: Mapping[str, Any] | None = None) -> StoreLineage | None:
        """The lineage of ``store``, or None when neither producer nor consumer is on.

        ``section``: the ``openlineage`` section of the store's configuration
        (by default read from ``store.config``).
        """
        repo_config = store.config
        raw_path = getattr(repo_config, "repo_path", None) or store.repo_path
        repo_path = Path(raw_path or os.getcwd()).resolve()
        try:
            config = lineage_config_of(repo_config, repo_path, section)
            if not (config.producer.enabled or config.consumer.enabled):
                return None
            return cls(config, repo_config, repo_path)
        except ConfigError as err:
            _config_warnings.warn(
                f"config:{repo_path}:{err}", "OpenLineage is off for this feature store: %s", err
            )
        except Exception as err:
            _config_warnings.warn(
                f"setup:{repo_path}:{type(err).__name__}:{err}",
                "OpenLineage is off for this feature store (%s: %s)",
                type(err).__name__,
                err,
            )
        return None

    @property
    def producing(self) -> bool:
        return self.settings.enabled

    # Guards -----------------------------------------------------------------

    def guard(self, what: str, fn: Callable[[], T]) -> T | None:
        """Run ``fn``; log a failure once as a warning and return None instead."""
        try:
            return fn()
        except Exception as err:
            self._warnings.warn(
                f"{what}:{type(err).__name__}",
                "OpenLineage lineage for %s was skipped (%s: %s); the Feast operation goes on",
                what,
                type(err).__name__,
                err,
            )
            log.debug("lineage failure", exc_info=True)
            return None

    # Apply ------------------------------------------------------------------

    def read(self, registry: Any) -> ProjectObjects:
        return read_project(registry, self.project)

    @contextmanager
    def applying(self, registry: Any) -> Iterator[None]:
        """Around a registry change: emit the objects it created, changed or deleted."""
        if not (self.producing and self.settings.emit_on_apply):
            yield
            return
        before = self.guard("apply", lambda: self.read(registry))
        yield
        if before is not None:
            self.guard("apply", lambda: self._emit_changes(before, registry))

    def _emit_changes(self, before: ProjectObjects, registry: Any) -> None:
        changes: Changes = diff(before, self.read(registry))
        if changes:
            events = self.events.apply_events(changes)
            self._report_problems()
            self.emitter.emit(events)

    def _report_problems(self) -> None:
        problems = self.events.take_problems()
        if problems:
            self._warnings.warn(
                "describe:" + problems[0].split(" (", 1)[0],
                "OpenLineage could not describe %d object(s), sent without their facets: %s",
                len(problems),
                "; ".join(problems),
            )

    def sync(self, registry: Any) -> SyncResult:
        """Emit the whole registry state of the project once."""
        events = self.events.sync_events(self.read(registry))
        self._report_problems()
        with self.emitter.operation() as failed:
            self.emitter.emit(events)
        return SyncResult(
            events=len(events),
            sinks=[sink.name for sink in self.emitter.sinks],
            failed=sorted(failed),
        )

    def close(self) -> None:
        self.emitter.close()
