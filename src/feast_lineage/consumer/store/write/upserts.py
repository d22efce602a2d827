"""What each upsert of ingest assigns, and when it changes a stored row at all.

Generated from :mod:`.merge_rules`, as the in-memory merge (:mod:`.merge`)
is: :func:`assignments` gives each ruled column's new value from the stored
row ``c`` and the incoming one ``x``, and :func:`changes` the condition under
which any of them would change, so a row that would stay as it is is not
rewritten. Every statement is idempotent and its outcome does not depend on
the order events arrive in.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, and_, case, or_

from feast_lineage.consumer.store.engine.dialect import SetBuilder, WhereBuilder
from feast_lineage.consumer.store.write import merge_rules as mr


def assignments(table: mr.TableRules) -> SetBuilder:
    """The upsert's ``SET``: each ruled column's merged value."""

    def build(c: Any, x: Any) -> dict[str, ColumnElement[Any]]:
        values: dict[str, ColumnElement[Any]] = {}
        for column, rule in table.rules.items():
            if isinstance(rule, mr.OtherBound):
                values[column] = _other_bound(c, x, column, rule)
            elif not isinstance(rule, mr.Fallback):
                values[column] = case((_takes(c, x, column, rule), x[column]), else_=c[column])
        for column, rule in table.rules.items():
            if isinstance(rule, mr.Fallback):  # of the merged values
                first, then = values[rule.first], values[rule.then]
                values[column] = case((first.is_(None), then), else_=first)
        return values

    return build


def changes(table: mr.TableRules) -> WhereBuilder:
    """The upsert's ``WHERE``: the incoming row changes at least one column."""

    def build(c: Any, x: Any) -> ColumnElement[bool]:
        conditions: dict[str, ColumnElement[bool]] = {}
        for column, rule in table.rules.items():
            if isinstance(rule, mr.Highest):  # one condition per rank
                conditions.setdefault(f"rank:{rule.rank}", _takes(c, x, column, rule))
            elif isinstance(rule, mr.OtherBound):
                conditions[column] = _other_bound(c, x, column, rule) != c[column]
            elif not isinstance(rule, mr.Fallback):  # derived: changes with its sources
                conditions[column] = _takes(c, x, column, rule)
        return or_(*conditions.values())

    return build


def _takes(c: Any, x: Any, column: str, rule: mr.Rule) -> ColumnElement[bool]:
    """The incoming row's value of ``column`` replaces the stored one."""
    new, old = x[column], c[column]
    if isinstance(rule, mr.Highest):
        return _above(x[rule.rank], c[rule.rank], nullable=c[rule.rank].nullable)
    if isinstance(rule, mr.Maximum):
        return new > old  # type: ignore[no-any-return]
    if isinstance(rule, mr.Minimum):
        return new < old  # type: ignore[no-any-return]
    if isinstance(rule, mr.LeastPresent):
        return and_(new.is_not(None), or_(old.is_(None), new < old))
    if isinstance(rule, mr.FirstPresent):
        return and_(old.is_(None), new.is_not(None))
    if isinstance(rule, mr.LatestPresent):
        return and_(new.is_not(None), or_(old.is_(None), x[rule.by] > c[rule.by]))
    if isinstance(rule, mr.LeastAtLatest):
        later, tie = x[rule.by] > c[rule.by], x[rule.by] == c[rule.by]
        lesser = and_(old.is_not(None), or_(new.is_(None), new < old))
        return or_(later, and_(tie, lesser))
    raise TypeError(f"no upsert for rule {rule!r} of column {column!r}")


def _other_bound(c: Any, x: Any, column: str, rule: mr.OtherBound) -> ColumnElement[Any]:
    """The merged bound (:class:`~.merge_rules.OtherBound`) of the stored and incoming rows."""
    differ = x[rule.value] != c[rule.value]
    stored_older = case((differ, c[rule.rank]), else_=c[column])
    incoming_older = case((differ, x[rule.rank]), else_=x[column])
    return case(
        (_above(x[rule.rank], c[rule.rank], nullable=False), _greater(x[column], stored_older)),
        else_=_greater(c[column], incoming_older),
    )


def _greater(a: ColumnElement[Any], b: ColumnElement[Any]) -> ColumnElement[Any]:
    return case((a > b, a), else_=b)


def _above(new: Any, old: Any, *, nullable: bool) -> ColumnElement[bool]:
    """``new`` is present and above ``old``: a missing value loses; a tie keeps ``old``."""
    if not nullable:
        return new > old  # type: ignore[no-any-return]
    return and_(new.is_not(None), or_(old.is_(None), new > old))
