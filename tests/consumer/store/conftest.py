"""Fixtures of the store tests: two stores of one kind, for order and duplication properties."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.head_stores import HeadStores
from tests.store_helpers import Store


@pytest.fixture
def two_stores(
    head_store_url: str, head_stores: HeadStores, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[Store, Store]]:
    """The store of ``head_store_url`` and a second, new one on the same kind of database."""
    if head_store_url.startswith("sqlite"):
        second = head_stores.sqlite(tmp_path / "second.db")
    elif head_store_url.startswith("mysql"):
        second = head_stores.mysql(request.getfixturevalue("my"))
    else:
        second = head_stores.postgres(request.getfixturevalue("pg"))
    a, b = Store(head_store_url), Store(second)
    yield a, b
    a.close()
    b.close()
