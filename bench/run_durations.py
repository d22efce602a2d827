"""What keeping the longest run (``max_run_us``, issue 39's windows) costs at ingest.

Two fresh SQLite stores fed the same standard workload in batches of 100
events, in process, batch by batch interleaved (alternating which goes
first): one with :func:`~feast_lineage.consumer.store.write.run_durations.note_longest_run`,
one with it replaced by nothing. The figure is the ratio of this thread's
CPU time (median of rounds). Not part of the test suite::

    .venv/bin/python -m bench.run_durations --events 20000 --rounds 3
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench.workload import Workload
from feast_lineage.consumer.intake.body import parse_events
from feast_lineage.consumer.intake.facet_memo import FacetMemo
from feast_lineage.consumer.intake.pipeline import IngestPipeline
from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema
from feast_lineage.consumer.store.write import batch
from feast_lineage.consumer.store.write.rows import RowBatch

_REAL = vars(batch)["note_longest_run"]


def _nothing(*_args: object, **_kwargs: object) -> None:
    return None


class Side:
    def __init__(self, path: Path, *, on: bool) -> None:
        self.engine = create_store_engine(f"sqlite:///{path}")
        upgrade_schema(self.engine)
        self.pipeline = IngestPipeline(self.engine)
        self.memo = FacetMemo()
        self.on = on
        self.cpu = 0.0

    def ingest(self, body: bytes) -> None:
        vars(batch)["note_longest_run"] = _REAL if self.on else _nothing
        cpu = time.thread_time()
        parsed = parse_events(body, 0, max_events=10_000, memo=self.memo)
        self.pipeline.write_now([r for r in parsed.results if isinstance(r, RowBatch)])
        self.cpu += time.thread_time() - cpu
        vars(batch)["note_longest_run"] = _REAL


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    batches = Workload().take_batches(args.events, 100)
    ratios = []
    for n in range(args.rounds):
        with tempfile.TemporaryDirectory() as where:
            on = Side(Path(where) / "on.db", on=True)
            off = Side(Path(where) / "off.db", on=False)
            for i, body in enumerate(batches):
                for side in (on, off) if i % 2 == 0 else (off, on):
                    side.ingest(body)
            ratios.append(on.cpu / off.cpu)
            print(f"round {n + 1}: on {on.cpu:.2f} s, off {off.cpu:.2f} s, {ratios[-1]:.3f}")
    print(f"median ratio on/off: {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
