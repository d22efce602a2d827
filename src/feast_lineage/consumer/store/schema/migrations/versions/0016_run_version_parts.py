"""Job versions: a run's parts merged in one column, in place of a row per part.

Migration 0013 kept a row per dataset a run's events listed
(``feast_lineage_job_version_io``, repeating ``feast_lineage_run_io`` with
the table each dataset stands for) and per source facet an event carried
(``feast_lineage_job_version_sources``), and ingest read all of a run's
rows back whenever an event of it arrived. Ingest now merges an event's
parts into the run's stored ones (:mod:`...write.job_versions`): this adds
``feast_lineage_run_versions.parts``, fills it from those rows a chunk of
runs at a time (the merge of all a run's parts, as ingest stores it:
:mod:`..frozen.job_versions_0016`), and drops the two tables. Versions and
their ids do not change. The downgrade rebuilds the two tables from the
merged parts (the rows that define each version: the version is the same).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
import sqlalchemy as sa
from alembic import op

from feast_lineage.consumer.store.schema.migrations.chunks import chunk_size
from feast_lineage.consumer.store.schema.migrations.frozen.job_versions_0016 import parts_json

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

_RUN_VERSIONS = "feast_lineage_run_versions"

_meta = sa.MetaData()
_IO = sa.Table(
    "feast_lineage_job_version_io",
    _meta,
    sa.Column("run_key", sa.String(36), primary_key=True),
    sa.Column("direction", sa.String(6), primary_key=True),
    sa.Column("dataset_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("group_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("group_namespace", sa.Text, nullable=False),
    sa.Column("group_name", sa.Text, nullable=False),
)
_SOURCES = sa.Table(
    "feast_lineage_job_version_sources",
    _meta,
    sa.Column("run_key", sa.String(36), primary_key=True),
    sa.Column("name", sa.String(32), primary_key=True),
    sa.Column("rank", sa.String(64), primary_key=True),
    sa.Column("digest", sa.String(32), nullable=False),
)
_rv = sa.table(
    _RUN_VERSIONS,
    sa.column("run_key", sa.String),
    sa.column("parts", sa.Text),
)


def upgrade() -> None:
    conn = op.get_bind()
    op.add_column(_RUN_VERSIONS, sa.Column("parts", sa.Text, nullable=True))
    chunk = chunk_size()
    after = ""
    while True:
        keys = list(
            conn.execute(
                sa.select(_rv.c.run_key)
                .where(_rv.c.run_key > after)
                .order_by(_rv.c.run_key)
                .limit(chunk)
            ).scalars()
        )
        if not keys:
            break
        after = keys[-1]
        _fill(conn, keys)
    with _fast_deletes(conn):
        with op.batch_alter_table(_RUN_VERSIONS) as batch:
            batch.alter_column("parts", existing_type=sa.Text, nullable=False)
        _SOURCES.drop(conn)
        _IO.drop(conn)


@contextmanager
def _fast_deletes(conn: sa.Connection) -> Iterator[None]:
    """On SQLite, freed pages are not zeroed one by one while the old tables go.

    Some SQLite builds (Debian's) default to ``secure_delete``: dropping the
    two tables of a 1M-event store (a gigabyte) then wrote every page again
    through the WAL in the migration's transaction, holding 330 MB more;
    ``FAST`` zeroes only what costs no extra write. The setting is restored after.
    """
    if conn.dialect.name != "sqlite":
        yield
        return
    before = conn.exec_driver_sql("PRAGMA secure_delete").scalar()
    conn.exec_driver_sql("PRAGMA secure_delete=FAST")
    try:
        yield
    finally:
        restored = "FAST" if before == 2 else int(before or 0)  # 2 reads back for FAST
        conn.exec_driver_sql(f"PRAGMA secure_delete={restored}")


def _fill(conn: sa.Connection, keys: list[str]) -> None:
    """The merged parts of the runs ``keys``, from their rows of 0013's tables."""
    io: dict[str, list[tuple[str, int, int, str, str]]] = {k: [] for k in keys}
    c = _IO.c
    for row in conn.execute(
        sa.select(
            c.run_key, c.direction, c.dataset_id, c.group_id, c.group_namespace, c.group_name
        ).where(c.run_key.in_(keys))
    ):
        io[row[0]].append((row[1], int(row[2]), int(row[3]), row[4], row[5]))
    sources: dict[str, list[tuple[str, str, str]]] = {k: [] for k in keys}
    s = _SOURCES.c
    for key, name, rank, digest in conn.execute(
        sa.select(s.run_key, s.name, s.rank, s.digest).where(s.run_key.in_(keys))
    ):
        sources[key].append((name, rank, digest))
    conn.execute(
        sa.update(_rv).where(_rv.c.run_key == sa.bindparam("key")),
        [{"key": k, "parts": parts_json(io[k], sources[k])} for k in keys],
    )


def downgrade() -> None:
    conn = op.get_bind()
    _IO.create(conn)
    _SOURCES.create(conn)
    chunk = chunk_size()
    after = ""
    while True:
        rows = conn.execute(
            sa.select(_rv.c.run_key, _rv.c.parts)
            .where(_rv.c.run_key > after)
            .order_by(_rv.c.run_key)
            .limit(chunk)
        ).all()
        if not rows:
            break
        after = rows[-1][0]
        io: list[dict[str, Any]] = []
        sources: list[dict[str, Any]] = []
        for key, text in rows:
            parts = orjson.loads(text)
            for direction, did, gid, gns, gname in parts["io"]:
                io.append(
                    {
                        "run_key": key,
                        "direction": direction,
                        "dataset_id": did,
                        "group_id": gid,
                        "group_namespace": gns,
                        "group_name": gname,
                    }
                )
            for name, (rank, digest) in parts["sources"].items():
                sources.append({"run_key": key, "name": name, "rank": rank, "digest": digest})
        for table, values in ((_IO, io), (_SOURCES, sources)):
            if values:
                conn.execute(table.insert(), values)
    with op.batch_alter_table(_RUN_VERSIONS) as batch:
        batch.drop_column("parts")
