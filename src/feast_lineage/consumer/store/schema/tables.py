"""SQLAlchemy table definitions of the lineage store.

Design notes (docs/ARCHITECTURE.md has the full picture):

* Jobs, datasets and namespaces are keyed by stable 63-bit ids computed from
  their identity (:mod:`feast_lineage.identity`), so ingest never needs a
  round trip to learn an id, and every index is on integers. Strings are
  ``Text`` (portable to MySQL, which cannot index long VARCHARs).
* Times are integer microseconds since the epoch (``*_us``).
* Facets are stored one row per (owner, facet name) with a ``rank`` string
  (event time, then a content hash) and a pointer to a content-addressed blob.
  An upsert replaces a facet only when its rank is higher, so the result does
  not depend on the order in which events arrive.
* Lineage edges: input (dataset -> job), output (job -> dataset), parent and
  root (job -> job). There is no input x output cross product; dataset ->
  dataset lineage is derived at query time.
* Migration 0002 adds the query side's indexes: catalog order
  (namespace, name), filters (event type, run state, job name), and
  namespace ids on edges and symlinks for access scoping and reset.
* Migration 0003 drops what a run's events already hold: the run facets
  table and the facets of run inputs/outputs, which are read back from the
  run's events (:mod:`.run_facets`). ``feast_lineage_run_io`` keeps which
  datasets a run read and wrote.
* Migration 0004 tells a job's current input and output edges from those
  of its earlier runs: a job keeps the run of its latest event that listed
  inputs, and of the latest that listed outputs; an input or output edge is
  current when that run read (wrote) the dataset, as ``feast_lineage_run_io``
  records (:func:`.traversal.current_edge`). A JobEvent's inputs and outputs
  count as a run of their own, keyed by its ``event_key``.
* Migration 0005 does the same for aliases: ``feast_lineage_symlink_listings``
  records which aliases each symlinks facet payload lists, so a dataset's
  current symlinks are those of its latest symlinks facet; a link between
  equal dataSource URIs is current while the two URIs are still equal
  (:func:`.traversal.current_symlink`).
* Migration 0006 drops the runs' ``last_event_us`` index, which only
  retention read: a run's start is never later than its last event, so the
  prune walks the start-time index instead, and ingest maintains one index
  fewer per event.
* Migration 0007 drops ``feast_lineage_run_io``'s dataset index, which only a
  namespace reset read: a reset finds other runs' inputs and outputs of its
  datasets through the jobs its datasets have edges with.
* Migration 0008 gives the tables a prefix of their own, ``feast_lineage_``
  (they were ``openlineage_*``, the names of Feast 0.65+'s own consumer
  tables, which live in the same database by default); a new store gets
  these names from its first migration (:mod:`.migrations.naming`).
* Migration 0009 adds column lineage, derived from the stored events too.
  ``feast_lineage_column_edges`` keeps every (input field -> output field)
  edge a ``columnLineage`` facet ever stated, keyed by the output dataset,
  the job (0 for a DatasetEvent), the origin (``observed``; ``declared``
  is kept for explicit lineage) and the digest of the facet payload that
  stated it; fields are indexed by :func:`~feast_lineage.column_lineage.field_hash`
  (0: the whole output dataset). ``feast_lineage_column_lineage`` is the
  current-edges pointer: per (output dataset, job, origin), the digest of
  the latest facet (highest rank), so an edge is current when its digest is
  that pointer's and the job still writes the dataset
  (:func:`.columns.current_column_edge`). Earlier payloads' edges stay as
  history. Edges of one payload are written once, whatever the number of
  events repeating it (Spark's START, RUNNING and COMPLETE).
* Migration 0010 adds explicit lineage (:mod:`feast_lineage.explicit_lineage`:
  the ``lineage`` job and dataset facets and ``jobDependencies``), derived
  from the stored events too. ``feast_lineage_explicit_edges`` keeps every
  entity edge a facet payload stated (input, output, ``job_to_job``,
  ``dataset_to_dataset``), keyed by the owner (the job or dataset carrying
  the facet), the facet, the origin (``declared``: a JobEvent or DatasetEvent;
  ``observed``: a RunEvent) and the payload's digest;
  ``feast_lineage_explicit_lineage`` points, per (owner, facet, origin), at
  the latest payload: its edges are the current ones
  (:func:`.explicit.current_explicit_edge`). Field-level entries go to the
  column lineage tables with the same origin.
* Migration 0011 adds ``producer_rank`` to datasets: a dataset's producer is
  whoever last wrote or declared it, a read never changes it, and a dataset
  only ever read keeps whoever first mentioned it (:mod:`.producer_rank`);
  the migration recomputes it from the stored events.
* Migration 0014 indexes runs by ``root_run_id``: a run tree finds the runs
  that name its root, those whose parent never arrived included
  (:mod:`.run_tree`).
* Migration 0017 lets every lineage answer be asked at an instant
  (``as_of``, :mod:`..read.as_of`): ``feast_lineage_io_listings`` keeps one
  row per (event, direction) whose event listed datasets, keyed by (job,
  direction, the event's rank), naming the run (or JobEvent key) they
  belong to, so "the job's latest event at or before T that listed inputs"
  is one backward seek; ``feast_lineage_run_io.first_us`` is the earliest
  event time at which the run listed the dataset (a minimum, so arrival
  order does not matter). Written once per event, never rewritten; the
  migration derives both from the stored events.
* Migration 0018 keeps the history of column lineage:
  ``feast_lineage_column_listings`` holds one row per (event, output
  dataset, job, origin) whose event stated column lineage, keyed by the
  event's rank, naming the payload's digest, so "the latest payload of an
  (output, job, origin) at or before T" is one backward seek
  (:mod:`..read.columns_as_of`). Written once per event, never rewritten.
  The migration derives the rows of stored stores from their column edges
  (each payload from its edges' first stored time) and pointers (the latest).
* Migration 0012 adds dataset versions: ``feast_lineage_dataset_versions``
  keeps one immutable, content-addressed row per (event, dataset) the event
  wrote (a COMPLETE run's output) or stated a followed facet of (schema,
  lifecycleStateChange, version, symlinks), pointing at the facet blobs
  (:mod:`..write.dataset_versions`); which rows are versions, and each
  one's schema, is derived at read time in (event time, id) order
  (:mod:`..read.dataset_versions`). The migration derives the rows of the
  stored events.
* Migration 0013 adds job versions (:mod:`.write.job_versions`), derived
  from the stored events too. ``feast_lineage_job_sources`` holds the
  source facets' payloads by digest, ``feast_lineage_run_versions`` says
  which version each run (or JobEvent) ran, and
  ``feast_lineage_job_versions`` holds each version's content once, keyed
  by its digest.
* Migration 0016 keeps each run's job version parts (the datasets its
  events listed, with the table each stands for, and the latest of each
  source facet) merged in one column, ``feast_lineage_run_versions.parts``,
  in place of 0013's row per part (``feast_lineage_job_version_io``, which
  repeated ``feast_lineage_run_io``, and ``feast_lineage_job_version_sources``):
  ingest merges an event's parts into the run's stored ones rather than
  reading all of them back (:mod:`..write.job_versions`).
* Migration 0015 keeps in ``feast_lineage_dataset_versions`` only what
  events *made* (writes, lifecycle changes) and moves what events *stated*
  (a schema, datasetVersion or symlinks read or announced) to
  ``feast_lineage_dataset_states``: one row per (dataset, state), the
  earliest statement (:mod:`..write.dataset_versions`).
* Migration 0021 keeps the history of explicit lineage:
  ``feast_lineage_explicit_statements`` holds one row per (owner, facet,
  origin, event rank) whose event carried that facet, naming the payload's
  digest, so "the payload of an (owner, facet, origin) current at T" is one
  backward seek (:mod:`..read.explicit_as_of`), a payload stated, replaced
  and stated again (A, B, A) included. Written once per event
  (insert-or-ignore), never rewritten; the migration derives the rows from
  the stored events with migration 0010's frozen parser.
* Migration 0024 keeps each job facet's first statement
  (``feast_lineage_job_facets.first_rank``): a job's facets at T are read
  from its events when stated again since (:mod:`..read.job_facets_at`),
  and one first stated after T did not exist then.
* Migration 0025 adds ``feast_lineage_payload_dicts``: the Zstandard
  dictionaries the writer trains from the store's events and compresses
  later payloads with (:mod:`.codec`, :mod:`..write.payload_dictionary`).
  A migration after it that reads payloads needs them: a frame names its
  dictionary's id (``payloads_0009``, frozen before them, reads frames
  compressed alone only).
* Migration 0026 keeps what a dataset's facets as of T need without reading
  events in the common case: ``feast_lineage_dataset_facets.other_rank``
  (every statement ranked above it states the current payload) and
  ``feast_lineage_dataset_facet_values`` (each payload's first statement),
  so a facet stated again since T with the same payload is known to have
  been that payload then (:mod:`..read.dataset_facets_at`). Both merge
  whatever order events arrive in (a maximum and a minimum). The
  migration derives them from the stored events (``frozen/payloads_0026``
  reads payloads compressed with the store's dictionaries).
* Migration 0027 adds ``ended_us`` to ``ix_ol_runs_job_started``: a
  window walk's test of an edge finds the job's runs in the window (started
  in its range, not ended before it) in the index, without a seek of the
  runs table per run.
* Migration 0028 records in ``feast_lineage_meta`` (``facet_values_from``)
  the retention horizon under which migration 0026 could not derive every
  payload a dataset facet was stated with (the events were pruned).
* Migration 0029 adds ``producer_ns_id`` and ``updated_ns_id`` to datasets:
  the namespace of the event that set the dataset's producer, and of the
  latest event that named it. A visible dataset can be written or read by a
  job of a namespace the caller may not see; its producer and update time
  are then that job's, and a scoped caller gets null for them
  (:func:`..read.common.seen_by`). Rows stored before it have null (unknown),
  which a scoped caller is not shown either, until a later event sets them.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

from feast_lineage.consumer.store.schema.codec import CompressedJSON

metadata = MetaData()

# SQLite only aliases the rowid for INTEGER PRIMARY KEY.
AutoId = BigInteger().with_variant(Integer(), "sqlite")
# MySQL indexes TEXT columns only by a prefix.
_TEXT_PREFIX = {"namespace": 191, "name": 191}

events = Table(
    "feast_lineage_events",
    metadata,
    Column("id", AutoId, primary_key=True, autoincrement=True),
    Column("event_key", String(32), nullable=False, unique=True),
    Column("kind", String(8), nullable=False),  # run | dataset | job
    Column("event_type", String(16), nullable=True),
    Column("event_time_us", BigInteger, nullable=False),
    Column("received_us", BigInteger, nullable=False),
    Column("ns_id", BigInteger, nullable=False),
    Column("subject_id", BigInteger, nullable=False),  # job id, or dataset id
    Column("run_id", String(36), nullable=True),
    Column("payload", CompressedJSON, nullable=False),  # zstd canonical JSON
    Index("ix_ol_events_time", "event_time_us", "id"),
    Index("ix_ol_events_ns_time", "ns_id", "event_time_us", "id"),
    Index("ix_ol_events_subject_time", "subject_id", "event_time_us", "id"),
    Index("ix_ol_events_run", "run_id"),
    Index("ix_ol_events_type_time", "event_type", "event_time_us", "id"),
)

jobs = Table(
    "feast_lineage_jobs",
    metadata,
    Column("id", BigInteger, primary_key=True, autoincrement=False),
    Column("ns_id", BigInteger, nullable=False),
    Column("namespace", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("producer", Text, nullable=True),
    Column("created_us", BigInteger, nullable=False),
    Column("updated_us", BigInteger, nullable=False),
    # The run (for a JobEvent, its event key) of the latest event that listed
    # inputs, and of the latest that listed outputs, with that event's rank:
    # the job's current input and output edges are that run's.
    Column("input_rank", String(64), nullable=True),
    Column("input_run", String(36), nullable=True),
    Column("output_rank", String(64), nullable=True),
    Column("output_run", String(36), nullable=True),
    Index("ix_ol_jobs_ns", "ns_id"),
    Index("ix_ol_jobs_ns_name", "namespace", "name", mysql_length=_TEXT_PREFIX),
    Index("ix_ol_jobs_name", "name", mysql_length={"name": 191}),
)

datasets = Table(
    "feast_lineage_datasets",
    metadata,
    Column("id", BigInteger, primary_key=True, autoincrement=False),
    Column("ns_id", BigInteger, nullable=False),
    Column("namespace", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("producer", Text, nullable=True),
    Column("producer_rank", String(64), nullable=True),  # migration 0011
    Column("datasource_uri", Text, nullable=True),
    Column("uri_id", BigInteger, nullable=True),  # text_id(datasource_uri)
    Column("uri_rank", String(64), nullable=True),  # rank of the dataSource facet it came from
    Column("identity_uri_id", BigInteger, nullable=True),  # text_id(identity_uri(ns, name))
    Column("feast_type", String(32), nullable=True),
    Column("feast_project", Text, nullable=True),
    Column("created_us", BigInteger, nullable=False),
    Column("updated_us", BigInteger, nullable=False),
    # The namespace of the job whose event set ``producer`` (a DatasetEvent's: the
    # dataset's own), and of the one whose event set ``updated_us`` (migration 0029):
    # a caller who may not see it is not shown them. Null for rows before 0029: unknown.
    Column("producer_ns_id", BigInteger, nullable=True),
    Column("updated_ns_id", BigInteger, nullable=True),
    Index("ix_ol_datasets_ns", "ns_id"),
    Index("ix_ol_datasets_uri", "uri_id"),
    Index("ix_ol_datasets_identity_uri", "identity_uri_id"),
    Index("ix_ol_datasets_ns_name", "namespace", "name", mysql_length=_TEXT_PREFIX),
)

runs = Table(
    "feast_lineage_runs",
    metadata,
    Column("run_id", String(36), primary_key=True),
    Column("job_id", BigInteger, nullable=False),
    Column("ns_id", BigInteger, nullable=False),
    Column("state", String(16), nullable=False),
    Column("state_rank", String(64), nullable=False),
    Column("first_event_us", BigInteger, nullable=False),
    Column("last_event_us", BigInteger, nullable=False),
    Column("start_event_us", BigInteger, nullable=True),  # earliest START
    Column("started_us", BigInteger, nullable=False),  # START time, else first event
    Column("ended_us", BigInteger, nullable=True),  # time of the terminal event
    Column("parent_run_id", String(36), nullable=True),
    Column("root_run_id", String(36), nullable=True),
    # ended_us: a window walk finds a job's runs in the window without their rows (0027)
    Index("ix_ol_runs_job_started", "job_id", "started_us", "run_id", "ended_us"),
    Index("ix_ol_runs_job_open", "job_id", "ended_us", "started_us"),  # a job's runs with no end
    Index("ix_ol_runs_ns_started", "ns_id", "started_us", "run_id"),
    Index("ix_ol_runs_started", "started_us", "run_id"),
    Index("ix_ol_runs_parent", "parent_run_id"),
    Index("ix_ol_runs_root", "root_run_id"),
    Index("ix_ol_runs_state_started", "state", "started_us", "run_id"),
)

run_io = Table(
    "feast_lineage_run_io",
    metadata,
    Column("run_id", String(36), primary_key=True),  # or a JobEvent's event_key
    Column("dataset_id", BigInteger, primary_key=True, autoincrement=False),
    Column("direction", String(6), primary_key=True),  # input | output
    # The earliest eventTime at which the run listed it (migration 0017).
    Column("first_us", BigInteger, nullable=True),
)

# One row per (event, direction) whose event listed datasets (migration 0017):
# the job's latest listing at or before T is one backward seek of the key.
io_listings = Table(
    "feast_lineage_io_listings",
    metadata,
    Column("job_id", BigInteger, primary_key=True, autoincrement=False),
    Column("direction", String(6), primary_key=True),  # input | output
    Column("rank", String(64), primary_key=True),  # the event's rank (time first)
    Column("run_key", String(36), nullable=False),  # the run, or a JobEvent's event key
    sqlite_with_rowid=False,
)

lineage_edges = Table(
    "feast_lineage_edges",
    metadata,
    Column("src_id", BigInteger, primary_key=True, autoincrement=False),
    Column("dst_id", BigInteger, primary_key=True, autoincrement=False),
    Column("edge_type", String(8), primary_key=True),  # input | output | parent | root
    Column("src_kind", String(8), nullable=False),
    Column("dst_kind", String(8), nullable=False),
    Column("src_ns_id", BigInteger, nullable=False),
    Column("dst_ns_id", BigInteger, nullable=False),
    Column("created_us", BigInteger, nullable=False),
    Index("ix_ol_edges_dst", "dst_id", "src_id"),
    Index("ix_ol_edges_ns", "src_ns_id", "dst_ns_id"),
    Index("ix_ol_edges_dst_ns", "dst_ns_id"),
    Index("ix_ol_edges_type_time", "edge_type", "created_us"),  # parent and root edges by T
)

dataset_symlinks = Table(
    "feast_lineage_dataset_symlinks",
    metadata,
    Column("dataset_id", BigInteger, primary_key=True, autoincrement=False),
    Column("alias_id", BigInteger, primary_key=True, autoincrement=False),
    Column("alias_ns_id", BigInteger, nullable=False),
    Column("alias_namespace", Text, nullable=False),
    Column("alias_name", Text, nullable=False),
    Column("alias_type", Text, nullable=True),
    Column("source", String(16), nullable=False),  # symlink | datasource
    Column("created_us", BigInteger, nullable=False),
    Index("ix_ol_symlinks_alias", "alias_id"),
    Index("ix_ol_symlinks_alias_ns", "alias_ns_id"),
)

# Which aliases each SymlinksDatasetFacet payload (a facet blob) lists, plus a
# row with alias_id 0 per payload: a dataset's current aliases are those its
# latest symlinks facet lists. Content-addressed like the blobs: written once.
LISTED = 0  # the alias id of a payload's own row (no dataset id is 0)

symlink_listings = Table(
    "feast_lineage_symlink_listings",
    metadata,
    Column("blob_id", String(32), primary_key=True),
    Column("alias_id", BigInteger, primary_key=True, autoincrement=False),
)

# One row per (event, dataset) whose event carried a symlinks facet (migration
# 0020): the aliases a dataset had at T are those its last statement by then lists.
symlink_statements = Table(
    "feast_lineage_symlink_statements",
    metadata,
    Column("dataset_id", BigInteger, primary_key=True, autoincrement=False),
    Column("rank", String(64), primary_key=True),  # the event's rank (time first)
    Column("blob_id", String(32), nullable=False),  # the symlinks facet payload
    sqlite_with_rowid=False,
)

# Column lineage (migration 0009).
column_lineage = Table(
    "feast_lineage_column_lineage",
    metadata,
    Column("dataset_id", BigInteger, primary_key=True, autoincrement=False),
    Column("job_id", BigInteger, primary_key=True, autoincrement=False),  # 0: no job
    Column("origin", String(16), primary_key=True),  # observed | declared
    Column("rank", String(64), nullable=False),
    Column("digest", String(32), nullable=False),  # of the latest facet payload
    Column("run_id", String(36), nullable=True),  # the run that reported it
    Column("ns_id", BigInteger, nullable=False),  # the dataset's namespace
    Index("ix_ol_column_lineage_job", "job_id"),
)

# One row per (event, output dataset, job, origin) whose event stated column
# lineage (migration 0018): the payload current at T is one backward seek.
column_listings = Table(
    "feast_lineage_column_listings",
    metadata,
    Column("dataset_id", BigInteger, primary_key=True, autoincrement=False),
    Column("job_id", BigInteger, primary_key=True, autoincrement=False),  # 0: no job
    Column("origin", String(16), primary_key=True),  # observed | declared
    Column("rank", String(64), primary_key=True),  # the event's rank (time first)
    Column("digest", String(32), nullable=False),  # of the payload it stated
    Column("run_id", String(36), nullable=True),
    Column("ns_id", BigInteger, nullable=False),  # the dataset's namespace
    Index("ix_ol_column_listings_job", "job_id"),
    sqlite_with_rowid=False,
)

column_edges = Table(
    "feast_lineage_column_edges",
    metadata,
    Column("dst_dataset_id", BigInteger, primary_key=True, autoincrement=False),
    Column("dst_field_id", BigInteger, primary_key=True, autoincrement=False),  # 0: whole
    Column("job_id", BigInteger, primary_key=True, autoincrement=False),
    Column("origin", String(16), primary_key=True),
    Column("digest", String(32), primary_key=True),
    Column("src_dataset_id", BigInteger, primary_key=True, autoincrement=False),
    Column("src_field_id", BigInteger, primary_key=True, autoincrement=False),
    Column("dst_ns_id", BigInteger, nullable=False),
    Column("dst_field", Text, nullable=True),  # None: the whole output dataset
    Column("src_ns_id", BigInteger, nullable=False),
    Column("src_namespace", Text, nullable=False),
    Column("src_name", Text, nullable=False),
    Column("src_field", Text, nullable=False),
    Column("indirect", Integer, nullable=False),  # 1: every transformation is INDIRECT
    Column("transformations", Text, nullable=False),  # canonical JSON list
    Column("created_us", BigInteger, nullable=False),
    Index("ix_ol_column_edges_src", "src_dataset_id", "src_field_id"),
    Index("ix_ol_column_edges_src_ns", "src_ns_id"),
)

explicit_lineage = Table(
    "feast_lineage_explicit_lineage",
    metadata,
    Column("owner_id", BigInteger, primary_key=True, autoincrement=False),  # job or dataset
    Column("facet", String(32), primary_key=True),  # job_lineage | dataset_lineage | ...
    Column("origin", String(16), primary_key=True),  # observed | declared
    Column("rank", String(64), nullable=False),
    Column("digest", String(32), nullable=False),  # of the latest facet payload
    Column("ns_id", BigInteger, nullable=False),  # the owner's namespace
    Index("ix_ol_explicit_lineage_ns", "ns_id"),
)

explicit_edges = Table(
    "feast_lineage_explicit_edges",
    metadata,
    Column("owner_id", BigInteger, primary_key=True, autoincrement=False),
    Column("facet", String(32), primary_key=True),
    Column("origin", String(16), primary_key=True),
    Column("digest", String(32), primary_key=True),
    Column("src_id", BigInteger, primary_key=True, autoincrement=False),
    Column("dst_id", BigInteger, primary_key=True, autoincrement=False),
    # input, output, job_to_job or dataset_to_dataset
    Column("edge_type", String(32), primary_key=True),
    Column("src_kind", String(16), nullable=False),
    Column("dst_kind", String(16), nullable=False),
    Column("src_ns_id", BigInteger, nullable=False),
    Column("dst_ns_id", BigInteger, nullable=False),
    Column("created_us", BigInteger, nullable=False),
    Index("ix_ol_explicit_edges_src", "src_id"),
    Index("ix_ol_explicit_edges_dst", "dst_id"),
    Index("ix_ol_explicit_edges_src_ns", "src_ns_id"),
    Index("ix_ol_explicit_edges_dst_ns", "dst_ns_id"),
)

# One row per (owner, facet, origin, event rank) whose event carried that
# explicit lineage facet (migration 0021): the payload current at T is one
# backward seek of the key.
explicit_statements = Table(
    "feast_lineage_explicit_statements",
    metadata,
    Column("owner_id", BigInteger, primary_key=True, autoincrement=False),
    Column("facet", String(32), primary_key=True),
    Column("origin", String(16), primary_key=True),
    Column("rank", String(64), primary_key=True),  # the event's rank (time first)
    Column("digest", String(32), nullable=False),  # of the payload it stated
    sqlite_with_rowid=False,
)

# A RunEvent's type as a dataset version row stores it (one byte a row).
VERSION_EVENT_TYPES = {"START": 1, "RUNNING": 2, "COMPLETE": 3, "ABORT": 4, "FAIL": 5, "OTHER": 6}

# Dataset versions (migration 0012): one row per (event, dataset) write or
# lifecycle change (statements moved to dataset_states in 0015), clustered
# by dataset and time (SQLite: WITHOUT ROWID), which is how every read and
# reset finds them; the id alone is unique too.
dataset_versions = Table(
    "feast_lineage_dataset_versions",
    metadata,
    Column("dataset_id", BigInteger, primary_key=True, autoincrement=False),
    Column("time_us", BigInteger, primary_key=True, autoincrement=False),  # eventTime
    Column("id", BigInteger, primary_key=True, autoincrement=False),  # content digest
    Column("run_id", LargeBinary, nullable=True),  # the run's UUID as 16 bytes
    Column("job_id", BigInteger, nullable=True),
    Column("event_type", Integer, nullable=True),  # coded: VERSION_EVENT_TYPES
    Column("writes", Integer, nullable=False),  # 1: a COMPLETE run wrote it
    Column("schema_id", String(32), nullable=True),  # facet blob ids
    Column("lifecycle_id", String(32), nullable=True),
    Column("dataset_version", Text, nullable=True),
    Column("symlinks_id", String(32), nullable=True),
    Column("row_count", BigInteger, nullable=True),
    Column("byte_count", BigInteger, nullable=True),
    Column("file_count", BigInteger, nullable=True),
    Column("facets_digest", BigInteger, nullable=False),
    sqlite_with_rowid=False,
)

# Dataset states (migration 0015): the earliest statement of each (schema,
# datasetVersion, symlinks) a dataset was stated with, keyed by the dataset
# and a digest of the state; a merged row (merge_rules.DATASET_STATES).
dataset_states = Table(
    "feast_lineage_dataset_states",
    metadata,
    Column("dataset_id", BigInteger, primary_key=True, autoincrement=False),
    Column("id", BigInteger, primary_key=True, autoincrement=False),  # state digest
    Column("rank", String(64), nullable=False),  # the highest: the earliest statement
    Column("time_us", BigInteger, nullable=False),  # its eventTime
    Column("run_id", LargeBinary, nullable=True),
    Column("job_id", BigInteger, nullable=True),
    Column("event_type", Integer, nullable=True),
    Column("schema_id", String(32), nullable=True),
    Column("dataset_version", Text, nullable=True),
    Column("symlinks_id", String(32), nullable=True),
    # A dataset's latest statement at or before T: one backward seek (migration 0023).
    Index("ix_ol_dataset_states_time", "dataset_id", "time_us"),
    sqlite_with_rowid=False,
)

facet_blobs = Table(
    "feast_lineage_facet_blobs",
    metadata,
    Column("id", String(32), primary_key=True),  # content digest
    Column("payload", Text, nullable=False),
)


def _facet_table(name: str, owner_column: Column[object], *extra: Column[object]) -> Table:
    return Table(
        name,
        metadata,
        owner_column,
        Column("name", String(255), primary_key=True),
        Column("rank", String(64), nullable=False),
        Column("blob_id", String(32), nullable=False),
        *extra,
        Index(f"ix_{name}_blob", "blob_id"),
    )


job_facets = _facet_table(
    "feast_lineage_job_facets",
    Column("owner_id", BigInteger, primary_key=True, autoincrement=False),
    # The rank of the facet's first statement (migration 0024; NULL: not known, a store
    # whose events were pruned before it): as of an instant before it, the job had none.
    Column("first_rank", String(64), nullable=True),
)
dataset_facets = _facet_table(
    "feast_lineage_dataset_facets",
    Column("owner_id", BigInteger, primary_key=True, autoincrement=False),
    # Every statement of the facet ranked above it states this blob (migration 0026): the
    # rank of the latest statement of another payload, "" when none (a bound: never
    # below the retention horizon, where events were pruned).
    Column("other_rank", String(64), nullable=False),
)

# Each payload a dataset facet was stated with, and the rank of its first statement
# (migration 0026). With the bound above, the facet as of T is the current payload when
# its first statement is above the bound and by T (store/read/dataset_facets_at.py).
dataset_facet_values = Table(
    "feast_lineage_dataset_facet_values",
    metadata,
    Column("owner_id", BigInteger, primary_key=True, autoincrement=False),
    Column("name", String(255), primary_key=True),
    Column("blob_id", String(32), primary_key=True),
    Column("first_rank", String(64), nullable=False),
    sqlite_with_rowid=False,
)

# Job versions (migration 0013).
job_sources = Table(
    "feast_lineage_job_sources",
    metadata,
    Column("job_id", BigInteger, primary_key=True, autoincrement=False),
    Column("digest", String(32), primary_key=True),
    Column("payload", Text, nullable=False),  # canonical JSON
)

run_versions = Table(
    "feast_lineage_run_versions",
    metadata,
    Column("run_key", String(36), primary_key=True),
    Column("job_id", BigInteger, nullable=False),
    Column("ns_id", BigInteger, nullable=False),
    Column("version_id", String(32), nullable=False),
    Column("time_us", BigInteger, nullable=False),  # the run's start, or the JobEvent's time
    Column("is_run", Integer, nullable=False),  # 0: a JobEvent
    Column("parts", Text, nullable=False),  # canonical JSON: what its events listed, merged
    Index("ix_ol_run_versions_job_version", "job_id", "version_id", "time_us"),
    Index("ix_ol_run_versions_job_time", "job_id", "time_us"),
)

job_versions = Table(
    "feast_lineage_job_versions",
    metadata,
    Column("id", String(32), primary_key=True),  # digest of the job and the content
    Column("job_id", BigInteger, nullable=False),
    Column("ns_id", BigInteger, nullable=False),
    Column("content", Text, nullable=False),  # canonical JSON: inputs, outputs, sources
    Index("ix_ol_job_versions_ns", "ns_id"),
)

# Zstandard dictionaries the writer trained from the store's events (migration 0025):
# a payload compressed with one names its id (:mod:`.codec`). Never deleted.
payload_dicts = Table(
    "feast_lineage_payload_dicts",
    metadata,
    Column("id", BigInteger, primary_key=True, autoincrement=False),  # Zstandard's dictionary id
    Column("data", LargeBinary, nullable=False),
    Column("created_us", BigInteger, nullable=False),
)

meta = Table(
    "feast_lineage_meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)
