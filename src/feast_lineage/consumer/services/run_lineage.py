"""A run's lineage: what it read and wrote, walked upstream and downstream, as of its end.

``GET /runs/{run_id}/lineage``: the run's job is the center (depth 0),
the datasets the run read and wrote are one step from it, and the walk
goes on upstream from what it read and downstream from what it wrote, as
the graph stood when the run ended (now for a running run), by the same
builder as every graph answer (:mod:`.graph_history`). Everything is
filtered by the caller's visible namespaces; a run of a hidden job is
reported as missing.
"""

from __future__ import annotations

from feast_lineage.consumer.lineage_model import Direction, NodeId, Way
from feast_lineage.consumer.schemas import Clamped, RunLineage
from feast_lineage.consumer.services import not_found
from feast_lineage.consumer.services.bounds import clamp_depth
from feast_lineage.consumer.services.graph_history import build, nodes_at, walk_at
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.services.when import When, answerable
from feast_lineage.consumer.store.read import runs as run_reads
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.event_time import to_iso
from feast_lineage.identity import job_id

_WAYS: dict[str, Way] = {"input": "upstream", "output": "downstream"}


def run_lineage(
    read: StoreReader, key: str, *, depth: int, direction: Direction, limit: int
) -> RunLineage:
    """The lineage of run ``key`` (a lower-case hyphenated UUID), ``depth`` steps from its job."""
    clamped: list[Clamped] = []
    depth = clamp_depth(depth, clamped)
    ns_ids = read.scope.ns_ids
    with read.engine.connect() as conn:
        run = run_reads.get_run(conn, key, ns_ids)
        if run is None:
            raise not_found.run(key)
        at: When = Instant(run.ended_us) if run.ended_us is not None else None
        answerable(conn, at)
        job = job_id(run.job_namespace, run.job_name)
        depths = {job: 0}
        for io in run_reads.run_io(conn, key, ns_ids) if depth > 0 else []:
            way = _WAYS[io.direction]
            if direction not in (way, "both"):
                continue
            # A dataset's aliases are at its own depth, also at depth 1 (as in the subgraph).
            walked = walk_at(conn, io.dataset_id, way, depth - 1, ns_ids, at, aliases=True)
            for node, level in walked.items():
                depths[node] = min(depths.get(node, level + 1), level + 1)
        nearest = sorted(depths, key=lambda n: (depths[n], n))
        considered = nearest[: 2 * limit + 16]
        rows = nodes_at(conn, considered, ns_ids, at)
        rows.sort(key=lambda r: (depths[r.id], r.namespace, r.name, r.kind))
        truncated = len(rows) > limit or len(considered) < len(nearest)
        built = build(conn, rows[:limit], read, depths, at)
    return RunLineage(
        run_id=key,
        job=str(NodeId("job", run.job_namespace, run.job_name)),
        state=run.state,
        depth=depth,
        direction=direction,
        **built,
        truncated=truncated,
        limit=limit,
        clamped=clamped,
        as_of=to_iso(run.ended_us) if run.ended_us is not None else None,
    )
