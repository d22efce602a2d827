"""The merge rules: how two rows of one key become one, per table and column.

This is the one place the rules are written. Both ways the store combines
rows are generated from it: the merge of a batch's rows in memory
(:mod:`.merge`) and the upserts' assignments and conditions in SQL
(:mod:`.upserts`). So a batch written at once leaves the same rows as its
events written one by one, in any order: every rule below is
order-independent (a maximum, a minimum, or "the highest rank wins").

A table's columns are its key, columns that are the same in every row of a
key (``same``: derived from the key, such as a job's namespace and name), and
columns with a rule. Tables written once (events, symlinks, io listings,
column and explicit edges) have no rules: the first row of a key stays
(``INSERT`` ignoring conflicts, and the same in memory).
Migration 0010's frozen copy keeps its own rules on purpose (migrations do not
follow live code).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Highest:
    """The value of the row whose ``rank`` column is highest.

    A missing rank loses to any; on a tie the stored (first) row stays.
    Every column with the same ``rank`` (the rank itself included) moves
    together, from one row.
    """

    rank: str


@dataclass(frozen=True, slots=True)
class Maximum:
    """The greater value (of a column that is never missing)."""


@dataclass(frozen=True, slots=True)
class Minimum:
    """The lesser value (of a column that is never missing)."""


@dataclass(frozen=True, slots=True)
class LeastPresent:
    """The least of the values present; a missing value loses to any."""


@dataclass(frozen=True, slots=True)
class FirstPresent:
    """The stored (first) value; the incoming one only where none is stored."""


@dataclass(frozen=True, slots=True)
class LatestPresent:
    """The value of the row whose ``by`` is higher, unless that row has none.

    A missing value never replaces a present one; on a tie of ``by`` the
    stored row's value stays.
    """

    by: str


@dataclass(frozen=True, slots=True)
class LeastAtLatest:
    """The value of the row whose ``by`` is higher; on a tie of ``by``, the lesser value,
    a missing one counting as least (what is unknown stays unknown).

    ``by`` is never missing (it is merged as a :class:`Maximum`).
    """

    by: str


@dataclass(frozen=True, slots=True)
class Fallback:
    """Derived: the merged ``first``, or the merged ``then`` where ``first`` is missing."""

    first: str
    then: str


@dataclass(frozen=True, slots=True)
class OtherBound:
    """A bound above which every statement states the merged ``value``: the higher of the
    two rows' bounds and, when the two rows' values differ, the rank of the lower-ranked
    row (its statement is of another value). Order-independent: a maximum of facts."""

    rank: str
    value: str


Rule = (
    Highest
    | Maximum
    | Minimum
    | LeastPresent
    | FirstPresent
    | LatestPresent
    | LeastAtLatest
    | Fallback
    | OtherBound
)

HIGHEST_RANK = Highest("rank")
MAXIMUM = Maximum()
MINIMUM = Minimum()
LEAST_PRESENT = LeastPresent()
FIRST_PRESENT = FirstPresent()


@dataclass(frozen=True, slots=True)
class TableRules:
    """How the rows of one table merge: ``rules`` by column."""

    key: tuple[str, ...]
    same: tuple[str, ...]  # the same in every row of a key: never reassigned
    rules: Mapping[str, Rule]


# A job's latest event wins its producer (a job only named by a parent facet
# has none and no update time); its latest inputs and outputs are those of
# the highest-ranked event that listed them.
JOBS = TableRules(
    key=("id",),
    same=("ns_id", "namespace", "name"),
    rules={
        "producer": LatestPresent("updated_us"),
        "created_us": MINIMUM,
        "updated_us": MAXIMUM,
        "input_rank": Highest("input_rank"),
        "input_run": Highest("input_rank"),
        "output_rank": Highest("output_rank"),
        "output_run": Highest("output_rank"),
    },
)

# A dataset's producer follows its producer rank (:mod:`.producer_rank`), its
# dataSource URI the highest-ranked dataSource facet; Feast's type and project
# are kept from the first event that named them. The namespace of the event
# that set the producer moves with it, and that of the latest event with the
# update time (migration 0029: a read shows them only to who may see it).
DATASETS = TableRules(
    key=("id",),
    same=("ns_id", "namespace", "name", "identity_uri_id"),
    rules={
        "producer": Highest("producer_rank"),
        "producer_ns_id": Highest("producer_rank"),
        "producer_rank": Highest("producer_rank"),
        "datasource_uri": Highest("uri_rank"),
        "uri_id": Highest("uri_rank"),
        "uri_rank": Highest("uri_rank"),
        "feast_type": FIRST_PRESENT,
        "feast_project": FIRST_PRESENT,
        "created_us": MINIMUM,
        "updated_us": MAXIMUM,
        "updated_ns_id": LeastAtLatest("updated_us"),
    },
)

# A run's state is its highest-ranked event's (terminal states rank above
# START and RUNNING, which rank above OTHER); it starts at its earliest START,
# else its first event. A run names one parent and one root: should its events
# disagree, the least id wins, whatever order they arrive in.
RUNS = TableRules(
    key=("run_id",),
    same=("job_id", "ns_id"),
    rules={
        "state": Highest("state_rank"),
        "state_rank": Highest("state_rank"),
        "ended_us": Highest("state_rank"),
        "first_event_us": MINIMUM,
        "last_event_us": MAXIMUM,
        "start_event_us": LEAST_PRESENT,
        "started_us": Fallback("start_event_us", "first_event_us"),
        "parent_run_id": LEAST_PRESENT,
        "root_run_id": LEAST_PRESENT,
    },
)

# An edge (input, output, parent, root) dates from the earliest event that
# stated it, whatever order they arrive in: ``as_of`` reads it by that time.
EDGES = TableRules(
    key=("src_id", "dst_id", "edge_type"),
    same=("src_kind", "dst_kind", "src_ns_id", "dst_ns_id"),
    rules={"created_us": MINIMUM},
)

# A run's input or output: when the run first listed it (migration 0017).
RUN_IO = TableRules(
    key=("run_id", "dataset_id", "direction"),
    same=(),
    rules={"first_us": LEAST_PRESENT},
)

# A dataset's facet: the payload of the highest-ranked event, and a bound above which
# every statement is of that payload (migration 0026: as of T, a facet stated again since
# with the same payload was that payload then).
FACETS = TableRules(
    key=("owner_id", "name"),
    same=(),
    rules={
        "rank": HIGHEST_RANK,
        "blob_id": HIGHEST_RANK,
        "other_rank": OtherBound("rank", "blob_id"),
    },
)

# Each payload a dataset facet was stated with: its first statement (migration 0026).
DATASET_FACET_VALUES = TableRules(
    key=("owner_id", "name", "blob_id"),
    same=(),
    rules={"first_rank": MINIMUM},
)

# A job's facet also keeps the rank of its first statement (migration 0024): as of
# an instant before it, the job had no such facet (store/read/job_facets_at.py).
JOB_FACETS = TableRules(
    key=("owner_id", "name"),
    same=(),
    rules={"rank": HIGHEST_RANK, "blob_id": HIGHEST_RANK, "first_rank": LEAST_PRESENT},
)

# Which columnLineage payload is current for a (dataset, job, origin).
COLUMN_LINEAGE = TableRules(
    key=("dataset_id", "job_id", "origin"),
    same=("ns_id",),
    rules={"rank": HIGHEST_RANK, "digest": HIGHEST_RANK, "run_id": HIGHEST_RANK},
)

# Which explicit lineage payload is current for an (owner, facet, origin).
EXPLICIT_LINEAGE = TableRules(
    key=("owner_id", "facet", "origin"),
    same=("ns_id",),
    rules={"rank": HIGHEST_RANK, "digest": HIGHEST_RANK},
)

# A dataset's state keeps its earliest statement: the rank counts down from
# the event time (:func:`..dataset_versions.state_rank`), and what is stated
# is the key's.
DATASET_STATES = TableRules(
    key=("dataset_id", "id"),
    same=("schema_id", "dataset_version", "symlinks_id"),
    rules={
        "rank": HIGHEST_RANK,
        "time_us": HIGHEST_RANK,
        "run_id": HIGHEST_RANK,
        "job_id": HIGHEST_RANK,
        "event_type": HIGHEST_RANK,
    },
)
