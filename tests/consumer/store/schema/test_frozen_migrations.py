"""Migrations are frozen: no module of the migrations package imports live code.

A data migration that imported ``feast_lineage.identity`` or the store's row
builders would change what it does on a user's store whenever ingest
changes; each carries a frozen copy instead (``migrations/frozen/``). This
parses every module of the package and fails on any import of
``feast_lineage`` outside it, at any depth (inside functions too, and
relative imports that climb out).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import feast_lineage.consumer.store.schema.migrations as migrations_package

PACKAGE = migrations_package.__name__  # feast_lineage.consumer.store.schema.migrations
ROOT = Path(migrations_package.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


def _imported(tree: ast.AST, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``tree``."""
    package = module if is_package else module.rpartition(".")[0]
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
            else:
                parts = package.split(".")
                anchor = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{anchor}.{node.module}" if node.module else anchor
            out.append((node.lineno, base))
            out.extend((node.lineno, f"{base}.{alias.name}") for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, (ast.Attribute, ast.Name))
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            in {"import_module", "__import__"}
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            out.append((node.lineno, node.args[0].value))
    return out


def _outside(name: str) -> bool:
    inside = name == PACKAGE or name.startswith(PACKAGE + ".")
    return (name == "feast_lineage" or name.startswith("feast_lineage.")) and not inside


def offenders(source: str, path: Path) -> list[str]:
    """``path:line name`` of each import of feast_lineage outside the migrations package."""
    module = _module_name(path)
    tree = ast.parse(source, filename=str(path))
    return [
        f"{path.relative_to(ROOT)}:{line} {name}"
        for line, name in _imported(tree, module, path.name == "__init__.py")
        if _outside(name)
    ]


def test_no_module_of_the_migrations_package_imports_live_code() -> None:
    modules = sorted(ROOT.rglob("*.py"))
    assert len(modules) > 12  # the versions and the frozen copies are all read
    found = [hit for path in modules for hit in offenders(path.read_text(), path)]
    assert found == [], (
        "imports of feast_lineage outside the migrations package (copy what a migration"
        " needs into migrations/frozen/, see frozen/__init__.py):\n" + "\n".join(found)
    )


@pytest.mark.parametrize(
    "source",
    [
        "from feast_lineage.consumer.store import codec",  # 0009 as it was
        "from feast_lineage.identity import dataset_id",
        "import feast_lineage.canonical_json",
        "from feast_lineage import canonical_json",
        "def derive():\n    from feast_lineage.consumer.store.write.rows import RowBatch",
        "from ... import rows",  # versions/ -> feast_lineage.consumer.store
        "from ...dialect import insert_ignore",
        "import importlib\nimportlib.import_module('feast_lineage.identity')",
    ],
)
def test_an_import_of_live_code_is_found(source: str) -> None:
    assert offenders(source, ROOT / "versions" / "0099_example.py") != []


@pytest.mark.parametrize(
    "source",
    [
        "from feast_lineage.consumer.store.schema.migrations.frozen.ids_0009 import job_id",
        "from feast_lineage.consumer.store.schema.migrations.naming import table",
        "from ..frozen import ids_0009",
        "from .. import naming",
        "import sqlalchemy as sa\nfrom alembic import op",
    ],
)
def test_imports_inside_the_package_pass(source: str) -> None:
    assert offenders(source, ROOT / "versions" / "0099_example.py") == []
