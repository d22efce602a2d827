"""The Feast registry of the server's feature repository, opened the way Feast opens it.

:class:`RegistrySource` reads feature_store.yaml and builds Feast's own
``FeatureStore`` on first use (so a server starts without importing Feast),
then hands out its registry and ``RepoConfig``. Failures are this module's
exceptions, free of HTTP: :class:`NoRepository` when the server runs without
a repository, :class:`RegistryUnavailable` when the registry cannot be opened
or read (the consumer answers them 404 and 503).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy.engine import make_url

from feast_lineage.registry.objects import ProjectObjects, read_project

log = logging.getLogger(__name__)
T = TypeVar("T")

# What opening the registry imports (seconds of CPU): a server with several
# workers imports it once, before forking them, so that they share it.
OPENING_IMPORTS = ("feast",)


class RegistryUnavailable(Exception):
    """The registry cannot be opened or read; ``str(err)`` is a message for the caller."""


class NoRepository(Exception):
    """The server has no feature repository, so no registry."""


class RegistrySource:
    """The Feast registry of the server's feature repository, opened on first use."""

    def __init__(
        self,
        repo_path: Path | None,
        *,
        fs_yaml_file: Path | None = None,
        project: str | None = None,
    ) -> None:
        self.repo_path = repo_path
        self.fs_yaml_file = fs_yaml_file
        self.project = project  # the repository's own project, known before any apply
        self._lock = threading.Lock()
        self._store: Any = None

    def require_repository(self) -> None:
        if self.repo_path is None:
            raise NoRepository(
                "this lineage server has no feature repository, so no registry lineage; "
                "start it from the repository (or with -c/--chdir pointing at it)"
            )

    @property
    def is_open(self) -> bool:
        """Whether the registry is open (requests read it without waiting)."""
        return self._store is not None

    def open_now(self) -> bool:
        """Open the registry, so that no request pays for it; whether it opened.

        Opening it imports Feast, which takes seconds. The server calls this
        as each worker starts, before it accepts connections (see
        :mod:`feast_lineage.consumer.app`). A failure is logged and not
        raised: the server serves lineage without the registry, and the
        registry endpoints report it (and try again).
        """
        if self.repo_path is None:
            return False
        started = time.monotonic()
        try:
            self._feature_store()
        except RegistryUnavailable:
            return False  # logged by _open
        log.info("the Feast registry is open (%.1f s)", time.monotonic() - started)
        return True

    def registry(self) -> Any:
        return self._feature_store().registry

    def repo_config(self) -> Any:
        """Feast's RepoConfig of the repository (its ``auth_config`` among others)."""
        return self._feature_store().config

    def _feature_store(self) -> Any:
        self.require_repository()
        with self._lock:
            if self._store is None:
                self._store = self._open()
        return self._store

    def _open(self) -> Any:
        try:
            from feast import FeatureStore

            from feast_lineage.registry.repo_config import load_repo_config, without_lineage

            repo = self.repo_path
            assert repo is not None
            yaml_file = self.fs_yaml_file or repo / "feature_store.yaml"
            # Without the openlineage section: Feast 0.60+ would validate it
            # with its own model, and this store only reads the registry.
            config = without_lineage(load_repo_config(repo, yaml_file))
            _anchor_sqlite_registry(config, repo)
            return FeatureStore(repo_path=str(repo), config=config)
        except Exception as err:
            log.exception("the Feast registry could not be opened")
            raise RegistryUnavailable(
                f"the Feast registry could not be opened ({type(err).__name__}); "
                "check the registry section of feature_store.yaml and the server log"
            ) from None

    def projects(self) -> list[str]:
        """The registry's projects and the repository's own (which may have none yet)."""
        listed = _reading(lambda: self.registry().list_projects(allow_cache=False))
        names = {project.name for project in listed}
        if self.project:
            names.add(self.project)
        return sorted(names)

    def objects(self, project: str) -> ProjectObjects:
        return _reading(lambda: read_project(self.registry(), project))


def _reading(read: Callable[[], T]) -> T:
    """``read()``, a registry that cannot be read (corrupt, unreachable) a 503."""
    try:
        return read()
    except (RegistryUnavailable, NoRepository):
        raise
    except Exception as err:
        log.exception("reading the Feast registry failed")
        raise RegistryUnavailable(
            f"the Feast registry could not be read ({type(err).__name__}); see the server log"
        ) from None


def _anchor_sqlite_registry(config: Any, repo: Path) -> None:
    """A relative SQLite registry path is the repository's, not this process's cwd."""
    registry = config.registry
    path = getattr(registry, "path", None)
    if getattr(registry, "registry_type", None) != "sql" or not isinstance(path, str):
        return
    url = make_url(path)
    database = url.database
    local = url.drivername.startswith("sqlite") and database and database != ":memory:"
    if local and not Path(str(database)).is_absolute():
        anchored = url.set(database=str((repo / str(database)).resolve()))
        registry.path = anchored.render_as_string(hide_password=False)
