"""The openlineage section, wherever the installed Feast release keeps it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import feast
import pytest
import yaml
from feast.repo_config import FeastConfigError, RepoConfig
from feast.repo_config import load_repo_config as feasts_loader

from feast_lineage.registry.repo_config import (
    UnreadableLineageSection,
    declares_section,
    lineage_section,
    load_repo_config,
    without_lineage,
)

# Feast 0.60+ declares the section (and validates it, and has lineage of its own).
DECLARED = declares_section(RepoConfig)
SECTION: dict[str, Any] = {
    "enabled": True,
    "transport_type": "console",
    "namespace": "ml",
    "consumer": {"enabled": True, "retention_days": 7},
}
BASE: dict[str, Any] = {
    "project": "p",
    "registry": "data/registry.db",
    "provider": "local",
    "online_store": {"type": "sqlite", "path": "data/online.db"},
    "entity_key_serialization_version": 3,
}


def write_yaml(root: Path, section: dict[str, Any] | None) -> Path:
    data = dict(BASE)
    if section is not None:
        data["openlineage"] = section
    path = root / "feature_store.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_the_release_at_hand_is_known() -> None:
    version = tuple(int(part) for part in feast.__version__.split(".")[:2])
    assert (0, 59) <= version < (0, 68)
    assert (version >= (0, 60)) == DECLARED


def test_the_section_as_feasts_own_loader_keeps_it(tmp_path: Path) -> None:
    config = feasts_loader(tmp_path, write_yaml(tmp_path, SECTION))
    assert lineage_section(config) == SECTION
    assert lineage_section(feasts_loader(tmp_path, write_yaml(tmp_path, None))) == {}


def test_the_section_of_a_config_built_in_code() -> None:
    assert lineage_section(RepoConfig(**BASE, openlineage=SECTION)) == SECTION
    assert lineage_section(RepoConfig(**BASE)) == {}


@pytest.mark.skipif(not DECLARED, reason="Feast 0.59 has no model of the section")
def test_the_section_given_as_feasts_own_model() -> None:
    from feast.repo_config import OpenLineageConfig

    config = RepoConfig(**BASE)
    config.openlineage_config = OpenLineageConfig(enabled=True, namespace="ml")
    assert lineage_section(config) == {"enabled": True, "namespace": "ml"}


def test_a_section_where_it_cannot_be_read_is_an_error_naming_the_release() -> None:
    config = RepoConfig(**BASE)
    if DECLARED:
        config.openlineage_config = "enabled"
    else:
        config.model_extra["openlineage"] = "enabled"
    with pytest.raises(UnreadableLineageSection, match=f"Feast {feast.__version__}'s RepoConfig"):
        lineage_section(config)


def test_our_loader_leaves_the_section_to_us(tmp_path: Path) -> None:
    ours = {**SECTION, "consumer": {"enabled": True, "retention_check_interval_hours": 0.5}}
    path = write_yaml(tmp_path, ours)
    if DECLARED:  # Feast validates the section with its own model, which wants whole hours
        with pytest.raises(FeastConfigError, match="retention_check_interval_hours"):
            feasts_loader(tmp_path, path)
    config = load_repo_config(tmp_path, path)
    assert lineage_section(config) == ours
    assert config.repo_path == tmp_path
    assert config.project == "p"
    if DECLARED:
        assert config.openlineage is None  # Feast's own lineage finds nothing
    dumped = config.model_dump(by_alias=True, exclude_unset=True)
    assert dumped["openlineage"] == ours


def test_our_loader_reports_the_rest_as_feast_does(tmp_path: Path) -> None:
    path = write_yaml(tmp_path, SECTION)
    path.write_text(path.read_text().replace("provider: local", "provider: 42"))
    with pytest.raises(FeastConfigError) as ours:
        load_repo_config(tmp_path, path)
    with pytest.raises(FeastConfigError) as theirs:
        feasts_loader(tmp_path, path)
    assert str(ours.value).splitlines()[:3] == str(theirs.value).splitlines()[:3]


@pytest.mark.parametrize("read_by_feast_first", [False, True])
def test_feast_finds_no_section_in_the_copy(tmp_path: Path, read_by_feast_first: bool) -> None:
    config = feasts_loader(tmp_path, write_yaml(tmp_path, SECTION))
    if read_by_feast_first and DECLARED:
        assert config.openlineage.enabled  # Feast builds, and keeps, its model of it
    copy = without_lineage(config)
    assert lineage_section(copy) == {}
    assert getattr(copy, "openlineage", None) is None
    assert lineage_section(config) == SECTION  # the original is untouched
    assert copy.project == config.project
    assert copy.online_store.path == "data/online.db"


def test_a_config_without_a_section_stays_without_one(tmp_path: Path) -> None:
    config = feasts_loader(tmp_path, write_yaml(tmp_path, None))
    copy = without_lineage(config)
    assert lineage_section(copy) == {}
    assert getattr(copy, "openlineage", None) is None
    assert copy.model_dump() == config.model_dump()


@pytest.mark.skipif(not DECLARED, reason="Feast 0.59 has no openlineage section of its own")
def test_every_option_of_feasts_own_section_is_one_of_ours(tmp_path: Path) -> None:
    from feast.repo_config import OpenLineageConfig

    from feast_lineage.config import ConsumerSettings, ProducerSettings
    from feast_lineage.config.loader import config_from_data

    feasts = set(OpenLineageConfig.model_fields) - {"consumer"}
    assert feasts <= set(ProducerSettings.model_fields)
    consumer_model = OpenLineageConfig.model_fields.get("consumer")
    if consumer_model is not None:  # Feast 0.65+
        from feast.repo_config import OpenLineageConsumerConfig

        assert set(OpenLineageConsumerConfig.model_fields) <= set(ConsumerSettings.model_fields)
    # A section as Feast's own model writes it out, defaults and all, loads as ours.
    section = OpenLineageConfig(
        enabled=True, consumer={"enabled": True} if consumer_model is not None else None
    ).model_dump()
    if section.get("consumer") is None:
        section.pop("consumer", None)
    section["transport_type"] = section.get("transport_type") or "console"
    data = {**BASE, "registry": {"registry_type": "sql", "path": "sqlite:///r.db"}}
    config = config_from_data({**data, "openlineage": section}, tmp_path, env={})
    assert config.producer.enabled
    assert config.consumer.enabled == (consumer_model is not None)


def test_a_value_feast_would_take_but_we_cannot_is_one_line_naming_the_option(
    tmp_path: Path,
) -> None:
    from feast_lineage.config import ConfigError
    from feast_lineage.config.loader import config_from_data

    with pytest.raises(ConfigError) as err:
        config_from_data({**BASE, "openlineage": {"transport_type": "HTTP"}}, tmp_path, env={})
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("openlineage.transport_type:")
    assert "use http, console, file or kafka" in message
