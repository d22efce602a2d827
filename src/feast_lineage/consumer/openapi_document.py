"""The app's OpenAPI document, made exact where FastAPI's declarations cannot say it all.

Every query and path parameter refuses a NUL character (``deps.reject_unknown_query``
and the routes): a string parameter with no ``enum``, ``pattern`` or
``format`` of its own gets the ``pattern`` that says so.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

NO_NUL = "^[^\\u0000]*$"


def _no_nul(schema: dict[str, Any]) -> None:
    if schema.get("type") == "string" and not {"enum", "pattern", "format"} & schema.keys():
        schema["pattern"] = NO_NUL
    for option in schema.get("anyOf", []):
        if isinstance(option, dict):
            _no_nul(option)


def exact_parameters(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with the NUL rule on every free string parameter (changed in place)."""
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter.get("in") in ("query", "path"):
                    _no_nul(parameter.get("schema", {}))
    return document


def install_openapi(app: FastAPI) -> None:
    """Serve the exact document at ``/openapi.json`` (built once, on first request)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = exact_parameters(build())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
