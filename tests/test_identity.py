"""Stable ids of jobs, datasets, namespaces and URIs."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from feast_lineage.identity import (
    dataset_id,
    identity_uri,
    job_id,
    namespace_id,
    node_id,
    text_id,
)


def test_ids_are_pinned() -> None:
    # Ids are stored: changing the function would orphan every existing row.
    assert job_id("airflow://prod", "etl.load") == 8613333183658605052
    assert dataset_id("s3://bucket", "path/x") == 3477914002786898334
    assert namespace_id("demo") == 8293502800601015812
    assert text_id("s3://bucket/path/x") == 7341466298255231931


def test_ids_are_the_same_in_every_process() -> None:
    code = (
        "from feast_lineage.identity import job_id, dataset_id;"
        "print(job_id('ns', 'j'), dataset_id('ns', 'd'))"
    )
    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outputs.add(done.stdout.strip())
    assert outputs == {f"{job_id('ns', 'j')} {dataset_id('ns', 'd')}"}


def test_kinds_do_not_collide() -> None:
    assert job_id("ns", "x") != dataset_id("ns", "x")
    assert node_id("job", "ns", "x") == job_id("ns", "x")
    assert node_id("dataset", "ns", "x") == dataset_id("ns", "x")
    assert namespace_id("ns") not in {job_id("ns", ""), text_id("ns")}


def test_parts_are_separated() -> None:
    assert dataset_id("ab", "c") != dataset_id("a", "bc")
    assert job_id("a", "b") != job_id("b", "a")


@settings(max_examples=200, derandomize=True, database=None)
@given(st.text(), st.text())
def test_ids_fit_a_signed_63_bit_column(namespace: str, name: str) -> None:
    for value in (job_id(namespace, name), dataset_id(namespace, name), namespace_id(name)):
        assert 0 <= value < 2**63
    assert job_id(namespace, name) == job_id(namespace, name)


@pytest.mark.parametrize(
    ("namespace", "name", "uri"),
    [
        ("s3://bucket", "path/x", "s3://bucket/path/x"),
        ("s3://bucket/", "/path/x", "s3://bucket/path/x"),
        ("postgres://db:5432", "feast.public.orders", "postgres://db:5432/feast.public.orders"),
        ("file", "/data/x.parquet", "file:///data/x.parquet"),
        ("file", "relative/x.parquet", None),
        ("demo", "driver_stats", None),
        ("", "x", None),
    ],
)
def test_identity_uri(namespace: str, name: str, uri: str | None) -> None:
    assert identity_uri(namespace, name) == uri
