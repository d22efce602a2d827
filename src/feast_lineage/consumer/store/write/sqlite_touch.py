"""Narrower UPDATEs that save SQLite index writes on small transactions."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import text

from feast_lineage.consumer.store.schema import tables as t

# SQLite rewrites the entries of every index on a column that an UPDATE
# assigns, whether its value changes or not (PostgreSQL's HOT updates and
# InnoDB leave unchanged keys alone). The upserts assign indexed columns: a
# facet's blob id, a dataset's URI id, a run's start time and parent. On
# SQLite these UPDATEs go first: they move rows whose indexed values stay as
# they are, assigning unindexed columns only, to exactly what the upsert would
# make of them, so the upsert's WHERE then leaves them alone. A one-event
# transaction writes about a quarter fewer pages. A row they do not match
# (new, or with an indexed value to change) is the upsert's, as before; when
# they moved every row, the upsert is not sent at all.
# Only for small transactions: in a large one, many rows share each page
# written, and the extra statements cost more than the pages they save.
TOUCH_MAX_EVENTS = 16
# A dataset facet restated with its payload keeps its bound (an incoming one no higher).
TOUCH_DATASET_FACET = (
    f"UPDATE {t.dataset_facets.name} SET rank = :rank"
    " WHERE owner_id = :owner_id AND name = :name AND blob_id = :blob_id AND rank < :rank"
    " AND other_rank >= :other_rank"
)
# A job facet also keeps the least first statement's rank (a batch may hold an earlier one).
TOUCH_JOB_FACET = (
    f"UPDATE {t.job_facets.name} SET rank = :rank, first_rank = CASE"
    " WHEN first_rank IS NULL OR :first_rank < first_rank THEN :first_rank ELSE first_rank END"
    " WHERE owner_id = :owner_id AND name = :name AND blob_id = :blob_id AND rank < :rank"
)
TOUCH_DATASET = f"""UPDATE {t.datasets.name} SET
 producer = CASE WHEN :producer_rank > producer_rank
  OR (producer_rank IS NULL AND :producer_rank IS NOT NULL)
  THEN :producer ELSE producer END,
 producer_ns_id = CASE WHEN :producer_rank > producer_rank
  OR (producer_rank IS NULL AND :producer_rank IS NOT NULL)
  THEN :producer_ns_id ELSE producer_ns_id END,
 producer_rank = CASE WHEN :producer_rank > producer_rank
  OR (producer_rank IS NULL AND :producer_rank IS NOT NULL)
  THEN :producer_rank ELSE producer_rank END,
 updated_us = MAX(updated_us, :updated_us),
 updated_ns_id = CASE WHEN :updated_us > updated_us THEN :updated_ns_id
  WHEN :updated_us = updated_us AND updated_ns_id IS NOT NULL
   AND (:updated_ns_id IS NULL OR :updated_ns_id < updated_ns_id) THEN :updated_ns_id
  ELSE updated_ns_id END,
 created_us = MIN(created_us, :created_us),
 uri_rank = CASE WHEN :uri_rank > uri_rank OR (uri_rank IS NULL AND :uri_rank IS NOT NULL)
  THEN :uri_rank ELSE uri_rank END,
 feast_project = COALESCE(feast_project, :feast_project)
WHERE id = :id
 AND (:updated_us > updated_us OR :created_us < created_us OR :uri_rank > uri_rank
  OR (uri_rank IS NULL AND :uri_rank IS NOT NULL)
  OR :producer_rank > producer_rank OR (producer_rank IS NULL AND :producer_rank IS NOT NULL))
 AND (:uri_rank IS NULL OR uri_rank >= :uri_rank
  OR (uri_id = :uri_id AND datasource_uri = :datasource_uri))
 AND (feast_type IS NOT NULL OR :feast_type IS NULL)"""
TOUCH_RUN = f"""UPDATE {t.runs.name} SET
 state = CASE WHEN :state_rank > state_rank THEN :state ELSE state END,
 ended_us = CASE WHEN :state_rank > state_rank THEN :ended_us ELSE ended_us END,
 state_rank = MAX(state_rank, :state_rank),
 first_event_us = MIN(first_event_us, :first_event_us),
 last_event_us = MAX(last_event_us, :last_event_us)
WHERE run_id = :run_id
 AND (:state_rank > state_rank OR :last_event_us > last_event_us
  OR :first_event_us < first_event_us)
 AND (:start_event_us IS NULL OR start_event_us <= :start_event_us)
 AND (start_event_us IS NOT NULL OR :first_event_us >= first_event_us)
 AND (:parent_run_id IS NULL OR parent_run_id <= :parent_run_id)
 AND (:root_run_id IS NULL OR root_run_id <= :root_run_id)"""


# (statement key, SQL, rows) -> whether it moved every row
Touch = Callable[[str, str, Sequence[Mapping[str, Any]]], bool]


def touch(ex: Callable[..., int], key: str, sql: str, rows: Sequence[Mapping[str, Any]]) -> bool:
    """Run a narrower UPDATE; True when it moved every row, leaving the upsert nothing."""
    return bool(rows) and ex(f"touch:{key}", lambda: text(sql), rows) == len(rows)


def no_touch(key: str, sql: str, rows: Sequence[Mapping[str, Any]]) -> bool:
    """Where the narrower UPDATEs do not pay: the upsert does it all."""
    return False
