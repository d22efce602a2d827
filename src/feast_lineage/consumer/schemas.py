"""API response models (the HTTP contract; tables live in store/schema/tables.py).

The web UI's TypeScript types are generated from the OpenAPI document these
make (``scripts/api_types.sh``): the more exact a model, the more the UI's
compiler checks.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

import orjson
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    TypeAdapter,
    model_validator,
)
from pydantic_core import CoreSchema, core_schema
from typing_extensions import TypedDict

from feast_lineage.canonical_json import dumps_str
from feast_lineage.consumer.lineage_model import Direction, EdgeType, Origin, Way

# Facet name -> payload. Ingest takes only JSON objects as facets, whatever is in them.
Facets = dict[str, dict[str, Any]]


# Feast's times are integer milliseconds since the epoch (feast_shape.py); ours
# are beside them as ISO 8601 strings under "<key>_iso".
_MS = "Milliseconds since the epoch (as Feast sends it)"
_NO_POSITION = (
    "Always null (Feast's key): Feast numbers versions by position, which renumbers; "
    "our stable version ids are in the versions endpoints"
)
_ISO = "The same time in ISO 8601 (UTC)"


class _EveryFieldSent(BaseModel):
    """A response model whose defaulted fields are sent all the same (documented as required)."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)


class ErrorDetail(BaseModel):
    path: str = Field(description="Where: a JSON path such as $[3].run.runId, or a parameter")
    message: str
    index: int | None = Field(default=None, description="The event's index in a batch")
    code: str | None = None
    horizon: str | None = Field(
        default=None,
        description="code before_retention_horizon: the oldest instant still answered "
        "(the retention horizon), to ask again at or after it",
    )


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


class StoredEventText:
    """An event as stored (canonical JSON text, credentials removed), embedded in an answer as is.

    The store keeps only events that passed validation at ingest, so the text
    has :class:`StoredEvent`'s shape, and the OpenAPI document says so. It
    leaves in the answer without being parsed and encoded again
    (``orjson.Fragment``): validating each event as a model cost the events
    page several times its time. A dict given instead (an answer read back)
    is validated against :class:`StoredEvent`. ``model_dump()`` leaves it as
    it is and :class:`~feast_lineage.consumer.responses.FastJSONResponse`
    embeds its text; ``model_dump(mode="json")`` decodes it.
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StoredEventText) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"StoredEventText({self.text!r})"

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: object, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        shape = handler.generate_schema(StoredEvent)
        from_dict = core_schema.no_info_after_validator_function(cls._from_event, shape)
        return core_schema.json_or_python_schema(
            json_schema=from_dict,
            python_schema=core_schema.no_info_plain_validator_function(cls._validate),
            # JSON: the event decoded; Python: this object, which the answer's
            # renderer embeds as it is (responses.FastJSONResponse).
            serialization=core_schema.plain_serializer_function_ser_schema(
                cls._decoded, when_used="json"
            ),
        )

    @classmethod
    def _from_event(cls, event: StoredEvent) -> StoredEventText:
        return cls(dumps_str(event))

    @classmethod
    def _validate(cls, value: object) -> StoredEventText:
        if isinstance(value, cls):
            return value
        return cls._from_event(_STORED_EVENT.validate_python(value))

    @staticmethod
    def _decoded(value: StoredEventText) -> object:
        return orjson.loads(value.text)


_STORED_EVENT: TypeAdapter[StoredEvent] = TypeAdapter(StoredEvent)


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
    event: StoredEventText = Field(description="The event as stored (credentials removed)")


class EventPage(BaseModel):
    events: list[EventItem]
    total: int = Field(description="Events that match, on every page")
    limit: int
    offset: int


class DatasetStatistics(BaseModel):
    """How much a run read from (or wrote to) one dataset, as its producer reported it."""

    rows: int | None = Field(description="rowCount")
    bytes: int | None = Field(description="size (dataQualityMetrics: bytes)")
    files: int | None = Field(description="fileCount")
    facet: str = Field(
        description="The facet they come from: inputStatistics, dataQualityMetrics "
        "(an input without inputStatistics) or outputStatistics"
    )


class RunDataset(_EveryFieldSent):
    namespace: str
    name: str
    facets: Facets | None = None
    # ours
    statistics: DatasetStatistics | None = Field(
        default=None,
        description="Rows, bytes and files read (an input) or written (an output) in this run; "
        "null when the producer reported none",
    )


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
    child_run_ids: list[str] = Field(description="Its direct children the caller may see")
    child_count: int = Field(
        description="Its direct children, hidden ones included (the run tree shows those "
        "as hidden placeholders)"
    )


class Health(BaseModel):
    status: str
    version: str
    database: str


# --- query API: graph, catalog, runs, administration ---------------------------


# The graph's and column lineage's answers are TypedDicts: their services build
# thousands of nodes and edges a request, as plain dicts typed by these (a
# pydantic model a node cost more than the queries; see CHANGELOG), and the
# routes declare them, so the OpenAPI document is still generated from them.


class FeastObject(TypedDict):
    """The Feast object a node stands for (from feast_* facets or namespace_mapping)."""

    project: Annotated[str | None, Field(description="The Feast project")]
    type: Annotated[
        str | None,
        Field(
            description="feature_view, on_demand_feature_view, stream_feature_view, "
            "feature_service, data_source, entity, saved_dataset, online_store; "
            "definition_job or transform_job for Feast jobs; null when only the mapping is known"
        ),
    ]
    name: str


class SchemaField(TypedDict):
    name: str
    type: str | None
    description: str | None


NodeType = Literal["job", "dataset"]


HealthState = Literal["ok", "failed", "stale", "at_risk", "unknown"]
CauseState = Literal["failed", "stale"]
IntervalSource = Literal["configured", "feast", "learned"]


class HealthCause(TypedDict):
    node: Annotated[
        str | None,
        Field(description="The failed job or stale dataset (node id); null: a hidden upstream"),
    ]
    state: CauseState
    distance: Annotated[int, Field(description="Steps from the cause to the node")]
    label: Annotated[
        str, Field(description='"namespace/name" of the cause, or "a hidden upstream"')
    ]


class NodeHealth(TypedDict):
    causes: Annotated[
        list[HealthCause],
        Field(description="The nearest failed jobs and stale datasets upstream (at_risk)"),
    ]
    since: Annotated[
        str | None, Field(description="Failed: the failed run's end; stale: when it became stale")
    ]
    error: Annotated[str | None, Field(description="Failed: the run's errorMessage facet")]
    materialization_lag_seconds: Annotated[
        float | None,
        Field(
            description="Feature views and services: now - the end of the latest "
            "materialized interval (a service: its worst view's); negative: that end is "
            "in the future"
        ),
    ]
    materialized_to: Annotated[
        str | None,
        Field(
            description="Feature views and services: the end of the latest materialized "
            "interval (ISO 8601; a service: its worst view's, the earliest); may be in the "
            "future, as Feast was asked"
        ),
    ]
    source_lag_seconds: Annotated[
        float | None,
        Field(
            description="Feature views and services: now - the latest write of the data "
            "source's physical dataset (a service: its worst view's)"
        ),
    ]
    expected_interval_seconds: Annotated[
        float | None, Field(description="A dataset's expected interval between writes")
    ]
    interval_source: Annotated[
        IntervalSource | None,
        Field(
            description="Where the interval comes from: the freshness setting, Feast "
            "(ttl, materialization cadence) or learned from the dataset's writes"
        ),
    ]
    last_write: Annotated[str | None, Field(description="A dataset's latest write (ISO 8601)")]


class GraphNode(TypedDict):
    # Feast's fields
    type: NodeType
    namespace: str
    name: str
    producer: Annotated[
        str | None,
        Field(
            description="The producer of the latest event about it (a dataset's: of its "
            "latest write, else first read); null for a scoped caller when that event was of "
            "a namespace it may not see"
        ),
    ]
    feast_object_type: Annotated[
        str | None, Field(description="The Feast object's type, if it is one")
    ]
    feast_object_name: str | None
    feast_project: str | None
    schema: Annotated[
        dict[str, Any] | None, Field(description="The schema facet (a dataset's), if any")
    ]
    job_type: Annotated[
        str | None,
        Field(
            description="A job's feast_jobKind kind, else its jobType's processingType or "
            "integration"
        ),
    ]
    description: Annotated[str | None, Field(description="The documentation facet's description")]
    source_type: Annotated[str | None, Field(description="The dataSource facet's name (datasets)")]
    owner: Annotated[
        str | None, Field(description="The first owner of the ownership facet (datasets)")
    ]
    owner_type: str | None
    lifecycle_state: Annotated[
        str | None, Field(description="The lifecycleStateChange facet's state")
    ]
    current_version: Annotated[
        int | None,
        Field(description=_NO_POSITION),
    ]
    facets: Annotated[Facets, Field(description="Facet name -> the latest payload")]
    # ours
    id: Annotated[
        str, Field(description='"job:{namespace}:{name}" or "dataset:{namespace}:{name}"')
    ]
    kind: Annotated[NodeType, Field(description="The same as type")]
    created_at: Annotated[int, Field(description=_MS)]
    created_at_iso: Annotated[str, Field(description=_ISO)]
    updated_at: Annotated[
        int | None,
        Field(
            description="null for a job only named by a parent facet, and for a scoped "
            "caller when a dataset's latest event was of a namespace it may not see"
        ),
    ]
    updated_at_iso: Annotated[str | None, Field(description=_ISO)]
    datasource_uri: str | None
    schema_fields: Annotated[
        list[SchemaField] | None, Field(description="Fields of the schema facet, if any")
    ]
    feast: FeastObject | None
    depth: Annotated[int | None, Field(description="Steps from the center (subgraphs)")]
    has_column_lineage: Annotated[
        bool,
        Field(
            description="A dataset with column edges (in or out), its own or an alias's: "
            "current ones, or those current at as_of"
        ),
    ]
    latest_run_state: Annotated[
        str | None,
        Field(
            description="A job's latest run's state (RUNNING, COMPLETE, FAIL, ABORT or OTHER); "
            "null for a dataset or a job that never ran"
        ),
    ]
    written: Annotated[
        bool,
        Field(
            description="A dataset some event wrote (an output) or declared (a DatasetEvent); "
            "false for one only ever read and for jobs. As of an instant, some event at or "
            "before it (a window's nodes: as stored). It ranks the names of an alias group "
            "(docs/api.md, Lineage graph)"
        ),
    ]
    state: Annotated[
        HealthState,
        Field(
            description="Health as of now (docs/api.md, Health): ok, failed (a job whose latest "
            "run failed), stale (a dataset written less often than expected), at_risk "
            "(downstream of either along the data: inputs, outputs, symlinks, explicit lineage; "
            "never from a parent job to its children), unknown (too little history to tell). "
            "unknown in answers as_of a past instant or over a window; an as_of still to "
            "come is now and has the state of the answer without it"
        ),
    ]
    health: NotRequired[
        Annotated[
            NodeHealth | None,
            Field(
                description="Why the state is what it is, and a Feast object's lags; absent "
                "where the state is unknown for a past as_of or a window"
            ),
        ]
    ]
    version: NotRequired[
        Annotated[
            str | None,
            Field(
                description="as_of answers only: the dataset version (or job version) current "
                "at that instant, the id its versions endpoint answers; null when none was"
            ),
        ]
    ]


class GraphEdge(TypedDict):
    # Feast's fields
    source_type: NodeType
    source_namespace: str
    source_name: str
    target_type: NodeType
    target_namespace: str
    target_name: str
    edge_type: Annotated[EdgeType, Field(description="The same as type")]
    updated_at: Annotated[int, Field(description="When it was first seen; " + _MS)]
    # ours
    source: Annotated[str, Field(description="Node id")]
    target: Annotated[str, Field(description="Node id")]
    type: Annotated[
        EdgeType,
        Field(
            description="input: dataset->job; output: job->dataset; parent/root: job->job; "
            "symlink: dataset->its alias; job_to_job: a job feeds another (explicit lineage); "
            "dataset_to_dataset: a dataset feeds another with no job between (explicit "
            "lineage); derived: a dataset feeds another through a job of the answer that reads "
            "the one and writes the other (Feast's derived edges: one per pair, whatever the "
            "job; derived_edges names each job)"
        ),
    ]
    origin: Annotated[
        Origin | None,
        Field(
            description="Explicit lineage (a lineage or jobDependencies facet): declared (a "
            "JobEvent or DatasetEvent) or observed (a RunEvent); null for edges of inputs, "
            "outputs, parents and symlinks"
        ),
    ]
    run_count: NotRequired[
        Annotated[
            int,
            Field(
                description="Window answers only: the window's runs that listed the edge "
                "(a parent edge: the child's runs that named a run of the parent; not on "
                "explicit lineage edges, which a statement in the window keeps)"
            ),
        ]
    ]
    first_seen: NotRequired[
        Annotated[
            str, Field(description="Window answers only: the earliest time one of them listed it")
        ]
    ]
    last_seen: NotRequired[
        Annotated[str, Field(description="Window answers only: the latest event of one of them")]
    ]


class DerivedEdge(TypedDict):
    """dataset -> dataset through a job that reads one and writes the other."""

    source: str
    target: str
    via: Annotated[str, Field(description="The job's node id")]


class GraphSymlink(TypedDict):
    # Feast's fields
    dataset_namespace: str
    dataset_name: str
    linked_namespace: Annotated[str, Field(description="The alias's namespace")]
    linked_name: str
    link_type: Annotated[
        str, Field(description="The symlink's type (TABLE, LOCATION...) or dataSource_uri")
    ]
    updated_at: Annotated[int, Field(description="When it was first seen; " + _MS)]
    # ours
    dataset: Annotated[str, Field(description="The dataset's node id")]
    alias: Annotated[
        str, Field(description="The alias as a dataset node id (it may not be stored)")
    ]
    alias_namespace: str
    alias_name: str
    alias_type: str | None
    source: Annotated[
        Literal["symlink", "datasource"],
        Field(description="symlink: a SymlinksDatasetFacet; datasource: matching dataSource URIs"),
    ]


class Clamped(TypedDict):
    """A parameter served with another value than the one asked for (Feast accepts it)."""

    parameter: Annotated[str, Field(description="The query parameter, e.g. limit or depth")]
    requested: int
    used: Annotated[int, Field(description="The value the answer was made with")]
    reason: str


_CLAMPED = "Parameters served with another value than asked (empty when none was)"


class GraphPage(TypedDict):
    nodes: list[GraphNode]
    edges: Annotated[
        list[GraphEdge],
        Field(description="Every edge between two nodes of this page, derived edges included"),
    ]
    derived_edges: Annotated[
        list[DerivedEdge], Field(description="dataset->dataset edges through a job of this page")
    ]
    symlinks: list[GraphSymlink]
    total_nodes: Annotated[int, Field(description="Nodes of the whole (filtered) graph")]
    total_edges: Annotated[
        int, Field(description="Edges (incl. symlink edges, not derived edges) of the whole graph")
    ]
    limit: Annotated[int, Field(description="Nodes per page, as used (see clamped)")]
    offset: int
    clamped: Annotated[list[Clamped], Field(description=_CLAMPED)]
    as_of: Annotated[
        str | None, Field(description="The instant asked (ISO 8601); null unless as_of was given")
    ]
    since: Annotated[str | None, Field(description="The window's start; null when open or none")]
    until: Annotated[str | None, Field(description="The window's end; null when open or none")]


class Subgraph(TypedDict):
    center: Annotated[str, Field(description="The id of the node the subgraph is centered on")]
    depth: Annotated[int, Field(description="As used (see clamped)")]
    direction: Direction
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    derived_edges: list[DerivedEdge]
    symlinks: list[GraphSymlink]
    truncated: Annotated[
        bool, Field(description="More nodes were in reach than limit; the nearest kept")
    ]
    limit: int
    clamped: Annotated[list[Clamped], Field(description=_CLAMPED)]
    as_of: Annotated[
        str | None, Field(description="The instant asked (ISO 8601); null unless as_of was given")
    ]
    since: Annotated[str | None, Field(description="The window's start; null when open or none")]
    until: Annotated[str | None, Field(description="The window's end; null when open or none")]


class RunLineage(TypedDict):
    run_id: str
    job: Annotated[str, Field(description="The id of the run's job node")]
    state: Annotated[str, Field(description="The run's state: RUNNING, COMPLETE, FAIL, ...")]
    depth: Annotated[int, Field(description="As used (see clamped)")]
    direction: Direction
    nodes: Annotated[
        list[GraphNode],
        Field(description="The job (depth 0), what the run read and wrote (1), and beyond"),
    ]
    edges: list[GraphEdge]
    derived_edges: list[DerivedEdge]
    symlinks: list[GraphSymlink]
    truncated: Annotated[
        bool, Field(description="More nodes were in reach than limit; the nearest kept")
    ]
    limit: int
    clamped: Annotated[list[Clamped], Field(description=_CLAMPED)]
    as_of: Annotated[
        str | None,
        Field(description="The run's end (ISO 8601): the lineage as it stood then; null: now"),
    ]


# --- column lineage -------------------------------------------------------------


class DatasetRef(TypedDict):
    namespace: str
    name: str


class JobRef(TypedDict):
    namespace: str
    name: str


class ColumnNode(TypedDict):
    id: Annotated[
        str,
        Field(
            description='"field:{namespace}:{name}:{field}", or "dataset:{namespace}:{name}" for '
            "a whole dataset (the output of dataset-level inputs)"
        ),
    ]
    namespace: str
    name: str
    field: Annotated[str | None, Field(description="null: the whole dataset")]
    type: Annotated[str | None, Field(description="The field's type, where a schema gives one")]
    depth: Annotated[int, Field(description="Steps from the asked dataset's fields")]
    aliases: Annotated[
        list[DatasetRef],
        Field(description="Symlinked aliases of the dataset: the same field of each is this node"),
    ]


class ColumnTransformation(TypedDict):
    type: Annotated[str, Field(description="DIRECT or INDIRECT")]
    subtype: Annotated[
        str | None,
        Field(
            description="IDENTITY, TRANSFORMATION, AGGREGATION, FILTER, JOIN, GROUP_BY, SORT, "
            "WINDOW, CONDITIONAL, ...; a 1-0 facet's transformationType (IDENTITY, MASKED)"
        ),
    ]
    description: Annotated[
        str | None,
        Field(
            description="Shown only when every input of the target field is visible to the caller"
        ),
    ]
    masking: bool | None


class ColumnEdge(TypedDict):
    source: Annotated[str, Field(description="An input field's node id")]
    target: Annotated[str, Field(description="The output field's (or whole dataset's) node id")]
    job: Annotated[
        JobRef | None, Field(description="The job that reported it (null: a DatasetEvent)")
    ]
    run_id: Annotated[
        str | None, Field(description="The run whose event reported it, if a run did")
    ]
    origin: Annotated[
        Origin,
        Field(
            description="observed: a columnLineage facet, or the field entries of a lineage "
            "facet of a RunEvent; declared: the field entries of a lineage facet of a JobEvent "
            "or DatasetEvent"
        ),
    ]
    indirect: Annotated[bool, Field(description="Every transformation is INDIRECT")]
    transformations: list[ColumnTransformation]


class FeastColumnLineageRow(TypedDict):
    """One row of Feast 0.67's ``column_lineage`` answer: a direct edge touching the dataset."""

    dataset_namespace: Annotated[str, Field(description="The output dataset")]
    dataset_name: str
    output_field: str
    input_namespace: str
    input_name: str
    input_field: str
    transformation_type: Annotated[str | None, Field(description="The first transformation's type")]
    transformation_description: str | None
    transformations_json: Annotated[
        str | None, Field(description="Every transformation, as JSON text")
    ]
    run_id: str | None
    updated_at: Annotated[
        int,
        Field(
            description="The latest event that stated the edge, in milliseconds since the "
            "epoch; 0 to a caller who may not see the namespace of the job that stated it"
        ),
    ]
    direction: Way


class ColumnLineage(TypedDict):
    dataset: DatasetRef
    field: Annotated[str | None, Field(description="The field asked for; null: every field")]
    depth: int
    direction: Direction
    indirect: Annotated[bool, Field(description="Whether INDIRECT-only edges were followed")]
    nodes: Annotated[list[ColumnNode], Field(description="Field nodes, the nearest first")]
    edges: Annotated[
        list[ColumnEdge], Field(description="Every edge between two nodes of the answer")
    ]
    truncated: Annotated[
        bool, Field(description="More nodes were in reach than limit; the nearest kept")
    ]
    limit: int
    column_lineage: Annotated[
        list[FeastColumnLineageRow],
        Field(
            description="Feast 0.67's shape: the direct field edges into (upstream) and out of "
            "(downstream) the dataset"
        ),
    ]
    as_of: Annotated[
        str | None, Field(description="The instant asked (ISO 8601); null unless as_of was given")
    ]
    since: Annotated[str | None, Field(description="The window's start; null when open or none")]
    until: Annotated[str | None, Field(description="The window's end; null when open or none")]


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
    producer: str | None = Field(
        description="The producer of its latest write (else first read); null for a "
        "scoped caller when that event was of a namespace it may not see"
    )
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
    current_version: int | None = Field(description=_NO_POSITION)
    updated_at: int | None = Field(
        description="Time of its latest event; null for a scoped caller when that event "
        "was of a namespace it may not see; " + _MS
    )
    # ours
    id: str
    created_at: int = Field(description=_MS)
    created_at_iso: str = Field(description=_ISO)
    updated_at_iso: str | None = Field(description=_ISO)
    datasource_uri: str | None
    feast: FeastObject | None
    has_column_lineage: bool = Field(
        description="It has column edges (in or out), its own or an alias's: current ones, "
        "or those current at as_of"
    )


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


class RunTreeNode(BaseModel):
    """A run of a run tree (Feast's keys of a run first, then ours)."""

    # Feast's fields
    run_id: str
    job_namespace: str | None = Field(description="null for a missing run whose job is unknown")
    job_name: str | None
    state: str | None = Field(
        description="RUNNING, COMPLETE, FAIL, ABORT or OTHER; null for a missing run"
    )
    started_at: int | None = Field(description=_MS)
    ended_at: int | None = Field(description=_MS)
    facets_json: str | None = Field(
        description="The run's facets as JSON text with facets=true, else null"
    )
    parent_run_id: str | None = Field(
        description="The parent its events name (null: none, or one the caller may not see)"
    )
    root_run_id: str | None = Field(description="The root its events name (same rules)")
    updated_at: int | None = Field(description="Time of its latest event; " + _MS)
    # ours
    hidden: Literal[False] = False
    depth: int = Field(description="0 for the root, 1 for its children, ...")
    missing: bool = Field(
        description="Named as a parent or root by runs below it but never received; "
        "it hangs under the root they name"
    )
    pruned: bool = Field(
        description="A missing run that retention most likely pruned: the runs below it "
        "started before the retention horizon (false: it never arrived)"
    )
    child_count: int = Field(description="Runs directly below it in this tree")
    started_at_iso: str | None = Field(description=_ISO)
    ended_at_iso: str | None = Field(description=_ISO)
    updated_at_iso: str | None = Field(description=_ISO)
    duration_ms: int | None


class HiddenRunNode(BaseModel):
    """A run of a namespace the caller may not see: only its place in the tree."""

    hidden: Literal[True] = True
    depth: int


class RunTree(BaseModel):
    # Feast's fields
    runs: list[RunTreeNode | HiddenRunNode] = Field(
        description="The root first, then depth first: each run followed by the runs below "
        "it, siblings by start time (then run id); depth gives the shape",
    )
    total: int = Field(description="Runs in the tree, hidden and missing ones included")
    # ours
    root_run_id: str | None = Field(description="null when the root is hidden")
    run_id: str = Field(description="The run asked for")
    missing_run_ids: list[str] = Field(
        description="Runs named as parent or root but never received (those the caller may see)"
    )
    truncated: bool = Field(description="More runs than the answer holds (10,000)")


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
    project: str | None = Field(
        description="The feature repository's Feast project; null when there is none, or when "
        "the caller may not see it (no key, an invalid one, or one of other projects)"
    )
    version: str = Field(description="The feast-lineage version")
    read_key: Literal["none", "required", "optional"] = Field(
        description="Whether reads take a key (a read API key or a Feast access token): "
        '"none" (everything is visible without one), "required" (a read without one gets 401), '
        '"optional" (some projects are visible without one; a key may show more)'
    )
    authorizer: Literal["open", "api_keys", "feast"] = Field(
        description="The read-side authorizer's type (openlineage.consumer.authorizer), so the "
        'UI asks for what reads take: a read API key ("api_keys"), a Feast access token '
        '("feast"), nothing ("open")'
    )
    admin_key: bool = Field(
        description="The consumer's admin api_key is set (never the key itself): it reads "
        'everything, under "feast" beside Feast access tokens'
    )


# --- dataset versions ------------------------------------------------------------


class VersionField(_EveryFieldSent):
    """One field of a version's schema; a nested field's name is its path (``address.city``)."""

    name: str
    type: str | None = None
    description: str | None = None


class FieldChange(BaseModel):
    name: str = Field(description="The field's path")
    before: str | None
    after: str | None


class SchemaDiff(BaseModel):
    """A version's schema against the version before it (none: every field is added)."""

    previous_id: str | None = Field(description="The version compared with; null for the first")
    added: list[VersionField]
    removed: list[VersionField]
    type_changed: list[FieldChange]
    description_changed: list[FieldChange]


class OutputStatistics(BaseModel):
    """The ``outputStatistics`` output facet of the write that made the version."""

    row_count: int | None
    bytes: int | None
    file_count: int | None


class DatasetVersionItem(BaseModel):
    # Feast 0.67's fields
    version_id: int = Field(
        description="Feast's integer id: stable here, derived from `id` (Feast's is a row number)"
    )
    dataset_namespace: str
    dataset_name: str
    version: int = Field(
        description="Position, 1 for the oldest version answered (as Feast numbers them: "
        "a version arriving late renumbers those after it; `id` never changes)"
    )
    created_by_run_id: str | None = Field(
        description="The run that made it; null for a DatasetEvent"
    )
    schema_: dict[str, Any] | None = Field(
        alias="schema", description="The schema facet the dataset had at that version"
    )
    facets: dict[str, Any] | None = Field(
        description="The version's followed facets: schema, lifecycleStateChange, version, symlinks"
    )
    created_at: int = Field(description=_MS + ": the event's eventTime")
    # Ours
    id: str = Field(description="The version's stable id, a digest of what made it")
    created_at_iso: str = Field(description=_ISO)
    job: JobRef | None = Field(description="The job of the run that made it")
    event_type: str | None = Field(description="The type of the RunEvent that made it")
    changes: list[str] = Field(
        description="Why it is a version: write (a COMPLETE run wrote it), schema, lifecycle, "
        "version (datasetVersion) and symlinks (changed)"
    )
    fields: list[VersionField] = Field(description="The schema's fields, nested ones by path")
    lifecycle_state_change: str | None
    dataset_version: str | None = Field(description="The version facet's datasetVersion")
    statistics: OutputStatistics | None
    facets_digest: str = Field(description="Digest of the dataset as the event stated it")
    previous_id: str | None = Field(description="The version before it")

    model_config = ConfigDict(populate_by_name=True)


class DatasetVersionPage(BaseModel):
    versions: list[DatasetVersionItem] = Field(description="Newest first")
    total: int = Field(description="Versions that match, on every page")
    limit: int
    offset: int


class DatasetVersionDetail(DatasetVersionItem):
    diff: SchemaDiff


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
    versions: list[JobVersionItem] = Field(description="Newest first")
    total: int = Field(description="Versions that match, on every page")
    limit: int
    offset: int


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


class Reached(TypedDict):
    node: Annotated[str, Field(description="Node id")]
    type: NodeType
    namespace: str
    name: str
    distance: Annotated[
        int,
        Field(
            description="Steps from the cause (or the root), through nodes the caller may not "
            "see too, as a cause's distance in the graph counts them; a hop across a symlink "
            "(two names of one dataset) is free"
        ),
    ]
    path: Annotated[
        list[str],
        Field(
            description="One shortest path of node ids, from the cause to this node: the nodes "
            "the caller may see (where it went through others, two ids in a row are more than "
            "one hop apart); with none hidden, it has distance + symlink_hops hops"
        ),
    ]
    symlink_hops: Annotated[
        int,
        Field(
            description="The hops of path across a symlink (between two ids of path), which "
            "distance does not count"
        ),
    ]


class ReachGroups(TypedDict):
    feature_services: list[Reached]
    feature_views: list[Reached]
    saved_datasets: list[Reached]
    other: Annotated[
        list[Reached],
        Field(
            description="Models and other terminal nodes (nothing downstream the caller may see)"
        ),
    ]


class ReachTotals(TypedDict):
    feature_services: int
    feature_views: int
    saved_datasets: int
    other: int


class HealthProblem(TypedDict):
    id: Annotated[str, Field(description='"failed:{node id}" or "stale:{node id}"')]
    kind: CauseState
    node: GraphNode
    since: Annotated[str, Field(description="Failed: the run's end; stale: last write + interval")]
    error: str | None
    run_id: Annotated[str | None, Field(description="Failed: the failed run")]
    expected_interval_seconds: float | None
    last_write: str | None
    reaches: Annotated[
        ReachGroups, Field(description="Downstream Feast objects and terminal nodes, nearest first")
    ]
    reach_totals: ReachTotals


class HealthPage(TypedDict):
    problems: Annotated[list[HealthProblem], Field(description="Newest first")]
    total: int
    limit: int
    offset: int


class Impact(TypedDict):
    root: Annotated[str, Field(description="Node id")]
    depth: int
    affected: ReachGroups
    totals: ReachTotals
    clamped: list[Clamped]


# --- the lineage diff between two instants (issue 40) -------------------------------


class SchemaChange(TypedDict):
    """A dataset in both answers whose schema differs between them."""

    node: Annotated[str, Field(description="The dataset's graph node id")]
    namespace: str
    name: str
    from_version: Annotated[
        str | None,
        Field(
            description="The dataset version current at `from` (its versions endpoint's id); "
            "null when it had none then"
        ),
    ]
    to_version: Annotated[str | None, Field(description="The dataset version current at `to`")]
    diff: Annotated[
        SchemaDiff,
        Field(
            description="The schema at `to` against the schema at `from` (previous_id: "
            "from_version)"
        ),
    ]


JobChangeKind = Literal["sourceCode", "sql", "sourceCodeLocation", "jobType", "inputs", "outputs"]


class JobChange(TypedDict):
    """A job in both answers whose job version differs between them."""

    node: Annotated[str, Field(description="The job's graph node id")]
    namespace: str
    name: str
    from_version: Annotated[
        str | None,
        Field(
            description="The job version current at `from` (its versions endpoint's id); null "
            "when it had not run then"
        ),
    ]
    to_version: Annotated[str | None, Field(description="The job version current at `to`")]
    changed: Annotated[
        list[JobChangeKind],
        Field(
            description="What differs between the two versions: source facets by name, and the "
            "visible tables read (inputs) or written (outputs)"
        ),
    ]


class DiffTotals(TypedDict):
    nodes_added: int
    nodes_removed: int
    edges_added: int
    edges_removed: int
    schema_changes: int
    column_edges_added: int
    column_edges_removed: int
    job_changes: int


# Functional form: "from" is a Python keyword.
LineageDiff = TypedDict(
    "LineageDiff",
    {
        "from": Annotated[str, Field(description="The instant compared from, as resolved (ISO)")],
        "to": Annotated[str, Field(description="The instant compared to, as resolved (ISO 8601)")],
        "center": Annotated[
            str | None, Field(description="The node id the diff is centred on; null: whole graph")
        ],
        "depth": Annotated[
            int | None, Field(description="The walk's depth as used; null for the whole graph")
        ],
        "direction": Annotated[
            Direction | None, Field(description="The walk's direction; null: whole graph")
        ],
        "within": Annotated[
            str | None,
            Field(description="The namespace the whole graph's diff was narrowed to; null: none"),
        ],
        "truncated": Annotated[
            bool,
            Field(
                description="A centred answer reached more nodes than it keeps on one side; the "
                "nearest were kept"
            ),
        ],
        "nodes_added": Annotated[
            list[GraphNode], Field(description="In the `to` answer only, as of `to`")
        ],
        "nodes_removed": Annotated[
            list[GraphNode], Field(description="In the `from` answer only, as of `from`")
        ],
        "edges_added": Annotated[list[GraphEdge], Field(description="In the `to` answer only")],
        "edges_removed": Annotated[list[GraphEdge], Field(description="In the `from` answer only")],
        "schema_changes": list[SchemaChange],
        "column_edges_added": Annotated[
            list[ColumnEdge],
            Field(description="Column edges into or out of the datasets in scope, at `to` only"),
        ],
        "column_edges_removed": Annotated[list[ColumnEdge], Field(description="At `from` only")],
        "job_changes": list[JobChange],
        "totals": DiffTotals,
    },
)
