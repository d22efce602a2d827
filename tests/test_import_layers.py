"""The import-layer contracts (.importlinter) hold, and would catch a break.

The gate runs ``lint-imports`` on the tree as it is; these tests copy the
package, add one forbidden import, and check that the contracts fail on it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint(tmp_path: Path, module: str, line: str) -> subprocess.CompletedProcess[str]:
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "feast_lineage", src / "feast_lineage")
    target = src / "feast_lineage" / module
    target.write_text(target.read_text() + f"\n{line}\n")
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run(
        [str(LINT_IMPORTS), str(ROOT / ".importlinter"), "--no-cache"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        # the store reaching up into ingest
        (
            "consumer/store/engine/meta.py",
            "import feast_lineage.consumer.intake.derive",
            "The store imports nothing",
        ),
        # a service importing the HTTP framework
        ("consumer/services/catalog.py", "import starlette.requests", "Services know nothing"),
        # the producer past the consumer's entry point
        (
            "producer/teardown.py",
            "import feast_lineage.consumer.store.admin.reset",
            "The producer reaches the consumer only",
        ),
        # a circle between two sibling modules
        (
            "canonical_json.py",
            "import feast_lineage.consumer.store.write.rows",
            "No import cycles",
        ),
    ],
)
def test_contracts_fail_on_a_forbidden_import(
    tmp_path: Path, module: str, line: str, broken: str
) -> None:
    result = _lint(tmp_path, module, line)
    assert result.returncode != 0, result.stdout
    assert f"{broken}" in result.stdout
    assert "BROKEN" in result.stdout


def test_contracts_hold_on_a_harmless_change(tmp_path: Path) -> None:
    result = _lint(tmp_path, "consumer/store/engine/meta.py", "import os")
    assert result.returncode == 0, result.stdout
    assert "BROKEN" not in result.stdout
