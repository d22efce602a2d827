"""The SQLite files a feature_store.yaml names, and the one line when one cannot be opened.

Feast opens each from the feature repository: the online store's ``path``
from the repository's folder, a SQL registry's ``sqlite:///`` URL from the
current directory (which ``feast-lineage -c DIR`` makes the repository
before the command runs), and feast-lineage the consumer's
``connection_string`` from the repository too. When SQLite cannot open one
(``SQLITE_CANTOPEN``: its folder is missing or read-only), Feast's commands
end in a traceback that names no file ("unable to open database file").
:func:`cannot_open` recognises that error, and :func:`unopenable` finds the
file among :func:`sqlite_files` and says what is wrong and how to fix it.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import NamedTuple

import yaml
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

# Feast's online store when feature_store.yaml names none (the local provider's).
_DEFAULT_ONLINE_PATH = "data/online.db"


class SqliteFile(NamedTuple):
    """A SQLite file feature_store.yaml names: the option, the file, whether written relative."""

    option: str
    path: Path
    relative: bool


def cannot_open(err: BaseException) -> bool:
    """Whether ``err`` (or what it wraps) is SQLite's "unable to open database file"."""
    seen: BaseException | None = err
    for _ in range(5):  # SQLAlchemy's error wraps sqlite3's; Feast may wrap either
        if seen is None:
            return False
        cause = getattr(seen, "orig", None) or seen
        if isinstance(cause, sqlite3.Error) and _cant_open(cause):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _cant_open(err: sqlite3.Error) -> bool:
    name = getattr(err, "sqlite_errorname", None)
    return name == "SQLITE_CANTOPEN" or "unable to open database file" in str(err)


def sqlite_files(repo: Path, fs_yaml_file: Path) -> list[SqliteFile]:
    """The SQLite files ``fs_yaml_file`` names, each where Feast (or the consumer) opens it."""
    try:
        text = fs_yaml_file.read_text(encoding="utf-8")
        data = yaml.safe_load(os.path.expandvars(text))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []
    if not isinstance(data, dict):
        return []
    found: list[SqliteFile] = []
    registry = data.get("registry")
    if isinstance(registry, dict) and isinstance(registry.get("path"), str):
        found += _from_url("registry.path", registry["path"], repo)
    online = data.get("online_store")
    if online is None or (isinstance(online, dict) and online.get("type", "sqlite") == "sqlite"):
        written = str((online or {}).get("path") or _DEFAULT_ONLINE_PATH)
        found.append(_file("online_store.path", written, repo))
    section = data.get("openlineage")
    consumer = section.get("consumer") if isinstance(section, dict) else None
    if isinstance(consumer, dict) and isinstance(consumer.get("connection_string"), str):
        option = "openlineage.consumer.connection_string"
        found += _from_url(option, consumer["connection_string"], repo)
    return found


def _from_url(option: str, url: str, repo: Path) -> list[SqliteFile]:
    try:
        parsed = make_url(url)
    except ArgumentError:
        return []
    database = parsed.database
    if not parsed.drivername.startswith("sqlite") or not database or database == ":memory:":
        return []
    return [_file(option, database, repo)]


def _file(option: str, written: str, repo: Path) -> SqliteFile:
    local = Path(written).expanduser()
    if local.is_absolute():
        return SqliteFile(option, local, relative=False)
    return SqliteFile(option, repo / local, relative=True)


def _why(path: Path) -> str | None:
    """Why SQLite cannot open (or create) ``path``, if that can be seen from here."""
    folder = path.parent
    if path.is_dir():
        return f"{path} is a folder"
    if not folder.exists():
        return f"its folder {folder} does not exist"
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not path.exists() and not os.access(folder, os.W_OK | os.X_OK):
        return f"its folder {folder} cannot be written"
    if path.exists() and not os.access(path, os.R_OK):
        return f"{path} cannot be read"
    return None


def unopenable(repo: Path, fs_yaml_file: Path) -> str:
    """The one line that says which SQLite file cannot be opened, why, and the fix."""
    files = sqlite_files(repo, fs_yaml_file)
    for file in files:
        why = _why(file.path)
        if why is None:
            continue
        message = f"{file.option}: cannot open the SQLite database {file.path} ({why}); "
        if file.relative and fs_yaml_file.parent != repo:
            return message + (
                f"a relative path in {fs_yaml_file.name} is read from the feature repository "
                f"({repo}), not from the file's folder: pass the repository with "
                f"-c {fs_yaml_file.parent}"
            )
        if file.relative:
            return message + (
                f"a relative path in {fs_yaml_file.name} is read from the feature repository "
                f"({repo}): create the folder, or correct {file.option}"
            )
        return message + f"create the folder, or correct {file.option} in {fs_yaml_file}"
    named = ", ".join(f"{file.option}: {file.path}" for file in files) or "none found"
    return (
        f"feature_store.yaml: SQLite cannot open a database file it names ({named}); "
        "check that each file's folder exists and can be written"
    )
