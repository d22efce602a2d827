"""Feast's ``RepoConfig`` across the supported releases, and the ``openlineage`` section in it.

feature_store.yaml's ``openlineage`` section is ours to read, and each Feast
release keeps it somewhere else:

* Feast 0.59 knows no such section: ``RepoConfig`` keeps it as an unknown
  key, in ``model_extra``.
* From 0.60 on it is a declared field, ``openlineage_config`` (alias
  ``openlineage``), which Feast validates with its own model when it loads
  the file (so an option that is valid for us, such as
  ``retention_check_interval_hours: 0.5``, fails there), and which switches
  on Feast's own emitter and, from 0.65, its own consumer.

:func:`lineage_section` reads the section wherever the release keeps it;
:func:`load_repo_config` loads feature_store.yaml as Feast does, but leaves
the section to us, unvalidated, as an unknown key (where 0.59 keeps it and
Feast's lineage code never looks); :func:`without_lineage` is the copy of a
config that Feast's own lineage finds nothing in. Nothing here imports or
calls Feast's lineage code.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

SECTION = "openlineage"
# The field that holds the section on Feast 0.60 and later.
DECLARED_FIELD = "openlineage_config"
# The cache of Feast's own model of the section (0.60 and later), filled the
# first time anything reads ``RepoConfig.openlineage``; a copy carries it.
_FEAST_CACHE = "_openlineage"


class UnreadableLineageSection(RuntimeError):
    """This Feast release keeps the openlineage section where feast-lineage cannot read it."""


def declares_section(repo_config_type: type[Any]) -> bool:
    """Whether this release's RepoConfig declares the section (Feast 0.60 and later)."""
    fields = getattr(repo_config_type, "model_fields", None) or {}
    return DECLARED_FIELD in fields


def lineage_section(repo_config: Any) -> dict[str, Any]:
    """The ``openlineage`` section of ``repo_config`` as written ({} when absent).

    Raises :class:`UnreadableLineageSection` when the release keeps something
    there that is neither a mapping nor a model of one: lineage must not be
    off without a word because Feast moved the section.
    """
    extra = getattr(repo_config, "model_extra", None) or {}
    if SECTION in extra:
        return _as_mapping(extra[SECTION], f"RepoConfig's unknown key {SECTION!r}")
    if declares_section(type(repo_config)):
        return _as_mapping(getattr(repo_config, DECLARED_FIELD, None), f"{DECLARED_FIELD!r}")
    if getattr(type(repo_config), SECTION, None) is not None:
        # A release with an ``openlineage`` attribute but neither place above.
        raise UnreadableLineageSection(_unreadable(f"the {SECTION!r} attribute"))
    return {}


def _as_mapping(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, BaseModel):
        # Set by the caller as a model: what it set, its unknown keys included.
        return value.model_dump(exclude_unset=True)
    raise UnreadableLineageSection(_unreadable(f"{where}, a {type(value).__name__}"))


def _unreadable(where: str) -> str:
    import feast

    return (
        f"feast-lineage cannot read feature_store.yaml's openlineage section from Feast "
        f"{feast.__version__}'s RepoConfig ({where}); install a Feast from 0.59 to 0.67, "
        "the releases feast-lineage supports"
    )


def without_lineage(repo_config: Any) -> Any:
    """A copy of ``repo_config`` in which Feast's own lineage finds no section.

    Feast 0.60+ builds its emitter, and its REST registry server and UI start
    its consumer, from ``RepoConfig.openlineage``: in the copy that is None.
    On 0.59, which has no lineage, the config comes back as it is.
    """
    extra = getattr(repo_config, "model_extra", None) or {}
    if not declares_section(type(repo_config)) and SECTION not in extra:
        return repo_config
    copy = repo_config.model_copy(update={DECLARED_FIELD: None})
    if copy.model_extra is not None:
        copy.model_extra.pop(SECTION, None)
    if getattr(copy, SECTION, None) is not None:
        # The original had already built Feast's model of the section, and
        # model_copy copies that cache: empty it in the copy.
        vars(copy)[_FEAST_CACHE] = None
    if getattr(copy, SECTION, None) is not None:
        raise UnreadableLineageSection(_unreadable("a copy without it still has it"))
    return copy


def load_repo_config(repo_path: Path, fs_yaml_file: Path) -> Any:
    """feature_store.yaml as Feast's ``load_repo_config`` loads it, the section left to us.

    The file is read the way Feast reads it (environment variables expanded,
    YAML safe-loaded) and validated by Feast's RepoConfig, except for the
    ``openlineage`` section, which is kept as written as an unknown key: our
    own loader validates it (:mod:`feast_lineage.config.loader`), and
    Feast's lineage never sees it. Errors are Feast's ``FeastConfigError``.
    """
    from feast.repo_config import FeastConfigError, RepoConfig

    with open(fs_yaml_file, encoding="utf-8") as file:
        data = yaml.safe_load(os.path.expandvars(file.read()))
    section = data.pop(SECTION, None) if isinstance(data, dict) else None
    try:
        repo_config = RepoConfig(**data)
    except ValidationError as err:
        raise FeastConfigError(err, fs_yaml_file) from None  # type: ignore[no-untyped-call]
    repo_config.repo_path = repo_path
    if section is not None:
        extra = repo_config.model_extra
        if extra is None:  # a RepoConfig that keeps no unknown keys
            raise UnreadableLineageSection(_unreadable("it keeps no unknown keys"))
        extra[SECTION] = section
    return repo_config
