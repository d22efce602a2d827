"""Building the OpenLineage events of Feast operations.

Apply (and lineage-sync) emits one COMPLETE run per job of the spec's table,
each with exactly its own inputs and outputs:

=====================================  ==============================  =================
job                                    inputs                          outputs
=====================================  ==============================  =================
feast_apply_entities                   --                              entities
feast_apply_data_sources               --                              data sources
feast_apply_feature_view_<name>        its sources (or source views)   the view
                                       and entities
feast_apply_odfv_<name>                its source views and request    the view
                                       sources
feast_apply_feature_service_<name>     its views                       the service
feast_apply_saved_dataset_<name>       its service (or views), data    the saved dataset
                                       sources stored alike and the
                                       entity frame it keeps keys of
=====================================  ==============================  =================

Inputs are named only; outputs carry the object's facets, its
``columnLineage`` (:mod:`feast_lineage.producer.columns`) and, for apply, a
``lifecycleStateChange`` facet (CREATE, ALTER, or DROP for deleted objects).
Materialization and retrieval events are built by :class:`EventFactory` too;
a historical retrieval reads its entity frame (with its columns) and writes
its training frame.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent
from openlineage.client.facet_v2 import (
    error_message_run,
    lifecycle_state_change_dataset,
    nominal_time_run,
    output_statistics_output_dataset,
    parent_run,
)
from openlineage.client.generated.base import EventType
from openlineage.client.uuid import generate_new_uuid

from feast_lineage import facets as feast_facets
from feast_lineage.producer import columns, naming
from feast_lineage.producer.changes import Changes
from feast_lineage.producer.describe import Describer
from feast_lineage.registry.objects import GROUPS, ProjectObjects, Ref, kind_of
from feast_lineage.registry.relations import upstream

Lifecycle = lifecycle_state_change_dataset.LifecycleStateChange

_OBJECT_JOB_ORDER = ("feature_view", "stream_feature_view", "label_view", "on_demand_feature_view")


def now_iso() -> str:
    return datetime.now(tz=UTC).isoformat()


def new_run_id() -> str:
    return str(generate_new_uuid())


class EventFactory:
    """Events of one project, with its namespace, producer and facets."""

    def __init__(self, describer: Describer, namespace: str) -> None:
        self.describer = describer
        self.namespace = namespace
        self.producer = describer.producer
        # Objects that could not be described, since the last take_problems().
        self._problems: list[str] = []

    def take_problems(self) -> list[str]:
        problems, self._problems = self._problems, []
        return problems

    def _described(self, ref: Ref, fallback: Any, describe: Any, *args: Any) -> Any:
        """``describe(*args)``; an object it fails on gets ``fallback`` and is noted."""
        try:
            return describe(*args)
        except Exception as err:
            self._problems.append(f"{ref.group} {ref.name!r} ({type(err).__name__}: {err})")
            return fallback

    # Building blocks ------------------------------------------------------

    def run_event(
        self,
        event_type: EventType,
        job_name: str,
        *,
        run_id: str,
        job_facets: dict[str, Any],
        run_facets: dict[str, Any] | None = None,
        inputs: list[InputDataset] | None = None,
        outputs: list[OutputDataset] | None = None,
        event_time: str | None = None,
    ) -> RunEvent:
        return RunEvent(
            eventType=event_type,
            eventTime=event_time or now_iso(),
            run=Run(runId=run_id, facets=run_facets or {}),
            job=Job(namespace=self.namespace, name=job_name, facets=job_facets),
            inputs=inputs or [],
            outputs=outputs or [],
            producer=self.producer,
        )

    def input(self, name: str) -> InputDataset:
        return InputDataset(namespace=self.namespace, name=name)

    def output(
        self, name: str, facets: dict[str, Any], output_facets: dict[str, Any] | None = None
    ) -> OutputDataset:
        return OutputDataset(
            namespace=self.namespace, name=name, facets=facets, outputFacets=output_facets
        )

    def output_statistics(self, rows: int) -> dict[str, Any]:
        """``{"outputStatistics": facet}``: the rows a run wrote to an output."""
        facet = output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet(
            rowCount=rows, producer=self.producer
        )
        return {"outputStatistics": facet}

    def column_facet(self, lineage: columns.ColumnLineage) -> dict[str, Any]:
        """``{"columnLineage": facet}``, or nothing when no column is known."""
        if not lineage:
            return {}
        return {
            "columnLineage": columns.column_lineage_facet(lineage, self.namespace, self.producer)
        }

    def _lifecycle(self, change: Any) -> Any:
        return lifecycle_state_change_dataset.LifecycleStateChangeDatasetFacet(
            lifecycleStateChange=change, producer=self.producer
        )

    # Apply and sync --------------------------------------------------------

    def apply_events(self, changes: Changes) -> list[RunEvent]:
        """The events of one apply: the created, changed and deleted objects."""
        lifecycle: dict[Ref, Any] = dict.fromkeys(changes.created, Lifecycle.CREATE)
        lifecycle.update((ref, Lifecycle.ALTER) for ref in changes.changed)
        lifecycle.update((ref, Lifecycle.DROP) for ref in changes.deleted)
        present = changes.upserted()
        return list(self._definition_events(present, changes.deleted, lifecycle, changes.after))

    def sync_events(self, objects: ProjectObjects) -> list[RunEvent]:
        """The events of a project's whole registry state, as one apply of everything."""
        return list(self._definition_events(dict(objects.refs()), {}, {}, objects))

    def _definition_events(
        self,
        present: dict[Ref, Any],
        deleted: dict[Ref, Any],
        lifecycle: dict[Ref, Any],
        objects: ProjectObjects,
    ) -> Iterator[RunEvent]:
        job_facets = self.describer.job_facets("definition", "APPLY")

        def outputs(refs: Iterable[Ref]) -> list[OutputDataset]:
            out = []
            for ref in sorted(refs):
                facets: dict[str, Any] = {}
                if ref not in deleted:
                    facets = self._described(
                        ref, {}, self.describer.dataset_facets, present[ref], objects
                    )
                    lineage = self._described(
                        ref, columns.ColumnLineage(), columns.of_object, present[ref], objects
                    )
                    facets.update(self.column_facet(lineage))
                change = lifecycle.get(ref)
                if change is not None:
                    facets["lifecycleStateChange"] = self._lifecycle(change)
                out.append(self.output(naming.dataset_name(ref), facets))
            return out

        touched = {**present, **deleted}
        for group, job_name in (
            ("entity", naming.APPLY_ENTITIES),
            ("data_source", naming.APPLY_DATA_SOURCES),
        ):
            refs = [ref for ref in touched if ref.group == group]
            if refs:
                yield self.run_event(
                    EventType.COMPLETE,
                    job_name,
                    run_id=new_run_id(),
                    job_facets=job_facets,
                    outputs=outputs(refs),
                )
        for ref, obj in sorted(touched.items(), key=lambda item: _job_order(item[0], item[1])):
            if ref.group in ("entity", "data_source"):
                continue
            inputs = []
            if ref not in deleted:
                refs = self._described(ref, [], upstream, obj, objects, self.describer.repo_path)
                inputs = [self.input(naming.dataset_name(up)) for up in refs]
                if kind_of(obj) == "saved_dataset" and columns.saved_dataset_keys(obj):
                    # Its entity key columns come from the retrieval's entity frame.
                    frame = naming.entity_frame_dataset_name(obj.feature_service_name)
                    inputs.append(self.input(frame))
            yield self.run_event(
                EventType.COMPLETE,
                naming.apply_job_name(kind_of(obj), ref.name),
                run_id=new_run_id(),
                job_facets=job_facets,
                inputs=inputs,
                outputs=outputs([ref]),
            )

    # Materialization --------------------------------------------------------

    def materialization_facet(
        self, views: list[str], start: datetime | None, end: datetime, rows: int
    ) -> Any:
        types = self.describer.store_types
        return self.describer.custom(
            feast_facets.FeastMaterializationFacet,
            feature_views=views,
            start_date=(start or end).isoformat(),
            end_date=end.isoformat(),
            project=self.describer.project,
            rows_written=rows,
            online_store_type=types.online_store_type,
            offline_store_type=types.offline_store_type,
        )

    def parent_facet(self, run_id: str, job_name: str) -> Any:
        return parent_run.ParentRunFacet(
            run=parent_run.Run(runId=run_id),
            job=parent_run.Job(namespace=self.namespace, name=job_name),
            root=parent_run.Root(
                run=parent_run.RootRun(runId=run_id),
                job=parent_run.RootJob(namespace=self.namespace, name=job_name),
            ),
            producer=self.producer,
        )

    def error_facet(self, error: BaseException) -> Any:
        stack = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        return error_message_run.ErrorMessageRunFacet(
            message=f"{type(error).__name__}: {error}",
            programmingLanguage="PYTHON",
            stackTrace=stack,
            producer=self.producer,
        )

    def materialization_io(
        self, view: Any, *, with_facets: bool, rows_written: int | None = None
    ) -> tuple[list[InputDataset], list[OutputDataset]]:
        """A view's materialization reads its sources and the view, writes its table.

        ``rows_written``: the rows the online store reported writing to the table
        (``outputStatistics``); None when this process did not see them.
        """
        if kind_of(view) == "on_demand_feature_view":
            sources = [naming.dataset_name(ref) for ref in upstream(view, None, None)]
        else:
            batch = getattr(view, "batch_source", None)
            sources = [naming.dataset_name(Ref("data_source", batch.name))] if batch else []
        names = [*sources, naming.dataset_name(Ref("feature_view", view.name))]
        facets: dict[str, Any] = {}
        if with_facets:
            facets = self.describer.online_store_facets(view)
            facets.update(self.column_facet(columns.of_online_store(view)))
        stats = self.output_statistics(rows_written) if rows_written is not None else None
        return (
            [self.input(name) for name in names],
            [self.output(naming.online_store_dataset_name(view.name), facets, stats)],
        )

    # Retrieval ----------------------------------------------------------------

    def retrieval_event(
        self,
        retrieval_type: str,
        *,
        feature_service: str | None,
        views: list[str],
        features: list[str],
        entity_count: int | None,
        full_feature_names: bool,
        window: tuple[datetime, datetime] | None = None,
        frame: columns.TrainingFrame | None = None,
    ) -> RunEvent:
        """A retrieval's run; with ``frame`` (historical), it writes the training frame."""
        run_facets: dict[str, Any] = {
            "feast_retrieval": self.describer.custom(
                feast_facets.FeastRetrievalFacet,
                retrieval_type=retrieval_type,
                feature_service=feature_service,
                feature_views=views,
                features=features,
                entity_count=entity_count,
                full_feature_names=full_feature_names,
            )
        }
        if window is not None:
            run_facets["nominalTime"] = nominal_time_run.NominalTimeRunFacet(
                nominalStartTime=window[0].isoformat(),
                nominalEndTime=window[1].isoformat(),
                producer=self.producer,
            )
        inputs = [self.input(naming.dataset_name(Ref("feature_view", v))) for v in views]
        if feature_service:
            inputs.append(self.input(naming.dataset_name(Ref("feature_service", feature_service))))
        outputs = []
        if frame is not None:
            entity_frame = None
            if frame.entities is not None:
                entity_frame = naming.entity_frame_dataset_name(feature_service)
                inputs.append(
                    InputDataset(
                        namespace=self.namespace,
                        name=entity_frame,
                        facets={"schema": self.describer.schema_facet(frame.entities.columns)},
                    )
                )
            types: dict[str, str | None] = dict(frame.entities.columns) if frame.entities else {}
            entity_columns = list(types)
            for f in frame.features:
                types[f.column(full_feature_names)] = f.type
            lineage = columns.of_training_frame(
                frame.features, full_feature_names, entity_frame, entity_columns
            )
            outputs.append(
                self.output(
                    naming.training_frame_dataset_name(feature_service),
                    {
                        "schema": self.describer.schema_facet(
                            [(name, types.get(name)) for name in lineage.fields]
                        ),
                        **self.column_facet(lineage),
                    },
                )
            )
        return self.run_event(
            EventType.COMPLETE,
            naming.retrieval_job_name(retrieval_type, feature_service),
            run_id=new_run_id(),
            job_facets=self.describer.job_facets("transform", "RETRIEVAL"),
            run_facets=run_facets,
            inputs=inputs,
            outputs=outputs,
        )


def _job_order(ref: Ref, obj: Any) -> tuple[int, int, str]:
    group_rank = GROUPS.index(ref.group)
    kind = kind_of(obj)
    kind_rank = _OBJECT_JOB_ORDER.index(kind) if kind in _OBJECT_JOB_ORDER else 0
    return group_rank, kind_rank, ref.name
