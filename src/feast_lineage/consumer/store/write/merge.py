"""The merge of two rows of one key in memory, generated from :mod:`.merge_rules`.

:func:`merger` turns a table's rules into a function of (stored or first
row, incoming row) that returns the merged row and changes neither; it gives
what the table's upsert (:mod:`.upserts`) would leave. The rules are turned
into steps once, when the writer's module loads, so a merge runs a short list
of comparisons with no lookup of what each rule means.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from feast_lineage.consumer.store.write import merge_rules as mr

Row = dict[str, Any]
# (old, new, merged): sets ``merged``'s columns from ``old`` and ``new``
Step = Callable[[Row, Row, Row], None]


def ranks_higher(new: Any, old: Any) -> bool:
    """``new`` is present and above ``old`` (a missing value loses; a tie keeps ``old``)."""
    return new is not None and (old is None or new > old)


def merger(table: mr.TableRules) -> Callable[[Row, Row], Row]:
    """The merge of two rows of one key under ``table``'s rules."""
    groups = _rank_groups(table)
    if len(groups) == 1 and len(table.rules) == sum(len(c) for c in groups.values()):
        # Every column follows one rank: the merged row is one of the two, as it is.
        ((rank, _columns),) = groups.items()
        return lambda old, new: new if ranks_higher(new[rank], old[rank]) else old
    steps = [_highest_step(rank, columns) for rank, columns in groups.items()]
    derived: list[Step] = []
    for column, rule in table.rules.items():
        if not isinstance(rule, mr.Highest):
            (derived if isinstance(rule, mr.Fallback) else steps).append(_step(column, rule))
    steps.extend(derived)  # read the merged values: after every other step

    def merge(old: Row, new: Row) -> Row:
        merged = old.copy()
        for step in steps:
            step(old, new, merged)
        return merged

    return merge


def _rank_groups(table: mr.TableRules) -> dict[str, tuple[str, ...]]:
    """The columns of each :class:`~.merge_rules.Highest` rank, in the order of the rules."""
    groups: dict[str, tuple[str, ...]] = {}
    for column, rule in table.rules.items():
        if isinstance(rule, mr.Highest):
            groups[rule.rank] = (*groups.get(rule.rank, ()), column)
    return groups


def _highest_step(rank: str, columns: tuple[str, ...]) -> Step:
    def step(old: Row, new: Row, merged: Row) -> None:
        if ranks_higher(new[rank], old[rank]):
            for column in columns:
                merged[column] = new[column]

    return step


# Long because it is one branch per rule of merge_rules.py, each a few lines: read side by side.
def _step(column: str, rule: mr.Rule) -> Step:
    if isinstance(rule, mr.Maximum):

        def step(old: Row, new: Row, merged: Row) -> None:
            if new[column] > old[column]:
                merged[column] = new[column]

    elif isinstance(rule, mr.Minimum):

        def step(old: Row, new: Row, merged: Row) -> None:
            if new[column] < old[column]:
                merged[column] = new[column]

    elif isinstance(rule, mr.LeastPresent):

        def step(old: Row, new: Row, merged: Row) -> None:
            value = new[column]
            if value is not None and (old[column] is None or value < old[column]):
                merged[column] = value

    elif isinstance(rule, mr.FirstPresent):

        def step(old: Row, new: Row, merged: Row) -> None:
            if old[column] is None:
                merged[column] = new[column]

    elif isinstance(rule, mr.LatestPresent):
        by = rule.by

        def step(old: Row, new: Row, merged: Row) -> None:
            value = new[column]
            if value is not None and (old[column] is None or new[by] > old[by]):
                merged[column] = value

    elif isinstance(rule, mr.LeastAtLatest):
        by = rule.by

        def step(old: Row, new: Row, merged: Row) -> None:
            if new[by] > old[by] or (
                new[by] == old[by]
                and old[column] is not None
                and (new[column] is None or new[column] < old[column])
            ):
                merged[column] = new[column]

    elif isinstance(rule, mr.Fallback):
        first, then = rule.first, rule.then

        def step(old: Row, new: Row, merged: Row) -> None:
            value = merged[first]
            merged[column] = value if value is not None else merged[then]

    elif isinstance(rule, mr.OtherBound):
        rank, value = rule.rank, rule.value

        def step(old: Row, new: Row, merged: Row) -> None:
            newer, older = (new, old) if ranks_higher(new[rank], old[rank]) else (old, new)
            bound = older[rank] if older[value] != newer[value] else older[column]
            merged[column] = max(newer[column], bound)

    else:
        raise TypeError(f"no merge for rule {rule!r} of column {column!r}")
    return step
