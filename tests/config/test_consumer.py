"""The consumer's settings model (``openlineage.consumer``)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from feast_lineage.config import ConsumerSettings


def test_api_key_value_is_the_plain_key_or_none() -> None:
    assert ConsumerSettings().api_key_value() is None
    assert ConsumerSettings(api_key="k").api_key_value() == "k"  # type: ignore[arg-type]


def test_secrets_are_masked_in_repr_and_dumps() -> None:
    settings = ConsumerSettings(
        api_key="key-123",  # type: ignore[arg-type]
        connection_string="postgresql://u:pw-456@h/db",  # type: ignore[arg-type]
    )
    for text in (repr(settings), str(settings), settings.model_dump_json()):
        assert "key-123" not in text
        assert "pw-456" not in text


@pytest.mark.parametrize(
    "bad",
    [
        {"retention_days": -1},
        {"retention_check_interval_hours": 0},
        {"max_request_bytes": 1023},
        {"max_batch_events": 0},
        {"store_type": "nosql"},
        {"retention": 3},
    ],
)
def test_impossible_values_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        ConsumerSettings.model_validate(bad)
