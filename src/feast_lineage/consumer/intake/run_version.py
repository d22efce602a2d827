"""A run's job version from some of its stored events: what those events alone define.

Ingest derives each event's rows (:func:`.derive.derive`) and the writer
merges a run's parts across its events
(:func:`feast_lineage.consumer.store.write.job_versions.gather`,
:class:`~feast_lineage.consumer.store.write.job_versions.RunParts`: a
union, and per source facet the latest by rank). :func:`version_content`
does both on the events given, so the content, and the id derived from it,
are those a store fed only those events holds for the run: the reads of the
past replay a run under way at an instant from its events up to then.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import orjson

from feast_lineage.consumer.intake.derive import derive
from feast_lineage.consumer.intake.validation import EventKind
from feast_lineage.consumer.store.write.job_versions import gather
from feast_lineage.consumer.store.write.rows import RowBatch


def version_content(events: Iterable[tuple[str, int, str]], run_key: str) -> str | None:
    """The content of run ``run_key``'s version on ``events`` ``(kind, time µs, payload)``.

    ``payload`` is a stored event's text: already the event ingest derived
    (credentials scrubbed when the store scrubs them), so it is derived as
    it is. None when none of the events is the run's.
    """
    batch = RowBatch()
    for kind, time_us, payload in events:
        event = orjson.loads(payload)
        batch.merge(derive(event, cast(EventKind, kind), time_us, 0, scrub_credentials=False))
    found = gather(batch).get(run_key)
    return None if found is None else found[1].content_json()
