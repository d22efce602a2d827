"""The quickstart script (examples/quickstart/quickstart.py), loaded as a module.

Its ``other_producers`` builds what ``post-events`` sends (the Airflow DAG,
dbt and Spark events) without Feast, so tests can ingest the quickstart's
own story in-process.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "examples" / "quickstart" / "quickstart.py"


def load_quickstart() -> ModuleType:
    spec = importlib.util.spec_from_file_location("quickstart_under_test", QUICKSTART)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
