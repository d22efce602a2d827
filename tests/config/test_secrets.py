"""Secret option values: stripped, never empty."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from feast_lineage.config.secrets import strip_secret


def test_whitespace_around_a_secret_is_dropped() -> None:
    # A key read from a file usually ends with a newline; clients send it stripped.
    stripped = strip_secret(SecretStr(" key\n"))
    assert stripped is not None
    assert stripped.get_secret_value() == "key"


def test_no_secret_stays_none() -> None:
    assert strip_secret(None) is None


@pytest.mark.parametrize("blank", ["", "   ", "\n"])
def test_an_empty_secret_is_refused(blank: str) -> None:
    with pytest.raises(ValueError, match="is empty"):
        strip_secret(SecretStr(blank))
