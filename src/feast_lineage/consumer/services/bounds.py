"""Bounds of read parameters, and what a request asked beyond them.

Feast 0.67's lineage server accepts some values ours cannot serve as asked
(``graph?limit=0`` for every node, ``limit`` up to 10,000, ``depth`` up to
50). Rather than refuse a Feast client, a service serves the nearest value
it can and says so: each ``Clamped`` (of ``schemas.py``) names the parameter,
the value asked for, the value used and why; answers list them under
``clamped``.
"""

from __future__ import annotations

from feast_lineage.consumer.schemas import Clamped

# A page of the whole graph: past this a page costs more than paging does.
MAX_GRAPH_PAGE = 5000
# Steps of a subgraph walk: the walk's cost grows with each step, and every
# real pipeline we have seen is fewer steps deep.
MAX_DEPTH = 20


def clamp_limit(requested: int, highest: int, found: list[Clamped]) -> int:
    """A page size of 1 to ``highest``; 0 (Feast's "no limit") and more are ``highest``."""
    if 1 <= requested <= highest:
        return requested
    reason = (
        f"0 means no limit to Feast; this server serves at most {highest} nodes a page: "
        "page with offset"
        if requested == 0
        else f"this server serves at most {highest} nodes a page: page with offset"
    )
    found.append(Clamped(parameter="limit", requested=requested, used=highest, reason=reason))
    return highest


def clamp_depth(requested: int, found: list[Clamped]) -> int:
    """A subgraph's depth of at most :data:`MAX_DEPTH` steps."""
    if requested <= MAX_DEPTH:
        return requested
    reason = (
        f"this server walks at most {MAX_DEPTH} steps from the node: ask again from a node "
        "at the edge of the answer to go further"
    )
    found.append(Clamped(parameter="depth", requested=requested, used=MAX_DEPTH, reason=reason))
    return MAX_DEPTH
