"""The one recursive walk: the node walk, the field walk and alias grouping are all built here.

A walk is a recursive CTE whose rows are a node (one or more columns) and
the depth at which the walk reached it, the depth last. From a row, each
:class:`Step` is one way out: a table joined when the row matches it, giving
the far node's columns. A step either goes one level deeper (an edge; only
while ``depth`` is below the ``depth`` parameter) or stays at the same level
(a symlink: aliases are one node). Every step of a row is tried in one
round: the row is crossed with a small table of step numbers and each step's
table is outer-joined on its number, so each step stays an index lookup and
the query never walks level by level from Python. UNION (not UNION ALL)
keeps each (node, depth) once, so a cycle costs at most ``depth`` rounds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from sqlalchemy import (
    CTE,
    ColumnElement,
    FromClause,
    Integer,
    SelectBase,
    and_,
    bindparam,
    case,
    literal,
    or_,
    select,
    true,
    union_all,
)


class Step(NamedTuple):
    """One way out of a row of the walk."""

    table: FromClause  # joined to the row when ``on`` holds
    on: ColumnElement[bool]
    to: tuple[ColumnElement[object], ...]  # the far node's columns, in the seed's order
    found: ColumnElement[object]  # a column of ``table``: not null when the step was taken
    deeper: bool  # one level deeper (an edge), or the same level (an alias)


def recursive_walk(
    name: str, seed: SelectBase, steps: Callable[[FromClause], Sequence[Step]]
) -> CTE:
    """The walk from ``seed`` (its last column the depth, 0) along ``steps``.

    ``steps`` gets the walk's own rows (alias ``w``) and makes the steps out
    of them. The caller selects what it needs from the returned CTE.
    """
    walked = seed.cte(name, recursive=True)
    w = walked.alias("w")
    made = steps(w)
    hops = union_all(*(select(literal(k, Integer).label("k")) for k in range(len(made))))
    k = hops.subquery("hops").c.k
    joined = w.join(k.table, true())
    limit = bindparam("depth", type_=Integer)
    for n, step in enumerate(made):
        deeper = [w.c.depth < limit] if step.deeper else []
        joined = joined.outerjoin(step.table, and_(k == n, step.on, *deeper))
    far = [_by_step(k, [s.to[i] for s in made]) for i in range(len(made[0].to))]
    deeper_steps = [(k == n, w.c.depth + 1) for n, s in enumerate(made) if s.deeper]
    depth = case(*deeper_steps, else_=w.c.depth) if deeper_steps else w.c.depth
    step_rows = (
        select(*far, depth).select_from(joined).where(or_(*(s.found.is_not(None) for s in made)))
    )
    return walked.union(step_rows)


def _by_step(k: ColumnElement[int], values: list[ColumnElement[object]]) -> ColumnElement[object]:
    """The value of the step taken: ``values[k]``."""
    if len(values) == 1:
        return values[0]
    return case(*((k == n, v) for n, v in enumerate(values[:-1])), else_=values[-1])
