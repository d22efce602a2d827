"""Column lineage of one field, depth 5, ``as_of`` random instants, in process, for profiling.

The service call of ``GET .../datasets/{ns}/{name}/columns?field=F&depth=5&as_of=T``
(:func:`feast_lineage.consumer.services.columns.column_lineage`) on a store
with column lineage history (:mod:`bench.column_history`), the fields and
instants drawn as :mod:`bench.history` draws them; prints the CPU time per
call (``time.process_time``), its percentiles, and with ``--profile`` the
cProfile of the calls.

    .venv/bin/python -m bench.profile_columns_as_of --repo /path/to/store --calls 100 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time
from pathlib import Path

from bench.history import _column_fields, _span


def main(argv: list[str] | None = None) -> int:
    from feast_lineage.consumer.access.scope import Scope
    from feast_lineage.consumer.services.columns import column_lineage
    from feast_lineage.consumer.services.reader import StoreReader
    from feast_lineage.consumer.store.engine.database import create_store_engine
    from feast_lineage.consumer.store.read.as_of import Instant
    from feast_lineage.consumer.store.read.positions import PositionCache

    parser = argparse.ArgumentParser(prog="python -m bench.profile_columns_as_of")
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    fields = _column_fields(args.repo)
    low, high = _span(args.repo)
    engine = create_store_engine(f"sqlite:///{args.repo / 'data' / 'lineage.db'}")
    read = StoreReader(engine, Scope.everything(), {}, PositionCache())
    asks = []
    for _ in range(args.calls + 10):  # as bench.history draws them
        ns, name, field, first = rng.choice(fields)
        since = max(first, low + (high - low) // 4)
        asks.append(((ns, name, field), since + int((high - since) * rng.random())))

    def call(ask: tuple[tuple[str, str, str], int]) -> int:
        (ns, name, field), at = ask
        try:
            answer = column_lineage(
                read,
                namespace=ns,
                name=name,
                field_name=field,
                direction="both",
                depth=5,
                indirect=True,
                limit=2000,
                at=Instant(at),
            )
        except Exception as error:  # a dataset not there yet: as the bench's 404s
            if type(error).__name__ != "NotFound":
                raise
            return -1
        return len(answer["edges"])

    for ask in asks[:10]:  # warm: statements built, pages read
        call(ask)
    asks = asks[10:]
    profile = cProfile.Profile() if args.profile else None
    cpu: list[float] = []
    sizes: list[int] = []
    for ask in asks:
        started = time.process_time()
        if profile is not None:
            profile.enable()
        sizes.append(call(ask))
        if profile is not None:
            profile.disable()
        cpu.append((time.process_time() - started) * 1000)
    ordered = sorted(cpu)
    pct = {p: ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))] for p in (0.5, 0.95)}
    answered = sorted(s for s in sizes if s >= 0)
    print(
        f"{len(cpu)} calls: CPU p50 {pct[0.5]:.1f} ms, p95 {pct[0.95]:.1f} ms; "
        f"{len(sizes) - len(answered)} not found; edges per answer: median "
        f"{answered[len(answered) // 2] if answered else 0}, max {max(answered, default=0)}"
    )
    if profile is not None:
        pstats.Stats(profile).sort_stats("cumulative").print_stats(35)
    engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
