"""The SQLite files a feature_store.yaml names, and the one line when one cannot be opened.

The commands that meet it: tests/test_cli.py.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import create_engine
from sqlalchemy.exc import OperationalError

from feast_lineage.repo_databases import SqliteFile, cannot_open, sqlite_files, unopenable


def write(repo: Path, config: dict[str, Any]) -> Path:
    repo.mkdir(parents=True, exist_ok=True)
    path = repo / "feature_store.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_the_files_are_where_feast_and_the_consumer_open_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = {
        "project": "p",
        "registry": {"registry_type": "sql", "path": "sqlite:///data/registry.db"},
        "online_store": {"type": "sqlite", "path": "/abs/online.db"},
        "openlineage": {"consumer": {"connection_string": "sqlite:///${LINEAGE_DIR}/l.db"}},
    }
    monkeypatch.setenv("LINEAGE_DIR", "lineage")  # expanded as Feast expands the file
    files = sqlite_files(tmp_path, write(tmp_path, config))
    assert files == [
        SqliteFile("registry.path", tmp_path / "data" / "registry.db", relative=True),
        SqliteFile("online_store.path", Path("/abs/online.db"), relative=False),
        SqliteFile(
            "openlineage.consumer.connection_string",
            tmp_path / "lineage" / "l.db",
            relative=True,
        ),
    ]


def test_only_sqlite_files_count(tmp_path: Path) -> None:
    config = {
        "project": "p",
        "registry": {"registry_type": "sql", "path": "postgresql://u@db/registry"},
        "online_store": {"type": "redis", "connection_string": "redis:6379"},
        "openlineage": {"consumer": {"connection_string": "sqlite:///:memory:"}},
    }
    assert sqlite_files(tmp_path, write(tmp_path, config)) == []
    # A file registry is no SQLite file; Feast's default online store is one.
    config = {"project": "p", "registry": "data/registry.db"}
    assert sqlite_files(tmp_path, write(tmp_path, config)) == [
        SqliteFile("online_store.path", tmp_path / "data" / "online.db", relative=True)
    ]
    (tmp_path / "feature_store.yaml").write_text("[not, a mapping")
    assert sqlite_files(tmp_path, tmp_path / "feature_store.yaml") == []


def cant_open_error(tmp_path: Path) -> sqlite3.Error:
    with pytest.raises(sqlite3.OperationalError) as info:
        sqlite3.connect(tmp_path / "missing" / "x.db")
    return info.value


def test_sqlites_cannot_open_is_recognised_wrapped_or_not(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'missing' / 'x.db'}")
    with pytest.raises(OperationalError) as info:
        engine.connect()
    engine.dispose()
    assert cannot_open(info.value)
    assert cannot_open(cant_open_error(tmp_path))
    wrapped = RuntimeError("Feast wrapped it")
    wrapped.__cause__ = cant_open_error(tmp_path)
    assert cannot_open(wrapped)
    assert not cannot_open(sqlite3.OperationalError("no such table: x"))
    assert not cannot_open(ValueError("unable to open database file"))


def test_the_line_names_the_file_and_why(tmp_path: Path) -> None:
    config = {
        "project": "p",
        "registry": {"registry_type": "sql", "path": f"sqlite:///{tmp_path}/reg/registry.db"},
    }
    yaml_file = write(tmp_path / "repo", config)
    (tmp_path / "repo" / "data").mkdir()  # the online store's folder is there
    assert unopenable(tmp_path / "repo", yaml_file) == (
        f"registry.path: cannot open the SQLite database {tmp_path}/reg/registry.db "
        f"(its folder {tmp_path}/reg does not exist); create the folder, or correct "
        f"registry.path in {yaml_file}"
    )
    (tmp_path / "reg").mkdir()
    (tmp_path / "reg" / "registry.db").mkdir()
    assert f"({tmp_path}/reg/registry.db is a folder)" in unopenable(tmp_path / "repo", yaml_file)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes any folder")
def test_a_read_only_folder_is_named(tmp_path: Path) -> None:
    yaml_file = write(tmp_path, {"project": "p"})
    (tmp_path / "data").mkdir(mode=0o555)
    try:
        assert f"(its folder {tmp_path}/data cannot be written)" in unopenable(tmp_path, yaml_file)
    finally:
        (tmp_path / "data").chmod(0o755)


def test_when_no_file_is_to_blame_the_line_lists_them(tmp_path: Path) -> None:
    yaml_file = write(tmp_path, {"project": "p"})
    (tmp_path / "data").mkdir()
    assert unopenable(tmp_path, yaml_file) == (
        "feature_store.yaml: SQLite cannot open a database file it names "
        f"(online_store.path: {tmp_path}/data/online.db); check that each file's folder "
        "exists and can be written"
    )
