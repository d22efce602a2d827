"""Lineage of one materialization call: a parent run with a child run per view.

The parent run (``feast_materialize`` or ``feast_materialize_incremental``)
emits START when the call begins and COMPLETE or FAIL when it ends. Each
feature view Feast materializes gets a child run
(``feast_materialize_feature_view_<name>``, linked by the ``parent`` facet)
that reads the view's source and the view and writes its online store table.

Rows written are counted where they are written: while the call runs, the
provider's online store counts the rows each ``online_write_batch`` call
stores, per feature view. Views written by a compute engine outside this
process (Spark executors, Lambda) report the rows this process saw. A view's
COMPLETE also puts the count on its online store table as the standard
``outputStatistics`` facet (``rowCount``), where the online store reported
writing (at least one ``online_write_batch`` call for the view in this
process): a count this process never saw is left out, not sent as 0.
"""

from __future__ import annotations

import threading
from collections.abc import Sized
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

from openlineage.client.generated.base import EventType

from feast_lineage.producer import naming
from feast_lineage.producer.lineage import StoreLineage
from feast_lineage.producer.operation_events import new_run_id


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class RowCounter:
    """Counts rows written through one online store object, per feature view."""

    def __init__(self, online_store: Any) -> None:
        self.counts: dict[str, int] = {}
        self._store = online_store
        self._lock = threading.Lock()
        original = online_store.online_write_batch
        counter = self

        def online_write_batch(config: Any, table: Any, data: Any, *args: Any, **kw: Any) -> Any:
            rows = data if isinstance(data, Sized) else list(data)
            result = original(config, table, rows, *args, **kw)
            counter.add(table.name, len(rows))
            return result

        self._wrapper = online_write_batch
        online_store.online_write_batch = online_write_batch

    def add(self, view: str, rows: int) -> None:
        with self._lock:
            self.counts[view] = self.counts.get(view, 0) + rows

    def remove(self) -> None:
        if self._store.__dict__.get("online_write_batch") is self._wrapper:
            del self._store.online_write_batch


class ViewRun:
    """The child run of one feature view."""

    def __init__(self, parent: MaterializationRun, view: Any, start: Any, end: Any) -> None:
        self.parent = parent
        self.view = view
        self.start = _utc(start)
        self.end = _utc(end) or datetime.now(tz=UTC)
        self.run_id = new_run_id()
        self.job_name = naming.materialize_view_job_name(view.name)

    def __enter__(self) -> ViewRun:
        self.parent.lineage.guard("materialize", self._start)
        return self

    def _start(self) -> None:
        events = self.parent.lineage.events
        inputs, outputs = events.materialization_io(self.view, with_facets=False)
        self.parent.emit(
            events.run_event(
                EventType.START,
                self.job_name,
                run_id=self.run_id,
                job_facets=self.parent.job_facets,
                run_facets={
                    "parent": self.parent.parent_facet,
                    # The spec's facet on every materialization event; no rows yet.
                    "feast_materialization": events.materialization_facet(
                        [self.view.name], self.start, self.end, 0
                    ),
                },
                inputs=inputs,
                outputs=outputs,
            )
        )

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.parent.lineage.guard("materialize", lambda: self._finish(exc))

    def _finish(self, error: BaseException | None) -> None:
        parent = self.parent
        events = parent.lineage.events
        rows = parent.rows(self.view.name)
        parent.finished_view(self)
        run_facets: dict[str, Any] = {
            "parent": parent.parent_facet,
            "feast_materialization": events.materialization_facet(
                [self.view.name], self.start, self.end, rows
            ),
        }
        if error is not None:
            run_facets["errorMessage"] = events.error_facet(error)
        inputs, outputs = events.materialization_io(
            self.view,
            with_facets=error is None,
            rows_written=parent.reported_rows(self.view.name) if error is None else None,
        )
        parent.emit(
            events.run_event(
                EventType.FAIL if error is not None else EventType.COMPLETE,
                self.job_name,
                run_id=self.run_id,
                job_facets=parent.job_facets,
                run_facets=run_facets,
                inputs=inputs,
                outputs=outputs,
            )
        )


class MaterializationRun:
    """The parent run of one ``materialize`` or ``materialize_incremental`` call."""

    def __init__(
        self,
        lineage: StoreLineage,
        provider: Any,
        *,
        job_name: str,
        start: datetime | None,
        end: datetime,
        requested: list[str] | None = None,
    ) -> None:
        self.lineage = lineage
        self.provider = provider
        self.job_name = job_name
        # The views asked for (none named: every view, known as each one runs).
        self.requested = list(requested or [])
        self.start = _utc(start)
        self.end = _utc(end) or datetime.now(tz=UTC)
        self.run_id = new_run_id()
        self.views: list[str] = []
        self.starts: list[datetime] = []
        self.counter: RowCounter | None = None
        self.job_facets: dict[str, Any] = {}
        self.parent_facet: Any = None
        self._operation: Any = None

    def emit(self, event: Any) -> None:
        self.lineage.emitter.emit([event])

    def rows(self, view: str) -> int:
        return self.counter.counts.get(view, 0) if self.counter is not None else 0

    def reported_rows(self, view: str) -> int | None:
        """The rows the online store reported writing for ``view``; None: it reported none."""
        return self.counter.counts.get(view) if self.counter is not None else None

    def finished_view(self, view_run: ViewRun) -> None:
        self.views.append(view_run.view.name)
        if view_run.start is not None:
            self.starts.append(view_run.start)

    def view(self, view: Any, start: Any, end: Any) -> ViewRun:
        return ViewRun(self, view, start, end)

    def __enter__(self) -> MaterializationRun:
        self._operation = self.lineage.emitter.operation()
        self._operation.__enter__()
        self.lineage.guard("materialize", self._begin)
        return self

    def _begin(self) -> None:
        events = self.lineage.events
        self.job_facets = events.describer.job_facets("transform", "MATERIALIZE")
        self.parent_facet = events.parent_facet(self.run_id, self.job_name)
        online_store = getattr(self.provider, "online_store", None)
        if online_store is not None and hasattr(online_store, "online_write_batch"):
            self.counter = RowCounter(online_store)
        facet = events.materialization_facet(self.requested, self.start, self.end, 0)
        self.emit(
            events.run_event(
                EventType.START,
                self.job_name,
                run_id=self.run_id,
                job_facets=self.job_facets,
                run_facets={"feast_materialization": facet},
            )
        )

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self.lineage.guard("materialize", lambda: self._end(exc))
        finally:
            if self.counter is not None:
                self.counter.remove()
            self._operation.__exit__(exc_type, exc, tb)

    def _end(self, error: BaseException | None) -> None:
        events = self.lineage.events
        total = sum(self.counter.counts.get(v, 0) for v in self.views) if self.counter else 0
        start = self.start or (min(self.starts) if self.starts else None)
        run_facets: dict[str, Any] = {
            "feast_materialization": events.materialization_facet(
                self.views, start, self.end, total
            )
        }
        if error is not None:
            run_facets["errorMessage"] = events.error_facet(error)
        self.emit(
            events.run_event(
                EventType.FAIL if error is not None else EventType.COMPLETE,
                self.job_name,
                run_id=self.run_id,
                job_facets=self.job_facets,
                run_facets=run_facets,
            )
        )


class TrackedProvider:
    """A provider whose per-view materialization runs inside a child run.

    Feast materializes a view through ``materialize_single_feature_view``,
    except with a compute engine that ``supports_batch`` (Feast 0.65+), to
    which it hands every view in one ``batch_engine.materialize`` call:
    :class:`TrackedEngine` gives each of those views its child run.
    """

    def __init__(self, provider: Any, run: MaterializationRun) -> None:
        self._provider = provider
        self._run = run

    def __getattr__(self, name: str) -> Any:
        return getattr(self._provider, name)

    @property
    def batch_engine(self) -> Any:
        engine = self._provider.batch_engine
        if getattr(engine, "supports_batch", False):
            return TrackedEngine(engine, self._run)
        return engine

    def materialize_single_feature_view(
        self,
        config: Any,
        feature_view: Any,
        start_date: datetime,
        end_date: datetime,
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        with self._run.view(feature_view, start_date, end_date):
            return self._provider.materialize_single_feature_view(
                config, feature_view, start_date, end_date, *args, **kwargs
            )


class TrackedEngine:
    """A compute engine that takes every view at once, each view in a child run.

    ``materialize(registry, tasks)`` returns a job per task; a job in the
    ``ERROR`` state ends its view's run with FAIL and the job's error.
    """

    def __init__(self, engine: Any, run: MaterializationRun) -> None:
        self._engine = engine
        self._run = run

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def materialize(self, registry: Any, tasks: Any, *args: Any, **kwargs: Any) -> Any:
        listed = tasks if isinstance(tasks, list | tuple) else [tasks]
        view_runs = [
            self._run.view(task.feature_view, task.start_time, task.end_time) for task in listed
        ]
        for view_run in view_runs:
            view_run.__enter__()
        try:
            jobs = self._engine.materialize(registry, tasks, *args, **kwargs)
        except BaseException as err:
            for view_run in view_runs:
                view_run.__exit__(type(err), err, err.__traceback__)
            raise
        outcomes = list(jobs) if isinstance(jobs, list | tuple) else []
        for index, view_run in enumerate(view_runs):
            error = _job_error(outcomes[index]) if index < len(outcomes) else _NO_JOB
            view_run.__exit__(None if error is None else type(error), error, None)
        return jobs


_NO_JOB = RuntimeError("the compute engine returned no job for this feature view")


def _job_error(job: Any) -> BaseException | None:
    """The error of a failed materialization job, None when it did not fail."""
    status = job.status()
    if getattr(status, "name", None) != "ERROR":
        return None
    error = job.error()
    if isinstance(error, BaseException):
        return error
    return RuntimeError(f"materialization job {job.job_id()} failed")
