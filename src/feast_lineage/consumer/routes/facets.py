"""``/api/v1/lineage/facets/{name}.json``: the JSON schemas of the custom Feast facets.

The producer's facets point their ``_schemaURL`` here (see
:mod:`feast_lineage.facets`).
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from feast_lineage.consumer.errors import NotFound
from feast_lineage.consumer.schemas import ErrorResponse

router = APIRouter(tags=["facets"], responses={404: {"model": ErrorResponse}})


@router.get(
    "/facets/{name}.json",
    summary="The JSON schema of a custom Feast facet",
    response_class=Response,
    responses={200: {"content": {"application/schema+json": {}}}},
)
async def get_facet_schema(name: str) -> Response:
    from feast_lineage.facets import FACET_NAMES, schema_text

    if name not in FACET_NAMES:
        raise NotFound(f"no facet schema named {name!r}; known: {', '.join(sorted(FACET_NAMES))}")
    return Response(schema_text(name), media_type="application/schema+json")
