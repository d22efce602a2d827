"""A run's facets, read back from the run's stored events.

Run facets and the input/output facets of a run's datasets are not kept in
tables of their own: they belong to one run, which has a handful of events,
and every one of those events is stored anyway. Writing them again per event
would cost ingest about 15% of its write work (a ranked upsert per facet
and a blob per new payload) for values that only a run's detail page reads.

The merge follows the order the rest of the store uses (event time, then
content hash; :mod:`feast_lineage.consumer.intake.derive`), so the result is
the same whatever order the events arrived in:

* run facets merge key by key: the latest event carrying a facet wins, and
  facets that later events leave out are kept;
* a dataset's ``inputFacets``/``outputFacets`` are those of the latest event
  that names the dataset as an input (or output), absent when it has none.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

import orjson
from sqlalchemy import Connection, Select, bindparam, select

from feast_lineage.consumer.store.read.common import JsonObject
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.identity import dataset_id

_IO_KEYS = (("input", "inputs", "inputFacets"), ("output", "outputs", "outputFacets"))

# Where a merged value sits: ("facet", name) or (dataset id, "input" | "output").
_Slot = tuple[str, str] | tuple[int, str]


@dataclass(slots=True)
class RunFacets:
    """What a run's events say about the run itself and its datasets."""

    facets: JsonObject = field(default_factory=dict)  # facet name -> payload
    # (dataset id, "input" | "output") -> that dataset's facets in this run, or None
    io: dict[tuple[int, str], JsonObject | None] = field(default_factory=dict)
    # Each value above -> the id of the event it came from (see ``sources``).
    _source: dict[_Slot, int | None] = field(default_factory=dict, repr=False, compare=False)

    def add(self, event: JsonObject, source: int | None = None) -> None:
        """Apply one event; events must come in the store's order (event_key).

        ``source`` names the event (its row id) for :meth:`sources`.
        """
        run = event.get("run")
        facets = run.get("facets") if isinstance(run, dict) else None
        if isinstance(facets, dict):
            self.facets.update(facets)
            for name in facets:
                self._source[("facet", name)] = source
        for direction, key, facet_key in _IO_KEYS:
            datasets = event.get(key)
            for ds in datasets if isinstance(datasets, list) else ():
                if not isinstance(ds, dict):
                    continue
                ds_namespace, ds_name = ds.get("namespace"), ds.get("name")
                if not (isinstance(ds_namespace, str) and isinstance(ds_name, str)):
                    continue  # ingest stores none such
                io_key = (dataset_id(ds_namespace, ds_name), direction)
                own = ds.get(facet_key)
                self.io[io_key] = own if isinstance(own, dict) and own else None
                self._source[io_key] = source

    def sources(self) -> set[int | None]:
        """The events that hold a value of the merged result.

        Any other event of the run can go without changing what a read of
        the run returns.
        """
        return set(self._source.values())


class _EventRow(NamedTuple):
    id: int
    run_id: str
    event_time_us: int
    payload: str


@lru_cache(maxsize=1)
def _statement() -> Select[Any]:
    e = t.events.c
    return (
        select(e.id, e.run_id, e.event_time_us, e.payload)
        .where(e.run_id.in_(bindparam("runs", expanding=True)))
        .order_by(e.run_id, e.event_key)
    )


def _merge(
    conn: Connection, run_ids: Iterable[str], before_us: int | None = None
) -> tuple[dict[str, RunFacets], list[tuple[str, int]]]:
    """Each run's merged facets, and (run id, event id) of its events older than ``before_us``."""
    wanted = sorted(set(run_ids))
    merged = {run_id: RunFacets() for run_id in wanted}
    old: list[tuple[str, int]] = []
    for start in range(0, len(wanted), 500):
        for found in conn.execute(_statement(), {"runs": wanted[start : start + 500]}):
            row = _EventRow._make(found)
            merged[row.run_id].add(orjson.loads(row.payload), row.id)
            if before_us is not None and row.event_time_us < before_us:
                old.append((row.run_id, row.id))
    return merged, old


def run_facets(conn: Connection, run_ids: Iterable[str]) -> dict[str, RunFacets]:
    """Run id -> its merged facets, for every given run (empty when it has no events)."""
    return _merge(conn, run_ids)[0]


def one_run_facets(conn: Connection, run_id: str) -> RunFacets:
    return run_facets(conn, [run_id])[run_id]


def superseded_events(conn: Connection, run_ids: Iterable[str], before_us: int) -> list[int]:
    """Ids of the runs' events older than ``before_us`` that reads no longer need.

    An event is needed while it holds the latest value of a run facet or of
    a dataset's input/output facets.
    """
    merged, old = _merge(conn, run_ids, before_us)
    needed = {run_id: facets.sources() for run_id, facets in merged.items()}
    return [event_id for run_id, event_id in old if event_id not in needed[run_id]]
