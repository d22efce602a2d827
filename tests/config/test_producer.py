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


@pytest.mark.parametrize(
    ("namespace", "expected"),
    [
        ("my_project", "my_project"),  # the project itself
        ("ml/my_project", "ml/my_project"),  # already ends in /<project>
        ("s3://bucket/my_project", "s3://bucket/my_project"),
        ("ml/other", "ml/other/my_project"),
        ("xmy_project", "xmy_project/my_project"),  # a suffix without the slash is not the project
        ("my_project/ml", "my_project/ml/my_project"),
    ],
)
def test_a_namespace_that_names_the_project_stays_as_it_is(namespace: str, expected: str) -> None:
    """Feast's own rule, so lineage keeps its namespace when a team switches emitters."""
    assert ProducerSettings(namespace=namespace).namespace_for("my_project") == expected


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
