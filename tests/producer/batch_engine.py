"""A compute engine that takes every feature view in one call, as Feast 0.65+ allows.

Feast's own local engine, saying ``supports_batch``: Feast then hands it all
views at once (``batch_engine.materialize``) instead of calling the
provider's ``materialize_single_feature_view`` per view. Select it with
``batch_engine: tests.producer.batch_engine.BatchLocalComputeEngine``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from feast.infra.compute_engines.local.compute import LocalComputeEngine


class BatchLocalComputeEngine(LocalComputeEngine):  # type: ignore[misc]
    calls: ClassVar[list[list[str]]] = []  # the views of each materialize call

    @property
    def supports_batch(self) -> bool:
        return True

    def materialize(self, registry: Any, tasks: Any, *args: Any, **kwargs: Any) -> Any:
        listed = tasks if isinstance(tasks, list) else [tasks]
        type(self).calls.append(sorted(task.feature_view.name for task in listed))
        return super().materialize(registry, tasks, *args, **kwargs)
