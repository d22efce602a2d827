"""The dataset version rows of one event: what it tells of each dataset's history.

An event tells two things of a dataset, kept in two tables:

* **Made by an event** (``feast_lineage_dataset_versions``,
  :class:`DatasetVersionRow`): a *write* (a ``COMPLETE`` RunEvent listing
  the dataset as an output) or a statement of a ``lifecycleStateChange``.
  Each is a version of its own: one immutable, content-addressed row per
  (event, dataset), its id a digest of the dataset, the run (or, for a
  DatasetEvent, the event) that made it, the event's key and the digest of
  the dataset's facets in it, so every delivery of an event writes the same
  row (``insert_ignore``) and a late event never renumbers or rewrites
  another.
* **A state stated** (``feast_lineage_dataset_states``,
  :class:`DatasetStateRow`): any other event stating a ``schema``,
  ``version`` or ``symlinks`` facet of it (a run reading it, a run's
  ``START`` announcing its output, a DatasetEvent). These rows are keyed by
  the dataset and what is stated (schema blob, ``datasetVersion``, symlinks
  blob), not by the event: the thousandth run reading a table with the
  schema it always had adds no row, and a run's ``START`` and ``COMPLETE``
  stating the same input are one row. The row keeps the earliest statement
  (time, then run, then event type: the highest :data:`rank`), a merge rule
  like the other merged rows', so it is the same whatever order the events
  arrive in.

Which rows are *versions* (a write, a lifecycle change, or a change of a
followed facet against the rows before it in (event time, id) order) is
decided at read time (:mod:`feast_lineage.consumer.store.read.dataset_versions`).
Stating again a state the dataset was stated with before is not a new
version (a reader with stale metadata would otherwise mint one a run); a
write always is, with the schema it states.

The schema, the lifecycle change and the symlinks are pointers to the
content-addressed facet blobs ingest already stores for the dataset's
facets, so a run writing the schema the version before had stores a row
of ids, not a copy of the schema. Migration 0012 derived the event rows
from stored events with a frozen copy of this module as it was then;
migration 0015 folded its statement rows into state rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypedDict

from feast_lineage import canonical_json
from feast_lineage.consumer.store.schema.tables import VERSION_EVENT_TYPES as EVENT_TYPES
from feast_lineage.event_time import SORT_OFFSET
from feast_lineage.identity import dataset_id, job_id

# The dataset facets whose change makes a version.
TRACKED = ("schema", "lifecycleStateChange", "version", "symlinks")
_MASK = (1 << 63) - 1
# Above every event time plus SORT_OFFSET: a state's rank counts down from it.
_RANK_TOP = 10**20 - 1
_NO_RUN = "0" * 32


class DatasetVersionRow(TypedDict):
    """A write of a dataset, or a change of its lifecycle, by one event."""

    id: int  # 63-bit digest of (dataset, run or event, event key, facets digest, writes)
    dataset_id: int
    time_us: int  # the event's eventTime
    run_id: bytes | None  # the run's UUID, 16 bytes; None for a DatasetEvent
    job_id: int | None  # None for a DatasetEvent
    event_type: int | None  # the RunEvent's type, coded (tables.VERSION_EVENT_TYPES)
    writes: int  # 1: a COMPLETE run listed it as an output (always a version)
    schema_id: str | None  # facet blob of its ``schema`` facet, when the event has one
    lifecycle_id: str | None  # facet blob of its ``lifecycleStateChange`` facet
    dataset_version: str | None  # its ``version`` facet's ``datasetVersion``
    symlinks_id: str | None  # facet blob of its ``symlinks`` facet
    row_count: int | None  # outputStatistics of a written dataset
    byte_count: int | None
    file_count: int | None
    facets_digest: int  # 63-bit digest of the dataset as the event states it


class DatasetStateRow(TypedDict):
    """The earliest statement of one state of a dataset (:mod:`.dataset_versions`)."""

    dataset_id: int
    id: int  # 63-bit digest of (dataset, schema blob, datasetVersion, symlinks blob)
    rank: str  # the highest is the earliest statement: see state_rank
    time_us: int  # its eventTime
    run_id: bytes | None  # the run that stated it; None for a DatasetEvent
    job_id: int | None
    event_type: int | None
    schema_id: str | None
    dataset_version: str | None
    symlinks_id: str | None


@dataclass
class VersionRows:
    """An event's rows of dataset history, by id."""

    made: dict[int, DatasetVersionRow] = field(default_factory=dict)
    states: dict[int, DatasetStateRow] = field(default_factory=dict)


def _id(digest: str) -> int:
    """A 63-bit integer of a hex digest (stored as a BIGINT on every database)."""
    return int(digest[:16], 16) & _MASK


@lru_cache(maxsize=1 << 16)
def state_id(
    dataset: int, schema_id: str | None, dataset_version: str | None, symlinks_id: str | None
) -> int:
    """The id of a dataset's state: a digest of the dataset and what is stated."""
    stated = canonical_json.dumps([dataset, schema_id, dataset_version, symlinks_id])
    return _id(canonical_json.digest(stated))


def state_rank(time_us: int, run_id: bytes | None, event_type: int | None) -> str:
    """A statement's rank: the earliest time ranks highest, then the run's id, then the type.

    Two statements of one state rank equal only when they agree on every
    column the state row keeps, so the row kept does not depend on which
    arrived first.
    """
    run = run_id.hex() if run_id is not None else _NO_RUN
    return f"{_RANK_TOP - (time_us + SORT_OFFSET):020d}{run}{event_type or 0}"


# (dataset id, facet name or "" for the whole dataset, value) -> the value's
# canonical digest. Ingest passes the row builder's, which answers the blob
# ids it already computed for the event's dataset facets and remembers
# repeated values (intake/facet_memo.py); the answer must be
# :func:`canonical_digest`'s.
Digest = Callable[[int, str, Any], str]


def canonical_digest(_dataset: int, _name: str, value: Any) -> str:
    return canonical_json.digest(canonical_json.dumps(value))


def _count(stats: Any, key: str) -> int | None:
    value = stats.get(key) if isinstance(stats, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if -(2**63) <= value < 2**63 else None


def _code(event_type: str | None) -> int | None:
    return EVENT_TYPES.get(event_type) if event_type is not None else None


class _Event:
    """What every row of one event shares; the run's bytes and the rank are made once, on demand.

    A plain slotted class, not a frozen dataclass: one is made per event, and
    a frozen dataclass's ``__init__`` costs a ``object.__setattr__`` a field.
    """

    __slots__ = ("_rank", "_run_bytes", "code", "digest", "job", "key", "run_id", "time_us")

    def __init__(
        self,
        key: str,
        time_us: int,
        run_id: str | None,
        job: int | None,
        event_type: str | None,
        digest: Digest,
    ) -> None:
        self.key, self.time_us, self.run_id, self.job = key, time_us, run_id, job
        self.code = _code(event_type)
        self.digest = digest
        self._run_bytes: bytes | None = None
        self._rank: str | None = None

    @property
    def run_bytes(self) -> bytes | None:
        """The run's UUID as 16 bytes (a run id as ingest keys runs: lowercase, hyphenated)."""
        if self._run_bytes is None and self.run_id is not None:
            self._run_bytes = bytes.fromhex(self.run_id.replace("-", ""))
        return self._run_bytes

    @property
    def rank(self) -> str:
        """The rank of the event's statements (:func:`state_rank`)."""
        if self._rank is None:
            self._rank = state_rank(self.time_us, self.run_bytes, self.code)
        return self._rank


def _add(out: VersionRows, ds: Any, writes: bool, ev: _Event) -> None:
    """The row ``ds`` (one dataset of the event) adds, if any."""
    if not isinstance(ds, dict):
        return
    facets = ds.get("facets")
    if isinstance(facets, dict) and facets:
        schema, version = facets.get("schema"), facets.get("version")
        symlinks, lifecycle = facets.get("symlinks"), facets.get("lifecycleStateChange")
    else:
        schema = version = symlinks = lifecycle = None
    if not writes and schema is None and version is None and symlinks is None and lifecycle is None:
        return  # what nearly every input of a run is: nothing to look at further
    namespace, name = ds.get("namespace"), ds.get("name")
    if not isinstance(namespace, str) or not isinstance(name, str):
        return
    did = dataset_id(namespace, name)
    digest = ev.digest
    dataset_version = version.get("datasetVersion") if isinstance(version, dict) else None
    dataset_version = dataset_version if isinstance(dataset_version, str) else None
    schema_id = digest(did, "schema", schema) if schema is not None else None
    symlinks_id = digest(did, "symlinks", symlinks) if symlinks is not None else None
    if writes or lifecycle is not None:
        lifecycle_id = (
            digest(did, "lifecycleStateChange", lifecycle) if lifecycle is not None else None
        )
        made = _made(ds, did, writes, ev, (schema_id, lifecycle_id, dataset_version, symlinks_id))
        out.made.setdefault(made["id"], made)
        return
    sid = state_id(did, schema_id, dataset_version, symlinks_id)
    if sid in out.states:  # stated twice by one event: one rank, one row
        return
    out.states[sid] = {
        "dataset_id": did,
        "id": sid,
        "rank": ev.rank,
        "time_us": ev.time_us,
        "run_id": ev.run_bytes,
        "job_id": ev.job,
        "event_type": ev.code,
        "schema_id": schema_id,
        "dataset_version": dataset_version,
        "symlinks_id": symlinks_id,
    }


def _made(
    ds: dict[str, Any],
    did: int,
    writes: bool,
    ev: _Event,
    state: tuple[str | None, str | None, str | None, str | None],
) -> DatasetVersionRow:
    """The row of a write or a lifecycle change; ``state``: schema, lifecycle, version, symlinks."""
    schema_id, lifecycle_id, dataset_version, symlinks_id = state
    facets_digest = _id(ev.digest(did, "", ds))
    maker = ev.run_id if ev.run_id is not None else ev.key
    key = f"{did}\x1f{maker}\x1f{ev.key}\x1f{facets_digest}\x1f{int(writes)}".encode()
    io_facets = ds.get("outputFacets")
    stats = io_facets.get("outputStatistics") if writes and isinstance(io_facets, dict) else None
    row: DatasetVersionRow = {
        "id": _id(canonical_json.digest(key)),
        "dataset_id": did,
        "time_us": ev.time_us,
        "run_id": ev.run_bytes,
        "job_id": ev.job,
        "event_type": ev.code,
        "writes": 1 if writes else 0,
        "schema_id": schema_id,
        "lifecycle_id": lifecycle_id,
        "dataset_version": dataset_version,
        "symlinks_id": symlinks_id,
        "row_count": _count(stats, "rowCount"),
        "byte_count": _count(stats, "size"),
        "file_count": _count(stats, "fileCount"),
        "facets_digest": facets_digest,
    }
    return row


def version_rows(
    event: dict[str, Any],
    kind: str,
    *,
    event_key: str,
    time_us: int,
    run_id: str | None,
    digest: Digest = canonical_digest,
    job: int | None = None,
) -> VersionRows:
    """The rows ``event`` (validated, credentials removed) adds.

    ``job``: the event's job id when the caller has it (ingest does), else
    it is derived from the event's ``job``.
    """
    out = VersionRows()
    if kind == "dataset":
        _add(out, event.get("dataset"), False, _Event(event_key, time_us, None, None, None, digest))
    elif kind == "run":
        inputs, outputs = event.get("inputs"), event.get("outputs")
        if not inputs and not outputs:
            return out
        event_type = event.get("eventType")
        event_type = event_type if isinstance(event_type, str) else None
        ev = _Event(
            event_key, time_us, run_id, job if job is not None else _job(event), event_type, digest
        )
        writes = event_type == "COMPLETE"
        for ds in inputs if isinstance(inputs, list) else ():
            _add(out, ds, False, ev)
        for ds in outputs if isinstance(outputs, list) else ():
            _add(out, ds, writes, ev)
    return out


def _job(event: dict[str, Any]) -> int | None:
    job = event.get("job")
    ns, name = (job.get("namespace"), job.get("name")) if isinstance(job, dict) else (0, 0)
    return job_id(ns, name) if isinstance(ns, str) and isinstance(name, str) else None
