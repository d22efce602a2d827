"""Real Feast feature repositories for producer tests.

:func:`write_repo` writes a repository: feature_store.yaml (SQL registry on
SQLite, SQLite online store, file offline store), parquet files written with
pandas, and a definitions module. Each definitions module gets a unique name,
because Feast imports repository files by module name and Python caches them.
"""

from __future__ import annotations

import importlib.util
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd
import yaml

NOW = datetime(2026, 1, 10, tzinfo=UTC)
DRIVERS = [1001, 1002, 1003, 1004, 1005]
CUSTOMERS = ["alice", "bob", "carol"]
HOURS = 48

# Objects `feast apply` handles (the CLI path plans with the SQLite online store),
# in parts so tests can drop or change some.
HEADER = """
from datetime import timedelta

import pandas as pd
from feast import Entity, FeatureService, FeatureView, Field, FileSource, PushSource, RequestSource
from feast.feature_logging import LoggingConfig
from feast.infra.offline_stores.file_source import FileLoggingDestination
from feast.on_demand_feature_view import on_demand_feature_view
from feast.types import Float32, Float64, Int64, String
from feast.value_type import ValueType
"""
DRIVER = """
driver = Entity(
    name="driver",
    join_keys=["driver_id"],
    value_type=ValueType.INT64,
    description="A driver of the fleet",
    owner="fleet@example.com",
    tags={"team": "fleet"},
)
driver_stats_source = FileSource(
    name="driver_stats_source",
    path="data/driver_stats.parquet",
    timestamp_field="event_timestamp",
    created_timestamp_column="created",
    field_mapping={"trips": "avg_daily_trips"},
    description="Hourly driver statistics",
    tags={"tier": "gold"},
)
driver_hourly_stats = FeatureView(
    name="driver_hourly_stats",
    entities=[driver],
    ttl=timedelta(days=1),
    schema=[
        Field(name="conv_rate", dtype=Float32, description="Conversion rate"),
        Field(name="acc_rate", dtype=Float32, description="Acceptance rate"),
        Field(name="avg_daily_trips", dtype=Int64, description="Trips per day"),
    ],
    source=driver_stats_source,
    description="Driver statistics per hour",
    owner="fleet@example.com",
    tags={"team": "fleet"},
)
driver_stats_push = PushSource(name="driver_stats_push", batch_source=driver_stats_source)
driver_fresh_stats = FeatureView(
    name="driver_fresh_stats",
    entities=[driver],
    ttl=timedelta(hours=12),
    schema=[Field(name="conv_rate", dtype=Float32)],
    source=driver_stats_push,
)
trip_request = RequestSource(
    name="trip_request", schema=[Field(name="trip_distance", dtype=Float64, description="km")]
)


@on_demand_feature_view(
    sources=[driver_hourly_stats, trip_request],
    schema=[Field(name="expected_trips", dtype=Float64)],
    description="Trips expected on this request",
)
def expected_trips(inputs: pd.DataFrame) -> pd.DataFrame:
    out = pd.DataFrame()
    out["expected_trips"] = inputs["conv_rate"] * inputs["trip_distance"]
    return out


driver_activity = FeatureService(
    name="driver_activity",
    features=[driver_hourly_stats, expected_trips],
    description="What the dispatch model reads",
    owner="dispatch@example.com",
    tags={"model": "dispatch"},
)
"""
CUSTOMER = """
customer = Entity(name="customer", join_keys=["customer_id"], value_type=ValueType.STRING)
customer_source = FileSource(
    name="customer_source", path="data/customers.parquet", timestamp_field="event_timestamp"
)
customer_profile = FeatureView(
    name="customer_profile",
    entities=[customer],
    ttl=timedelta(0),
    schema=[Field(name="lifetime_value", dtype=Float64), Field(name="segment", dtype=String)],
    source=customer_source,
)
customer_overview = FeatureService(
    name="customer_overview",
    features=[customer_profile[["lifetime_value"]]],
    logging_config=LoggingConfig(destination=FileLoggingDestination(path="data/logs")),
)
"""
BASE = HEADER + DRIVER + CUSTOMER

# Feast 0.59 cannot plan stream feature views with the SQLite online store
# (`feast apply` fails in Feast itself), so these go through FeatureStore.apply.
STREAMS = """
from datetime import timedelta

from feast import BatchFeatureView, Field
from feast.data_format import JsonFormat
from feast.data_source import KafkaSource
from feast.stream_feature_view import StreamFeatureView
from feast.types import Float32, Int64

from {base} import driver, driver_stats_source

driver_stream = KafkaSource(
    name="driver_stream",
    kafka_bootstrap_servers="broker:9092",
    topic="driver-events",
    timestamp_field="event_timestamp",
    batch_source=driver_stats_source,
    message_format=JsonFormat(schema_json="driver_id integer, event_timestamp timestamp"),
)
driver_stream_stats = StreamFeatureView(
    name="driver_stream_stats",
    entities=[driver],
    ttl=timedelta(hours=1),
    schema=[Field(name="conv_rate", dtype=Float32)],
    source=driver_stream,
    timestamp_field="event_timestamp",
    owner="stream@example.com",
)
driver_daily = BatchFeatureView(
    name="driver_daily",
    entities=[driver],
    ttl=timedelta(days=2),
    schema=[Field(name="avg_daily_trips", dtype=Int64)],
    source=driver_stats_source,
    online=True,
)
"""


def write_data(root: Path) -> None:
    data = root / "data"
    data.mkdir(parents=True, exist_ok=True)
    rows = []
    for driver in DRIVERS:
        for hour in range(HOURS):
            at = NOW - timedelta(hours=hour)
            rows.append(
                {
                    "driver_id": driver,
                    "event_timestamp": at,
                    "created": at,
                    "conv_rate": (driver % 7) / 10 + hour / 1000,
                    "acc_rate": 0.5,
                    "trips": hour,
                }
            )
    frame = pd.DataFrame(rows)
    frame["conv_rate"] = frame["conv_rate"].astype("float32")
    frame["acc_rate"] = frame["acc_rate"].astype("float32")
    frame.to_parquet(data / "driver_stats.parquet")
    customers = pd.DataFrame(
        {
            "customer_id": CUSTOMERS,
            "event_timestamp": [NOW - timedelta(hours=i) for i in range(len(CUSTOMERS))],
            "lifetime_value": [10.0, 20.5, 30.25],
            "segment": ["a", "b", "a"],
        }
    )
    customers.to_parquet(data / "customers.parquet")


def write_config(
    root: Path,
    *,
    project: str = "demo",
    openlineage: dict[str, Any] | None = None,
    online_path: str = "data/online.db",
    registry: Any = None,
    **more: Any,
) -> None:
    """Write feature_store.yaml; ``more``: other top-level options (``batch_engine``)."""
    config: dict[str, Any] = {
        "project": project,
        # Absolute: Feast opens a SQL registry's path from the current directory,
        # and only `feast apply` changes into the repository.
        "registry": registry
        or {
            "registry_type": "sql",
            "path": f"sqlite:///{root.resolve()}/data/registry.db",
        },
        "provider": "local",
        "online_store": {"type": "sqlite", "path": online_path},
        "offline_store": {"type": "file"},
        "entity_key_serialization_version": 3,
        **more,
    }
    if openlineage is not None:
        config["openlineage"] = openlineage
    (root / "feature_store.yaml").write_text(yaml.safe_dump(config))


def with_section(repo_config: Any, openlineage: dict[str, Any]) -> Any:
    """A copy of a Feast RepoConfig with this openlineage section, on every Feast release.

    Set as an unknown key, where Feast 0.59 keeps the section and where
    feast-lineage's own loader keeps it on later releases.
    """
    return repo_config.model_copy(update={"openlineage": openlineage})


def write_definitions(root: Path, text: str = BASE, *, streams: bool = False) -> str:
    """Replace the repository's definitions; returns the base module's name."""
    for old in root.glob("defs_*.py"):
        old.unlink()
    base = f"defs_{uuid.uuid4().hex[:10]}"
    (root / f"{base}.py").write_text(text)
    if streams:
        # Kept out of `feast apply` (see STREAMS) and loaded with load_module.
        (root / f"{base}_streams.py").write_text(STREAMS.replace("{base}", base))
        (root / ".feastignore").write_text(f"{base}_streams.py\n")
    return base


def write_repo(
    root: Path,
    *,
    project: str = "demo",
    openlineage: dict[str, Any] | None = None,
    definitions: str = BASE,
    streams: bool = False,
    registry: Any = None,
) -> tuple[Path, str]:
    root.mkdir(parents=True, exist_ok=True)
    write_data(root)
    write_config(root, project=project, openlineage=openlineage, registry=registry)
    return root, write_definitions(root, definitions, streams=streams)


def load_module(root: Path, name: str) -> ModuleType:
    """Import a definitions module of ``root`` (for the Python API)."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, root / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def feast_objects(module: ModuleType) -> list[Any]:
    """Every Feast object a definitions module defines, in definition order."""
    from feast import Entity, FeatureService, FeatureView, OnDemandFeatureView
    from feast.data_source import DataSource

    kinds = (Entity, DataSource, FeatureView, OnDemandFeatureView, FeatureService)
    return [value for value in vars(module).values() if isinstance(value, kinds)]


def read_events(path: Path) -> list[dict[str, Any]]:
    import json

    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def file_transport(path: Path, **extra: Any) -> dict[str, Any]:
    return {
        "enabled": True,
        "transport_type": "file",
        "additional_config": {"log_file_path": str(path)},
        **extra,
    }
