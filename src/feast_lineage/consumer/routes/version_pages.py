"""The HTTP edge of the versions endpoints of datasets and jobs: their path and their page.

``/datasets/{namespace}/{name}/versions[/{id}]`` and
``/jobs/{namespace}/{name}/versions[/{id}]`` take the namespace and the
name as one percent-encoded path segment each (servers decode ``%2F``
before routing, so they come from the raw path), the same window
(``since``, ``until``) and page (``limit``, ``offset``), and an id whose
form is checked here, so that a malformed one is a 400 naming the
parameter and the form rather than a 404.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Literal

from fastapi import Depends, Query, Request

from feast_lineage.consumer.deps import Offset
from feast_lineage.consumer.errors import parameter
from feast_lineage.consumer.routes.params import (
    DATE_TIME,
    decode_segments,
    encoded_segments,
    invalid,
    time_range,
)
from feast_lineage.consumer.services.version_pages import VersionWindow

Kind = Literal["dataset", "job"]
# A version id's form, by kind: what the versions list gives as ``id``.
ID_DIGITS: dict[Kind, int] = {"dataset": 16, "job": 32}
ID_EXAMPLES: dict[Kind, str] = {"dataset": "3f2a9c0b1d4e5f60", "job": "9b2f" * 8}


def id_pattern(kind: Kind) -> str:
    return f"^[0-9a-fA-F]{{{ID_DIGITS[kind]}}}$"


@dataclass(frozen=True, slots=True)
class VersionPath:
    """What a versions path names: a dataset's or job's namespace and name."""

    namespace: str
    name: str


def _parts(request: Request, kind: Kind, decoded: str, with_id: bool) -> list[str]:
    """The path after ``/{kind}s/``: namespace, name, ``versions`` (and the id), checked."""
    parts = encoded_segments(request, f"/openlineage/{kind}s/", decoded)
    shape = "/versions/{id}" if with_id else "/versions"
    if len(parts) != (4 if with_id else 3) or parts[2] != "versions":
        example = (
            "s3%3A%2F%2Fbucket/path%2Fto%2Ftable"
            if kind == "dataset"
            else "airflow%3A%2F%2Fprod/dag%2Ftask"
        )
        raise invalid(
            f"expected /{kind}s/{{namespace}}/{{name}}{shape} with the namespace and the name "
            "percent-encoded as one path segment each (a '/' as %2F), e.g. "
            f"/{kind}s/{example}{shape}"
        )
    namespace, name = decode_segments(parts[:2])
    if not namespace or not name:
        raise invalid(f"the {kind}'s namespace and name must not be empty")
    return [namespace, name, *parts[3:]]


def versions_path(request: Request, kind: Kind, decoded: str) -> VersionPath:
    """The dataset or job of ``.../versions``; a 400 naming what is wrong."""
    namespace, name = _parts(request, kind, decoded, with_id=False)
    return VersionPath(namespace, name)


def version_path(request: Request, kind: Kind, decoded: str) -> tuple[VersionPath, str]:
    """The dataset or job and the version id (lower case) of ``.../versions/{id}``.

    A malformed id is a 400 naming the parameter and the form of a
    ``kind`` version's id, not a 404.
    """
    namespace, name, version_id = _parts(request, kind, decoded, with_id=True)
    if not re.fullmatch(id_pattern(kind), version_id):
        raise invalid(
            f"{parameter('path', 'version_id')}: {version_id!r} is not a {kind} version id: "
            f"expected {ID_DIGITS[kind]} hex digits (the 'id' of an item of the versions "
            f"list), e.g. {ID_EXAMPLES[kind]}"
        )
    return VersionPath(namespace, name), version_id.lower()


def version_window(
    since: Annotated[
        str | None,
        Query(
            description="Versions at or after this time (not after until): a dataset "
            "version's time, a job version's first run",
            json_schema_extra=DATE_TIME,
        ),
    ] = None,
    until: Annotated[
        str | None,
        Query(
            description="Versions before this time (not before since); a job version's "
            "run_count and latest_run then count only its runs started before it",
            json_schema_extra=DATE_TIME,
        ),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=1000, description="Versions a page (1 to 1,000)")] = 50,
    offset: Offset = 0,
) -> VersionWindow:
    """The window and page a versions list asks for."""
    since_us, until_us = time_range(since, until)
    return VersionWindow(since_us=since_us, until_us=until_us, limit=limit, offset=offset)


VersionWindowDep = Annotated[VersionWindow, Depends(version_window)]
