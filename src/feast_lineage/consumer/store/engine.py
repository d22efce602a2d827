"""Building the store's engine and bringing its schema up to date.

SQLite runs in WAL mode with ``synchronous=NORMAL`` (durable across process
crashes: a committed transaction survives SIGKILL) and a busy timeout so
several processes can share one file. Alembic migrations run at startup, so
an older database upgrades in place.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.pool import QueuePool

log = logging.getLogger(__name__)

_MIGRATIONS = Path(__file__).parent / "migrations"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # Let SQLAlchemy's "begin" event below emit BEGIN, so writers can take the
    # write lock up front (BEGIN IMMEDIATE) instead of failing to upgrade later.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA foreign_keys=OFF")
    cursor.execute("PRAGMA cache_size=-65536")
    cursor.execute("PRAGMA temp_store=MEMORY")
    cursor.close()


def _sqlite_begin(conn: Any) -> None:
    if conn.get_execution_options().get("lineage_write"):
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        conn.exec_driver_sql("BEGIN")


def create_store_engine(url: str) -> Engine:
    """An engine for ``url`` tuned for the lineage store."""
    parsed = make_url(url)
    if parsed.drivername.startswith("sqlite"):
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url,
            poolclass=QueuePool,
            pool_size=8,
            max_overflow=8,
            connect_args={"check_same_thread": False, "timeout": 30},
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    return create_engine(url, pool_size=8, max_overflow=8, pool_pre_ping=True)


def alembic_config(engine: Engine) -> Config:
    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    config.attributes["engine"] = engine
    return config


def upgrade_schema(engine: Engine) -> None:
    """Run every pending migration."""
    config = alembic_config(engine)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
    log.debug("lineage store schema is at head")
