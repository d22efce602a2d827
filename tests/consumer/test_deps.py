"""The shared dependencies: query parameters an endpoint does not take."""

from __future__ import annotations

from fastapi import Depends, FastAPI
from fastapi.testclient import TestClient

from feast_lineage.consumer.deps import reject_unknown_query
from feast_lineage.consumer.errors import install_error_handlers


def _app() -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/bare", dependencies=[Depends(reject_unknown_query)])
    async def bare() -> dict[str, str]:
        return {}

    @app.get("/one", dependencies=[Depends(reject_unknown_query)])
    async def one(limit: int = 1) -> dict[str, int]:
        return {"limit": limit}

    return app


def test_an_endpoint_without_parameters_says_it_takes_none() -> None:
    client = TestClient(_app())
    error = client.get("/bare", params={"x": "1"}).json()["error"]
    assert error["code"] == "unknown_parameter"
    assert "this endpoint takes no query parameters" in error["message"]
    assert "it takes: none" not in error["message"]
    known = client.get("/one", params={"x": "1"}).json()["error"]["message"]
    assert "it takes: limit" in known
