"""Fixtures of the store tests: two stores of one kind, for order and duplication properties."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.store_helpers import Store


@pytest.fixture
def two_stores(
    store_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[Store, Store]]:
    """The store of ``store_url`` and a second, empty one on the same kind of database."""
    if store_url.startswith("sqlite"):
        second = f"sqlite:///{tmp_path / 'second.db'}"
    else:
        server = request.getfixturevalue("my" if store_url.startswith("mysql") else "pg")
        second = str(server.create_database())
    a, b = Store(store_url), Store(second)
    yield a, b
    a.close()
    b.close()
