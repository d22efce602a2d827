"""Lineage health in process, on a store opened read-only (no migration, nothing written).

The figures of bench/RESULTS.md (Lineage health): the services called directly with a
StoreReader, p50/p95 ms, the graph page with states and without (an empty assessment)
in turns on the same warm page.

    .venv/bin/python bench/health_inprocess.py ROUNDS [STORE]
"""

# ruff: noqa
# mypy: ignore-errors
import random, statistics, time, sys
from sqlalchemy import create_engine
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.services import graph as gs
from feast_lineage.consumer.services.health import health_page, impact
from feast_lineage.consumer.services.health_cache import HealthCache
from feast_lineage.consumer.services.health_states import Assessment
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.read.positions import PositionCache
import sqlite3

DB = (
    sys.argv[2] if len(sys.argv) > 2 else "/work/bench-data/shared/standard-1000000/data/lineage.db"
)
eng = create_engine(f"sqlite:///file:{DB}?mode=ro&uri=true")
c = sqlite3.connect(f"file:{DB}?mode=ro", uri=True)
nodes = [("job", a, b) for a, b in c.execute("select namespace, name from feast_lineage_jobs")] + [
    ("dataset", a, b) for a, b in c.execute("select namespace, name from feast_lineage_datasets")
]
rng = random.Random(7)
cache = HealthCache()
read = StoreReader(
    engine=eng,
    scope=Scope.everything(),
    namespace_mapping={},
    positions=PositionCache(),
    health_cache=cache,
)
fresh = lambda: StoreReader(
    engine=eng,
    scope=Scope.everything(),
    namespace_mapping={},
    positions=PositionCache(),
    health_cache=HealthCache(),
)
T = {}


def tm(name, f):
    t0 = time.perf_counter()
    f()
    T.setdefault(name, []).append(time.perf_counter() - t0)


real = gs.assess
empty = lambda conn, rules, now_us, cache=None: Assessment(now_us)
health_page(read, namespace=None, kind=None, limit=50, offset=0)
for i in range(int(sys.argv[1])):
    tm("health (reused)", lambda: health_page(read, namespace=None, kind=None, limit=50, offset=0))
    tm(
        "health (fresh)",
        lambda: health_page(fresh(), namespace=None, kind=None, limit=50, offset=0),
    )
    health_page(read, namespace=None, kind=None, limit=50, offset=0)
    k, ns, n = rng.choice(nodes)
    tm("impact depth 10", lambda: impact(read, kind=k, namespace=ns, name=n, depth=10))
    off = rng.randrange(0, len(nodes) - 500)
    gs.graph_page(read, namespace=None, limit=500, offset=off)  # both on a warm page
    order = ["with", "without"] if i % 2 == 0 else ["without", "with"]
    for o in order:
        gs.assess = real if o == "with" else empty
        try:
            tm(
                f"graph 500 {o} states",
                lambda: gs.graph_page(read, namespace=None, limit=500, offset=off),
            )
        finally:
            gs.assess = real
for k, v in T.items():
    v2 = sorted(v)
    print(
        f"| {k} | {statistics.median(v) * 1000:.1f} | {v2[min(len(v2) - 1, int(0.95 * len(v2)))] * 1000:.1f} |"
    )
print(
    "ratio with/without p50",
    statistics.median(T["graph 500 with states"])
    / statistics.median(T["graph 500 without states"]),
)
