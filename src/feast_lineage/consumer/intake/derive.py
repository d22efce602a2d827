"""Turning one validated OpenLineage event into the rows the store keeps.

Nothing here touches the database: :func:`derive` is a pure function from an
event to a :class:`~feast_lineage.consumer.store.write.rows.RowBatch`, which
:mod:`.pipeline` merges with other events' batches and writes in one
transaction. The event's parts become rows through :class:`.row_builder.RowBuilder`.
A run's own facets are not derived: they are read back from its events
(:mod:`feast_lineage.consumer.store.read.run_facets`).
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from feast_lineage import canonical_json
from feast_lineage.consumer.intake.explicit import add_explicit_lineage
from feast_lineage.consumer.intake.facet_memo import FacetMemo
from feast_lineage.consumer.intake.row_builder import RowBuilder, ref
from feast_lineage.consumer.intake.validation import EventKind
from feast_lineage.consumer.lineage_model import (
    RUN_STATE_OF_TYPE,
    RUN_STATE_PRIORITY,
    TERMINAL_TYPES,
)
from feast_lineage.consumer.store.schema.codec import PayloadCodec, compress
from feast_lineage.consumer.store.write.column_rows import NO_JOB
from feast_lineage.consumer.store.write.dataset_versions import version_rows
from feast_lineage.consumer.store.write.rows import RowBatch, RunRow
from feast_lineage.event_time import SORT_OFFSET
from feast_lineage.identity import namespace_id
from feast_lineage.uris import may_hold_credentials, scrub

# The state rank's first character: ingest's merge rule as text (:data:`.RUN_STATE_PRIORITY`).
_STATE_PRIORITY = {kind: str(rank) for kind, rank in RUN_STATE_PRIORITY.items()}


# A UUID as str(uuid.UUID(...)) writes it: what nearly every producer sends.
_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def normalize_run_id(value: Any) -> str:
    """A run id in the one form the store keys runs by (lowercase, hyphenated)."""
    if isinstance(value, str) and _CANONICAL_UUID.fullmatch(value):
        return value
    return str(value) if isinstance(value, uuid.UUID) else str(uuid.UUID(str(value)))


def derive(
    event: dict[str, Any],
    kind: EventKind,
    time_us: int,
    received_us: int,
    *,
    scrub_credentials: bool = True,
    memo: FacetMemo | None = None,
    codec: PayloadCodec | None = None,
) -> RowBatch:
    """The rows of one validated event. ``event`` is not modified.

    ``codec``: how the store compresses payloads now (none: each alone).
    """
    payload = canonical_json.dumps(event)
    if scrub_credentials and may_hold_credentials(payload):
        cleaned = scrub(event)
        if cleaned is not event:
            event = cleaned
            payload = canonical_json.dumps(event)
    content = canonical_json.digest(payload)
    # The dedup key starts with the event time, so its unique index grows at
    # its right edge instead of taking a random page per insert.
    sort_time = time_us + SORT_OFFSET
    event_key = f"{sort_time:016x}{content[:16]}"
    rank = f"{sort_time:020d}{content[:16]}"
    producer = str(event.get("producer"))
    out = RowBatch()
    run_id: str | None = None
    if kind == "run":
        run_id = normalize_run_id(event["run"]["runId"])
    ns = event["dataset" if kind == "dataset" else "job"]["namespace"]
    # A JobEvent's inputs and outputs stand alone, like a run of their own.
    b = RowBuilder(
        out,
        time_us,
        received_us,
        rank,
        producer,
        memo,
        run_id or event_key,
        run_id,
        ns_id=namespace_id(ns),
    )
    event_type = event.get("eventType") if kind == "run" else None

    if kind == "dataset":
        ds = event["dataset"]
        subject = b.dataset(ds, writes=True)
        b.column_lineage(subject, ds, NO_JOB)
    else:
        job = event["job"]
        subject = b.job(ns, job["name"], job.get("facets"))
        if run_id is not None:  # a RunEvent
            facets = event["run"].get("facets")
            out.runs.append(_run_row(b, run_id, subject, ns, event_type, facets))
        b.io(event, subject, ns)
    add_explicit_lineage(b, event)
    history = version_rows(
        event,
        kind,
        event_key=event_key,
        time_us=time_us,
        run_id=run_id,
        digest=b.digest,
        job=subject if kind == "run" else None,
    )
    out.dataset_versions, out.dataset_states = history.made, history.states

    out.events.append(
        {
            "event_key": event_key,
            "kind": kind,
            "event_type": event_type,
            "event_time_us": time_us,
            "received_us": received_us,
            "ns_id": namespace_id(ns),
            "subject_id": subject,
            "run_id": run_id,
            "payload": codec.compress(payload) if codec else compress(payload),
        }
    )
    return out


def _run_row(b: RowBuilder, run_id: str, jid: int, ns: str, event_type: Any, facets: Any) -> RunRow:
    parent_run = root_run = None
    parent = facets.get("parent") if isinstance(facets, dict) else None
    if isinstance(parent, dict):
        parent_run, parent_job = _parent_link(b, parent, jid, ns, "parent")
        root = parent.get("root")
        if isinstance(root, dict):
            root_run, root_job = _parent_link(b, root, jid, ns, "root")
            if root_job is not None and root_job == parent_job:
                b.out.edges.pop((root_job, jid, "root"), None)
    state_type = event_type if isinstance(event_type, str) else "OTHER"
    t = b.time_us
    return {
        "run_id": run_id,
        "job_id": jid,
        "ns_id": namespace_id(ns),
        "state": RUN_STATE_OF_TYPE.get(state_type, "OTHER"),
        "state_rank": _STATE_PRIORITY.get(state_type, "0") + b.rank,
        "first_event_us": t,
        "last_event_us": t,
        "start_event_us": t if state_type == "START" else None,
        "started_us": t,
        "ended_us": t if state_type in TERMINAL_TYPES else None,
        "parent_run_id": parent_run,
        "root_run_id": root_run,
    }


def _parent_link(
    b: RowBuilder, link: dict[str, Any], jid: int, ns: str, edge_type: str
) -> tuple[str | None, int | None]:
    run_ref = ref(link, "run", "runId")
    try:
        run_id = normalize_run_id(run_ref) if run_ref is not None else None
    except ValueError:
        run_id = None
    job_ns, job_name = ref(link, "job", "namespace"), ref(link, "job", "name")
    if not (isinstance(job_ns, str) and isinstance(job_name, str) and job_ns and job_name):
        return run_id, None
    parent_job = b.job(job_ns, job_name, stub=True)
    if parent_job != jid:
        b.edge(parent_job, "job", job_ns, jid, "job", ns, edge_type)
    return run_id, parent_job
