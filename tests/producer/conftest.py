"""Helpers of the producer tests: running the CLI in-process, reading events."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner, Result

from feast_lineage.cli import cli


def invoke(*args: str, expect_ok: bool = True) -> Result:
    """Run ``feast-lineage *args`` in-process (Feast's apply changes the cwd: restored)."""
    cwd = os.getcwd()
    try:
        result = CliRunner().invoke(cli, list(args), catch_exceptions=not expect_ok)
    finally:
        os.chdir(cwd)
    if expect_ok:
        assert result.exit_code == 0, result.output
    return result


def io_of(event: dict[str, Any]) -> tuple[list[str], list[str]]:
    return (
        sorted(d["name"] for d in event.get("inputs") or []),
        sorted(d["name"] for d in event.get("outputs") or []),
    )


def by_job(events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        out.setdefault(event["job"]["name"], []).append(event)
    return out


def output(event: dict[str, Any], name: str) -> dict[str, Any]:
    """The facets of the output dataset ``name`` of ``event``."""
    for dataset in event["outputs"]:
        if dataset["name"] == name:
            return dataset.get("facets") or {}
    raise AssertionError(f"{name} is not an output of {event['job']['name']}")


@pytest.fixture(autouse=True)
def _keep_cwd() -> Iterator[None]:
    cwd = os.getcwd()
    yield
    os.chdir(cwd)
