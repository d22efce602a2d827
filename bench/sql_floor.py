"""The SQL under a history answer, alone: what is left if the Python around it cost nothing.

On a SQLite store of the history workload (``bench.query --workload
history --fill-only``), ``--calls`` answers of one kind are computed
through the service layer (no HTTP), as ``bench.answer_phases`` and
``bench.diff_phases`` ask them:

- ``diff``: the whole-graph diff of two instants a week apart;
- ``window``: the subgraph depth 3 (both directions) of a random node over
  the week before a random instant;
- ``page``: the 500-node graph page ``as_of`` a random instant;
- ``subgraph``: the subgraph depth 3 (both directions) of a random node
  ``as_of`` a random instant.

Every statement an answer sends to the database is recorded (SQLAlchemy's
``before_cursor_execute``) with its parameters; after the answers, each
answer's statements are sent again, in order, on one raw ``sqlite3``
connection of the engine (its pragmas applied), each one's rows fetched
with ``fetchall`` and dropped. The replay is the SQL's own time plus the
least Python a read can cost (the rows as tuples): a floor under the
answer for these statements, whatever the Python around them does.
Figures are wall times in ms (the machine is otherwise idle: CPU and wall
agree within a few percent for one thread), per answer, mean and p95.

Not part of the test suite; no timed assertions. Run from the repository root::

    .venv/bin/python -m bench.sql_floor --store path/to/lineage.db --kind diff --calls 10
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import event

from bench.asks import page_at, subgraph_around
from bench.stored import event_span, node_names
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.errors import NotFound
from feast_lineage.consumer.services import lineage_diff
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.engine.database import create_store_engine
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.positions import PositionCache
from feast_lineage.consumer.store.read.window import Window

WEEK_US = 7 * 86_400 * 1_000_000
Statement = tuple[str, Any]
_TRANSACTION = {"BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"}


def _asker(
    kind: str,
    read: StoreReader,
    span: tuple[int, int],
    nodes: list[tuple[str, str, str]],
    seed: int,
) -> Callable[[], int]:
    """A function computing one answer of ``kind`` at random; it returns the answer's size."""
    rng = random.Random(seed)
    first, last = span

    def instant() -> int:  # the later three quarters of the span, as bench.history draws them
        return first + int((last - first) * (0.25 + 0.75 * rng.random()))

    def ask() -> int:
        if kind == "diff":
            apart = min(WEEK_US, (last - first) // 3)
            end = first + apart + rng.randrange(last - first - apart)
            diff = lineage_diff.lineage_diff(
                read,
                start=lineage_diff.Moment("from", time_us=end - apart),
                end=lineage_diff.Moment("to", time_us=end),
                centre=None,
                now_us=last,
            )
            return len(diff["nodes_added"]) + len(diff["edges_added"]) + len(diff["edges_removed"])
        if kind == "page":
            return page_at(read, rng, Instant(instant()))
        while True:  # a node that existed then (as of an instant: it may have come later)
            node = rng.choice(nodes)
            when = instant()
            try:
                return subgraph_around(
                    read, node, Window(when - WEEK_US, when) if kind == "window" else Instant(when)
                )
            except NotFound:
                continue

    return ask


def _replay(
    raw: sqlite3.Connection, statements: list[Statement], by_sql: dict[str, float] | None = None
) -> float:
    started = time.perf_counter()
    for sql, params in statements:
        if sql.split(None, 1)[0].upper() in _TRANSACTION:
            continue  # the replay reads outside a transaction (nothing writes)
        began = time.perf_counter()
        cursor = raw.cursor()
        cursor.execute(sql, params)
        cursor.fetchall()
        cursor.close()
        if by_sql is not None:
            by_sql[sql] = by_sql.get(sql, 0.0) + time.perf_counter() - began
    return time.perf_counter() - started


def _label(sql: str) -> str:
    """A statement in one line, shortened: what it selects and from where."""
    words = " ".join(sql.split())
    return words if len(words) <= 160 else words[:157] + "..."


def _summary(values: list[float]) -> str:
    ordered = sorted(values)
    mean = 1000 * sum(ordered) / len(ordered)
    p95 = 1000 * ordered[int(0.95 * (len(ordered) - 1))]
    return f"{mean:.1f} / {p95:.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sql_floor")
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--kind", choices=("diff", "window", "page", "subgraph"), default="diff")
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--top", type=int, default=8, help="statements listed, longest first")
    args = parser.parse_args(argv)
    engine = create_store_engine(f"sqlite:///{args.store}")
    read = StoreReader(engine, Scope.everything(), {}, PositionCache())
    with engine.connect() as conn:
        first, last, events = event_span(conn)
        nodes = node_names(conn)
    ask = _asker(args.kind, read, (first, last), nodes, args.seed)
    recorded: list[Statement] = []

    def record(_conn: Any, _cursor: Any, sql: str, params: Any, _ctx: Any, many: bool) -> None:
        assert not many, "a read sends no executemany"
        recorded.append((sql, params))

    for _ in range(3):  # warm the caches (the statement cache, SQLite's pages)
        ask()
    event.listen(engine, "before_cursor_execute", record)
    answers: list[tuple[float, list[Statement], int]] = []
    for _ in range(args.calls):
        recorded.clear()
        started = time.perf_counter()
        size = ask()
        answers.append((time.perf_counter() - started, list(recorded), size))
    event.remove(engine, "before_cursor_execute", record)
    pooled = engine.raw_connection()  # the engine's pragmas applied
    raw = pooled.driver_connection
    assert isinstance(raw, sqlite3.Connection)
    _replay(raw, answers[0][1])  # warm
    by_sql: dict[str, float] = {}
    replays = [_replay(raw, statements, by_sql) for _, statements, _ in answers]
    pooled.close()
    whole = [seconds for seconds, _, _ in answers]
    print(f"store: {args.store} ({events:,} events), {args.kind}, {len(answers)} answers")
    print(f"statements an answer: {sum(len(s) for _, s, _ in answers) / len(answers):.0f}")
    print("| ms an answer | mean / p95 |")
    print("|---|---:|")
    print(f"| the answer, in process | {_summary(whole)} |")
    print(f"| its SQL replayed alone (rows fetched, dropped) | {_summary(replays)} |")
    share = sum(replays) / sum(whole)
    print(f"| the SQL's share of the answer | {100 * share:.0f}% |")
    print(f"\nthe {args.top} statements that took longest, ms an answer:")
    for sql, seconds in sorted(by_sql.items(), key=lambda item: -item[1])[: args.top]:
        print(f"- {1000 * seconds / len(answers):.1f}: `{_label(sql)}`")
    engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
