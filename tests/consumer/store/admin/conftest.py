"""Fixtures of the admin tests: a store of its own per test (``store_url``: a fresh database)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.store_helpers import Store


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = Store(store_url)
    yield s
    s.close()
