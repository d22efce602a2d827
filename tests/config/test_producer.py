"""The producer's settings model (the ``openlineage`` section)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from feast_lineage.config import ProducerSettings
from feast_lineage.config.producer import ENV_NAMES


def test_the_default_namespace_is_the_project() -> None:
    assert ProducerSettings().namespace_for("my_project") == "my_project"


def test_a_custom_namespace_prefixes_the_project() -> None:
    assert ProducerSettings(namespace="custom").namespace_for("my_project") == "custom/my_project"


def test_every_option_has_an_environment_variable() -> None:
    assert set(ENV_NAMES) == set(ProducerSettings.model_fields)
    assert all(name.startswith("FEAST_OPENLINEAGE_") for name in ENV_NAMES.values())
    assert len(set(ENV_NAMES.values())) == len(ENV_NAMES)


def test_settings_are_frozen_and_strict_about_names() -> None:
    settings = ProducerSettings()
    with pytest.raises(ValidationError):
        settings.enabled = True  # type: ignore[misc]
    with pytest.raises(ValidationError, match="extra"):
        ProducerSettings(transport="http")  # type: ignore[call-arg]
