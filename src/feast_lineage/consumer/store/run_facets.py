"""A run's facets, read back from the run's stored events.

Run facets and the input/output facets of a run's datasets are not kept in
tables of their own: they belong to one run, which has a handful of events,
and every one of those events is stored anyway. Writing them again per event
would cost ingest about 15% of its write work (a ranked upsert per facet
and a blob per new payload) for values that only a run's detail page reads.

The merge follows the order the rest of the store uses (event time, then
content hash; :mod:`feast_lineage.consumer.ingest.derive`), so the result is
the same whatever order the events arrived in:

* run facets merge key by key: the latest event carrying a facet wins, and
  facets that later events leave out are kept;
* a dataset's ``inputFacets``/``outputFacets`` are those of the latest event
  that names the dataset as an input (or output), absent when it has none.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import Connection, bindparam, select

from feast_lineage.consumer.store import tables as t
from feast_lineage.identity import dataset_id

_IO_KEYS = (("input", "inputs", "inputFacets"), ("output", "outputs", "outputFacets"))


@dataclass
class RunFacets:
    """What a run's events say about the run itself and its datasets."""

    facets: dict[str, Any] = field(default_factory=dict)
    # (dataset id, "input" | "output") -> that dataset's facets in this run, or None
    io: dict[tuple[int, str], dict[str, Any] | None] = field(default_factory=dict)

    def add(self, event: dict[str, Any]) -> None:
        """Apply one event; events must come in the store's order (event_key)."""
        run = event.get("run")
        facets = run.get("facets") if isinstance(run, dict) else None
        if isinstance(facets, dict):
            self.facets.update(facets)
        for direction, key, facet_key in _IO_KEYS:
            for ds in event.get(key) or ():
                io_facets = ds.get(facet_key)
                self.io[(dataset_id(ds["namespace"], ds["name"]), direction)] = io_facets or None


_STATEMENT = (
    select(t.events.c.run_id, t.events.c.payload)
    .where(t.events.c.run_id.in_(bindparam("runs", expanding=True)))
    .order_by(t.events.c.run_id, t.events.c.event_key)
)


def run_facets(conn: Connection, run_ids: Iterable[str]) -> dict[str, RunFacets]:
    """Run id -> its merged facets, for every given run (empty when it has no events)."""
    wanted = sorted(set(run_ids))
    out = {run_id: RunFacets() for run_id in wanted}
    for start in range(0, len(wanted), 500):
        rows = conn.execute(_STATEMENT, {"runs": wanted[start : start + 500]})
        for run_id, payload in rows:
            out[run_id].add(orjson.loads(payload))
    return out


def one_run_facets(conn: Connection, run_id: str) -> RunFacets:
    return run_facets(conn, [run_id])[run_id]
