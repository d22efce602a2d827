"""Importing the events Feast's built-in lineage consumer stored (Feast 0.65 to 0.67).

Feast's consumer keeps each event it received as a row of
``openlineage_events``: the event as JSON text (``event_json``), its time in
integer milliseconds (``event_time``), its receipt time (``created_at``) and
an ``event_id`` Feast draws anew for every receipt. :func:`import_feast_events`
reads those rows, read-only, in pages ordered by (``created_at``,
``event_id``), so it can run while Feast's server keeps writing, and hands
every event to the consumer's normal intake: parsed, validated and derived
(credentials removed, dedup key, rank) by :func:`~.intake.body.parse_events`
with Feast's receipt time, and written by the same writer as a live event.

Every row read is counted once: imported, a duplicate (an event with its
dedup key is already stored, or an earlier row of this import had it; one
event received twice is two rows in Feast's table), or refused, with the
reason. A second run imports nothing new: every row is then a duplicate.

Only events are imported. Jobs, datasets and edges that Feast's prune left
behind without their events are not: the store is built from events, and an
event made up for them would claim a run that nobody reported
(docs/producer.md explains the choice).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import orjson
from sqlalchemy import (
    BigInteger,
    Column,
    Engine,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    func,
    or_,
    select,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from feast_lineage.consumer.feast_names import FeastNames
from feast_lineage.consumer.intake.body import BodyError, parse_events
from feast_lineage.consumer.intake.facet_memo import FacetMemo
from feast_lineage.consumer.intake.pipeline import IngestPipeline
from feast_lineage.consumer.intake.problems import InvalidEvent
from feast_lineage.consumer.store.read import events as event_reads
from feast_lineage.consumer.store.schema.codec import PayloadCodec
from feast_lineage.consumer.store.write.rows import RowBatch

# Feast's table, as much of it as the import reads (the names are Feast's).
_feast = MetaData()
feast_events = Table(
    "openlineage_events",
    _feast,
    Column("event_id", String(255), primary_key=True),
    Column("event_json", Text, nullable=False),
    Column("event_time", BigInteger, nullable=False),
    Column("created_at", BigInteger, nullable=False),
)

PAGE = 500


class Refusal(NamedTuple):
    event_id: str  # Feast's id of the row
    reason: str


@dataclass
class ImportSummary:
    read: int = 0
    imported: int = 0
    duplicates: int = 0
    refused: list[Refusal] = field(default_factory=list)

    @property
    def accounted(self) -> bool:
        return self.imported + self.duplicates + len(self.refused) == self.read


class FeastRow(NamedTuple):
    event_id: str
    event_json: str
    created_at: int


class FeastTableMissing(Exception):
    """The source database has no openlineage_events table."""


class SourceUnreadable(Exception):
    """The source database cannot be opened or read; the message says why, with no password."""


def read_only_engine(url: str) -> Engine:
    """An engine on Feast's database that cannot write to it.

    SQLite opens the file read-only; PostgreSQL and MySQL sessions are read-only.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        path = parsed.database or ""
        if not path or path == ":memory:":
            raise ValueError(f"{url}: a SQLite source must be a file")
        if not Path(path).is_file():
            raise SourceUnreadable(f"{path}: no such SQLite file")
        parsed = parsed.set(database=f"file:{path}", query={"mode": "ro", "uri": "true"})
        return create_engine(parsed)
    engine = create_engine(parsed)
    statement = (
        "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY"
        if parsed.get_backend_name() == "postgresql"
        else "SET SESSION TRANSACTION READ ONLY"
    )

    @event.listens_for(engine, "connect")
    def _read_only(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute(statement)
        cursor.close()
        dbapi_connection.commit()

    return engine


def shown_source(source: Engine) -> str:
    """The source as its user gave it: a SQLite file's path (not the read-only URI
    :func:`read_only_engine` opens it with), else the URL without its password."""
    url = source.url
    if url.get_backend_name() == "sqlite" and url.database:
        return url.database.removeprefix("file:")
    return url.render_as_string(hide_password=True)


def count_rows(source: Engine) -> int:
    """The rows of Feast's event table now (more may arrive while importing)."""
    shown = shown_source(source)
    try:
        with source.connect() as conn:
            if not source.dialect.has_table(conn, feast_events.name):
                raise FeastTableMissing(
                    f"{shown} has no {feast_events.name} table: "
                    "it is not where Feast's lineage consumer stored"
                )
            return int(conn.execute(select(func.count()).select_from(feast_events)).scalar_one())
    except SQLAlchemyError as err:
        cause = getattr(err, "orig", None) or err
        first_line = (str(cause).strip().splitlines() or [""])[0]
        password = source.url.password
        if password:
            first_line = first_line.replace(str(password), "***")
        raise SourceUnreadable(
            f"cannot read {shown} ({type(cause).__name__}: {first_line})"
        ) from None


def feast_rows(source: Engine, page: int = PAGE) -> Iterator[list[FeastRow]]:
    """Feast's rows in pages, oldest receipt first, each page in a short read."""
    e = feast_events.c
    after: tuple[int, str] | None = None
    while True:
        stmt = select(e.event_id, e.event_json, e.created_at).order_by(e.created_at, e.event_id)
        if after is not None:
            stmt = stmt.where(
                or_(e.created_at > after[0], (e.created_at == after[0]) & (e.event_id > after[1]))
            )
        with source.connect() as conn:
            rows = [FeastRow(*row) for row in conn.execute(stmt.limit(page)).all()]
        if not rows:
            return
        yield rows
        after = (rows[-1].created_at, rows[-1].event_id)


def _loaded(row: FeastRow) -> Any:
    """The stored event as JSON, or None when its text is not JSON (the intake says why)."""
    try:
        return orjson.loads(row.event_json)
    except (orjson.JSONDecodeError, UnicodeEncodeError):
        return None


def _body(row: FeastRow, names: FeastNames) -> bytes:
    """The event to ingest: Feast's emitter's with our names, any other as it was stored."""
    event = _loaded(row)
    if names.rename(event):
        return orjson.dumps(event)
    return row.event_json.encode("utf-8", "surrogatepass")


def _parsed(
    row: FeastRow, memo: FacetMemo, names: FeastNames, codec: PayloadCodec
) -> RowBatch | str:
    """The rows of one stored event, or why it cannot be stored."""
    try:
        parsed = parse_events(
            _body(row, names),
            row.created_at * 1000,
            max_events=1,
            memo=memo,
            codec=codec,
        )
    except BodyError as err:
        return f"{err.code}: {err.message}"
    except UnicodeEncodeError:
        return "invalid_json: the stored text is not valid UTF-8"
    if parsed.is_array:
        return "invalid_event: the stored event is a JSON array, not one event"
    (result,) = parsed.results
    if isinstance(result, InvalidEvent):
        return f"invalid_event: {result}"
    return result


def import_feast_events(
    source: Engine,
    target: Engine,
    *,
    progress: Callable[[int], None] | None = None,
    page: int = PAGE,
) -> ImportSummary:
    """Ingest every event of Feast's table at ``source`` into our store at ``target``."""
    names = FeastNames()
    for rows in feast_rows(source, page):  # first: what each of Feast's names is
        for row in rows:
            names.learn(_loaded(row))
    pipeline = IngestPipeline(target)
    pipeline.load_dictionary()
    memo = FacetMemo()
    summary = ImportSummary()
    seen: set[str] = set()  # dedup keys of this import
    for rows in feast_rows(source, page):
        summary.read += len(rows)
        batches: dict[str, tuple[FeastRow, RowBatch]] = {}
        for row in rows:
            result = _parsed(row, memo, names, pipeline.codec)
            if isinstance(result, str):
                summary.refused.append(Refusal(row.event_id, result))
                continue
            key = result.events[0]["event_key"]
            if key in seen or key in batches:
                summary.duplicates += 1
            else:
                batches[key] = (row, result)
        with target.connect() as conn:
            stored = event_reads.stored_event_keys(conn, list(batches))
        summary.duplicates += len(stored)
        seen.update(batches)
        fresh = [(key, item) for key, item in batches.items() if key not in stored]
        outcomes = pipeline.write_now([batch for _, (_, batch) in fresh]) if fresh else []
        for (_, (row, _)), outcome in zip(fresh, outcomes, strict=True):
            if outcome is None:
                summary.imported += 1
            else:
                summary.refused.append(Refusal(row.event_id, f"rejected: {outcome}"))
        if progress is not None:
            progress(len(rows))
    return summary
