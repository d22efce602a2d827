"""Validating events against the official OpenLineage schemas, offline.

The core schema (2-0-2) and every standard facet schema are read from
../shared/openlineage/spec and registered by their ``$id``; the custom Feast
facet schemas are registered at the URL the producer's ``_schemaURL`` names
(the lineage server's facet route), so resolving ``_schemaURL`` proves it
points at the schema this project ships. Format assertions (uri, uuid,
date-time) are checked.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource

from feast_lineage.facets import FACET_NAMES, schema, schema_url
from tests.conftest import SPEC_DIR

CORE = "https://openlineage.io/spec/2-0-2/OpenLineage.json"
_LOCATIONS = (
    ("InputDatasetFacet", "input"),
    ("OutputDatasetFacet", "output"),
    ("DatasetFacet", "dataset"),
    ("JobFacet", "job"),
    ("RunFacet", "run"),
)


@cache
def _standard() -> tuple[list[tuple[str, Resource[Any]]], dict[tuple[str, str], str]]:
    resources = []
    by_key: dict[tuple[str, str], str] = {}
    core = json.loads((SPEC_DIR / "OpenLineage.json").read_text())
    resources.append((core["$id"], Resource.from_contents(core)))
    for path in sorted((SPEC_DIR / "facets").glob("*.json")):
        doc = json.loads(path.read_text())
        resources.append((doc["$id"], Resource.from_contents(doc)))
        location = next((loc for suffix, loc in _LOCATIONS if path.stem.endswith(suffix)), None)
        if location is None:  # a facet of no event part (LineageFacet)
            continue
        for key in doc.get("properties", {}):
            by_key[(location, key)] = f"{doc['$id']}#/properties/{key}"
    return resources, by_key


@cache
def _registry(server: str) -> Registry[Any]:
    resources, _ = _standard()
    for name in FACET_NAMES:
        url = schema_url(server, name).split("#", 1)[0]
        resources = [*resources, (url, Resource.from_contents(schema(name)))]
    return Registry().with_resources(resources)


def _validate(instance: Any, ref: str, server: str) -> list[str]:
    validator = Draft202012Validator(
        {"$ref": ref}, registry=_registry(server), format_checker=FormatChecker()
    )
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator.iter_errors(instance)
    ]


def problems(event: dict[str, Any], server: str) -> list[str]:
    """Every way ``event`` strays from the core schema and its facets' schemas."""
    kind = "RunEvent" if "run" in event else "DatasetEvent" if "dataset" in event else "JobEvent"
    found = [f"core: {p}" for p in _validate(event, f"{CORE}#/$defs/{kind}", server)]
    _, by_key = _standard()

    def check(location: str, facets: dict[str, Any] | None, where: str) -> None:
        for key, facet in (facets or {}).items():
            url = facet.get("_schemaURL", "")
            if key.startswith("feast_"):
                if not url.startswith(server):
                    found.append(f"{where}.{key}: _schemaURL {url} is not the server's")
                ref = url
            elif (location, key) in by_key:
                ref = by_key[(location, key)]
            else:
                found.append(f"{where}.{key}: no standard schema for this facet")
                continue
            found.extend(f"{where}.{key}: {p}" for p in _validate(facet, ref, server))

    if "run" in event:
        check("run", event["run"].get("facets"), "run")
    if "job" in event:
        check("job", event["job"].get("facets"), "job")
    for key in ("inputs", "outputs"):
        for i, ds in enumerate(event.get(key) or []):
            check("dataset", ds.get("facets"), f"{key}[{i}]")
            io_key = "inputFacets" if key == "inputs" else "outputFacets"
            check("input" if key == "inputs" else "output", ds.get(io_key), f"{key}[{i}]")
    return found


COLUMN_LINEAGE = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json"


def column_lineage_problems(facet: dict[str, Any], server: str = "") -> list[str]:
    """How a ``columnLineage`` facet strays from ColumnLineageDatasetFacet 1-2-0."""
    found = _validate(facet, f"{COLUMN_LINEAGE}#/$defs/ColumnLineageDatasetFacet", server)
    if not str(facet.get("_schemaURL", "")).startswith(COLUMN_LINEAGE):
        found.append(f"_schemaURL {facet.get('_schemaURL')} is not {COLUMN_LINEAGE}")
    for output, spec in facet.get("fields", {}).items():
        for key in ("transformationType", "transformationDescription"):
            if key in spec:
                found.append(f"fields.{output}: deprecated {key} (1-2-0 uses transformations)")
        for item in [*spec.get("inputFields", [])]:
            if not item.get("transformations"):
                found.append(f"fields.{output}: input {item.get('field')} has no transformations")
    return found
