"""The app's OpenAPI document, made exact where FastAPI's declarations cannot say it all.

* Every query and path parameter refuses a NUL character
  (``deps.reject_unknown_query`` and the routes): a string parameter with
  no ``enum``, ``pattern`` or ``format`` of its own gets the ``pattern``
  that says so.
* The ingest bodies refer to ``JsonValue``, the free-form JSON the server
  stores (:mod:`.intake.event_schema`), and an array of events has the
  configured ``max_batch_events`` as its ``maxItems``.
* ``securitySchemes`` name the credentials (``X-API-Key``, or
  ``Authorization: Bearer``), and each operation that may answer ``401``
  says which it needs under the app's settings: ingest and admin operations the consumer's
  ``api_key`` (optional while none is set), reads the authorizer's keys or
  tokens (none under ``open``; optional with ``anonymous_projects``).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from feast_lineage.consumer.intake.event_schema import JSON_VALUE, NO_NUL
from feast_lineage.consumer.settings import AppSettings

SECURITY_SCHEMES = {
    "ApiKey": {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
        "description": "The consumer's api_key (ingest, admin, every read) or a read key",
    },
    "Bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": (
            "The same keys as Authorization: Bearer <key>; under the feast authorizer, "
            "a Feast access token for reads"
        ),
    },
}
_KEY: list[dict[str, list[str]]] = [{"ApiKey": []}, {"Bearer": []}]
_OPTIONAL: list[dict[str, list[str]]] = [*_KEY, {}]


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


def _requirement(
    method: str, operation: dict[str, Any], settings: AppSettings
) -> list[dict[str, list[str]]] | None:
    """The security requirement of an operation under ``settings`` (None: no credential).

    An operation takes a credential when it may answer ``401``; ingest and
    the changes (prune, reset) take the consumer's ``api_key``, reads the
    authorizer's keys or tokens.
    """
    if "401" not in operation.get("responses", {}):
        return None
    consumer = settings.consumer
    if "ingest" in operation.get("tags", ()) or method != "get":
        return _KEY if consumer.api_key_value() else _OPTIONAL
    authorizer = consumer.authorizer
    if authorizer.type == "open":
        return None
    if "metrics" in operation.get("tags", ()):  # store-wide figures: never anonymous
        return _KEY
    return _OPTIONAL if getattr(authorizer, "anonymous_projects", None) else _KEY


def exact_security(document: dict[str, Any], settings: AppSettings) -> dict[str, Any]:
    """``document`` with its security schemes and each operation's requirement (in place)."""
    document.setdefault("components", {})["securitySchemes"] = SECURITY_SCHEMES
    for operations in document.get("paths", {}).values():
        for method, operation in operations.items():
            requirement = _requirement(method, operation, settings)
            if requirement is not None:
                operation["security"] = requirement
    return document


def exact_bodies(document: dict[str, Any], settings: AppSettings) -> dict[str, Any]:
    """``document`` with ``JsonValue`` and the batch limit on the ingest bodies (in place)."""
    document.setdefault("components", {}).setdefault("schemas", {})["JsonValue"] = JSON_VALUE
    limit = settings.consumer.max_batch_events

    def bound(schema: Any) -> None:
        if isinstance(schema, dict):
            if schema.get("type") == "array" and "anyOf" in schema.get("items", {}):
                schema["maxItems"] = limit
            for option in schema.get("anyOf", []):
                bound(option)

    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            content = operation.get("requestBody", {}).get("content", {})
            bound(content.get("application/json", {}).get("schema"))
    return document


def install_openapi(app: FastAPI) -> None:
    """Serve the exact document at ``/openapi.json`` (built once, on first request)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = exact_parameters(build())
            exact_bodies(document, app.state.settings)
            app.openapi_schema = exact_security(document, app.state.settings)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
