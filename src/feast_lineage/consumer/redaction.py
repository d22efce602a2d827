"""Removing references to hidden namespaces from stored JSON (events, facets).

A visible event or node can name datasets and jobs of namespaces the
caller may not see: an event's inputs and outputs, a ``parent`` run facet,
a ``symlinks`` dataset facet, a ``columnLineage`` facet's input fields, a
``lineage`` facet's entries and inputs, a ``jobDependencies`` facet's jobs,
or any custom facet. For a finite scope these references are dropped before
the JSON leaves the server; with an unlimited scope the JSON is returned as
stored.

:func:`facets` is the one rule; every stored facet a read returns passes
through it, and :func:`event`, :func:`stored_facets` and
:func:`stored_event` are the ways in for whole events and stored text.

Known facets keep their shape: a ``parent`` facet whose job is hidden goes
whole, one whose root is hidden loses its ``root``, and a ``symlinks`` facet
loses the hidden identifiers (and goes when none is left), and a
``jobDependencies`` facet loses the dependencies on a hidden job (their
run and trigger rules with them). Beyond those,
the rule fails closed whatever the facet: any object inside a facet with a
string ``namespace`` the caller may not see is dropped, from its list or
from the object that holds it (a custom facet that is itself such an
object goes whole).

A dataset's facets are the latest payloads any event stated, and that
event may be a hidden job's (one that wrote or read the dataset): the facet
is about the dataset, but its stamps (``_producer``, ``_schemaURL``) name
the hidden producer. Which event stated a facet is not stored, so for a
finite scope a dataset's stored facets lose their stamps
(:func:`dataset_facets`, ``stamped=False`` of :func:`stored_facets`), as a
dataset version's do when its job is hidden (:func:`unstamped`).

Free text goes with the references it may describe, as column lineage
(``/columns``) withholds it: when an object loses a hidden reference (an
item of one of its lists, or one of its members), every description inside
that object (any key ending in ``description``, whatever its case:
``transformationDescription``, a transformation's ``description``) is
dropped too. So a ``columnLineage`` field with a hidden input field loses
its ``transformationDescription`` and the descriptions of its other inputs'
transformations, and a hidden dataset-level input (the facet's ``dataset``
list) withholds the descriptions of the whole facet; a ``lineage`` facet's
field, entry or facet loses them the same way. Dropping a hidden *target*
from a ``lineage`` job facet's ``entries`` withholds nothing of the other
entries (they do not read from it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from feast_lineage.consumer.access.scope import Scope

Json = dict[str, Any]

# Lists of targets, not inputs: dropping a hidden item says nothing of the others.
_TARGET_LISTS = frozenset({"entries"})


def _visible_ref(value: Any, scope: Scope) -> bool:
    namespace = value.get("namespace") if isinstance(value, dict) else None
    return isinstance(namespace, str) and scope.allows(namespace)


def _hidden_job(dependency: Any, scope: Scope) -> bool:
    """A ``jobDependencies`` item whose job is of a hidden namespace."""
    job = dependency.get("job") if isinstance(dependency, dict) else None
    namespace = job.get("namespace") if isinstance(job, dict) else None
    return isinstance(namespace, str) and not scope.allows(namespace)


def _is_description(key: str) -> bool:
    return key.lower().endswith("description")


def _without_descriptions(value: Any) -> Any:
    """``value`` without any free-text description, at any depth."""
    if isinstance(value, dict):
        return {
            key: _without_descriptions(item)
            for key, item in value.items()
            if not (isinstance(key, str) and _is_description(key))
        }
    if isinstance(value, list):
        return [_without_descriptions(item) for item in value]
    return value


_HIDDEN = object()  # what :func:`_without_hidden` makes of a hidden reference


def _without_hidden(value: Any, scope: Scope) -> Any:
    """``value`` without the objects that name a namespace outside ``scope``.

    An object that loses one (a member, or an item of one of its lists)
    loses its descriptions too.
    """
    if isinstance(value, dict):
        namespace = value.get("namespace")
        if isinstance(namespace, str) and not scope.allows(namespace):
            return _HIDDEN
        out: Json = {}
        lost = False
        for key, item in value.items():
            if isinstance(item, list):
                kept_items = [_without_hidden(x, scope) for x in item]
                kept: Any = [x for x in kept_items if x is not _HIDDEN]
                lost = lost or (len(kept) < len(item) and key not in _TARGET_LISTS)
            else:
                kept = _without_hidden(item, scope)
                if kept is _HIDDEN:
                    lost = True
                    continue
            out[key] = kept
        return _without_descriptions(out) if lost else out
    if isinstance(value, list):
        items = [_without_hidden(item, scope) for item in value]
        return [item for item in items if item is not _HIDDEN]
    return value


def facets(value: Any, scope: Scope) -> Any:
    """A facets object without the parts that name hidden namespaces (nor text about them)."""
    if scope.is_everything or not isinstance(value, dict):
        return value
    out = dict(value)
    links = out.get("symlinks")
    if isinstance(links, dict) and isinstance(links.get("identifiers"), list):
        kept = [i for i in links["identifiers"] if _visible_ref(i, scope)]
        if kept:
            out["symlinks"] = {**links, "identifiers": kept}
        else:
            del out["symlinks"]
    parent = out.get("parent")
    if isinstance(parent, dict):
        if not _visible_ref(parent.get("job"), scope):
            del out["parent"]
        elif "root" in parent and not _visible_ref(
            (parent.get("root") or {}).get("job") if isinstance(parent.get("root"), dict) else None,
            scope,
        ):
            out["parent"] = {k: v for k, v in parent.items() if k != "root"}
    dependencies = out.get("jobDependencies")
    if isinstance(dependencies, dict):
        out["jobDependencies"] = {
            key: [d for d in items if not _hidden_job(d, scope)]
            if key in ("upstream", "downstream") and isinstance(items, list)
            else items
            for key, items in dependencies.items()
        }
    # Each facet on its own: a facet dropped whole withholds nothing of the others.
    shown: Json = {}
    for name, payload in out.items():
        kept_facet = _without_hidden(payload, scope)
        if kept_facet is not _HIDDEN:
            shown[name] = kept_facet
    return shown


# What an event writes on each facet it states: its producer, and the facet's schema
# (a custom facet's is the producer's own URL).
_STAMPS = frozenset({"_producer", "_schemaURL"})


def unstamped(value: Json) -> Json:
    """Facets without the stamps of the events that stated them."""
    return {
        name: {k: v for k, v in payload.items() if k not in _STAMPS}
        if isinstance(payload, dict)
        else payload
        for name, payload in value.items()
    }


def dataset_facets(value: Json, scope: Scope) -> Json:
    """A dataset's stored facets as a caller limited to ``scope`` may see them: as
    :func:`facets` leaves them, and for a finite scope without their stamps (the event
    that stated one may be a hidden job's)."""
    if scope.is_everything:
        return value
    shown: Json = unstamped(facets(value, scope))
    return shown


def _dataset(value: Any, scope: Scope) -> Any:
    if not isinstance(value, dict):
        return value
    out = dict(value)
    for key in ("facets", "inputFacets", "outputFacets"):
        if key in out:
            out[key] = facets(out[key], scope)
    return out


def event(value: Json, scope: Scope) -> Json:
    """An OpenLineage event as a caller limited to ``scope`` may see it."""
    if scope.is_everything:
        return value
    out = dict(value)
    for key in ("run", "job"):
        part = out.get(key)
        if isinstance(part, dict) and "facets" in part:
            out[key] = {**part, "facets": facets(part["facets"], scope)}
    for key in ("inputs", "outputs"):
        items = out.get(key)
        if isinstance(items, list):
            out[key] = [_dataset(ds, scope) for ds in items if _visible_ref(ds, scope)]
    if isinstance(out.get("dataset"), dict):
        out["dataset"] = _dataset(out["dataset"], scope)
    return out


def stored_event(stored: str, scope: Scope) -> Any:
    """A stored event (JSON text) as the caller may see it.

    Embedded as it is (``orjson.Fragment``, no parse) for an unlimited
    scope; decoded and redacted otherwise.
    """
    if scope.is_everything:
        return orjson.Fragment(stored)
    return event(orjson.loads(stored), scope)


def stored_facets(
    stored: Mapping[str, str], scope: Scope, needed: tuple[str, ...] = (), *, stamped: bool = True
) -> tuple[Json, Json]:
    """(facets to return, the parsed facets the caller's summary reads) from stored text.

    With an unlimited scope the stored JSON is embedded as it is (no parse,
    no re-encode) and only the ``needed`` facets are parsed; otherwise every
    facet is parsed and redacted, and both are the redacted facets; without
    their stamps unless ``stamped`` (a dataset's are not: :func:`dataset_facets`).
    """
    if scope.is_everything:
        parsed = {k: orjson.loads(stored[k]) for k in needed if k in stored}
        return {k: orjson.Fragment(v) for k, v in stored.items()}, parsed
    loaded = {k: orjson.loads(v) for k, v in stored.items()}
    visible = facets(loaded, scope) if stamped else dataset_facets(loaded, scope)
    return visible, visible
