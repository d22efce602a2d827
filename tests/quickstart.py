"""The quickstart script (examples/quickstart/quickstart.py), loaded as a module.

Its ``other_producers`` builds what ``post-events`` sends (the Airflow DAG,
dbt and Spark events) without Feast, so tests can ingest the quickstart's
own story in-process; :func:`feast_side` adds what Feast reports there, in
short.
"""

from __future__ import annotations

import importlib.util
import uuid
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

from tests.factories import dataset, facet, iso, run_event

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "examples" / "quickstart" / "quickstart.py"


def load_quickstart() -> ModuleType:
    spec = importlib.util.spec_from_file_location("quickstart_under_test", QUICKSTART)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def feast_side(data: Path, time: datetime) -> list[dict[str, Any]]:
    """What Feast reports in the quickstart, in short: data sources naming the trips and
    stats files, the feature views and services read from them, the saved training set
    (the file Spark trains on), and a materialization (a parent run and one child)."""
    ns, when = "driver_ranking", iso(time)

    def aka(namespace: str, name: str, file: str, **facets: Any) -> dict[str, Any]:
        same = facet(identifiers=[{"namespace": "file", "name": str(data / file), "type": "FILE"}])
        return dataset(namespace, name, symlinks=same, **facets)

    daily = aka(ns, "data_source/driver_daily_trips_source", "driver_trips.parquet")
    hourly = aka(ns, "data_source/driver_hourly_stats_source", "driver_stats.parquet")
    saved = aka(
        ns,
        "saved_dataset/driver_training_set",
        "driver_training_set.parquet",
        feast_saved_dataset=facet(name="driver_training_set"),
    )
    fv_daily, fv_hourly = (
        dataset(ns, f"feature_view/{v}", feast_feature_view=facet(name=v))
        for v in ("driver_daily_trips", "driver_hourly_stats")
    )
    fs_v1, fs_v2 = (
        dataset(ns, f"feature_service/{s}", feast_feature_service=facet(name=s))
        for s in ("driver_activity_v1", "driver_activity_v2")
    )

    def job(name: str, ins: list[Any], outs: list[Any], **more: Any) -> dict[str, Any]:
        return run_event("COMPLETE", job=(ns, name), time=when, inputs=ins, outputs=outs, **more)

    materialize = str(uuid.uuid4())
    return [
        job("feast_apply_data_sources", [], [daily, hourly]),
        job("feast_apply_feature_view_driver_daily_trips", [daily], [fv_daily]),
        job("feast_apply_feature_view_driver_hourly_stats", [hourly], [fv_hourly]),
        job("feast_apply_feature_service_driver_activity_v1", [fv_hourly], [fs_v1]),
        job("feast_apply_feature_service_driver_activity_v2", [fv_daily, fv_hourly], [fs_v2]),
        job("feast_get_historical_features_driver_activity_v1", [fs_v1], [saved]),
        run_event("COMPLETE", run_id=materialize, job=(ns, "feast_materialize"), time=when),
        job(
            "feast_materialize_feature_view_driver_daily_trips",
            [fv_daily],
            [dataset(ns, "online_store/driver_daily_trips")],
            parent=(materialize, (ns, "feast_materialize")),
        ),
    ]
