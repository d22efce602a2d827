"""The interval table of issue 39, measured against the edges read from the runs.

Issue 39 names the known design for the lineage as of an instant: a table of
edge intervals (job, dataset, direction, valid from, valid to) kept at
ingest. The store derives the edges at ``T`` from the runs instead (each
job's latest listing at or before ``T``, its run's ``run_io`` rows listed by
then: :func:`feast_lineage.consumer.store.read.as_of.edges_at`). This
builds the interval table from a store, once, into a side database (the
store is only read), and compares, at random instants of the store's span:

* the answers: the (job, dataset, direction) of ``edges_at``'s input and
  output edges, and those of the intervals holding the instant, must be
  equal (a difference is printed and fails the run);
* the CPU of each read: ``edges_at`` (its parent and root edges included,
  the part an interval table leaves as it is) and the interval table's
  stabbing query, through SQLite's R*Tree (an index on either bound scans
  half the table on average).

An interval is ``[max(listing time, the run's first listing of the
dataset), the job's next listing in that direction)``: the definition of
docs/api.md, "lineage at an instant". Built after the fact from stored
rows, it says what reads would cost, not what keeping it at ingest would
(a late event splits intervals: docs/performance.md). SQLite only (R*Tree);
PostgreSQL would take a GiST index on a range, MariaDB has neither.

Not part of the test suite; no timed assertions. Run from the repository root::

    .venv/bin/python -m bench.interval_table --store path/to/lineage.db --side /tmp/iv.db
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import time
from pathlib import Path

from bench.stored import event_span
from feast_lineage.consumer.store.engine.database import create_store_engine
from feast_lineage.consumer.store.read import as_of
from feast_lineage.event_time import SORT_OFFSET

# The rank starts with the event time plus SORT_OFFSET, in 20 digits.
_TIME_OF_RANK = f"CAST(substr(rank, 1, 20) AS INTEGER) - {SORT_OFFSET}"
_OPEN = 9_000_000_000_000_000_000  # valid_to of an interval no listing ends
_RTREE_END = 4_102_444_800  # 2100-01-01, in s: R*Tree coordinates are 32-bit floats
_BUILD = f"""
CREATE TABLE listing AS
  SELECT job_id, direction, {_TIME_OF_RANK} AS t_us, run_key,
         LEAD({_TIME_OF_RANK}) OVER (PARTITION BY job_id, direction ORDER BY rank) AS next_us
  FROM store.feast_lineage_io_listings;
CREATE TABLE iv (
  id INTEGER PRIMARY KEY, job_id INTEGER, dataset_id INTEGER, direction TEXT,
  vf INTEGER, vt INTEGER
);
INSERT INTO iv (job_id, dataset_id, direction, vf, vt)
  SELECT l.job_id, r.dataset_id, l.direction,
         MAX(l.t_us, COALESCE(r.first_us, l.t_us)), COALESCE(l.next_us, {_OPEN})
  FROM listing l
  JOIN store.feast_lineage_run_io r ON r.run_id = l.run_key AND r.direction = l.direction
  WHERE MAX(l.t_us, COALESCE(r.first_us, l.t_us)) < COALESCE(l.next_us, {_OPEN});
DROP TABLE listing;
CREATE VIRTUAL TABLE iv_rt USING rtree(id, lo, hi);
INSERT INTO iv_rt SELECT id, vf / 1e6, MIN(vt / 1e6, {_RTREE_END}) FROM iv;
"""
# The R*Tree's float bounds are rounded outwards: the exact bounds decide.
_AT = """
SELECT DISTINCT i.job_id, i.dataset_id, i.direction
FROM iv_rt r JOIN iv i ON i.id = r.id
WHERE r.lo <= :seconds AND r.hi >= :seconds AND i.vf <= :t AND i.vt > :t
"""

Edge = tuple[int, int, str]


def build(store: Path, side: Path) -> int:
    """The interval table of ``store`` into ``side`` (made anew); how many intervals."""
    side.unlink(missing_ok=True)
    db = sqlite3.connect(side)
    db.execute("ATTACH ? AS store", (f"file:{store}?mode=ro",))
    db.executescript(_BUILD)
    count = int(db.execute("SELECT count(*) FROM iv").fetchone()[0])
    db.commit()
    db.close()
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.interval_table")
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--side", type=Path, required=True, help="the side database (made anew)")
    parser.add_argument("--instants", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    intervals = build(args.store, args.side)
    print(f"{intervals:,} intervals built in {time.perf_counter() - started:.0f} s")
    engine = create_store_engine(f"sqlite:///{args.store}")
    side = sqlite3.connect(f"file:{args.side}?mode=ro", uri=True)
    runs: list[float] = []
    stabs: list[float] = []
    with engine.connect() as conn:
        first, last, _ = event_span(conn)
        rng = random.Random(args.seed)
        instants = [first + rng.randrange(last - first) for _ in range(args.instants)]
        for _ in range(args.rounds):
            for t in instants:
                cpu = time.process_time()
                rows = as_of.edges_at(conn, None, as_of.Instant(t))
                runs.append(time.process_time() - cpu)
                cpu = time.process_time()
                found = set(side.execute(_AT, {"t": t, "seconds": t / 1e6}).fetchall())
                stabs.append(time.process_time() - cpu)
                derived: set[Edge] = set()
                for row in rows:
                    if row.edge_type == "input":
                        derived.add((row.dst_id, row.src_id, "input"))
                    elif row.edge_type == "output":
                        derived.add((row.src_id, row.dst_id, "output"))
                if derived != found:
                    print(
                        f"at {t}: {len(derived - found)} only derived, "
                        f"{len(found - derived)} only intervals"
                    )
                    return 1
    engine.dispose()
    print(f"{args.instants} instants x {args.rounds} rounds, the same input and output edges")
    print("| read | CPU ms median | p95 |")
    print("|---|---:|---:|")
    for label, spent in (("`edges_at` (from the runs)", runs), ("interval table (R*Tree)", stabs)):
        ordered = sorted(spent)
        p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        print(f"| {label} | {1000 * statistics.median(spent):.1f} | {1000 * p95:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
