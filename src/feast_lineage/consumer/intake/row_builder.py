"""The rows of the parts of one event: its job, its datasets, their edges, facets and aliases.

:func:`~feast_lineage.consumer.intake.derive.derive` makes one
:class:`RowBuilder` per event and calls it for each part; the builder adds
typed rows (:mod:`feast_lineage.consumer.store.write.rows`) to the event's batch.
Job and dataset facet rows carry the event's ``rank`` (event time, then a
content hash), so the store keeps, for each facet key, the value of the
latest event whatever order events arrive in.
"""

from __future__ import annotations

from typing import Any

from feast_lineage import canonical_json
from feast_lineage.consumer.intake.facet_memo import FacetMemo
from feast_lineage.consumer.intake.job_version_parts import add_parts
from feast_lineage.consumer.store.write.column_rows import OBSERVED, column_pointer
from feast_lineage.consumer.store.write.producer_rank import producer_rank
from feast_lineage.consumer.store.write.rows import (
    LISTED,
    DatasetRow,
    FacetRow,
    JobRow,
    PendingBlob,
    PendingColumnEdges,
    RowBatch,
    keep_latest_column_lineage,
    list_column_lineage,
    merge_dataset,
    merge_job,
)
from feast_lineage.identity import dataset_id, identity_uri, job_id, namespace_id, text_id
from feast_lineage.uris import strip_credentials

# Feast facets on a dataset tell which Feast object it stands for.
FEAST_DATASET_FACETS = {
    "feast_feature_view": "feature_view",
    "feast_feature_service": "feature_service",
    "feast_data_source": "data_source",
    "feast_entity": "entity",
    "feast_saved_dataset": "saved_dataset",
    "feast_online_store": "online_store",
}
_FEAST_VIEW_MODES = {
    "ON_DEMAND": "on_demand_feature_view",
    "STREAM": "stream_feature_view",
    "LABEL": "label_view",
}


class RowBuilder:
    """Collects the rows of one event into a :class:`RowBatch`."""

    def __init__(
        self,
        out: RowBatch,
        time_us: int,
        received_us: int,
        rank: str,
        producer: str,
        memo: FacetMemo | None,
        io_run: str,
        run_id: str | None = None,
        *,
        ns_id: int,
    ):
        self.out = out
        self.time_us = time_us
        self.received_us = received_us
        self.rank = rank
        self.producer = producer
        self.memo = memo
        self.io_run = io_run  # the run (or JobEvent) the event's inputs and outputs belong to
        self.run_id = run_id  # a RunEvent's run
        # the namespace of the event: its job's (a DatasetEvent's, its dataset's)
        self.ns_id = ns_id
        # id() of each dataset facet payload of this event -> its blob id (the
        # payloads live as long as the event, so an id names one payload)
        self.dataset_blobs: dict[int, str] = {}

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

    def facets(
        self, target: dict[tuple[int, str], FacetRow], owner: int, facets: Any, kind: str = ""
    ) -> None:
        if not facets:
            return
        for name, payload in facets.items():
            blob_id = self.blob(payload, (owner, name) if kind else None)
            row: FacetRow = {"owner_id": owner, "name": name, "rank": self.rank, "blob_id": blob_id}
            if kind == "job":
                row["first_rank"] = self.rank
            target[(owner, name)] = row
            if kind == "dataset":
                row["other_rank"] = ""
                self.dataset_blobs[id(payload)] = blob_id
                self.out.dataset_facet_values[(owner, name, blob_id)] = self.rank

    def digest(self, owner: int, name: str, value: Any) -> str:
        """A dataset facet's blob id, computed once for the event; else ``value``'s digest.

        A whole dataset (``name`` empty: a write's or a lifecycle change's) is
        hashed without the memo: a write's output statistics differ every
        run, so remembering it would only cost a fingerprint a time.
        """
        known = self.dataset_blobs.get(id(value)) if name else None
        if known is not None:
            return known
        if self.memo is not None and name:
            return self.memo.digest(owner, name, value)
        return canonical_json.digest(canonical_json.dumps(value))

    def job(self, namespace: str, name: str, facets: Any = None, *, stub: bool = False) -> int:
        jid = job_id(namespace, name)
        row: JobRow = {
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
        self.out.jobs[jid] = row if existing is None else merge_job(existing, row)
        self.facets(self.out.job_facets, jid, facets, "job")
        return jid

    def dataset(self, ds: dict[str, Any], *, writes: bool) -> int:
        """The row of a dataset the event wrote or declared (``writes``), or read."""
        namespace, name = ds["namespace"], ds["name"]
        did = dataset_id(namespace, name)
        facets = ds.get("facets") or {}
        row: DatasetRow = {
            "id": did,
            "ns_id": namespace_id(namespace),
            "namespace": namespace,
            "name": name,
            "producer": self.producer,
            "producer_ns_id": self.ns_id,
            "producer_rank": producer_rank(self.rank, writes=writes),
            "datasource_uri": None,
            "uri_id": None,
            "uri_rank": None,
            "identity_uri_id": _identity_uri_id(namespace, name),
            "feast_type": None,
            "feast_project": None,
            "created_us": self.time_us,
            "updated_us": self.time_us,
            "updated_ns_id": self.ns_id,
        }
        source = facets.get("dataSource")
        uri = source.get("uri") if isinstance(source, dict) else None
        if isinstance(uri, str) and uri:
            clean = strip_credentials(uri)
            row["datasource_uri"] = clean
            uri_id = row["uri_id"] = text_id(clean)
            row["uri_rank"] = self.rank
            stated = (did, uri_id)
            since = self.out.uri_since
            since[stated] = min(self.time_us, since.get(stated, self.time_us))
        for facet_name, feast_type in FEAST_DATASET_FACETS.items():
            facet = facets.get(facet_name)
            if isinstance(facet, dict):
                if feast_type == "feature_view":
                    feast_type = _FEAST_VIEW_MODES.get(str(facet.get("mode")), feast_type)
                row["feast_type"] = feast_type
                row["feast_project"] = namespace
                break
        existing = self.out.datasets.get(did)
        self.out.datasets[did] = row if existing is None else merge_dataset(existing, row)
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
        self.out.symlink_statements.setdefault(
            (did, self.rank), {"dataset_id": did, "rank": self.rank, "blob_id": blob_id}
        )
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

    def column_lineage(self, did: int, ds: dict[str, Any], jid: int) -> None:
        """The column edges of a written dataset's columnLineage facet, reported by ``jid``."""
        facets = ds.get("facets")
        facet = facets.get("columnLineage") if isinstance(facets, dict) else None
        if not isinstance(facet, dict):
            return
        digest = self.out.dataset_facets[(did, "columnLineage")]["blob_id"]
        pointer = column_pointer(
            dataset=did,
            namespace=ds["namespace"],
            job=jid,
            origin=OBSERVED,
            digest=digest,
            run_id=self.run_id,
            rank=self.rank,
        )
        keep_latest_column_lineage(self.out.column_lineage, {(did, jid, OBSERVED): pointer})
        list_column_lineage(self.out, pointer)
        self.out.column_reports.setdefault(
            (did, jid, OBSERVED, digest),
            PendingColumnEdges(ds["namespace"], facet, self.time_us),
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
        add_parts(self.out.job_versions, event, jid, self.io_run, self.rank, self.memo)
        for direction, key in (("input", "inputs"), ("output", "outputs")):
            datasets = event.get(key)
            if not datasets:
                continue
            job = self.out.jobs[jid]
            if direction == "input":
                job["input_rank"], job["input_run"] = self.rank, self.io_run
            else:
                job["output_rank"], job["output_run"] = self.rank, self.io_run
            self.out.io_listings[(jid, direction, self.rank)] = {
                "job_id": jid,
                "direction": direction,
                "rank": self.rank,
                "run_key": self.io_run,
            }
            for ds in datasets:
                did = self.dataset(ds, writes=direction == "output")
                if direction == "input":
                    self.edge(did, "dataset", ds["namespace"], jid, "job", job_ns, "input")
                else:
                    self.edge(jid, "job", job_ns, did, "dataset", ds["namespace"], "output")
                    self.column_lineage(did, ds, jid)
                self.out.run_io.setdefault(
                    (self.io_run, did, direction),
                    {
                        "run_id": self.io_run,
                        "dataset_id": did,
                        "direction": direction,
                        "first_us": self.time_us,
                    },
                )


def _identity_uri_id(namespace: str, name: str) -> int | None:
    uri = identity_uri(namespace, name)
    return text_id(uri) if uri is not None else None


def ref(value: Any, *keys: str) -> Any:
    """``value[keys[0]][keys[1]]...``, or None where a level is missing or not an object."""
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value
