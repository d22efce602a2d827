"""``FeatureStore``: Feast's FeatureStore that also emits OpenLineage events.

A drop-in replacement: same constructor, same methods, same results. With
``openlineage.enabled`` set, these also emit lineage:

* ``apply`` (and the plan-based apply path of ``feast apply``), the
  ``delete_*`` methods and ``create_saved_dataset``: the definitions that
  were created, changed or deleted, compared against the registry before;
* ``materialize`` and ``materialize_incremental``: START, then COMPLETE or
  FAIL, with a child run per feature view;
* ``get_historical_features`` and ``get_online_features`` (and its async
  twin, which the feature server uses with async online stores): COMPLETE runs
  (online ones aggregated, see :mod:`feast_lineage.producer.retrieval`);
* ``teardown``: removes the project's lineage from the consumer store when
  the consumer is configured;
* :meth:`FeatureStore.sync_lineage`: the whole registry state, once.

Lineage never changes what Feast does or returns, and its failures are
logged as warnings, never raised.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

import feast

from feast_lineage.producer import naming
from feast_lineage.producer.columns import EntityFrame, TrainingFrame
from feast_lineage.producer.describe import value_type_name
from feast_lineage.producer.lineage import StoreLineage, SyncResult, log
from feast_lineage.producer.materialize import MaterializationRun, TrackedProvider
from feast_lineage.producer.retrieval import (
    OnlineRetrievals,
    ViewColumns,
    entity_count,
    feature_set,
    returned_columns,
)
from feast_lineage.registry.repo_config import lineage_section, load_repo_config, without_lineage

__all__ = ["FeatureStore"]


def _feast_release() -> tuple[int, int]:
    """Feast's (major, minor) release."""
    parts = str(getattr(feast, "__version__", "0.0")).split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return (0, 0)


# Feast 0.66+ hands materialization to the feature server when the online
# store is ``remote`` (its materialize takes ``run_async`` since then).
_REMOTE_MATERIALIZATION = (
    "run_async" in inspect.signature(feast.FeatureStore.materialize).parameters
)

# Feast before 0.60 returns every feature of an on demand view one of whose
# features a historical retrieval asks for (seen on 0.59; 0.67 returns the
# asked-for ones and lists its source views' features in the job's metadata).
_WHOLE_ON_DEMAND_VIEWS = _feast_release() < (0, 60)


class FeatureStore(feast.FeatureStore):
    """Feast's FeatureStore, emitting OpenLineage events for its operations.

    Feast itself (the parent class) gets a copy of the configuration without
    the ``openlineage`` section, and :attr:`openlineage_emitter` is None, so
    Feast 0.60+'s own emitter and consumer never run beside ours.
    """

    # True while a feast-lineage command runs (producer.cli_hook): what
    # lineage did that the user cannot see otherwise is printed, as Feast
    # prints what its commands did.
    tells_user: ClassVar[bool] = False

    def __init__(
        self,
        repo_path: str | None = None,
        config: Any = None,
        fs_yaml_file: Any = None,
        **kwargs: Any,
    ) -> None:
        if config is None:
            # Loaded here rather than by Feast, which on 0.60+ would validate
            # the openlineage section with its own model of it.
            from feast.utils import get_default_yaml_file_path

            repo = Path(repo_path) if repo_path else Path(os.getcwd())
            if fs_yaml_file is None:
                fs_yaml_file = get_default_yaml_file_path(repo)
            config = load_repo_config(repo, Path(fs_yaml_file))
            fs_yaml_file = None
        section = lineage_section(config)  # raises when this Feast keeps it out of reach
        super().__init__(
            repo_path=repo_path, config=without_lineage(config), fs_yaml_file=fs_yaml_file, **kwargs
        )
        self._lineage: StoreLineage | None = StoreLineage.for_store(self, section)
        self._lineage_run: MaterializationRun | None = None
        self._online_retrievals: OnlineRetrievals | None = None

    @property
    def openlineage_emitter(self) -> Any:
        """Feast 0.60+'s own emitter: always None here, feast-lineage emits instead."""
        return None

    # Registry changes ---------------------------------------------------------

    @contextmanager
    def _applying(self) -> Iterator[None]:
        if self._lineage is None:
            yield
            return
        with self._lineage.applying(self.registry):
            yield

    def apply(self, *args: Any, **kwargs: Any) -> Any:
        with self._applying():
            return super().apply(*args, **kwargs)

    def _apply_diffs(self, *args: Any, **kwargs: Any) -> Any:
        with self._applying():
            return super()._apply_diffs(*args, **kwargs)

    def delete_feature_view(self, name: str) -> Any:
        with self._applying():
            return super().delete_feature_view(name)

    def delete_feature_service(self, name: str) -> Any:
        with self._applying():
            return super().delete_feature_service(name)

    def create_saved_dataset(self, *args: Any, **kwargs: Any) -> Any:
        with self._applying():
            return super().create_saved_dataset(*args, **kwargs)

    def sync_lineage(self) -> SyncResult:
        """Emit the project's whole registry state once, as one apply of everything.

        Apply emits only what changed, so a lineage server that was down or
        is new learns the current state from this. Running it again changes
        nothing in the lineage graph. Raises RuntimeError when
        ``openlineage.enabled`` is false.
        """
        if self._lineage is None or not self._lineage.producing:
            raise RuntimeError("OpenLineage is off: set openlineage.enabled: true to sync lineage")
        return self._lineage.sync(self.registry)

    # Materialization ----------------------------------------------------------

    def _materialization(
        self, job_name: str, start: datetime | None, end: datetime, requested: Any = None
    ) -> MaterializationRun | None:
        lineage = self._lineage
        if lineage is None or not (lineage.producing and lineage.settings.emit_on_materialize):
            return None
        if self._lineage_run is not None:  # nested call: the outer run covers it
            return None
        provider = super()._get_provider()
        views = [str(v) for v in requested] if isinstance(requested, list | tuple) else None
        return MaterializationRun(
            lineage, provider, job_name=job_name, start=start, end=end, requested=views
        )

    @contextmanager
    def _materializing(self, run: MaterializationRun | None) -> Iterator[None]:
        if run is None:
            yield
            return
        with run:
            self._lineage_run = run
            try:
                yield
            finally:
                self._lineage_run = None

    def _get_provider(self) -> Any:
        provider = super()._get_provider()
        run = getattr(self, "_lineage_run", None)
        return provider if run is None else TrackedProvider(provider, run)

    def _materialized_elsewhere(self) -> bool:
        """Whether Feast hands this materialization to the feature server.

        Then the feature server does the work (``run_async``: after this call
        returns) and reports its lineage when it runs ``feast-lineage serve``;
        this process emits nothing, so no run is reported twice and none is
        reported COMPLETE before its work is done.
        """
        online_store = getattr(self.config, "online_store", None)
        return _REMOTE_MATERIALIZATION and getattr(online_store, "type", None) == "remote"

    def materialize(
        self, start_date: datetime, end_date: datetime, *args: Any, **kwargs: Any
    ) -> Any:
        if self._materialized_elsewhere():
            return super().materialize(start_date, end_date, *args, **kwargs)
        requested = kwargs.get("feature_views", args[0] if args else None)
        run = self._materialization(naming.MATERIALIZE, start_date, end_date, requested)
        with self._materializing(run):
            return super().materialize(start_date, end_date, *args, **kwargs)

    def materialize_incremental(self, end_date: datetime, *args: Any, **kwargs: Any) -> Any:
        if self._materialized_elsewhere():
            return super().materialize_incremental(end_date, *args, **kwargs)
        requested = kwargs.get("feature_views", args[0] if args else None)
        run = self._materialization(naming.MATERIALIZE_INCREMENTAL, None, end_date, requested)
        with self._materializing(run):
            return super().materialize_incremental(end_date, *args, **kwargs)

    def _materialize_odfv(
        self, feature_view: Any, start_date: datetime, end_date: datetime, *args: Any, **kw: Any
    ) -> Any:
        run = self._lineage_run
        if run is None:
            return super()._materialize_odfv(feature_view, start_date, end_date, *args, **kw)
        with run.view(feature_view, start_date, end_date):
            return super()._materialize_odfv(feature_view, start_date, end_date, *args, **kw)

    # Retrieval ----------------------------------------------------------------

    def _retrieval_lineage(self) -> StoreLineage | None:
        lineage = self._lineage
        if lineage is None or not (lineage.producing and lineage.settings.emit_on_retrieval):
            return None
        return lineage

    def get_historical_features(
        self,
        entity_df: Any = None,
        features: Any = None,
        full_feature_names: bool = False,
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        job = super().get_historical_features(
            entity_df,
            features if features is not None else [],
            full_feature_names,
            *args,
            **kwargs,
        )
        lineage = self._retrieval_lineage()
        if lineage is not None:
            lineage.guard(
                "historical retrieval",
                lambda: self._emit_historical(
                    lineage, entity_df, features or [], full_feature_names, job
                ),
            )
        return job

    def _emit_historical(
        self,
        lineage: StoreLineage,
        entity_df: Any,
        features: Any,
        full_feature_names: bool,
        job: Any,
    ) -> None:
        wanted = feature_set(features, full_feature_names)
        metadata = getattr(job, "metadata", None)
        returned = getattr(metadata, "features", None)
        frame = returned_columns(
            wanted,
            [str(ref) for ref in returned] if isinstance(returned, list | tuple) else None,
            self._view_columns(),
            whole_on_demand_views=_WHOLE_ON_DEMAND_VIEWS,
        )
        event = lineage.events.retrieval_event(
            "historical",
            feature_service=wanted.feature_service,
            views=list(dict.fromkeys([*wanted.views, *(c.view for c in frame)])),
            features=list(wanted.features),
            entity_count=entity_count(entity_df),
            full_feature_names=wanted.full_feature_names,
            frame=TrainingFrame(frame, EntityFrame.of(entity_df)),
        )
        with lineage.emitter.operation():
            lineage.emitter.emit([event])

    def _view_columns(self) -> dict[str, ViewColumns]:
        """Every view a retrieval may read, with its features' types (the registry's cache)."""
        out: dict[str, ViewColumns] = {}
        listings: list[tuple[bool, Callable[..., Any]]] = [
            (False, self.list_feature_views),
            (False, self.list_stream_feature_views),
            (True, self.list_on_demand_feature_views),
        ]
        label_views = getattr(self, "list_label_views", None)  # Feast 0.67+
        if label_views is not None:
            listings.append((False, label_views))
        for on_demand, listing in listings:
            for view in listing(allow_cache=True):
                types = {f.name: value_type_name(f.dtype) for f in view.features}
                out.setdefault(view.name, ViewColumns(on_demand, types))
        return out

    def get_online_features(
        self,
        features: Any,
        entity_rows: Any,
        full_feature_names: bool = False,
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        response = super().get_online_features(
            features, entity_rows, full_feature_names, *args, **kwargs
        )
        self._after_online(features, entity_rows, full_feature_names)
        return response

    async def get_online_features_async(
        self,
        features: Any,
        entity_rows: Any,
        full_feature_names: bool = False,
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        response = await super().get_online_features_async(
            features, entity_rows, full_feature_names, *args, **kwargs
        )
        self._after_online(features, entity_rows, full_feature_names)
        return response

    def _after_online(self, features: Any, entity_rows: Any, full_feature_names: bool) -> None:
        """Record an online retrieval (sync or async) that has answered."""
        lineage = self._retrieval_lineage()
        if lineage is not None:
            lineage.guard(
                "online retrieval",
                lambda: self._record_online(lineage, features, entity_rows, full_feature_names),
            )

    def _record_online(
        self, lineage: StoreLineage, features: Any, entity_rows: Any, full_feature_names: bool
    ) -> None:
        if self._online_retrievals is None:
            interval = lineage.settings.online_retrieval_interval_seconds
            self._online_retrievals = OnlineRetrievals(lineage, interval)
        self._online_retrievals.record(
            feature_set(features, full_feature_names), entity_count(entity_rows)
        )

    def flush_lineage(self) -> None:
        """Emit the online retrievals aggregated so far (done anyway at exit)."""
        if self._online_retrievals is not None and self._lineage is not None:
            self._lineage.guard("online retrieval", self._online_retrievals.flush)

    # Teardown -------------------------------------------------------------------

    def teardown(self) -> Any:
        result = super().teardown()  # type: ignore[no-untyped-call]
        lineage = self._lineage
        if lineage is not None:
            from feast_lineage.producer.teardown import remove_project_lineage

            removed = lineage.guard("teardown", lambda: remove_project_lineage(lineage))
            if removed is not None:
                log.info("%s", removed)
                if self.tells_user:
                    print(removed)
        return result
