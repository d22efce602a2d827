"""A real lineage store for store-level tests, fed through the real ingest path.

Events go through :func:`parse_events` (JSON bytes -> validation -> derive)
and :meth:`IngestPipeline.write_now`, exactly as the server does, into a
store built by :func:`create_store_engine` and the Alembic migrations. The
read helpers query the tables of :mod:`feast_lineage.consumer.store.schema.tables`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

import orjson
from alembic import command
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from sqlalchemy import ColumnElement, Engine, Table, select
from sqlalchemy import event as sa_event

from feast_lineage.consumer.intake.body import parse_events
from feast_lineage.consumer.intake.facet_memo import FacetMemo
from feast_lineage.consumer.intake.pipeline import IngestPipeline, Outcome
from feast_lineage.consumer.intake.problems import InvalidEvent
from feast_lineage.consumer.store.engine.database import (
    alembic_config,
    create_store_engine,
    upgrade_schema,
)
from feast_lineage.consumer.store.engine.meta import ensure_meta
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.graph import current_edge, current_symlink
from feast_lineage.consumer.store.read.run_facets import one_run_facets
from feast_lineage.consumer.store.schema import codec
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.schema.codec import PayloadCodec
from feast_lineage.consumer.store.schema.migrations.chunks import ATTRIBUTE as CHUNK_ATTRIBUTE
from feast_lineage.consumer.store.write.rows import RowBatch
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id, job_id
from tests.factories import at

# SQL literals, so statements that differ only in their values share a shape.
_LITERALS = re.compile(r"'(?:[^']|'')*'|X'[0-9A-Fa-f]*'|\b-?\d+(?:\.\d+)?\b")

# A fixed receive time: the store must never use it for run or facet state.
RECEIVED_US = 4_000_000_000_000_000


def event_payload(row: dict[str, Any]) -> Any:
    """The event a derived events row holds (its payload may be stored compressed)."""
    value = row["payload"]
    if isinstance(value, bytes):
        value = codec.decompress(value)
    return orjson.loads(value)


def derive_all(
    events: Iterable[dict[str, Any]],
    received_us: int = RECEIVED_US,
    memo: FacetMemo | None = None,
    codec: PayloadCodec | None = None,
) -> list[RowBatch]:
    """Validate and derive events as one JSON array body; every one must be valid."""
    data = orjson.dumps(list(events))
    parsed = parse_events(data, received_us, max_events=100_000, memo=memo, codec=codec)
    out: list[RowBatch] = []
    for item in parsed.results:
        if isinstance(item, InvalidEvent):
            raise AssertionError(f"test event is invalid: {item}")
        out.append(item)
    return out


class Store:
    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = create_store_engine(url)
        upgrade_schema(self.engine)
        self.pipeline = IngestPipeline(self.engine)
        self.memo = FacetMemo()  # as the server keeps one

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def close(self) -> None:
        self.engine.dispose()

    def reset(self) -> None:
        """Empty every table and start a fresh writer, as on a new store (faster than one)."""
        names = [table.name for table in t.metadata.sorted_tables]
        with self.engine.begin() as conn:
            if self.dialect == "postgresql":
                conn.exec_driver_sql("TRUNCATE " + ", ".join(names))
            else:
                for name in names:
                    conn.exec_driver_sql(f"DELETE FROM {name}")
            ensure_meta(conn)  # as migrations and a starting writer leave a new store
        self.pipeline = IngestPipeline(self.engine)
        self.memo = FacetMemo()

    def ingest(self, *events: dict[str, Any]) -> None:
        """Write ``events`` in one group commit, as one request of the server would."""
        outcomes = self.write(*events)
        assert outcomes == [None] * len(events), outcomes

    def write(self, *events: dict[str, Any]) -> list[Outcome]:
        """Like :meth:`ingest`, returning each event's outcome (None when stored)."""
        return self.pipeline.write_now(
            derive_all(events, memo=self.memo, codec=self.pipeline.codec)
        )

    def ingest_each(self, events: Iterable[dict[str, Any]]) -> None:
        """Write each event in its own transaction, in order."""
        for event in events:
            self.ingest(event)

    # --- reads -------------------------------------------------------------

    def rows(self, table: Table, *where: ColumnElement[bool]) -> list[dict[str, Any]]:
        stmt = select(table).where(*where)
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(stmt)]

    def one(self, table: Table, *where: ColumnElement[bool]) -> dict[str, Any] | None:
        found = self.rows(table, *where)
        assert len(found) <= 1, found
        return found[0] if found else None

    def count(self, table: Table, *where: ColumnElement[bool]) -> int:
        return len(self.rows(table, *where))

    def run(self, run_id: str) -> dict[str, Any] | None:
        return self.one(t.runs, t.runs.c.run_id == run_id)

    def job(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self.one(t.jobs, t.jobs.c.id == job_id(namespace, name))

    def dataset(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self.one(t.datasets, t.datasets.c.id == dataset_id(namespace, name))

    def facets(self, table: Table, owner: Any) -> dict[str, Any]:
        """Facet name -> the stored payload, decoded."""
        stmt = (
            select(table.c.name, t.facet_blobs.c.payload)
            .join(t.facet_blobs, t.facet_blobs.c.id == table.c.blob_id)
            .where(table.c.owner_id == owner)
        )
        with self.engine.connect() as conn:
            return {name: orjson.loads(payload) for name, payload in conn.execute(stmt)}

    def job_facets(self, namespace: str, name: str) -> dict[str, Any]:
        return self.facets(t.job_facets, job_id(namespace, name))

    def dataset_facets(self, namespace: str, name: str) -> dict[str, Any]:
        return self.facets(t.dataset_facets, dataset_id(namespace, name))

    def run_facets(self, run_id: str) -> dict[str, Any]:
        with self.engine.connect() as conn:
            return one_run_facets(conn, run_id).facets

    def run_io(self, run_id: str) -> dict[tuple[int, str], dict[str, Any] | None]:
        """(dataset id, direction) -> the dataset's facets in the run, for each stored row."""
        with self.engine.connect() as conn:
            merged = one_run_facets(conn, run_id).io
        rows = self.rows(t.run_io, t.run_io.c.run_id == run_id)
        return {
            (r["dataset_id"], r["direction"]): merged.get((r["dataset_id"], r["direction"]))
            for r in rows
        }

    def edges(self) -> set[tuple[int, int, str]]:
        """Every stored edge, current or not."""
        return {(r["src_id"], r["dst_id"], r["edge_type"]) for r in self.rows(t.lineage_edges)}

    def current_edges(self) -> set[tuple[int, int, str]]:
        """The edges the graph shows (see ``store.traversal.current_edge``)."""
        e = t.lineage_edges.c
        stmt = select(e.src_id, e.dst_id, e.edge_type).where(current_edge(t.lineage_edges))
        with self.engine.connect() as conn:
            return {(r.src_id, r.dst_id, r.edge_type) for r in conn.execute(stmt)}

    def symlinks(self) -> set[tuple[int, int, str]]:
        return {
            (r["dataset_id"], r["alias_id"], r["source"]) for r in self.rows(t.dataset_symlinks)
        }

    def current_symlinks(self) -> set[tuple[int, int, str]]:
        """The symlinks the graph shows (:func:`.traversal.current_symlink`)."""
        s = t.dataset_symlinks.c
        stmt = select(s.dataset_id, s.alias_id, s.source).where(current_symlink(t.dataset_symlinks))
        with self.engine.connect() as conn:
            return {(r.dataset_id, r.alias_id, r.source) for r in conn.execute(stmt)}

    # --- query plans (SQLite) ----------------------------------------------

    def traced_statements(self, action: Callable[[], None]) -> list[str]:
        """Every SQL statement SQLite runs for ``action``, values expanded into the text.

        Captured by SQLite's trace callback on fresh connections, so it also
        sees what the writer hands straight to the driver.
        """
        statements: list[str] = []
        self.engine.dispose()  # new connections, each with the trace callback

        def on_connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.set_trace_callback(statements.append)

        sa_event.listen(self.engine, "connect", on_connect)
        try:
            action()
        finally:
            sa_event.remove(self.engine, "connect", on_connect)
            self.engine.dispose()
        return statements

    def full_scans(self, statements: list[str]) -> tuple[set[str], list[str]]:
        """The distinct statement shapes, and the full table scans their plans make."""
        store_tables = {table.name for table in t.metadata.sorted_tables}
        seen: set[str] = set()
        scans: list[str] = []
        with self.engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            assert raw is not None
            for statement in statements:
                verb = statement.lstrip().split(None, 1)[0].upper()
                shape = _LITERALS.sub("?", statement)
                if verb not in {"SELECT", "INSERT", "UPDATE", "DELETE"} or shape in seen:
                    continue
                seen.add(shape)
                for row in raw.execute("EXPLAIN QUERY PLAN " + statement).fetchall():
                    words = str(row[-1]).split()
                    if words[:1] == ["SCAN"] and words[1] in store_tables:
                        scans.append(f"{row[-1]}: {statement}")
        return seen, scans

    def payloads(self) -> list[Any]:
        return [orjson.loads(r["payload"]) for r in self.rows(t.events)]

    def all_text(self) -> str:
        """Every value of every row of every table, as one string (for leak checks)."""
        parts: list[str] = []
        for table in t.metadata.sorted_tables:
            for row in self.rows(table):
                parts.extend(str(v) for v in row.values())
        return "\n".join(parts)


def migrate(engine: Engine, revision: str, *, down: bool = False, chunk: int | None = None) -> None:
    """Migrate ``engine``'s store up (or ``down``) to ``revision``, ``chunk`` rows a data step."""
    config = alembic_config(engine)
    if chunk is not None:
        config.attributes[CHUNK_ATTRIBUTE] = chunk
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(config, revision)


def history_settings(examples: int) -> settings:
    """Hypothesis settings of a property over ingested histories: repeatable, a failure unshrunk."""
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=(Phase.explicit, Phase.reuse, Phase.generate),  # a failure prints, unshrunk
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def ingest_shuffled(
    store: Store, events: list[dict[str, Any]], data: st.DataObject, *, max_dups: int = 3
) -> None:
    """Ingest ``events`` in a drawn order, some twice, in drawn batches.

    The property tests' delivery: whatever order and duplication, the store
    must hold what in-order delivery gives.
    """
    dups = data.draw(st.lists(st.integers(0, len(events) - 1), max_size=max_dups), label="dups")
    order = data.draw(st.permutations(list(range(len(events))) + dups), label="order")
    cuts = data.draw(st.lists(st.booleans(), min_size=len(order), max_size=len(order)))
    batch: list[dict[str, Any]] = []
    for position, cut in zip(order, cuts, strict=True):
        batch.append(events[position])
        if cut:
            store.ingest(*batch)
            batch = []
    if batch:
        store.ingest(*batch)


def instant(seconds: float) -> Instant:
    """The instant ``seconds`` after the factories' origin (``tests.factories.at``)."""
    return Instant(parse_us(at(seconds)))
