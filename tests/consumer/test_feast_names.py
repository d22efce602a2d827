"""Feast's emitter's names onto ours: the same names the producer gives, and only Feast's events.

The end-to-end proof (Feast 0.67's own emitter and server, then the
import and our producer) is tests/feast_api/test_import_names.py; these
check the rules one by one on events shaped as Feast 0.67 stores them.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from feast_lineage.consumer.feast_names import ALIAS_TYPE, FeastNames, our_job_name
from feast_lineage.producer import naming
from feast_lineage.registry.objects import Ref

FEAST = "https://feast.dev/spec/facets/1-0-0/"


def facet(name: str, **fields: Any) -> dict[str, Any]:
    return {"_producer": "feast", "_schemaURL": f"{FEAST}{name}.json", **fields}


def event(job: str, inputs: list[Any], outputs: list[Any], **more: Any) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": "2026-01-01T00:00:00Z",
        "producer": "feast",
        "run": {"runId": "01930000-0000-7000-8000-000000000001", "facets": {}},
        "job": {
            "namespace": "demo",
            "name": job,
            "facets": {"feast_jobKind": facet("FeastJobKindFacet", kind="definition")},
        },
        "inputs": inputs,
        "outputs": outputs,
        **more,
    }


def ds(name: str, **facets: Any) -> dict[str, Any]:
    return {"namespace": "demo", "name": name, "facets": facets}


APPLY = event(
    "feast_feature_views_demo",
    [
        ds("driver_stats", feast_dataSource=facet("FeastDataSourceFacet")),
        ds("driver", feast_entity=facet("FeastEntityFacet")),
    ],
    [ds("driver_hourly_stats", feast_featureView=facet("FeastFeatureViewFacet"))],
)
SERVICE = event(
    "feature_service_driver_activity",
    [ds("driver_hourly_stats"), ds("expected_trips")],  # bare: views
    [ds("driver_activity", feast_featureService=facet("FeastFeatureServiceFacet"))],
)


def names_of(e: dict[str, Any]) -> list[str]:
    return [d["name"] for d in (*e.get("inputs", []), *e.get("outputs", []))]


@pytest.mark.parametrize(
    ("kind", "facet_name"),
    [
        ("data_source", "feast_dataSource"),
        ("entity", "feast_entity"),
        ("feature_view", "feast_featureView"),
        ("feature_service", "feast_featureService"),
        ("saved_dataset", "feast_savedDataset"),
    ],
)
def test_each_kind_gets_the_producers_name(kind: str, facet_name: str) -> None:
    e = event("feast_feature_views_demo", [], [ds("thing", **{facet_name: facet("F")})])
    assert FeastNames().rename(e)
    assert e["outputs"][0]["name"] == naming.dataset_name(Ref(kind, "thing"))


def test_an_online_store_and_the_jobs_get_the_producers_names() -> None:
    e = event(
        "materialize_demo", [], [ds("online_store_driver_hourly_stats", feast_onlineStore={})]
    )
    FeastNames().rename(e)
    assert e["outputs"][0]["name"] == naming.online_store_dataset_name("driver_hourly_stats")
    assert e["job"]["name"] == naming.MATERIALIZE
    assert our_job_name("feature_view_v") == naming.apply_job_name("feature_view", "v")
    assert our_job_name("stream_feature_view_v") == naming.apply_job_name("feature_view", "v")
    assert our_job_name("on_demand_feature_view_v") == naming.apply_job_name(
        "on_demand_feature_view", "v"
    )
    assert our_job_name("feature_service_s") == naming.apply_job_name("feature_service", "s")
    assert our_job_name("saved_dataset_d") == naming.apply_job_name("saved_dataset", "d")
    assert our_job_name("feast_feature_views_demo") == "feast_feature_views_demo"


def test_bare_references_take_the_kind_learned_elsewhere_and_keep_feasts_name() -> None:
    names = FeastNames()
    for e in (APPLY, SERVICE):
        names.learn(e)
    service = copy.deepcopy(SERVICE)
    names.rename(service)
    # Learned from the apply; an unknown bare input of a service is a view too.
    assert names_of(service) == [
        "feature_view/driver_hourly_stats",
        "feature_view/expected_trips",
        "feature_service/driver_activity",
    ]
    (alias,) = service["inputs"][0]["facets"]["symlinks"]["identifiers"]
    assert alias == {"namespace": "demo", "name": "driver_hourly_stats", "type": ALIAS_TYPE}


def test_a_name_feast_gave_two_kinds_stays_as_it_is_where_the_event_does_not_say() -> None:
    names = FeastNames()
    names.learn(event("x", [ds("same", feast_dataSource=facet("F"))], []))
    names.learn(event("x", [], [ds("same", feast_featureView=facet("F"))]))
    e = event("saved_dataset_d", [ds("same")], [])
    names.rename(e)
    assert names_of(e) == ["same"]


def test_materialize_incremental_is_told_by_its_start() -> None:
    names = FeastNames()
    start = event("materialize_demo", [], [], eventType="START")
    start["run"]["facets"]["feast_materialization"] = facet("M", feature_views=["v"])
    complete = event("materialize_demo", [], [])
    for e in (start, complete):
        names.learn(e)
    for e in (start, complete):
        names.rename(e)
        assert e["job"]["name"] == naming.MATERIALIZE_INCREMENTAL


def test_other_producers_events_are_left_alone() -> None:
    ours = copy.deepcopy(APPLY)
    ours["job"]["facets"] = {"feast_project": {"_schemaURL": "http://localhost:6580/x.json"}}
    spark = {**copy.deepcopy(APPLY), "producer": "https://spark"}
    del spark["job"]["facets"]
    names = FeastNames()
    for e in (ours, spark):
        names.learn(e)
        before = copy.deepcopy(e)
        assert not names.rename(e)
        assert e == before
    # A dataset event of Feast's producer (a saved dataset's) is Feast's.
    names.learn(APPLY)
    dataset_event = {
        "eventTime": "2026-01-01T00:00:00Z",
        "producer": "feast",
        "dataset": ds("training", feast_savedDataset=facet("S")),
    }
    assert names.rename(dataset_event)
    assert dataset_event["dataset"]["name"] == "saved_dataset/training"


def test_column_lineage_follows_the_renamed_inputs() -> None:
    e = copy.deepcopy(APPLY)
    e["outputs"][0]["facets"]["columnLineage"] = {
        "fields": {
            "conv_rate": {
                "inputFields": [{"namespace": "demo", "name": "driver_stats", "field": "c"}]
            }
        }
    }
    FeastNames().rename(e)
    (ref,) = e["outputs"][0]["facets"]["columnLineage"]["fields"]["conv_rate"]["inputFields"]
    assert ref["name"] == "data_source/driver_stats"
