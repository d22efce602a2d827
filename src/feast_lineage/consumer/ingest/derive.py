"""Turning one validated OpenLineage event into the rows the store keeps.

Nothing here touches the database: :func:`derive` is a pure function from an
event to a :class:`Derived` bundle of rows, which :mod:`.pipeline` merges with
other events' bundles and writes in one transaction. Job and dataset facet
rows carry a ``rank`` (event time, then a content hash) so the store keeps,
for each facet key, the value of the latest event whatever order events
arrive in. A run's own facets are not derived: they are read back from its
events (:mod:`feast_lineage.consumer.store.run_facets`).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from typing import Any

import orjson

from feast_lineage import canonical_json
from feast_lineage.consumer.ingest.validation import EventKind
from feast_lineage.consumer.store import codec
from feast_lineage.consumer.store.tables import LISTED
from feast_lineage.event_time import SORT_OFFSET
from feast_lineage.identity import dataset_id, identity_uri, job_id, namespace_id, text_id
from feast_lineage.uris import may_hold_credentials, scrub, strip_credentials

Row = dict[str, Any]

TERMINAL_TYPES = frozenset({"COMPLETE", "FAIL", "ABORT"})
_STATE_OF_TYPE = {
    "START": "RUNNING",
    "RUNNING": "RUNNING",
    "COMPLETE": "COMPLETE",
    "FAIL": "FAIL",
    "ABORT": "ABORT",
    "OTHER": "OTHER",
}
# Terminal events beat everything, START/RUNNING beat OTHER (or no type).
_STATE_PRIORITY = {"COMPLETE": "2", "FAIL": "2", "ABORT": "2", "START": "1", "RUNNING": "1"}

# Feast facets on a dataset tell which Feast object it stands for.
FEAST_DATASET_FACETS = {
    "feast_feature_view": "feature_view",
    "feast_feature_service": "feature_service",
    "feast_data_source": "data_source",
    "feast_entity": "entity",
    "feast_saved_dataset": "saved_dataset",
    "feast_online_store": "online_store",
}
_FEAST_VIEW_MODES = {"ON_DEMAND": "on_demand_feature_view", "STREAM": "stream_feature_view"}


@dataclass
class Derived:
    """The rows of one or more events, ready to be written together."""

    events: list[Row] = field(default_factory=list)
    jobs: dict[int, Row] = field(default_factory=dict)
    datasets: dict[int, Row] = field(default_factory=dict)
    runs: list[Row] = field(default_factory=list)
    run_io: dict[tuple[str, int, str], Row] = field(default_factory=dict)
    edges: dict[tuple[int, int, str], Row] = field(default_factory=dict)
    symlinks: dict[tuple[int, int], Row] = field(default_factory=dict)
    # (symlinks facet blob, alias): which aliases a SymlinksDatasetFacet payload lists
    listings: dict[tuple[str, int], Row] = field(default_factory=dict)
    blobs: dict[str, str | PendingBlob] = field(default_factory=dict)  # id -> canonical JSON
    job_facets: dict[tuple[int, str], Row] = field(default_factory=dict)
    dataset_facets: dict[tuple[int, str], Row] = field(default_factory=dict)
    naive_times: int = 0  # events whose eventTime had no UTC offset (store/counters.py)

    def merge(self, other: Derived) -> None:
        self.events.extend(other.events)
        _merge_max(self.jobs, other.jobs, "updated_us", _merge_job)
        _merge_max(self.datasets, other.datasets, "updated_us", _merge_dataset)
        self.runs.extend(other.runs)
        _merge_first(self.run_io, other.run_io)
        _merge_first(self.edges, other.edges)
        _merge_first(self.symlinks, other.symlinks)
        _merge_first(self.listings, other.listings)
        self.blobs.update(other.blobs)
        _merge_ranked(self.job_facets, other.job_facets)
        _merge_ranked(self.dataset_facets, other.dataset_facets)
        self.naive_times += other.naive_times


def _merge_first(into: dict[Any, Row], new: dict[Any, Row]) -> None:
    """Keep the row already there (edges, symlinks, run inputs/outputs)."""
    for key, row in new.items():
        into.setdefault(key, row)


def _merge_ranked(into: dict[Any, Row], new: dict[Any, Row]) -> None:
    for key, row in new.items():
        old = into.get(key)
        if old is None or row["rank"] > old["rank"]:
            into[key] = row


def _merge_node(old: Row, new: Row) -> Row:
    later, earlier = (new, old) if new["updated_us"] > old["updated_us"] else (old, new)
    merged = dict(later)
    merged["created_us"] = min(old["created_us"], new["created_us"])
    if merged.get("producer") is None:
        merged["producer"] = earlier.get("producer")
    return merged


# A job's latest event that listed inputs, and outputs: (rank, run) column pairs.
JOB_IO_COLUMNS = (("input_rank", "input_run"), ("output_rank", "output_run"))


def _merge_job(old: Row, new: Row) -> Row:
    merged = _merge_node(old, new)
    for rank, run in JOB_IO_COLUMNS:
        a, b = old[rank], new[rank]
        best = old if b is None or (a is not None and a > b) else new
        merged[rank], merged[run] = best[rank], best[run]
    return merged


def _merge_dataset(old: Row, new: Row) -> Row:
    merged = _merge_node(old, new)
    candidates = [r for r in (old, new) if r.get("uri_rank") is not None]
    if candidates:
        best = max(candidates, key=lambda r: r["uri_rank"])
        merged["datasource_uri"] = best["datasource_uri"]
        merged["uri_id"] = best["uri_id"]
        merged["uri_rank"] = best["uri_rank"]
    merged["feast_type"] = old.get("feast_type") or new.get("feast_type")
    merged["feast_project"] = old.get("feast_project") or new.get("feast_project")
    return merged


def _merge_max(into: dict[int, Row], new: dict[int, Row], _key: str, combine: Any) -> None:
    for key, row in new.items():
        old = into.get(key)
        into[key] = row if old is None else combine(old, row)


# A UUID as str(uuid.UUID(...)) writes it: what nearly every producer sends.
_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def normalize_run_id(value: Any) -> str:
    """A run id in the one form the store keys runs by (lowercase, hyphenated)."""
    if isinstance(value, str) and _CANONICAL_UUID.fullmatch(value):
        return value
    return str(value) if isinstance(value, uuid.UUID) else str(uuid.UUID(str(value)))


class FacetMemo:
    """The fingerprint and blob id of the last payload seen per (owner, facet name).

    Most facets repeat unchanged from event to event (a dataset's schema);
    fingerprinting a payload's plain serialization and comparing it with the
    last one's is far cheaper than serializing canonically and hashing it
    again. (Not ``==``: Python holds 1, 1.0 and true equal, JSON does not.)
    An entry holds a 64-bit fingerprint, not the payload, so the memo stays
    small however large the facets. Bounded; safe to share between threads
    (a lost race only costs a recomputation).
    """

    def __init__(self, limit: int = 50_000) -> None:
        self._items: dict[tuple[Any, str], tuple[int, str]] = {}
        self._limit = limit

    @staticmethod
    def fingerprint(payload: Any) -> int:
        return hash(orjson.dumps(payload))

    def get(self, key: tuple[Any, str], fingerprint: int) -> str | None:
        hit = self._items.get(key)
        return hit[1] if hit is not None and hit[0] == fingerprint else None

    def put(self, key: tuple[Any, str], fingerprint: int, blob_id: str) -> None:
        if len(self._items) >= self._limit:
            self._items.clear()
        self._items[key] = (fingerprint, blob_id)


class PendingBlob:
    """A facet payload whose blob id is known but not yet its canonical text.

    The writer serializes it only if the store may lack the blob (see
    :func:`blob_text`); usually it is known stored and skipped.
    """

    __slots__ = ("payload",)

    def __init__(self, payload: Any) -> None:
        self.payload = payload


def blob_text(value: str | PendingBlob) -> str:
    """A blob's canonical JSON text."""
    return value if isinstance(value, str) else canonical_json.dumps_str(value.payload)


class _Builder:
    def __init__(
        self,
        out: Derived,
        time_us: int,
        received_us: int,
        rank: str,
        producer: str,
        memo: FacetMemo | None,
        io_run: str,
    ):
        self.out = out
        self.time_us = time_us
        self.received_us = received_us
        self.rank = rank
        self.producer = producer
        self.memo = memo
        self.io_run = io_run  # the run (or JobEvent) the event's inputs and outputs belong to

    def blob(self, value: Any, memo_key: tuple[Any, str] | None = None) -> str:
        memo = self.memo
        fingerprint = 0
        if memo is not None and memo_key is not None:
            fingerprint = memo.fingerprint(value)
            known = memo.get(memo_key, fingerprint)
            if known is not None:
                self.out.blobs.setdefault(known, PendingBlob(value))
                return known
        data = canonical_json.dumps(value)
        key = canonical_json.digest(data)
        self.out.blobs[key] = data.decode()
        if memo is not None and memo_key is not None:
            memo.put(memo_key, fingerprint, key)
        return key

    def facets(self, target: dict[Any, Row], owner: Any, facets: Any, kind: str = "") -> None:
        if not facets:
            return
        for name, payload in facets.items():
            target[(owner, name)] = {
                "owner_id": owner,
                "name": name,
                "rank": self.rank,
                "blob_id": self.blob(payload, (owner, name) if kind else None),
            }

    def job(self, namespace: str, name: str, facets: Any = None, *, stub: bool = False) -> int:
        jid = job_id(namespace, name)
        row = {
            "id": jid,
            "ns_id": namespace_id(namespace),
            "namespace": namespace,
            "name": name,
            "producer": None if stub else self.producer,
            # A job only named by a parent facet has not been seen itself.
            "created_us": self.time_us,
            "updated_us": 0 if stub else self.time_us,
            "input_rank": None,
            "input_run": None,
            "output_rank": None,
            "output_run": None,
        }
        existing = self.out.jobs.get(jid)
        self.out.jobs[jid] = row if existing is None else _merge_job(existing, row)
        self.facets(self.out.job_facets, jid, facets, "job")
        return jid

    def dataset(self, ds: dict[str, Any]) -> int:
        namespace, name = ds["namespace"], ds["name"]
        did = dataset_id(namespace, name)
        facets = ds.get("facets") or {}
        row: Row = {
            "id": did,
            "ns_id": namespace_id(namespace),
            "namespace": namespace,
            "name": name,
            "producer": self.producer,
            "datasource_uri": None,
            "uri_id": None,
            "uri_rank": None,
            "identity_uri_id": _identity_uri_id(namespace, name),
            "feast_type": None,
            "feast_project": None,
            "created_us": self.time_us,
            "updated_us": self.time_us,
        }
        source = facets.get("dataSource")
        uri = source.get("uri") if isinstance(source, dict) else None
        if isinstance(uri, str) and uri:
            clean = strip_credentials(uri)
            row.update(datasource_uri=clean, uri_id=text_id(clean), uri_rank=self.rank)
        for facet_name, feast_type in FEAST_DATASET_FACETS.items():
            facet = facets.get(facet_name)
            if isinstance(facet, dict):
                if feast_type == "feature_view":
                    feast_type = _FEAST_VIEW_MODES.get(str(facet.get("mode")), feast_type)
                row["feast_type"] = feast_type
                row["feast_project"] = namespace
                break
        existing = self.out.datasets.get(did)
        self.out.datasets[did] = row if existing is None else _merge_dataset(existing, row)
        self.facets(self.out.dataset_facets, did, facets, "dataset")
        symlinks = facets.get("symlinks")
        if isinstance(symlinks, dict):
            self.symlinks(did, symlinks, self.out.dataset_facets[(did, "symlinks")]["blob_id"])
        return did

    def symlinks(self, did: int, facet: dict[str, Any], blob_id: str) -> None:
        """The aliases a SymlinksDatasetFacet names, and which ones its payload lists.

        The listing rows (one per alias, and :data:`LISTED` for the payload
        itself) let a read tell the aliases of a dataset's current facet
        from those an earlier value named.
        """
        listings = self.out.listings
        listings.setdefault((blob_id, LISTED), {"blob_id": blob_id, "alias_id": LISTED})
        identifiers = facet.get("identifiers")
        if not isinstance(identifiers, list):
            return
        for ident in identifiers:
            if not isinstance(ident, dict):
                continue
            ns, name = ident.get("namespace"), ident.get("name")
            if not isinstance(ns, str) or not isinstance(name, str) or not ns or not name:
                continue
            alias = dataset_id(ns, name)
            if alias == did:
                continue
            listings.setdefault((blob_id, alias), {"blob_id": blob_id, "alias_id": alias})
            alias_type = ident.get("type")
            self.out.symlinks.setdefault(
                (did, alias),
                {
                    "dataset_id": did,
                    "alias_id": alias,
                    "alias_ns_id": namespace_id(ns),
                    "alias_namespace": ns,
                    "alias_name": name,
                    "alias_type": alias_type if isinstance(alias_type, str) else None,
                    "source": "symlink",
                    "created_us": self.time_us,
                },
            )

    def edge(
        self,
        src: int,
        src_kind: str,
        src_ns: str,
        dst: int,
        dst_kind: str,
        dst_ns: str,
        edge_type: str,
    ) -> None:
        self.out.edges.setdefault(
            (src, dst, edge_type),
            {
                "src_id": src,
                "dst_id": dst,
                "edge_type": edge_type,
                "src_kind": src_kind,
                "dst_kind": dst_kind,
                "src_ns_id": namespace_id(src_ns),
                "dst_ns_id": namespace_id(dst_ns),
                "created_us": self.time_us,
            },
        )

    def io(self, event: dict[str, Any], jid: int, job_ns: str) -> None:
        for direction, key, (rank_column, run_column) in zip(
            ("input", "output"), ("inputs", "outputs"), JOB_IO_COLUMNS, strict=True
        ):
            datasets = event.get(key)
            if not datasets:
                continue
            job = self.out.jobs[jid]
            job[rank_column], job[run_column] = self.rank, self.io_run
            for ds in datasets:
                did = self.dataset(ds)
                if direction == "input":
                    self.edge(did, "dataset", ds["namespace"], jid, "job", job_ns, "input")
                else:
                    self.edge(jid, "job", job_ns, did, "dataset", ds["namespace"], "output")
                self.out.run_io.setdefault(
                    (self.io_run, did, direction),
                    {"run_id": self.io_run, "dataset_id": did, "direction": direction},
                )


def _identity_uri_id(namespace: str, name: str) -> int | None:
    uri = identity_uri(namespace, name)
    return text_id(uri) if uri is not None else None


def _ref(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def derive(
    event: dict[str, Any],
    kind: EventKind,
    time_us: int,
    received_us: int,
    *,
    scrub_credentials: bool = True,
    memo: FacetMemo | None = None,
) -> Derived:
    """The rows of one validated event. ``event`` is not modified."""
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
    out = Derived()
    run_id: str | None = None
    if kind == "run":
        run_id = normalize_run_id(event["run"]["runId"])
    # A JobEvent's inputs and outputs stand alone, like a run of their own.
    b = _Builder(out, time_us, received_us, rank, producer, memo, run_id or event_key)
    event_type = event.get("eventType") if kind == "run" else None

    if kind == "dataset":
        ds = event["dataset"]
        subject = b.dataset(ds)
        ns = ds["namespace"]
    else:
        job = event["job"]
        ns = job["namespace"]
        subject = b.job(ns, job["name"], job.get("facets"))
        if run_id is not None:  # a RunEvent
            facets = event["run"].get("facets")
            out.runs.append(_run_row(b, run_id, subject, ns, event_type, facets))
        b.io(event, subject, ns)

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
            "payload": codec.compress(payload),
        }
    )
    return out


def _run_row(b: _Builder, run_id: str, jid: int, ns: str, event_type: Any, facets: Any) -> Row:
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
        "state": _STATE_OF_TYPE.get(state_type, "OTHER"),
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
    b: _Builder, link: dict[str, Any], jid: int, ns: str, edge_type: str
) -> tuple[str | None, int | None]:
    run_ref = _ref(link, "run", "runId")
    try:
        run_id = normalize_run_id(run_ref) if run_ref is not None else None
    except ValueError:
        run_id = None
    job_ns, job_name = _ref(link, "job", "namespace"), _ref(link, "job", "name")
    if not (isinstance(job_ns, str) and isinstance(job_name, str) and job_ns and job_name):
        return run_id, None
    parent_job = b.job(job_ns, job_name, stub=True)
    if parent_job != jid:
        b.edge(parent_job, "job", job_ns, jid, "job", ns, edge_type)
    return run_id, parent_job
