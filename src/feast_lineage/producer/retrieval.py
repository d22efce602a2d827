"""Lineage of feature retrieval, kept off the serving path.

Historical retrieval emits one COMPLETE run per ``get_historical_features``
call. Online retrieval is aggregated: each call only adds to a counter per
feature set (feature service or feature list, and ``full_feature_names``),
a few microseconds under a lock. Once ``online_retrieval_interval_seconds``
have passed, a background thread emits one COMPLETE run per feature set,
with the total entity count and a ``nominalTime`` facet spanning the calls
it covers; whatever is left is emitted when the process exits. An interval
of 0 emits one event per call, on the calling thread.
"""

from __future__ import annotations

import atexit
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

from feast_lineage.producer.columns import FeatureColumn, features_of_refs, features_of_service
from feast_lineage.producer.lineage import StoreLineage


@dataclass(frozen=True)
class FeatureSet:
    """What one retrieval asked for."""

    feature_service: str | None
    views: tuple[str, ...]
    features: tuple[str, ...]
    full_feature_names: bool
    # Each feature: the view it is read from, the name it goes by.
    columns: tuple[FeatureColumn, ...] = ()


@dataclass
class _Tally:
    entities: int
    first: datetime
    last: datetime


def feature_set(features: Any, full_feature_names: bool) -> FeatureSet:
    """The feature set of a ``features`` argument: a FeatureService or refs."""
    projections = getattr(features, "feature_view_projections", None)
    if projections is not None:
        refs = [f"{p.name_to_use()}:{f.name}" for p in projections for f in p.features]
        views = [p.name for p in projections]
        service = str(features.name)
        columns = features_of_service(features)
    else:
        refs = [str(ref) for ref in features]
        service = None
        columns = features_of_refs(refs)
        views = [column.view for column in columns]  # ``fv@v2:f`` reads view fv
    return FeatureSet(
        feature_service=service,
        views=tuple(dict.fromkeys(views)),
        features=tuple(refs),
        full_feature_names=bool(full_feature_names),
        columns=tuple(columns),
    )


class ViewColumns(NamedTuple):
    """What a retrieval needs of a view: whether it is on demand, its features' types."""

    on_demand: bool
    types: Mapping[str, str | None]  # feature -> Feast's value type, in definition order


def returned_columns(
    wanted: FeatureSet,
    returned: Sequence[str] | None,
    views: Mapping[str, ViewColumns],
    *,
    whole_on_demand_views: bool = False,
) -> tuple[FeatureColumn, ...]:
    """The feature columns a historical retrieval returns, typed, in Feast's order.

    ``returned`` is the retrieval job's ``metadata.features`` (None when the
    offline store does not say): besides what was asked for, Feast returns
    the features an on demand view reads from its source views. Releases
    before 0.60 (``whole_on_demand_views``) return instead every feature of
    an on demand view one of whose features was asked for. Feast puts
    the stored features first and the on demand views' outputs last; the
    extra features follow the asked-for ones, in each view's definition order.
    """

    def typed(column: FeatureColumn) -> FeatureColumn:
        if column.type is not None:
            return column
        view = views.get(column.view)
        return column._replace(type=view.types.get(column.feature) if view else None)

    def on_demand(column: FeatureColumn) -> bool:
        view = views.get(column.view)
        return view is not None and view.on_demand

    asked = [typed(c) for c in wanted.columns]
    seen = {(c.used_name, c.feature) for c in asked} | {(c.view, c.feature) for c in asked}
    listed = features_of_refs(returned or ())
    if whole_on_demand_views:
        listed += [
            FeatureColumn(c.view, c.used_name, feature)
            for c in asked
            if on_demand(c)
            for feature in views[c.view].types
        ]
    extra = [
        typed(c)
        for c in listed
        if (c.used_name, c.feature) not in seen and (c.view, c.feature) not in seen
    ]

    def definition_order(column: FeatureColumn) -> tuple[str, int]:
        view = views.get(column.view)
        order = list(view.types) if view else []
        at = order.index(column.feature) if column.feature in order else len(order)
        return column.used_name, at

    extra = sorted(dict.fromkeys(extra), key=definition_order)
    stored = [c for c in [*asked, *extra] if not on_demand(c)]
    computed = [c for c in [*asked, *extra] if on_demand(c)]
    return tuple(dict.fromkeys([*stored, *computed]))


def entity_count(entities: Any) -> int | None:
    """Rows of an entity dataframe, list of entity rows or column mapping."""
    if entities is None or isinstance(entities, str):
        return None
    if isinstance(entities, Mapping):
        for column in entities.values():
            return len(column)
        return 0
    if isinstance(entities, Sequence) or hasattr(entities, "__len__"):
        return len(entities)
    return None


class OnlineRetrievals:
    """Online retrieval tallies of one feature store, emitted in the background."""

    def __init__(self, lineage: StoreLineage, interval_seconds: float) -> None:
        self.lineage = lineage
        self.interval = interval_seconds
        self._lock = threading.Lock()
        self._tallies: dict[FeatureSet, _Tally] = {}
        self._last_flush = time.monotonic()
        self._flushing = False
        ref = weakref.ref(self)
        self._at_exit: Callable[[], None] = lambda: _flush_ref(ref)
        atexit.register(self._at_exit)

    def record(self, features: FeatureSet, entities: int | None) -> None:
        if self.interval <= 0:
            self.lineage.emitter.emit([self._event(features, entities or 0, None)])
            return
        now = datetime.now(tz=UTC)
        with self._lock:
            tally = self._tallies.get(features)
            if tally is None:
                self._tallies[features] = _Tally(entities or 0, now, now)
            else:
                tally.entities += entities or 0
                tally.last = now
            due = not self._flushing and time.monotonic() - self._last_flush >= self.interval
            if due:
                self._flushing = True
        if due:
            threading.Thread(target=self._flush_in_background, daemon=True).start()

    def _flush_in_background(self) -> None:
        try:
            self.flush()
        finally:
            with self._lock:
                self._flushing = False

    def flush(self) -> int:
        """Emit every pending tally now; returns how many events were built."""
        with self._lock:
            tallies, self._tallies = self._tallies, {}
            self._last_flush = time.monotonic()
        events = []
        for features, tally in tallies.items():
            built = self.lineage.guard("online retrieval", _Pending(self, features, tally))
            if built is not None:
                events.append(built)
        with self.lineage.emitter.operation():
            self.lineage.emitter.emit(events)
        return len(events)

    def _event(
        self, features: FeatureSet, entities: int, window: tuple[datetime, datetime] | None
    ) -> Any:
        return self.lineage.events.retrieval_event(
            "online",
            feature_service=features.feature_service,
            views=list(features.views),
            features=list(features.features),
            entity_count=entities,
            full_feature_names=features.full_feature_names,
            window=window,
        )

    def close(self) -> None:
        atexit.unregister(self._at_exit)
        self.flush()


@dataclass(frozen=True)
class _Pending:
    """The event of one pending tally, built on call."""

    retrievals: OnlineRetrievals
    features: FeatureSet
    tally: _Tally

    def __call__(self) -> Any:
        window = (self.tally.first, self.tally.last)
        return self.retrievals._event(self.features, self.tally.entities, window)


def _flush_ref(ref: weakref.ref[OnlineRetrievals]) -> None:
    retrievals = ref()
    if retrievals is not None:
        retrievals.lineage.guard("online retrieval", retrievals.flush)
