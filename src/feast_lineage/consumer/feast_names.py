"""Feast's own emitter's names, mapped onto ours when its events are imported.

Feast's built-in emitter (0.60 to 0.67) names a dataset by the bare name of
its object in the project's namespace (``driver_hourly_stats``), where
feast-lineage's producer names it ``<group>/<name>``
(:mod:`feast_lineage.producer.naming`: ``feature_view/driver_hourly_stats``).
Imported as they are, Feast's events would make a second graph beside the
one ``feast-lineage apply`` reports, with no path between the two. So the
import renames, in every event Feast's emitter sent:

=================================  ===================================
Feast's dataset                    ours
=================================  ===================================
a data source ``<name>``           ``data_source/<name>``
an entity ``<name>``               ``entity/<name>``
a view (batch, stream, on demand)  ``feature_view/<name>``
a feature service ``<name>``       ``feature_service/<name>``
a saved dataset ``<name>``         ``saved_dataset/<name>``
``online_store_<view>``            ``online_store/<view>``
=================================  ===================================

and its jobs: ``feature_view_<v>`` and ``stream_feature_view_<v>`` become
``feast_apply_feature_view_<v>``, ``on_demand_feature_view_<v>``
``feast_apply_odfv_<v>``, ``feature_service_<s>``
``feast_apply_feature_service_<s>``, ``saved_dataset_<d>``
``feast_apply_saved_dataset_<d>``, and ``materialize_<project>``
``feast_materialize``, or ``feast_materialize_incremental`` for a run whose
START gave no start date (how Feast's emitter reports
``materialize-incremental``). ``feast_feature_views_<project>`` (one job for
every view of an apply) has no counterpart here and keeps its name.

What a dataset is comes from its own Feast facet (``feast_featureView``,
``feast_dataSource``, ...) where the event gives one; a bare reference (a
feature service's input views) takes the kind that the same name has in
Feast's other events (:meth:`FeastNames.learn`, a first pass over the
table), else the kind its job implies (a feature service reads views). A
name still unknown, or one Feast gave two kinds (a data source and a view
of the same name are one dataset to Feast's emitter), stays as it is.

Each renamed dataset keeps Feast's name in its ``symlinks`` facet (type
:data:`ALIAS_TYPE`), so the name Feast's API and dashboards used still
finds it: the graph treats a dataset and its aliases as one.

Only events of Feast's emitter are renamed: those whose job carries one of
Feast's own facets (a ``_schemaURL`` on feast.dev), and dataset events sent
by the same ``producer``. Other producers' events in Feast's table are
imported as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

FEAST_SCHEMAS = "https://feast.dev/"
ALIAS_TYPE = "FEAST_BUILTIN_LINEAGE"
IMPORT_PRODUCER = "https://github.com/feast-lineage/feast-lineage#import-feast-lineage"
SYMLINKS_SCHEMA = (
    "https://openlineage.io/spec/facets/1-0-1/SymlinksDatasetFacet.json#/$defs/SymlinksDatasetFacet"
)

# Feast's dataset facets, and the group of our names each tells.
_KIND_FACETS = {
    "feast_dataSource": "data_source",
    "feast_entity": "entity",
    "feast_featureView": "feature_view",
    "feast_featureService": "feature_service",
    "feast_savedDataset": "saved_dataset",
    "feast_onlineStore": "online_store",
}
_ONLINE_PREFIX = "online_store_"

# Feast's job names (prefix or whole name), and ours.
_JOB_PREFIXES = (
    ("stream_feature_view_", "feast_apply_feature_view_"),
    ("on_demand_feature_view_", "feast_apply_odfv_"),
    ("feature_view_", "feast_apply_feature_view_"),
    ("feature_service_", "feast_apply_feature_service_"),
    ("saved_dataset_", "feast_apply_saved_dataset_"),
)
_MATERIALIZE = re.compile(r"^materialize_.+")
MATERIALIZE_JOB = "feast_materialize"
MATERIALIZE_INCREMENTAL_JOB = "feast_materialize_incremental"
# What a bare input of a Feast job is, when nothing else says.
_INPUTS_OF = {"feature_service_": "feature_view"}


def _is_feast_facet(value: Any) -> bool:
    return isinstance(value, dict) and str(value.get("_schemaURL", "")).startswith(FEAST_SCHEMAS)


def _job(event: dict[str, Any]) -> dict[str, Any] | None:
    job = event.get("job")
    return job if isinstance(job, dict) else None


def _from_feast_emitter(event: dict[str, Any]) -> bool:
    job = _job(event)
    facets = job.get("facets") if job is not None else None
    return isinstance(facets, dict) and any(_is_feast_facet(v) for v in facets.values())


def _datasets(event: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The datasets of an event, each with its side (``input``, ``output``, ``dataset``)."""
    found: list[tuple[str, dict[str, Any]]] = []
    for key, side in (("inputs", "input"), ("outputs", "output")):
        items = event.get(key)
        if isinstance(items, list):
            found.extend((side, d) for d in items if isinstance(d, dict))
    dataset = event.get("dataset")
    if isinstance(dataset, dict):
        found.append(("dataset", dataset))
    return found


def _own_kind(dataset: dict[str, Any]) -> str | None:
    facets = dataset.get("facets")
    if not isinstance(facets, dict):
        return None
    kinds = {kind for name, kind in _KIND_FACETS.items() if isinstance(facets.get(name), dict)}
    return kinds.pop() if len(kinds) == 1 else None


def _run_id(event: dict[str, Any]) -> str | None:
    run = event.get("run")
    run_id = run.get("runId") if isinstance(run, dict) else None
    return run_id if isinstance(run_id, str) else None


def _incremental(event: dict[str, Any]) -> bool | None:
    """Whether a materialization START says incremental (no start date); None: it does not say."""
    run = event.get("run")
    facets = run.get("facets") if isinstance(run, dict) else None
    facet = facets.get("feast_materialization") if isinstance(facets, dict) else None
    if event.get("eventType") != "START" or not isinstance(facet, dict):
        return None
    return not facet.get("start_date")


def our_job_name(name: str, incremental: bool = False) -> str:
    """The name of Feast's job ``name`` here (itself when it has no counterpart)."""
    if _MATERIALIZE.match(name):
        return MATERIALIZE_INCREMENTAL_JOB if incremental else MATERIALIZE_JOB
    for prefix, ours in _JOB_PREFIXES:
        if name.startswith(prefix) and len(name) > len(prefix):
            return ours + name[len(prefix) :]
    return name


def our_dataset_name(kind: str, name: str) -> str:
    if kind == "online_store":
        view = name[len(_ONLINE_PREFIX) :] if name.startswith(_ONLINE_PREFIX) else name
        return f"online_store/{view}"
    return f"{kind}/{name}"


@dataclass
class FeastNames:
    """What the import knows of Feast's names: learned first, then applied to each event."""

    kinds: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    producers: set[str] = field(default_factory=set)
    incremental_runs: set[str] = field(default_factory=set)  # materialize-incremental's

    def learn(self, event: Any) -> None:
        """Note the kind of each dataset an event of Feast's emitter describes."""
        if not isinstance(event, dict) or not _from_feast_emitter(event):
            return
        producer = event.get("producer")
        if isinstance(producer, str):
            self.producers.add(producer)
        run_id = _run_id(event)
        if run_id is not None and _incremental(event):
            self.incremental_runs.add(run_id)
        for _, dataset in _datasets(event):
            kind = _own_kind(dataset)
            ns, name = dataset.get("namespace"), dataset.get("name")
            if kind is not None and isinstance(ns, str) and isinstance(name, str):
                self.kinds.setdefault((ns, name), set()).add(kind)

    def _is_feasts(self, event: dict[str, Any]) -> bool:
        if _from_feast_emitter(event):
            return True
        return (
            _job(event) is None
            and isinstance(event.get("dataset"), dict)
            and event.get("producer") in self.producers
        )

    def _kind(self, dataset: dict[str, Any], side: str, job_name: str | None) -> str | None:
        own = _own_kind(dataset)
        if own is not None:
            return own
        learned = self.kinds.get((dataset["namespace"], dataset["name"]), set())
        if len(learned) == 1:
            return next(iter(learned))
        if side == "input" and job_name is not None and not learned:
            for prefix, kind in _INPUTS_OF.items():
                if job_name.startswith(prefix):
                    return kind
        return None

    def rename(self, event: Any) -> bool:
        """Rename, in place, the jobs and datasets of an event of Feast's emitter.

        Returns whether the event is one of Feast's emitter's (and so was
        looked at); events of other producers are left alone.
        """
        if not isinstance(event, dict) or not self._is_feasts(event):
            return False
        job = _job(event)
        job_name = job.get("name") if job is not None else None
        if job is not None and isinstance(job_name, str):
            job["name"] = our_job_name(job_name, _run_id(event) in self.incremental_runs)
        renamed: dict[tuple[str, str], str] = {}
        for side, dataset in _datasets(event):
            ns, name = dataset.get("namespace"), dataset.get("name")
            if not isinstance(ns, str) or not isinstance(name, str):
                continue
            kind = self._kind(dataset, side, job_name if isinstance(job_name, str) else None)
            if kind is None:
                continue
            ours = our_dataset_name(kind, name)
            dataset["name"] = ours
            renamed[(ns, name)] = ours
            _add_alias(dataset, ns, name)
        if renamed:
            for _, dataset in _datasets(event):
                _rename_column_inputs(dataset, renamed)
        return True


def _add_alias(dataset: dict[str, Any], namespace: str, name: str) -> None:
    facets = dataset.get("facets")
    if not isinstance(facets, dict):
        facets = dataset["facets"] = {}
    identifier = {"namespace": namespace, "name": name, "type": ALIAS_TYPE}
    symlinks = facets.get("symlinks")
    if isinstance(symlinks, dict) and isinstance(symlinks.get("identifiers"), list):
        if identifier not in symlinks["identifiers"]:
            symlinks["identifiers"] = [*symlinks["identifiers"], identifier]
        return
    facets["symlinks"] = {
        "_producer": IMPORT_PRODUCER,
        "_schemaURL": SYMLINKS_SCHEMA,
        "identifiers": [identifier],
    }


def _rename_column_inputs(dataset: dict[str, Any], renamed: dict[tuple[str, str], str]) -> None:
    """Point a ``columnLineage`` facet's input fields at the renamed datasets."""
    facets = dataset.get("facets")
    facet = facets.get("columnLineage") if isinstance(facets, dict) else None
    if not isinstance(facet, dict):
        return
    refs: list[Any] = []
    fields = facet.get("fields")
    if isinstance(fields, dict):
        for spec in fields.values():
            if isinstance(spec, dict) and isinstance(spec.get("inputFields"), list):
                refs.extend(spec["inputFields"])
    if isinstance(facet.get("dataset"), list):
        refs.extend(facet["dataset"])
    for ref in refs:
        if isinstance(ref, dict):
            key = (ref.get("namespace"), ref.get("name"))
            if key in renamed:
                ref["name"] = renamed[key]
