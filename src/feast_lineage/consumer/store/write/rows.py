"""The write contract: the rows the store accepts from ingest, one type per table.

Ingest (:mod:`feast_lineage.consumer.intake.derive`) turns each event into a
:class:`RowBatch`; batches of several events merge into one, and
:func:`~feast_lineage.consumer.store.write.batch.write_derived` applies it in one
transaction. Rows are TypedDicts, not classes: they go to the driver's
``executemany`` as they are, with no copy per row.

Merging keeps what the store's upserts would keep, so a batch written at
once leaves the same rows as its events written one by one, in any order:
both are generated from one table of rules (:mod:`.merge_rules`), and rows
that are written once (edges, symlinks, io listings, column edges) keep the
first seen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict, TypeVar, cast

from feast_lineage import canonical_json
from feast_lineage.consumer.store.write import merge_rules as mr
from feast_lineage.consumer.store.write.dataset_versions import DatasetStateRow, DatasetVersionRow
from feast_lineage.consumer.store.write.merge import merger

# The alias id of a symlinks facet payload's own listing row (no dataset id is 0).
LISTED = 0


class EventRow(TypedDict):
    event_key: str  # event time (hex) + content digest: the dedup key
    kind: str  # run, dataset or job
    event_type: str | None
    event_time_us: int
    received_us: int
    ns_id: int
    subject_id: int  # the job (run and job events) or the dataset
    run_id: str | None
    payload: bytes  # canonical JSON, compressed


class JobRow(TypedDict):
    id: int
    ns_id: int
    namespace: str
    name: str
    producer: str | None  # None for a job only named by a parent facet
    created_us: int
    updated_us: int  # 0 for a job only named by a parent facet
    # The rank and run of the job's latest event that listed inputs, and outputs.
    input_rank: str | None
    input_run: str | None
    output_rank: str | None
    output_run: str | None


class DatasetRow(TypedDict):
    id: int
    ns_id: int
    namespace: str
    name: str
    producer: str | None
    producer_ns_id: int | None  # the namespace of the event that set it (migration 0029)
    producer_rank: str | None  # picks the producer (:mod:`.producer_rank`)
    datasource_uri: str | None  # credentials removed
    uri_id: int | None
    uri_rank: str | None
    identity_uri_id: int | None  # the URI the dataset's own name stands for
    feast_type: str | None
    feast_project: str | None
    created_us: int
    updated_us: int
    updated_ns_id: int | None  # the namespace of the latest event (migration 0029)


class RunRow(TypedDict):
    run_id: str
    job_id: int
    ns_id: int
    state: str
    state_rank: str  # terminal states beat START/RUNNING, which beat OTHER; then rank
    first_event_us: int
    last_event_us: int
    start_event_us: int | None
    started_us: int
    ended_us: int | None
    parent_run_id: str | None
    root_run_id: str | None


class RunIoRow(TypedDict):
    run_id: str  # a run, or a JobEvent's event key
    dataset_id: int
    direction: str  # input or output
    first_us: int  # the earliest eventTime at which the run listed it


class IoListingRow(TypedDict):
    """An event that listed inputs (or outputs): the job's listings answer ``as_of``."""

    job_id: int
    direction: str  # input or output
    rank: str  # the event's
    run_key: str  # the run, or a JobEvent's event key


class EdgeRow(TypedDict):
    src_id: int
    dst_id: int
    edge_type: str  # input, output, parent or root
    src_kind: str
    dst_kind: str
    src_ns_id: int
    dst_ns_id: int
    created_us: int


class SymlinkRow(TypedDict):
    dataset_id: int
    alias_id: int
    alias_ns_id: int
    alias_namespace: str
    alias_name: str
    alias_type: str | None
    source: str  # symlink (a symlinks facet) or datasource (equal dataSource URIs)
    created_us: int


class ListingRow(TypedDict):
    blob_id: str  # a symlinks facet payload
    alias_id: int  # an alias it lists, or LISTED for the payload itself


class SymlinkStatementRow(TypedDict):
    dataset_id: int
    rank: str  # the event's rank
    blob_id: str  # the symlinks facet payload it stated


class FacetRow(TypedDict):
    owner_id: int  # the job or dataset
    name: str
    rank: str
    blob_id: str
    # A job facet's: the rank of its first statement (the least, merged; migration 0024)
    first_rank: NotRequired[str]
    # A dataset facet's: every statement ranked above it is of this blob (migration 0026)
    other_rank: NotRequired[str]


class FacetValueRow(TypedDict):
    """A payload a dataset facet was stated with, and its first statement (migration 0026)."""

    owner_id: int
    name: str
    blob_id: str
    first_rank: str


class ColumnLineageRow(TypedDict):
    """Which columnLineage payload is current for an output dataset and the job that wrote it."""

    dataset_id: int
    job_id: int  # 0 for a DatasetEvent
    origin: str  # observed (a columnLineage facet) or declared
    rank: str
    digest: str  # of the facet payload: its edges are the current ones
    run_id: str | None  # the run that reported it (None for a JobEvent or DatasetEvent)
    ns_id: int


class ColumnListingRow(TypedDict):
    """An event that stated column lineage: the listings answer ``as_of`` for column lineage."""

    dataset_id: int
    job_id: int
    origin: str
    rank: str  # the event's
    digest: str
    run_id: str | None
    ns_id: int


class ColumnEdgeRow(TypedDict):
    """One input field -> output field edge of one columnLineage payload."""

    dst_dataset_id: int
    dst_field_id: int  # field_hash(dst_field); 0 for the whole output dataset
    job_id: int
    origin: str
    digest: str
    src_dataset_id: int
    src_field_id: int
    dst_ns_id: int
    dst_field: str | None
    src_ns_id: int
    src_namespace: str
    src_name: str
    src_field: str
    indirect: int  # 1 when every transformation is INDIRECT
    transformations: str  # canonical JSON: [{type, subtype, description, masking}]
    created_us: int


class ExplicitLineageRow(TypedDict):
    """Which payload of an explicit lineage facet is current for its owner and origin."""

    owner_id: int  # the job or dataset carrying the facet
    facet: str  # job_lineage, dataset_lineage or job_dependencies
    origin: str  # declared (JobEvent, DatasetEvent) or observed (RunEvent)
    rank: str
    digest: str  # of the facet payload: its edges are the current ones
    ns_id: int  # the owner's namespace


class ExplicitStatementRow(TypedDict):
    """One event's statement of an explicit lineage facet: which payload, at its rank."""

    owner_id: int
    facet: str
    origin: str
    rank: str  # the event's rank
    digest: str  # of the facet payload


class ExplicitEdgeRow(TypedDict):
    """One entity edge an explicit lineage facet payload states."""

    owner_id: int
    facet: str
    origin: str
    digest: str
    src_id: int
    dst_id: int
    edge_type: str  # input, output, job_to_job or dataset_to_dataset
    src_kind: str
    dst_kind: str
    src_ns_id: int
    dst_ns_id: int
    created_us: int


# (owner, facet, origin), (owner, facet, origin, rank) and
# (owner, facet, origin, digest, src, dst, edge type)
ExplicitKey = tuple[int, str, str]
ExplicitStatementKey = tuple[int, str, str, str]
ExplicitEdgeKey = tuple[int, str, str, str, int, int, str]

# A column pointer's key, and a column edge's: (dataset, job, origin) and
# (dst dataset, dst field, job, origin, digest, src dataset, src field).
ColumnKey = tuple[int, int, str]
ColumnEdgeKey = tuple[int, int, int, str, str, int, int]
# A column lineage payload's key, whose edges are written once:
# (dataset, job, origin, digest).
ColumnReportKey = tuple[int, int, str, str]


class PendingBlob:
    """A facet payload whose blob id is known but not yet its canonical text.

    The writer serializes it only if the store may lack the blob (see
    :func:`blob_text`); usually it is known stored and skipped.
    """

    __slots__ = ("payload",)

    def __init__(self, payload: Any) -> None:
        self.payload = payload


class PendingColumnEdges:
    """A ``columnLineage`` payload whose edge rows are not built yet.

    Spark repeats one payload on START, RUNNING and COMPLETE, and a job run
    after run reports the same one: the writer builds the edge rows
    (:func:`~feast_lineage.consumer.store.write.column_rows.column_edge_rows`) only
    for a payload the store may lack, not for every event that carries it.
    """

    __slots__ = ("facet", "namespace", "time_us")

    def __init__(self, namespace: str, facet: Any, time_us: int) -> None:
        self.namespace = namespace  # of the output dataset
        self.facet = facet
        self.time_us = time_us


class PendingSource:
    """A job's source facet, as sent, whose digest is known but not yet its canonical text.

    The writer serializes it (:func:`.job_versions.source_rows`) only when
    the store may lack it: most repeat run after run and are known stored.
    """

    __slots__ = ("facet",)

    def __init__(self, facet: Any) -> None:
        self.facet = facet


# A dataset a run (or JobEvent) listed that stands for another, its table:
# (run key, direction, dataset id, table id, table namespace, table name).
TableKey = tuple[str, str, int, int, str, str]


@dataclass
class JobVersionParts:
    """What a job version needs of events besides the rows above.

    The writer (:mod:`.job_versions`) takes whose runs they are from the
    runs and JobEvents, and what each listed from ``run_io``; these add the
    table a listed dataset stands for where it is not the dataset itself (a
    partition, a path with a ``TABLE`` symlink), each run's source facets
    (the latest of each by rank: deleted is digest ``""``) and the facets'
    payloads by digest.
    """

    sources: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    tables: set[TableKey] = field(default_factory=set)
    payloads: dict[tuple[int, str], str | PendingSource] = field(default_factory=dict)

    def add_source(self, run_key: str, name: str, rank: str, digest: str) -> None:
        have = self.sources.get((run_key, name))
        if have is None or rank > have[0]:
            self.sources[(run_key, name)] = (rank, digest)

    def merge(self, other: JobVersionParts) -> None:
        for (key, name), (rank, digest) in other.sources.items():
            self.add_source(key, name, rank, digest)
        self.tables |= other.tables
        for payload_key, payload in other.payloads.items():
            self.payloads.setdefault(payload_key, payload)


def blob_text(value: str | PendingBlob) -> str:
    """A blob's canonical JSON text."""
    return value if isinstance(value, str) else canonical_json.dumps_str(value.payload)


@dataclass
class RowBatch:
    """The rows of one or more events, ready to be written together."""

    events: list[EventRow] = field(default_factory=list)
    jobs: dict[int, JobRow] = field(default_factory=dict)
    datasets: dict[int, DatasetRow] = field(default_factory=dict)
    runs: list[RunRow] = field(default_factory=list)
    run_io: dict[tuple[str, int, str], RunIoRow] = field(default_factory=dict)
    io_listings: dict[tuple[int, str, str], IoListingRow] = field(default_factory=dict)
    edges: dict[tuple[int, int, str], EdgeRow] = field(default_factory=dict)
    symlinks: dict[tuple[int, int], SymlinkRow] = field(default_factory=dict)
    # (symlinks facet blob, alias): which aliases a SymlinksDatasetFacet payload lists
    listings: dict[tuple[str, int], ListingRow] = field(default_factory=dict)
    # (dataset, rank): the symlinks facet each event stated for a dataset
    symlink_statements: dict[tuple[int, str], SymlinkStatementRow] = field(default_factory=dict)
    blobs: dict[str, str | PendingBlob] = field(default_factory=dict)  # id -> canonical JSON
    job_facets: dict[tuple[int, str], FacetRow] = field(default_factory=dict)
    dataset_facets: dict[tuple[int, str], FacetRow] = field(default_factory=dict)
    # (dataset, facet, blob) -> the least rank that stated it: each payload a dataset facet
    # was stated with (rows of feast_lineage_dataset_facet_values, made when written)
    dataset_facet_values: dict[tuple[int, str, str], str] = field(default_factory=dict)
    column_lineage: dict[ColumnKey, ColumnLineageRow] = field(default_factory=dict)
    column_listings: dict[tuple[int, int, str, str], ColumnListingRow] = field(default_factory=dict)
    column_edges: dict[ColumnEdgeKey, ColumnEdgeRow] = field(default_factory=dict)
    column_reports: dict[ColumnReportKey, PendingColumnEdges] = field(default_factory=dict)
    explicit_lineage: dict[ExplicitKey, ExplicitLineageRow] = field(default_factory=dict)
    explicit_edges: dict[ExplicitEdgeKey, ExplicitEdgeRow] = field(default_factory=dict)
    explicit_statements: dict[ExplicitStatementKey, ExplicitStatementRow] = field(
        default_factory=dict
    )
    dataset_versions: dict[int, DatasetVersionRow] = field(default_factory=dict)  # by id
    dataset_states: dict[int, DatasetStateRow] = field(default_factory=dict)  # by id
    naive_times: int = 0  # events whose eventTime had no UTC offset (store/counters.py)
    job_versions: JobVersionParts = field(default_factory=JobVersionParts)
    # (dataset, dataSource URI id) -> the earliest event time of the batch that stated it:
    # when a dataSource link between two datasets began (.uri_links). Not a table.
    uri_since: dict[tuple[int, int], int] = field(default_factory=dict)

    def merge(self, other: RowBatch) -> None:
        self.events.extend(other.events)
        combine(self.jobs, other.jobs, merge_job)
        combine(self.datasets, other.datasets, merge_dataset)
        self.runs.extend(other.runs)
        combine(self.run_io, other.run_io, merge_run_io)
        _keep_first(self.io_listings, other.io_listings)
        combine(self.edges, other.edges, merge_edge)
        _keep_first(self.symlinks, other.symlinks)
        _keep_first(self.listings, other.listings)
        _keep_first(self.symlink_statements, other.symlink_statements)
        self.blobs.update(other.blobs)
        combine(self.job_facets, other.job_facets, merge_job_facet)
        combine(self.dataset_facets, other.dataset_facets, merge_facet)
        values = self.dataset_facet_values
        for stated, first in other.dataset_facet_values.items():
            known = values.get(stated)
            if known is None or first < known:
                values[stated] = first
        keep_latest_column_lineage(self.column_lineage, other.column_lineage)
        _keep_first(self.column_listings, other.column_listings)
        _keep_first(self.column_edges, other.column_edges)
        _keep_first(self.column_reports, other.column_reports)
        keep_latest_explicit(self.explicit_lineage, other.explicit_lineage)
        _keep_first(self.explicit_edges, other.explicit_edges)
        _keep_first(self.explicit_statements, other.explicit_statements)
        _keep_first(self.dataset_versions, other.dataset_versions)
        combine(self.dataset_states, other.dataset_states, merge_state)
        self.naive_times += other.naive_times
        self.job_versions.merge(other.job_versions)
        for key, time_us in other.uri_since.items():
            self.uri_since[key] = min(time_us, self.uri_since.get(key, time_us))


K = TypeVar("K")
R = TypeVar("R")

# Two rows of one key merged by the table's rules (:mod:`.merge_rules`).
merge_job = cast(Callable[[JobRow, JobRow], JobRow], merger(mr.JOBS))
merge_dataset = cast(Callable[[DatasetRow, DatasetRow], DatasetRow], merger(mr.DATASETS))
merge_run = cast(Callable[[RunRow, RunRow], RunRow], merger(mr.RUNS))
merge_edge = cast(Callable[[EdgeRow, EdgeRow], EdgeRow], merger(mr.EDGES))
merge_run_io = cast(Callable[[RunIoRow, RunIoRow], RunIoRow], merger(mr.RUN_IO))
merge_facet = cast(Callable[[FacetRow, FacetRow], FacetRow], merger(mr.FACETS))
merge_job_facet = cast(Callable[[FacetRow, FacetRow], FacetRow], merger(mr.JOB_FACETS))
merge_state = cast(
    Callable[[DatasetStateRow, DatasetStateRow], DatasetStateRow], merger(mr.DATASET_STATES)
)
merge_column_lineage = cast(
    Callable[[ColumnLineageRow, ColumnLineageRow], ColumnLineageRow], merger(mr.COLUMN_LINEAGE)
)
merge_explicit = cast(
    Callable[[ExplicitLineageRow, ExplicitLineageRow], ExplicitLineageRow],
    merger(mr.EXPLICIT_LINEAGE),
)


def _keep_first(into: dict[K, R], new: dict[K, R]) -> None:
    """Keep the row already there (tables written once: symlinks, listings, column edges)."""
    for key, row in new.items():
        into.setdefault(key, row)


def combine(into: dict[K, R], new: dict[K, R], merge: Callable[[R, R], R]) -> None:
    """Merge ``new``'s rows into ``into``'s, key by key."""
    for key, row in new.items():
        old = into.get(key)
        into[key] = row if old is None else merge(old, row)


def list_column_lineage(into: RowBatch, pointer: ColumnLineageRow) -> None:
    """Record that the pointer's event stated its payload: the history ``as_of`` reads."""
    key = (pointer["dataset_id"], pointer["job_id"], pointer["origin"], pointer["rank"])
    into.column_listings.setdefault(
        key,
        {
            "dataset_id": pointer["dataset_id"],
            "job_id": pointer["job_id"],
            "origin": pointer["origin"],
            "rank": pointer["rank"],
            "digest": pointer["digest"],
            "run_id": pointer["run_id"],
            "ns_id": pointer["ns_id"],
        },
    )


def keep_latest_column_lineage(
    into: dict[ColumnKey, ColumnLineageRow], new: dict[ColumnKey, ColumnLineageRow]
) -> None:
    combine(into, new, merge_column_lineage)


def keep_latest_explicit(
    into: dict[ExplicitKey, ExplicitLineageRow], new: dict[ExplicitKey, ExplicitLineageRow]
) -> None:
    combine(into, new, merge_explicit)


def reduce_runs(rows: list[RunRow]) -> list[RunRow]:
    """One row per run: a batch's rows of one run merged as the run upsert would."""
    by_id: dict[str, RunRow] = {}
    for row in rows:
        old = by_id.get(row["run_id"])
        by_id[row["run_id"]] = row if old is None else merge_run(old, row)
    return list(by_id.values())
