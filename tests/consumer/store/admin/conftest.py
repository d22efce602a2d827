"""Fixtures of the admin tests: a store of its own per test (``head_store_url``: a new store)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.store_helpers import Store


@pytest.fixture
def store(head_store_url: str) -> Iterator[Store]:
    s = Store(head_store_url)
    yield s
    s.close()
