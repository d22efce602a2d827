"""Lineage scenarios for the query tests, sent through the real ingest endpoint."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi.testclient import TestClient

from tests.factories import at, dataset, facet, run_event, schema_facet

API = "/api/v1/lineage/openlineage"


def ingest(
    client: TestClient, *events: dict[str, Any], headers: dict[str, str] | None = None
) -> None:
    response = client.post("/api/v1/lineage/batch", json=list(events), headers=headers)
    assert response.status_code == 204, response.text


def subgraph_path(kind: str, namespace: str, name: str) -> str:
    return f"{API}/graph/{kind}/{quote(namespace, safe='')}/{quote(name, safe='')}"


def chain(namespace: str = "team", length: int = 3) -> list[dict[str, Any]]:
    """d0 -> j1 -> d1 -> j2 -> d2 ... -> j{length} -> d{length}."""
    return [
        run_event(
            "COMPLETE",
            job=(namespace, f"j{i}"),
            time=at(i),
            inputs=[dataset(namespace, f"d{i - 1}")],
            outputs=[dataset(namespace, f"d{i}")],
        )
        for i in range(1, length + 1)
    ]


def cross_producer() -> list[dict[str, Any]]:
    """Spark writes s3://bucket/features/driver, Feast reads it under its own name.

    spark job ``build`` reads postgres ``public.trips`` and writes the S3 path;
    a second spark job ``audit`` reads the S3 path (it is downstream of it);
    Feast's ``driver_source`` symlinks to the S3 path, and Feast's apply job
    reads it and writes the feature view ``driver_fv``.
    """
    s3 = dataset("s3://bucket", "features/driver", schema=schema_facet("driver_id", "trips"))
    return [
        run_event(
            "COMPLETE",
            job=("spark://ml-team", "build"),
            inputs=[dataset("postgres://db:5432", "public.trips")],
            outputs=[s3],
        ),
        run_event(
            "COMPLETE",
            job=("spark://ml-team", "audit"),
            inputs=[dataset("s3://bucket", "features/driver")],
            outputs=[dataset("s3://bucket", "audit/report")],
        ),
        run_event(
            "COMPLETE",
            job=("ml_team", "feast_apply_feature_view_driver_fv"),
            inputs=[
                dataset(
                    "ml_team",
                    "driver_source",
                    feast_data_source=facet(name="driver_source", source_type="FileSource"),
                    symlinks=facet(
                        identifiers=[
                            {"namespace": "s3://bucket", "name": "features/driver", "type": "FILE"}
                        ]
                    ),
                )
            ],
            outputs=[
                dataset(
                    "ml_team",
                    "driver_fv",
                    feast_feature_view=facet(name="driver_fv", features=["trips"]),
                    schema=schema_facet("trips"),
                )
            ],
        ),
    ]
