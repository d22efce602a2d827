"""What exact job facets as of an instant cost a graph page: the read before and after, in process.

On a SQLite store at head (a history workload, e.g. the 1M store of
``python -m bench.query --workload history --sizes 1000000 --fill-only``),
``--pages`` times: a random instant in the later three quarters of the
store's span and 250 jobs in name order at a random offset (the jobs of a
graph page of 500 nodes), read both ways, in turns (which goes first
alternates), on one connection:

* **stated by then**: the read ``as_of`` answers used before session 8,
  each facet whose latest statement is by the instant (one stated again
  since left out), the baseline;
* **exact**: :func:`feast_lineage.consumer.store.read.job_facets_at.job_facets_at`.

Prints the CPU time per page of each (``time.process_time``: the process
is single-threaded, so other processes' load moves it less than wall time),
their ratio, and the facets each found.

Not part of the test suite; no timed assertions. Run from the repository root::

    .venv/bin/python -m bench.job_facets_at --store path/to/lineage.db --pages 40
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

from sqlalchemy import Connection, bindparam, select, text

from feast_lineage.consumer.store.engine.database import create_store_engine
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.job_facets_at import job_facets_at
from feast_lineage.consumer.store.schema import tables as t


def stated_by_then(conn: Connection, jobs: list[int], at: Instant) -> int:
    """The facets whose latest statement is by ``at`` (the read before session 8); how many."""
    c, b = t.job_facets.c, t.facet_blobs.c
    stmt = (
        select(c.owner_id, c.name, b.payload)
        .join(t.facet_blobs, b.id == c.blob_id)
        .where(c.owner_id.in_(bindparam("owners", expanding=True)))
        .where(c.rank < bindparam("as_of_rank"))
        .order_by(c.owner_id, c.name)
    )
    return len(conn.execute(stmt, {"owners": jobs, **at.params()}).all())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.job_facets_at")
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=250)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    engine = create_store_engine(f"sqlite:///{args.store}")
    rng = random.Random(args.seed)
    spent = {"stated by then": 0.0, "exact": 0.0}
    found = {"stated by then": 0, "exact": 0}
    with engine.connect() as conn:
        low, high = conn.execute(
            text("SELECT min(event_time_us), max(event_time_us) FROM feast_lineage_events")
        ).one()
        names = select(t.jobs.c.id).order_by(t.jobs.c.namespace, t.jobs.c.name)
        every = [int(i) for i in conn.execute(names).scalars()]
        for page in range(args.pages):
            at = Instant(low + int((high - low) * (0.25 + 0.75 * rng.random())))
            start = rng.randrange(max(len(every) - args.jobs, 1))
            jobs = every[start : start + args.jobs]
            for way in ("stated by then", "exact")[:: 1 if page % 2 else -1]:
                began = time.process_time()
                if way == "exact":
                    found[way] += sum(map(len, job_facets_at(conn, jobs, at).values()))
                else:
                    found[way] += stated_by_then(conn, jobs, at)
                spent[way] += time.process_time() - began
    base = spent["stated by then"]
    load, when = os.getloadavg()[0], time.strftime("%F %H:%M UTC", time.gmtime())
    print(f"{args.pages} pages of {args.jobs} jobs, load {load:.2f}, {when}")
    for way, seconds in spent.items():
        print(
            f"{way}: {1000 * seconds / args.pages:.1f} ms CPU a page ({seconds / base:.2f} of "
            f"stated by then), {found[way]:,} facets"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
