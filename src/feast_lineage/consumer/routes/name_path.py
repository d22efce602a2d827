"""A stored name at the end of a route's path: :func:`name_path`, its ``{name}`` any character.

A namespace or a name is one percent-encoded path segment, but servers
decode ``%2F`` before routing, so a route takes the name with Starlette's
``path`` convertor and the handler splits the path as sent
(:mod:`feast_lineage.consumer.sent_path`). That convertor's regex is ``.*``,
and ``.`` matches anything but a newline: a name holding one
(``job%0Awith%20newline``, legal in OpenLineage and stored by ingest)
matched no route, and the answer was 404 "no such endpoint". The
``anything`` convertor here is ``path`` whose regex matches every
character (``(?s:.*)``); every route that takes a stored name in its path
declares it through :func:`name_path`.

Starlette finds a convertor by its name in one table of its own when a
route is built, and a route module builds its routes when it is imported
(FastAPI compiles them again, from the same table, when an app includes
them). So the convertor must be in that table before any route module is
imported: registering it is this package's one import-time side effect,
done here, when this module is imported. Every route module that uses
:func:`name_path` imports it from here, which orders the registration
before its routes. It adds one entry and changes none of Starlette's own.
"""

from __future__ import annotations

from starlette.convertors import PathConvertor, register_url_convertor

CONVERTOR = "anything"


class AnythingConvertor(PathConvertor):
    """Starlette's ``path`` convertor (the rest of the path, ``/`` included), newlines too."""

    regex = "(?s:.*)"


register_url_convertor(CONVERTOR, AnythingConvertor())


def name_path(template: str) -> str:
    """``template`` (``/jobs/{namespace}/{name}/versions``) with ``{name}`` taking any character.

    The route's path template (OpenAPI's, the query-time metric's label)
    still reads ``{name}``.
    """
    if "{name}" not in template:
        raise ValueError(f"{template!r} has no {{name}} segment")
    return template.replace("{name}", "{name:" + CONVERTOR + "}")
