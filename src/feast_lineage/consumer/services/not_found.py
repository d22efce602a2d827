"""What a 404 says about where to list what exists: one wording per kind, said here only.

Every ``NotFound`` of the lineage API ends with one of these hints (or lists
the names itself, as a missing column, project or facet schema does), so a
client that asked for a job, dataset, run, version or namespace that is not
there learns which request shows what is.
"""

from __future__ import annotations

from urllib.parse import quote

from feast_lineage.consumer.errors import NotFound

OPENLINEAGE_API = "/api/v1/lineage/openlineage"


def _list_them(path: str) -> str:
    return f"list them with GET {path}"


JOBS = _list_them(f"{OPENLINEAGE_API}/jobs")
DATASETS = _list_them(f"{OPENLINEAGE_API}/datasets")
RUNS = _list_them(f"{OPENLINEAGE_API}/runs")
NAMESPACES = _list_them(f"{OPENLINEAGE_API}/namespaces")
JOB_VERSIONS = _list_them(".../jobs/{namespace}/{name}/versions")
DATASET_VERSIONS = _list_them(".../datasets/{namespace}/{name}/versions")


def nodes(kind: str) -> str:
    """The hint of a job or (any other ``kind``) a dataset."""
    return JOBS if kind == "job" else DATASETS


def registry_objects(project: str) -> str:
    """The hint of a registry object: the project's registry lineage lists them all."""
    return _list_them(f"/api/v1/lineage/registry?project={quote(project, safe='')}")


def run(key: str) -> NotFound:
    """The 404 of a run id no run has (or none the caller may see), on every run endpoint."""
    return NotFound(f"no run with run_id {key}; {RUNS}")
