"""Removing references to hidden namespaces from stored JSON (events, facets).

A visible event or node can name datasets and jobs of namespaces the
caller may not see: an event's inputs and outputs, a ``parent`` run facet,
a ``symlinks`` dataset facet, a ``columnLineage`` facet's input fields, or
any custom facet. For a finite scope these references are dropped before
the JSON leaves the server; with an unlimited scope the JSON is returned as
stored.

Known facets keep their shape: a ``parent`` facet whose job is hidden goes
whole, one whose root is hidden loses its ``root``, and a ``symlinks`` facet
loses the hidden identifiers (and goes when none is left). Beyond those,
the rule fails closed whatever the facet: any object inside a facet with a
string ``namespace`` the caller may not see is dropped, from its list or
from the object that holds it (a custom facet that is itself such an
object goes whole).
"""

from __future__ import annotations

from typing import Any

from feast_lineage.consumer.access.scope import Scope


def _visible_ref(value: Any, scope: Scope) -> bool:
    namespace = value.get("namespace") if isinstance(value, dict) else None
    return isinstance(namespace, str) and scope.allows(namespace)


_HIDDEN = object()  # what :func:`_without_hidden` makes of a hidden reference


def _without_hidden(value: Any, scope: Scope) -> Any:
    """``value`` without the objects that name a namespace outside ``scope``."""
    if isinstance(value, dict):
        namespace = value.get("namespace")
        if isinstance(namespace, str) and not scope.allows(namespace):
            return _HIDDEN
        out: dict[str, Any] = {}
        for key, item in value.items():
            kept = _without_hidden(item, scope)
            if kept is not _HIDDEN:
                out[key] = kept
        return out
    if isinstance(value, list):
        items = [_without_hidden(item, scope) for item in value]
        return [item for item in items if item is not _HIDDEN]
    return value


def facets(value: Any, scope: Scope) -> Any:
    """A facets object without the parts that name hidden namespaces."""
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
    kept = _without_hidden(out, scope)
    return kept if kept is not _HIDDEN else {}


def _dataset(value: Any, scope: Scope) -> Any:
    if not isinstance(value, dict):
        return value
    out = dict(value)
    for key in ("facets", "inputFacets", "outputFacets"):
        if key in out:
            out[key] = facets(out[key], scope)
    return out


def event(value: dict[str, Any], scope: Scope) -> dict[str, Any]:
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
