"""The server's Prometheus metrics: :class:`Metrics`, one set per app, served on ``/metrics``.

What is measured, and where:

* ingest (``routes/ingest.py``): events stored, events refused by reason (the
  per-event error code), whole requests refused before their events were read
  (by error code), and the time of each ingest request;
* the writer thread (``intake/pipeline.py``, through the
  :class:`~feast_lineage.consumer.intake.pipeline.WriterObserver` it is
  handed): requests waiting for it, and the time of each write transaction;
* retention (``services/retention.py``, through the callback it is handed):
  prunes by trigger and outcome, and their time;
* reads (:class:`QueryTimer`, an ASGI middleware): the time of every ``GET``
  of a read route of the API, labelled with the route's path template
  (bounded: never the request's own path).

Several worker processes (``serve_lineage --workers N``, or any pre-fork
manager) share one set of figures through prometheus-client's multiprocess
mode: :mod:`feast_lineage.metrics_processes` points ``PROMETHEUS_MULTIPROC_DIR``
at a directory before the workers fork, each worker writes its values to
files there, and :meth:`Metrics.render` adds up every worker's files.
Without that variable, the figures are this process's, in a registry of the
app's own (so tests can build any number of apps).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from feast_lineage.metrics_processes import MULTIPROC_ENV

PREFIX = "feast_lineage"

# Request latencies: from a millisecond (a single event on SQLite) to ten seconds.
_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
# Prunes delete in chunks and may take minutes on a large store.
_PRUNE_BUCKETS = (0.1, 1, 10, 60, 300, 1800)


def multiprocess() -> bool:
    """Whether this process writes its figures to a directory shared with other workers.

    The variable alone proves nothing: Feast 0.67 sets ``PROMETHEUS_MULTIPROC_DIR``
    when it is imported, after prometheus-client chose to keep values in memory,
    and reading the directory then would answer zeros. Figures live in files
    only when prometheus-client's value class is its multiprocess one.
    """
    from prometheus_client import values

    return bool(os.environ.get(MULTIPROC_ENV)) and values.ValueClass is not values.MutexValue


class GaugeFamily(NamedTuple):
    """A gauge computed at scrape time (lineage health), not kept by any worker.

    The scraping worker computes it from the store, which every worker
    shares, and adds it to the answer once: nothing to add up across
    workers, and no value left over from a dead one.
    """

    name: str
    help: str
    labels: tuple[str, ...]
    samples: Sequence[tuple[tuple[str, ...], float]]


class _Computed(Collector):
    def __init__(self, families: Sequence[GaugeFamily]) -> None:
        self.families = families

    def collect(self) -> Iterator[GaugeMetricFamily]:
        for f in self.families:
            family = GaugeMetricFamily(f"{PREFIX}_{f.name}", f.help, labels=list(f.labels))
            for labels, value in f.samples:
                family.add_metric(list(labels), value)
            yield family


class Metrics:
    """Every figure the server exports; the methods are what the code records."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        reg = self.registry
        self._ingested = Counter(
            f"{PREFIX}_events_ingested",
            "Events stored (committed) by ingest",
            registry=reg,
        )
        self._refused = Counter(
            f"{PREFIX}_events_refused",
            "Events of a read body that were not stored, by reason: invalid_event (the "
            "event is invalid), rejected (the database refused it), store_unavailable",
            ["reason"],
            registry=reg,
        )
        self._requests_refused = Counter(
            f"{PREFIX}_ingest_requests_refused",
            "Ingest requests refused before their events were read, by error code "
            "(unauthorized, invalid_api_key, read_key_cannot_write, body_too_large, "
            "invalid_json, ingest_busy, ...)",
            ["reason"],
            registry=reg,
        )
        self._ingest_seconds = Histogram(
            f"{PREFIX}_ingest_duration_seconds",
            "Time of an ingest request, from routing to the answer (after the commit)",
            ["endpoint"],
            buckets=_LATENCY_BUCKETS,
            registry=reg,
        )
        self._queue = Gauge(
            f"{PREFIX}_writer_queue_depth",
            "Ingest requests waiting for the writer thread (queued, or in the group it writes)",
            registry=reg,
            multiprocess_mode="livesum",
        )
        self._transaction_seconds = Histogram(
            f"{PREFIX}_write_transaction_seconds",
            "Time of a write transaction of the writer (on PostgreSQL and MySQL including the "
            "wait for the store's write lock, which the writers of every process take in turn)",
            buckets=_LATENCY_BUCKETS,
            registry=reg,
        )
        self._transaction_events = Counter(
            f"{PREFIX}_write_transaction_events",
            "Events written by the writer's transactions (group commit: many per transaction)",
            registry=reg,
        )
        self._prunes = Counter(
            f"{PREFIX}_prunes",
            "Retention prunes, by trigger (scheduled or manual) and outcome (ok or failed)",
            ["trigger", "outcome"],
            registry=reg,
        )
        self._prune_seconds = Histogram(
            f"{PREFIX}_prune_duration_seconds",
            "Time of a retention prune",
            buckets=_PRUNE_BUCKETS,
            registry=reg,
        )
        self._query_seconds = Histogram(
            f"{PREFIX}_query_duration_seconds",
            "Time of a read request, by route (the path template)",
            ["route"],
            buckets=_LATENCY_BUCKETS,
            registry=reg,
        )

    # --- ingest (routes/ingest.py) ---------------------------------------------

    def ingested(self, stored: int, refused: Mapping[str, int]) -> None:
        if stored:
            self._ingested.inc(stored)
        for reason, count in refused.items():
            self._refused.labels(reason).inc(count)

    def request_refused(self, reason: str) -> None:
        self._requests_refused.labels(reason).inc()

    def ingest_time(self, endpoint: str, seconds: float) -> None:
        self._ingest_seconds.labels(endpoint).observe(seconds)

    # --- the writer (intake.pipeline.WriterObserver) ---------------------------

    def queued(self, requests: int) -> None:
        """``requests`` more (or, negative, fewer) requests wait for the writer."""
        self._queue.inc(requests)

    def transaction(self, seconds: float, events: int) -> None:
        self._transaction_seconds.observe(seconds)
        if events:
            self._transaction_events.inc(events)

    # --- retention (services.retention) ----------------------------------------

    def prune(self, trigger: str, ok: bool, seconds: float) -> None:
        self._prunes.labels(trigger, "ok" if ok else "failed").inc()
        self._prune_seconds.observe(seconds)

    # --- reads ------------------------------------------------------------------

    def query_time(self, route: str, seconds: float) -> None:
        self._query_seconds.labels(route).observe(seconds)

    # --- /metrics ------------------------------------------------------------------

    def render(self, computed: Sequence[GaugeFamily] = ()) -> tuple[bytes, str]:
        """The exposition text and its content type: every worker's figures, added up,
        then the gauges ``computed`` at this scrape."""
        if multiprocess():
            registry = CollectorRegistry()
            MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
            kept = generate_latest(registry)
        else:
            kept = generate_latest(self.registry)
        extra = CollectorRegistry()
        extra.register(_Computed(computed))
        return kept + generate_latest(extra), CONTENT_TYPE_LATEST


_AsgiScope = dict[str, Any]


class QueryTimer:
    """ASGI middleware: the time of each ``GET`` (or ``HEAD``) of a read route of the API.

    ``routes`` maps each read route's handler to its full path template (what
    :func:`~feast_lineage.consumer.routes.include_routes` returns). The route
    is known only after routing, from the scope the router filled in; other
    requests (ingest, which times itself, ``/healthz``, ``/metrics``, the UI's
    files, paths matching no route) are not counted.
    """

    def __init__(
        self, app: Any, metrics: Metrics, routes: Mapping[Callable[..., Any], str]
    ) -> None:
        self.app = app
        self.metrics = metrics
        self.routes = routes

    async def __call__(self, scope: _AsgiScope, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        try:
            await self.app(scope, receive, send)
        finally:
            endpoint = getattr(scope.get("route"), "endpoint", None)
            template = self.routes.get(endpoint) if endpoint is not None else None
            if template is not None:
                self.metrics.query_time(template, time.perf_counter() - started)
