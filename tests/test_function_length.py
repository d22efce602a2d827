"""Functions of the store and the services stay short: 60 lines at most, or a comment says why.

A function's length is the lines of its ``def`` and body (decorators not
counted). A longer one passes only with a comment on the line right above
its ``def`` (or above its decorators) that says why it is long. Migrations
are left out: a migration file may be long.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "feast_lineage" / "consumer"
CHECKED = (SRC / "store", SRC / "services")
EXCLUDED = (SRC / "store" / "schema" / "migrations",)
LIMIT = 60


def _long_functions() -> dict[str, int]:
    """``path::name`` -> length of every function over the limit without a comment above it."""
    found: dict[str, int] = {}
    for root in CHECKED:
        for path in sorted(root.rglob("*.py")):
            if any(path.is_relative_to(excluded) for excluded in EXCLUDED):
                continue
            lines = path.read_text().splitlines()
            for node in ast.walk(ast.parse("\n".join(lines), filename=str(path))):
                if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                above = lines[first - 2].strip() if first >= 2 else ""
                if length > LIMIT and not above.startswith("#"):
                    found[f"{path.relative_to(SRC).as_posix()}::{node.name}"] = length
    return found


def test_functions_are_at_most_60_lines_unless_a_comment_says_why() -> None:
    long = _long_functions()
    assert not long, f"over {LIMIT} lines, with no comment above saying why: {long}"
