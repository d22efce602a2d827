"""A dataset's versions (Feast 0.67's ``/versions`` shape) and one version with its schema diff.

Versions are derived at read time from the dataset's rows
(:mod:`feast_lineage.consumer.store.read.dataset_versions`), a page in
proportion to the page (:mod:`feast_lineage.consumer.store.read.dataset_version_page`).
A caller sees the versions of a dataset of a visible namespace only; a version whose run
belongs to a job of a hidden namespace shows no job, and its facets pass
through :func:`feast_lineage.consumer.redaction.facets` (and, the job hidden, lose the
stamps of its event: :func:`feast_lineage.consumer.redaction.unstamped`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from pydantic import JsonValue
from sqlalchemy import Connection

from feast_lineage.consumer import redaction
from feast_lineage.consumer.errors import NotFound
from feast_lineage.consumer.feast_shape import ms
from feast_lineage.consumer.schemas import (
    DatasetVersionDetail,
    DatasetVersionItem,
    DatasetVersionPage,
    FieldChange,
    JobRef,
    OutputStatistics,
    SchemaDiff,
    VersionField,
)
from feast_lineage.consumer.services import not_found
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.services.version_pages import VersionWindow
from feast_lineage.consumer.store.read import dataset_version_page as vp
from feast_lineage.consumer.store.read import dataset_versions as dv
from feast_lineage.event_time import to_iso
from feast_lineage.identity import dataset_id


def _history(conn: Connection, read: StoreReader, namespace: str, name: str) -> vp.History:
    did = dataset_id(namespace, name)
    if not read.scope.allows(namespace) or not dv.dataset_known(conn, did):
        raise NotFound(
            f"no dataset named {name!r} in namespace {namespace!r}; {not_found.DATASETS}"
        )
    return vp.History(conn, did, dv.horizon(conn))


def version_key(value: int) -> str:
    """A version's id in the API: its 63-bit digest as 16 hex digits."""
    return f"{value:016x}"


def _parse_key(text: str) -> int | None:
    if len(text) != 16:
        return None
    try:
        value = int(text, 16)
    except ValueError:
        return None
    return value if value < 1 << 63 else None  # ids are 63-bit digests: no row has a larger one


FieldRow = tuple[str, str | None, str | None]  # path, type, description


def field_rows(schema: JsonValue) -> list[FieldRow]:
    """A schema facet's fields as (path, type, description), nested ones after their parent."""
    out: list[FieldRow] = []

    def walk(fields: JsonValue, prefix: str) -> None:
        for field in fields if isinstance(fields, list) else []:
            name = field.get("name") if isinstance(field, dict) else None
            if not isinstance(field, dict) or not isinstance(name, str):
                continue
            path = prefix + name
            kind, text = field.get("type"), field.get("description")
            out.append(
                (
                    path,
                    kind if isinstance(kind, str) else None,
                    text if isinstance(text, str) else None,
                )
            )
            walk(field.get("fields"), path + ".")

    walk(schema.get("fields") if isinstance(schema, dict) else None, "")
    return out


def flat_fields(schema: JsonValue) -> list[VersionField]:
    """A schema facet's fields, nested ones after their parent, named by path."""
    return [
        VersionField(name=path, type=kind, description=text)
        for path, kind, text in field_rows(schema)
    ]


def schema_diff(before: list[VersionField], after: list[VersionField]) -> SchemaDiff:
    old = {f.name: f for f in before}
    new = {f.name: f for f in after}
    return SchemaDiff(
        previous_id=None,
        added=[f for f in after if f.name not in old],
        removed=[f for f in before if f.name not in new],
        type_changed=[
            FieldChange(name=f.name, before=old[f.name].type, after=f.type)
            for f in after
            if f.name in old and old[f.name].type != f.type
        ],
        description_changed=[
            FieldChange(name=f.name, before=old[f.name].description, after=f.description)
            for f in after
            if f.name in old and old[f.name].description != f.description
        ],
    )


def _stored_facets(v: dv.DatasetVersion, blobs: Mapping[str, Any]) -> dict[str, Any]:
    """The facets a version states, from its blobs (parsed once a page)."""
    facets: dict[str, Any] = {}
    for key, blob in (
        ("schema", v.schema_id),
        ("lifecycleStateChange", v.row.lifecycle_id),
        ("symlinks", v.symlinks_id),
    ):
        if blob is not None and blob in blobs:
            facets[key] = blobs[blob]
    if v.row.dataset_version is not None:
        facets["version"] = {"datasetVersion": v.row.dataset_version}
    return facets


def _items(
    conn: Connection,
    read: StoreReader,
    namespace: str,
    name: str,
    found: list[dv.DatasetVersion],
) -> list[DatasetVersionItem]:
    wanted = [b for v in found for b in (v.schema_id, v.row.lifecycle_id, v.symlinks_id)]
    texts = dv.blob_texts(conn, wanted)
    blobs = {key: orjson.loads(text) for key, text in texts.items()}  # each parsed once
    jobs = dv.job_names(conn, (v.row.job_id for v in found))
    fields: dict[str | None, list[VersionField]] = {}  # by schema blob: a page shares a few
    items = []
    for v in found:
        row = v.row
        facets = redaction.facets(_stored_facets(v, blobs), read.scope)
        job = jobs.get(row.job_id) if row.job_id is not None else None
        job_shown = job is not None and read.scope.allows_id(job[2])
        by_hidden = row.job_id is not None and not job_shown and not read.scope.is_everything
        if by_hidden:
            facets = redaction.unstamped(facets)  # stated by a hidden job (or one not known)
        schema = facets.get("schema")
        lifecycle = facets.get("lifecycleStateChange")
        state = lifecycle.get("lifecycleStateChange") if isinstance(lifecycle, dict) else None
        stats = (row.row_count, row.byte_count, row.file_count)
        items.append(
            DatasetVersionItem(
                version_id=row.id,
                dataset_namespace=namespace,
                dataset_name=name,
                version=v.number,
                created_by_run_id=None if by_hidden else row.run_id,  # a hidden run: no id
                schema_=schema if isinstance(schema, dict) else None,
                facets=facets or None,
                created_at=ms(row.time_us) or 0,
                id=version_key(row.id),
                created_at_iso=to_iso(row.time_us) or "",
                job=JobRef(namespace=job[0], name=job[1])
                if job is not None and job_shown
                else None,
                event_type=row.event_type,
                changes=list(v.changes),
                fields=_fields(fields, v.schema_id, schema),
                lifecycle_state_change=state if isinstance(state, str) else None,
                dataset_version=row.dataset_version,
                statistics=OutputStatistics(row_count=stats[0], bytes=stats[1], file_count=stats[2])
                if any(s is not None for s in stats)
                else None,
                facets_digest=version_key(row.facets_digest),
                previous_id=version_key(v.previous_id) if v.previous_id is not None else None,
            )
        )
    return items


def _fields(
    known: dict[str | None, list[VersionField]], blob: str | None, schema: Any
) -> list[VersionField]:
    """``flat_fields(schema)``, flattened once per schema blob of a page (redacted alike)."""
    found = known.get(blob)
    if found is None:
        found = known[blob] = flat_fields(schema)
    return found


def dataset_version_page(
    read: StoreReader,
    *,
    namespace: str,
    name: str,
    window: VersionWindow,
) -> DatasetVersionPage:
    """A page of the dataset's versions, newest first, with version time in the window."""
    w = window
    with read.engine.connect() as conn:
        history = _history(conn, read, namespace, name)
        total, found = vp.page(history, w.since_us, w.until_us, w.offset, w.limit)
        items = _items(conn, read, namespace, name, found)
    return DatasetVersionPage(versions=items, total=total, limit=w.limit, offset=w.offset)


def dataset_version_detail(
    read: StoreReader, *, namespace: str, name: str, version_id: str
) -> DatasetVersionDetail:
    """One version with its schema diff against the version before it."""
    with read.engine.connect() as conn:
        history = _history(conn, read, namespace, name)
        wanted = _parse_key(version_id)
        pair = vp.one(history, wanted) if wanted is not None else None
        if pair is None:
            # Retention is named only once a prune has removed history (the horizon is set).
            pruned = dv.horizon(conn)
            since = (
                f"; versions older than the retention horizon {to_iso(pruned)} have been pruned "
                "(but for the dataset's last version before it)"
                if pruned is not None
                else ""
            )
            raise NotFound(
                f"no version {version_id!r} of dataset {name!r} in namespace {namespace!r}"
                f"{since}; {not_found.DATASET_VERSIONS}"
            )
        version, previous = pair
        item, *before = _items(
            conn, read, namespace, name, [version] + ([previous] if previous else [])
        )
    diff = schema_diff(before[0].fields if before else [], item.fields)
    diff.previous_id = item.previous_id
    return DatasetVersionDetail(**item.model_dump(by_alias=True), diff=diff)
