"""The quickstart's Feast definitions: the driver-stats example.

Two file sources, written upstream by other producers (see quickstart.py):
``data/driver_stats.parquet`` by a dbt model, ``data/driver_trips.parquet``
by an Airflow task. Feature views over them, an on-demand view that adds
request values, and two feature services. The saved dataset is created from
a historical retrieval in quickstart.py.
"""

from datetime import timedelta

import pandas as pd
from feast import Entity, FeatureService, FeatureView, Field, FileSource, RequestSource
from feast.on_demand_feature_view import on_demand_feature_view
from feast.types import Float32, Float64, Int64
from feast.value_type import ValueType

driver = Entity(
    name="driver",
    join_keys=["driver_id"],
    value_type=ValueType.INT64,
    description="A driver of the ride-hailing fleet",
    owner="fleet-data@example.com",
    tags={"team": "fleet"},
)

driver_stats_source = FileSource(
    name="driver_hourly_stats_source",
    path="data/driver_stats.parquet",
    timestamp_field="event_timestamp",
    created_timestamp_column="created",
    description="Hourly driver statistics, built by the dbt model analytics.driver_hourly_stats",
    tags={"upstream": "dbt"},
)

driver_trips_source = FileSource(
    name="driver_daily_trips_source",
    path="data/driver_trips.parquet",
    timestamp_field="event_timestamp",
    description="Daily trip counts, exported by the Airflow DAG driver_features_daily",
    tags={"upstream": "airflow"},
)

driver_hourly_stats = FeatureView(
    name="driver_hourly_stats",
    entities=[driver],
    ttl=timedelta(days=1),
    schema=[
        Field(name="conv_rate", dtype=Float32, description="Share of offers the driver accepted"),
        Field(name="acc_rate", dtype=Float32, description="Acceptance rate"),
        Field(name="avg_daily_trips", dtype=Int64, description="Average trips per day"),
    ],
    online=True,
    source=driver_stats_source,
    description="Driver statistics per hour",
    owner="fleet-data@example.com",
    tags={"team": "fleet", "pii": "no"},
)

driver_daily_trips = FeatureView(
    name="driver_daily_trips",
    entities=[driver],
    ttl=timedelta(days=7),
    schema=[
        Field(name="trips_today", dtype=Int64, description="Trips completed today"),
        Field(name="rating", dtype=Float32, description="Average rating today"),
    ],
    online=True,
    source=driver_trips_source,
    description="Driver trips per day",
    owner="fleet-data@example.com",
    tags={"team": "fleet"},
)

input_request = RequestSource(
    name="vals_to_add",
    schema=[
        Field(name="val_to_add", dtype=Int64, description="A value sent with the request"),
        Field(name="val_to_add_2", dtype=Int64, description="Another request value"),
    ],
)


@on_demand_feature_view(
    sources=[driver_hourly_stats, input_request],
    schema=[
        Field(name="conv_rate_plus_val1", dtype=Float64),
        Field(name="conv_rate_plus_val2", dtype=Float64),
    ],
    description="The conversion rate adjusted by request values",
    owner="ranking@example.com",
)
def transformed_conv_rate(inputs: pd.DataFrame) -> pd.DataFrame:
    out = pd.DataFrame()
    out["conv_rate_plus_val1"] = inputs["conv_rate"] + inputs["val_to_add"]
    out["conv_rate_plus_val2"] = inputs["conv_rate"] + inputs["val_to_add_2"]
    return out


driver_activity_v1 = FeatureService(
    name="driver_activity_v1",
    features=[driver_hourly_stats, transformed_conv_rate],
    description="Features of the driver ranking model, version 1",
    owner="ranking@example.com",
    tags={"model": "driver_ranking"},
)

driver_activity_v2 = FeatureService(
    name="driver_activity_v2",
    features=[driver_hourly_stats, driver_daily_trips, transformed_conv_rate],
    description="Features of the driver ranking model, version 2 (adds daily trips)",
    owner="ranking@example.com",
    tags={"model": "driver_ranking"},
)
