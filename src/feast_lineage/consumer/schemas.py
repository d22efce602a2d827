"""API response models (the HTTP contract; tables live in store/tables.py).

The web UI's TypeScript types are generated from the OpenAPI document these
make (``scripts/api_types.sh``): the more exact a model, the more the UI's
compiler checks.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, Field, model_validator
from typing_extensions import TypedDict

# Facet name -> payload. Ingest takes only JSON objects as facets, whatever is in them.
Facets = dict[str, dict[str, Any]]


# Feast's times are integer milliseconds since the epoch (feast_shape.py); ours
# are beside them as ISO 8601 strings under "<key>_iso".
_MS = "Milliseconds since the epoch (as Feast sends it)"
_ISO = "The same time in ISO 8601 (UTC)"


class _EveryFieldSent(BaseModel):
    """A response model whose defaulted fields are sent all the same (documented as required)."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)


class ErrorDetail(BaseModel):
    path: str = Field(description="Where: a JSON path such as $[3].run.runId, or a parameter")
    message: str
    index: int | None = Field(default=None, description="The event's index in a batch")
    code: str | None = None


class ErrorInfo(BaseModel):
    status: int
    code: str = Field(description="A stable machine-readable code, e.g. invalid_json")
    message: str = Field(description="What was wrong and how to fix it")
    details: list[ErrorDetail] | None = None


class ErrorResponse(BaseModel):
    """The one error shape of every endpoint."""

    error: ErrorInfo
    detail: str = Field(
        description="The message again, where Feast's lineage server puts it (for Feast clients)"
    )


class Summary(BaseModel):
    received: int
    successful: int
    failed: int


class IngestWarning(BaseModel):
    code: str = Field(
        description="naive_event_time: an eventTime without a UTC offset, taken as UTC"
    )
    path: str = Field(description="Where, in the first event concerned: $[3].eventTime")
    count: int = Field(description="How many events of the body it concerns")
    message: str = Field(description="What was taken how, and how to send it instead")


_WARNINGS_DOC = "Present when a stored event deserves a word; also in the Lineage-Warning header"


class IngestAccepted(BaseModel):
    event_id: str = Field(description="The stored event's id (its dedup key), as Feast answers")
    status: str = Field(description="created")
    summary: Summary
    warnings: list[IngestWarning] = Field(default_factory=list, description=_WARNINGS_DOC)


class IngestSummary(BaseModel):
    status: str = Field(description="success or partial")
    summary: Summary
    errors: list[ErrorDetail] = Field(default_factory=list)
    warnings: list[IngestWarning] = Field(default_factory=list, description=_WARNINGS_DOC)


# An OpenLineage event as stored: the core fields the validation at ingest
# relies on; any other field, and the facets, as the producer sent them.
_OPEN = ConfigDict(extra="allow")


class EventJob(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    namespace: str
    name: str
    facets: NotRequired[Facets]


class EventRun(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    runId: str
    facets: NotRequired[Facets]


class EventDataset(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    namespace: str
    name: str
    facets: NotRequired[Facets]
    inputFacets: NotRequired[Facets]
    outputFacets: NotRequired[Facets]


class StoredEvent(TypedDict):
    """A run event has run and job, a dataset event dataset, a job event job."""

    __pydantic_config__ = _OPEN  # type: ignore[misc]
    eventTime: str
    producer: str
    schemaURL: NotRequired[str]
    eventType: NotRequired[str]
    run: NotRequired[EventRun]
    job: NotRequired[EventJob]
    dataset: NotRequired[EventDataset]
    inputs: NotRequired[list[EventDataset]]
    outputs: NotRequired[list[EventDataset]]


class EventItem(BaseModel):
    # Feast's fields
    event_id: str = Field(description="The event's dedup key (equal events share it)")
    event_type: str | None
    event_time: int = Field(description=_MS)
    producer: str | None
    job_namespace: str | None = Field(description="The job's (null for a DatasetEvent)")
    job_name: str | None
    run_id: str | None
    event_json: str = Field(description="The event as stored (credentials removed), JSON text")
    created_at: int = Field(description="When it was received; " + _MS)
    # ours
    id: int = Field(description="The row's id (newer rows have larger ids)")
    event_time_iso: str = Field(description=_ISO)
    created_at_iso: str = Field(description=_ISO)
    kind: str = Field(description="run, dataset or job")
    event: StoredEvent = Field(description="The event as stored (credentials removed)")


class EventPage(BaseModel):
    events: list[EventItem]
    total: int = Field(description="Events that match, on every page")
    limit: int
    offset: int


class RunDataset(_EveryFieldSent):
    namespace: str
    name: str
    facets: Facets | None = None


class RunDetail(BaseModel):
    run_id: str
    job_namespace: str
    job_name: str
    state: str
    started_at: int | None = Field(description=_MS)
    ended_at: int | None = Field(description=_MS)
    parent_run_id: str | None
    root_run_id: str | None
    updated_at: int = Field(description="Time of its latest event; " + _MS)
    inputs: list[RunDataset]
    outputs: list[RunDataset]
    facets: Facets
    # ours
    started_at_iso: str | None = Field(description=_ISO)
    ended_at_iso: str | None = Field(description=_ISO)
    updated_at_iso: str = Field(description=_ISO)
    duration_ms: int | None
    child_run_ids: list[str]


class Health(BaseModel):
    status: str
    version: str
    database: str


# --- query API: graph, catalog, runs, administration ---------------------------


class FeastObject(BaseModel):
    """The Feast object a node stands for (from feast_* facets or namespace_mapping)."""

    project: str | None = Field(description="The Feast project")
    type: str | None = Field(
        description="feature_view, on_demand_feature_view, stream_feature_view, "
        "feature_service, data_source, entity, saved_dataset, online_store; "
        "definition_job or transform_job for Feast jobs; null when only the mapping is known"
    )
    name: str


class SchemaField(_EveryFieldSent):
    name: str
    type: str | None = None
    description: str | None = None


class GraphNode(_EveryFieldSent):
    # Feast's fields
    type: Literal["job", "dataset"]
    namespace: str
    name: str
    producer: str | None = Field(description="The producer of the latest event about it")
    feast_object_type: str | None = Field(description="The Feast object's type, if it is one")
    feast_object_name: str | None
    feast_project: str | None
    schema_: dict[str, Any] | None = Field(
        alias="schema", description="The schema facet (a dataset's), if any"
    )
    job_type: str | None = Field(
        description="A job's feast_jobKind kind, else its jobType's processingType or integration"
    )
    description: str | None = Field(description="The documentation facet's description")
    source_type: str | None = Field(description="The dataSource facet's name (datasets)")
    owner: str | None = Field(description="The first owner of the ownership facet (datasets)")
    owner_type: str | None
    lifecycle_state: str | None = Field(description="The lifecycleStateChange facet's state")
    current_version: int | None = Field(description="Always null: versions are not kept yet")
    facets: Facets = Field(description="Facet name -> the latest payload")
    # ours
    id: str = Field(description='"job:{namespace}:{name}" or "dataset:{namespace}:{name}"')
    kind: Literal["job", "dataset"] = Field(description="The same as type")
    created_at: int = Field(description=_MS)
    created_at_iso: str = Field(description=_ISO)
    updated_at: int | None = Field(description="null for a job only named by a parent facet")
    updated_at_iso: str | None = Field(description=_ISO)
    datasource_uri: str | None = None
    schema_fields: list[SchemaField] | None = Field(
        default=None, description="Fields of the schema facet, if any"
    )
    feast: FeastObject | None = None
    depth: int | None = Field(default=None, description="Steps from the center (subgraphs)")
    has_column_lineage: bool = Field(
        default=False, description="A dataset with current column edges (in or out)"
    )
    latest_run_state: str | None = Field(
        default=None,
        description="A job's latest run's state (RUNNING, COMPLETE, FAIL, ABORT or OTHER); "
        "null for a dataset or a job that never ran",
    )


EdgeType = Literal[
    "input", "output", "parent", "root", "symlink", "job_to_job", "dataset_to_dataset", "derived"
]


class GraphEdge(BaseModel):
    # Feast's fields
    source_type: Literal["job", "dataset"]
    source_namespace: str
    source_name: str
    target_type: Literal["job", "dataset"]
    target_namespace: str
    target_name: str
    edge_type: EdgeType = Field(description="The same as type")
    updated_at: int = Field(description="When it was first seen; " + _MS)
    # ours
    source: str = Field(description="Node id")
    target: str = Field(description="Node id")
    type: EdgeType = Field(
        description="input: dataset->job; output: job->dataset; parent/root: job->job; "
        "symlink: dataset->its alias; job_to_job: a job feeds another (explicit lineage); "
        "dataset_to_dataset: a dataset feeds another with no job between (explicit lineage); "
        "derived: a dataset feeds another through a job of the answer that reads the one and "
        "writes the other (Feast's derived edges: one per pair, whatever the job; "
        "derived_edges names each job)"
    )
    origin: Literal["declared", "observed"] | None = Field(
        default=None,
        description="Explicit lineage (a lineage or jobDependencies facet): declared (a JobEvent "
        "or DatasetEvent) or observed (a RunEvent); null for edges of inputs, outputs, "
        "parents and symlinks",
    )


class DerivedEdge(BaseModel):
    """dataset -> dataset through a job that reads one and writes the other."""

    source: str
    target: str
    via: str = Field(description="The job's node id")


class GraphSymlink(BaseModel):
    # Feast's fields
    dataset_namespace: str
    dataset_name: str
    linked_namespace: str = Field(description="The alias's namespace")
    linked_name: str
    link_type: str = Field(description="The symlink's type (TABLE, LOCATION...) or dataSource_uri")
    updated_at: int = Field(description="When it was first seen; " + _MS)
    # ours
    dataset: str = Field(description="The dataset's node id")
    alias: str = Field(description="The alias as a dataset node id (it may not be stored)")
    alias_namespace: str
    alias_name: str
    alias_type: str | None
    source: Literal["symlink", "datasource"] = Field(
        description="symlink: a SymlinksDatasetFacet; datasource: matching dataSource URIs"
    )


class Clamped(BaseModel):
    """A parameter served with another value than the one asked for (Feast accepts it)."""

    parameter: str = Field(description="The query parameter, e.g. limit or depth")
    requested: int
    used: int = Field(description="The value the answer was made with")
    reason: str


_CLAMPED = "Parameters served with another value than asked (empty when none was)"


class GraphPage(BaseModel):
    nodes: list[GraphNode]
    edges: list[GraphEdge] = Field(
        description="Every edge between two nodes of this page, derived edges included"
    )
    derived_edges: list[DerivedEdge] = Field(
        description="dataset->dataset edges through a job of this page"
    )
    symlinks: list[GraphSymlink]
    total_nodes: int = Field(description="Nodes of the whole (filtered) graph")
    total_edges: int = Field(
        description="Edges (incl. symlink edges, not derived edges) of the whole graph"
    )
    limit: int = Field(description="Nodes per page, as used (see clamped)")
    offset: int
    clamped: list[Clamped] = Field(description=_CLAMPED)


class Subgraph(BaseModel):
    center: str = Field(description="The id of the node the subgraph is centered on")
    depth: int = Field(description="As used (see clamped)")
    direction: Literal["upstream", "downstream", "both"]
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    derived_edges: list[DerivedEdge]
    symlinks: list[GraphSymlink]
    truncated: bool = Field(description="More nodes were in reach than limit; the nearest kept")
    limit: int
    clamped: list[Clamped] = Field(description=_CLAMPED)


# --- column lineage -------------------------------------------------------------


class DatasetRef(BaseModel):
    namespace: str
    name: str


class JobRef(BaseModel):
    namespace: str
    name: str


class ColumnNode(_EveryFieldSent):
    id: str = Field(
        description='"field:{namespace}:{name}:{field}", or "dataset:{namespace}:{name}" for a '
        "whole dataset (the output of dataset-level inputs)"
    )
    namespace: str
    name: str
    field: str | None = Field(description="null: the whole dataset")
    type: str | None = Field(default=None, description="The field's type, where a schema gives one")
    depth: int = Field(description="Steps from the asked dataset's fields")
    aliases: list[DatasetRef] = Field(
        default_factory=list,
        description="Symlinked aliases of the dataset: the same field of each is this node",
    )


class ColumnTransformation(_EveryFieldSent):
    type: str = Field(description="DIRECT or INDIRECT")
    subtype: str | None = Field(
        default=None,
        description="IDENTITY, TRANSFORMATION, AGGREGATION, FILTER, JOIN, GROUP_BY, SORT, "
        "WINDOW, CONDITIONAL, ...; a 1-0 facet's transformationType (IDENTITY, MASKED)",
    )
    description: str | None = Field(
        default=None,
        description="Shown only when every input of the target field is visible to the caller",
    )
    masking: bool | None = None


class ColumnEdge(_EveryFieldSent):
    source: str = Field(description="An input field's node id")
    target: str = Field(description="The output field's (or whole dataset's) node id")
    job: JobRef | None = Field(description="The job that reported it (null: a DatasetEvent)")
    run_id: str | None = Field(description="The run whose event reported it, if a run did")
    origin: Literal["observed", "declared"] = Field(
        description="observed: a columnLineage facet, or the field entries of a lineage facet "
        "of a RunEvent; declared: the field entries of a lineage facet of a JobEvent or "
        "DatasetEvent"
    )
    indirect: bool = Field(description="Every transformation is INDIRECT")
    transformations: list[ColumnTransformation]


class FeastColumnLineageRow(BaseModel):
    """One row of Feast 0.67's ``column_lineage`` answer: a direct edge touching the dataset."""

    dataset_namespace: str = Field(description="The output dataset")
    dataset_name: str
    output_field: str
    input_namespace: str
    input_name: str
    input_field: str
    transformation_type: str | None = Field(description="The first transformation's type")
    transformation_description: str | None
    transformations_json: str | None = Field(description="Every transformation, as JSON text")
    run_id: str | None
    updated_at: int = Field(description="Milliseconds since the epoch")
    direction: Literal["upstream", "downstream"]


class ColumnLineage(BaseModel):
    dataset: DatasetRef
    field: str | None = Field(description="The field asked for; null: every field")
    depth: int
    direction: Literal["upstream", "downstream", "both"]
    indirect: bool = Field(description="Whether INDIRECT-only edges were followed")
    nodes: list[ColumnNode] = Field(description="Field nodes, the nearest first")
    edges: list[ColumnEdge] = Field(description="Every edge between two nodes of the answer")
    truncated: bool = Field(description="More nodes were in reach than limit; the nearest kept")
    limit: int
    column_lineage: list[FeastColumnLineageRow] = Field(
        description="Feast 0.67's shape: the direct field edges into (upstream) and out of "
        "(downstream) the dataset"
    )


class NamespaceItem(BaseModel):
    namespace: str
    jobs: int
    datasets: int


class NamespaceList(BaseModel):
    namespaces: list[str] = Field(description="Every visible namespace, by name")
    counts: list[NamespaceItem] = Field(description="Jobs and datasets of each, in the same order")
    total: int


class LatestRun(BaseModel):
    """A job's most recently started run, as the Jobs list shows it."""

    run_id: str
    state: str = Field(description="RUNNING, COMPLETE, FAIL, ABORT or OTHER")
    started_at: int = Field(description=_MS)
    ended_at: int | None = Field(description=_MS + "; null while it runs")
    duration_ms: int | None = Field(description="null while it runs")
    started_at_iso: str = Field(description=_ISO)
    ended_at_iso: str | None = Field(description=_ISO)


class JobItem(BaseModel):
    # Feast's fields
    job_namespace: str
    job_name: str
    job_type: str | None = Field(
        description="feast_jobKind's kind, else jobType's processingType or integration"
    )
    producer: str | None
    description: str | None = Field(description="The documentation facet's description")
    facets_json: str | None = Field(description="The latest facets as JSON text")
    latest_run_id: str | None = Field(description="Its most recently started run")
    updated_at: int = Field(description=_MS + "; 0 for a job only named by a parent facet")
    # ours
    id: str
    created_at: int = Field(description=_MS)
    created_at_iso: str = Field(description=_ISO)
    updated_at_iso: str | None = Field(description=_ISO + "; null for a job only named")
    latest_run: LatestRun | None = Field(
        default=None, description="Its most recently started run; null if it never ran"
    )


class JobPage(BaseModel):
    jobs: list[JobItem]
    total: int
    limit: int
    offset: int


class DatasetItem(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    # Feast's fields
    dataset_namespace: str
    dataset_name: str
    source_type: str | None = Field(description="The dataSource facet's name")
    producer: str | None
    description: str | None = Field(description="The documentation facet's description")
    schema_text: str | None = Field(
        alias="schema_json", description="The schema facet as JSON text"
    )
    facets_json: str | None = Field(description="The latest facets as JSON text")
    feast_object_type: str | None
    feast_object_name: str | None
    feast_project: str | None
    owner_name: str | None = Field(description="The ownership facet's first owner")
    owner_type: str | None
    lifecycle_state: str | None = Field(description="The lifecycleStateChange facet's state")
    current_version: int | None = Field(description="Always null: versions are not kept yet")
    updated_at: int = Field(description=_MS)
    # ours
    id: str
    created_at: int = Field(description=_MS)
    created_at_iso: str = Field(description=_ISO)
    updated_at_iso: str = Field(description=_ISO)
    datasource_uri: str | None
    feast: FeastObject | None
    has_column_lineage: bool = Field(description="It has current column edges (in or out)")


class DatasetPage(BaseModel):
    datasets: list[DatasetItem]
    total: int
    limit: int
    offset: int


class RunItem(BaseModel):
    # Feast's fields
    run_id: str
    job_namespace: str
    job_name: str
    state: str = Field(description="RUNNING, COMPLETE, FAIL, ABORT or OTHER")
    started_at: int | None = Field(description=_MS)
    ended_at: int | None = Field(description=_MS)
    facets_json: str | None = Field(description="The run's facets as JSON text")
    parent_run_id: str | None
    root_run_id: str | None
    updated_at: int = Field(description="Time of its latest event; " + _MS)
    # ours
    started_at_iso: str | None = Field(description=_ISO)
    ended_at_iso: str | None = Field(description=_ISO)
    updated_at_iso: str = Field(description=_ISO)
    duration_ms: int | None


class RunPage(BaseModel):
    runs: list[RunItem]
    total: int = Field(description="Runs that match, on every page")
    limit: int
    offset: int


class RetentionConfig(BaseModel):
    retention_days: int = Field(description="0: pruning is off")
    retention_check_interval_hours: float
    standalone_server: bool
    runs_background_pruning: bool = Field(description="Whether this server runs the pruning")


class StorageStats(BaseModel):
    rows: dict[str, int] = Field(description="Row counts by table (what the caller may see)")
    oldest_event_time: str | None
    newest_event_time: str | None
    oldest_run_start: str | None


class PruneResult(BaseModel):
    # Feast's fields (filled from removed when not given)
    message: str
    deleted: dict[str, int] = Field(description="The same as removed")
    # ours
    cutoff: str | None = Field(description="Events and runs before this time were removed")
    removed: dict[str, int] = Field(description="Rows removed, by table")
    finished_at: str
    duration_ms: int
    prunes: int = Field(
        default=1,
        description="How many prunes this reports: prunes that ran at the same time "
        "(in several processes) are reported together, their removals summed",
    )

    @model_validator(mode="before")
    @classmethod
    def _feast_fields(cls, data: Any) -> Any:
        if isinstance(data, dict) and "removed" in data:
            data = {"message": "Pruning completed", "deleted": data["removed"], **data}
        return data


class StoredCount(BaseModel):
    count: int
    oldest_ms: int | None = Field(description=_MS)


class RetentionStorage(BaseModel):
    """Feast's storage figures: rows and the oldest time of each kind (what the caller may see)."""

    events: StoredCount = Field(description="oldest_ms: the oldest event time")
    runs: StoredCount = Field(description="oldest_ms: the oldest run start")
    jobs: StoredCount = Field(description="oldest_ms: the least recently updated job")
    datasets: StoredCount = Field(description="oldest_ms: the least recently updated dataset")


class RetentionInfo(BaseModel):
    # Feast's fields
    retention_days: int = Field(description="0: pruning is off")
    retention_enabled: bool = Field(description="retention_days is not 0")
    check_interval_hours: int | float
    storage: RetentionStorage
    # ours
    config: RetentionConfig
    storage_stats: StorageStats
    last_prune: PruneResult | None = Field(
        description="The last prune of this store, by any server or worker process"
    )
    counters: dict[str, int] | None = Field(
        default=None,
        description="Store-wide counts of every server and process: naive_event_times, "
        "the events stored whose eventTime had no UTC offset (taken as UTC)",
    )


class ResetResult(BaseModel):
    # Feast's fields
    status: str = Field(description="success")
    message: str
    # ours
    namespace: str | None = Field(description="The namespace reset, or null for everything")
    removed: dict[str, int]


# --- registry lineage (the Feast-only view, from the registry itself) -----------


class RegistryNode(_EveryFieldSent):
    id: str = Field(description='"{project}:{group}:{name}", e.g. "demo:feature_view:drivers"')
    type: str = Field(
        description="entity, data_source, feature_view, on_demand_feature_view, "
        "stream_feature_view, feature_service or saved_dataset"
    )
    name: str
    project: str
    missing: bool = Field(
        default=False, description="Referenced by another object but not in the registry"
    )
    object: dict[str, Any] | None = Field(
        default=None, description="The full definition (complete views and object detail)"
    )


class RegistryEdge(BaseModel):
    source: str = Field(description="The node the target is built from")
    target: str
    source_type: str
    target_type: str


class RegistryLineage(BaseModel):
    projects: list[str]
    nodes: list[RegistryNode]
    edges: list[RegistryEdge]


class RegistryObject(BaseModel):
    project: str
    node: RegistryNode = Field(description="The object, with its full definition")
    upstream: list[RegistryNode] = Field(description="What it is built from")
    downstream: list[RegistryNode] = Field(description="What is built from it")
    edges: list[RegistryEdge]


# --- the web UI -----------------------------------------------------------------


class UiSettings(BaseModel):
    """What the web UI needs to know about the server it runs on."""

    consumer_enabled: bool = Field(
        description="The OpenLineage consumer's endpoints (graph, events, runs...) are served"
    )
    registry_enabled: bool = Field(
        description="The server has a feature repository, so registry lineage is available"
    )
    project: str | None = Field(description="The feature repository's Feast project")
    version: str = Field(description="The feast-lineage version")


# --- job versions ------------------------------------------------------------------


class JobVersionRun(BaseModel):
    """The latest run that ran a version."""

    run_id: str
    state: str | None = Field(description="Its state; null once retention pruned the run")
    started_at: int = Field(description=_MS)
    started_at_iso: str = Field(description=_ISO)


class JobVersionItem(_EveryFieldSent):
    id: str = Field(description="Derived from the job and the version's content: stable")
    job_namespace: str
    job_name: str
    created_at: int = Field(
        description="When a run (or JobEvent) first ran this version: its start; " + _MS
    )
    created_at_iso: str = Field(description=_ISO)
    current: bool = Field(description="The version the job's latest run (or JobEvent) ran")
    inputs: list[DatasetRef] = Field(
        description="The tables it reads (a partition counts as its table), by namespace, name"
    )
    outputs: list[DatasetRef] = Field(description="The tables it writes, likewise")
    source_facets: Facets = Field(
        description="Its sourceCode, sql, sourceCodeLocation and jobType facets, "
        "without _producer and _schemaURL"
    )
    job_type: str | None = Field(description="The jobType facet's jobType")
    run_count: int = Field(description="Runs that ran it (JobEvents are not runs)")
    latest_run: JobVersionRun | None = Field(description="The latest of them; null if none")


class JobVersionPage(BaseModel):
    versions: list[JobVersionItem]
    total: int


class JobVersionChanges(BaseModel):
    """What changed from the version before."""

    inputs_added: list[DatasetRef]
    inputs_removed: list[DatasetRef]
    outputs_added: list[DatasetRef]
    outputs_removed: list[DatasetRef]
    source_facets_changed: list[str] = Field(
        description="Source facets added, removed or changed, by name"
    )


class JobVersionDetail(JobVersionItem):
    previous_id: str | None = Field(description="The version before it; null for the first")
    changes: JobVersionChanges | None = Field(
        description="Against the version before it; null for the first"
    )
