"""Reading Feast's own lineage store: the errors name the database as the user gave it."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine

from feast_lineage.consumer.feast_import import FeastTableMissing, count_rows, read_only_engine


def test_a_sqlite_source_without_feasts_table_is_named_by_its_path(tmp_path: Path) -> None:
    empty = tmp_path / "empty file.db"
    create_engine(f"sqlite:///{empty}").connect().close()
    with pytest.raises(FeastTableMissing) as missing:
        count_rows(read_only_engine(f"sqlite:///{empty}"))
    message = str(missing.value)
    assert message.startswith(f"{empty} has no openlineage_events table"), message
    assert "mode=ro" not in message
    assert "file%3A" not in message
