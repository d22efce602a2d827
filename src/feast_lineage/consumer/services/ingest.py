"""Ingest service: validate and derive a body's events, commit them, and say what happened.

It takes the body's bytes (read and checked at the HTTP edge,
:mod:`feast_lineage.consumer.routes.ingest_body`) and returns an
:class:`IngestResult`; the route turns that into a status code. A body that
is unusable as a whole raises :class:`~feast_lineage.consumer.intake.body.BodyError`.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from feast_lineage.consumer.intake.body import ParsedBody, decompress, parse_events, problem_dicts
from feast_lineage.consumer.intake.budget import BodyHold
from feast_lineage.consumer.intake.facet_memo import FacetMemo
from feast_lineage.consumer.intake.pipeline import IngestPipeline, Outcome, StoreUnavailable
from feast_lineage.consumer.intake.problems import InvalidEvent
from feast_lineage.consumer.intake.threads import run_in_thread
from feast_lineage.consumer.intake.validation import NaiveEventTime
from feast_lineage.consumer.store.rows import RowBatch
from feast_lineage.event_time import now_us

# Bodies up to this size are parsed on the event loop (tens of microseconds);
# larger ones off it (by the writer thread, or a worker thread), so the loop
# never stalls.
_INLINE_BYTES = 32 * 1024


@dataclass(frozen=True, slots=True)
class Intake:
    """Where ingested events go, and the limits of a body."""

    pipeline: IngestPipeline
    memo: FacetMemo  # shared by the requests of one process
    max_request_bytes: int
    max_batch_events: int
    naive_event_time: NaiveEventTime = "utc"  # an eventTime with no offset: as UTC, or refused


@dataclass
class IngestResult:
    is_array: bool
    received: int
    successful: int
    errors: list[dict[str, Any]] = field(default_factory=list)
    # Every event that failed, failed because the store was unavailable.
    unavailable: bool = False
    # What was stored but deserves a word (an eventTime taken as UTC).
    warnings: list[dict[str, Any]] = field(default_factory=list)
    # The dedup keys of the events stored, in the body's order.
    event_ids: list[str] = field(default_factory=list)

    @property
    def failed(self) -> int:
        return self.received - self.successful

    def summary(self) -> dict[str, int]:
        return {"received": self.received, "successful": self.successful, "failed": self.failed}

    def refused(self) -> dict[str, int]:
        """The events not stored, by reason: each once, with the code of its first problem.

        ``invalid_event`` (the event is invalid), ``rejected`` (the database
        refused it) or ``store_unavailable``.
        """
        first: dict[int | None, str] = {}
        for error in self.errors:
            first.setdefault(error.get("index"), str(error.get("code", "invalid_event")))
        return dict(Counter(first.values()))


@dataclass
class _Checked:
    """A parsed body: the events to store, and the problems of the others."""

    parsed: ParsedBody
    valid: list[RowBatch] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)  # index of each valid event
    errors: list[dict[str, Any]] = field(default_factory=list)


def _check(
    raw: bytes, encoding: str | None, intake: Intake, batch: bool, hold: BodyHold | None
) -> tuple[_Checked, list[RowBatch]]:
    data = decompress(raw, encoding, intake.max_request_bytes, hold)
    parsed = parse_events(
        data,
        now_us(),
        max_events=intake.max_batch_events,
        require_array=batch,
        memo=intake.memo,
        naive_event_time=intake.naive_event_time,
    )
    checked = _Checked(parsed)
    for index, item in enumerate(parsed.results):
        if isinstance(item, InvalidEvent):
            checked.errors.extend(problem_dicts(index if parsed.is_array else None, item))
        else:
            checked.valid.append(item)
            checked.positions.append(index)
    return checked, checked.valid


async def _check_and_store(
    intake: Intake, raw: bytes, encoding: str | None, batch: bool, hold: BodyHold | None
) -> tuple[_Checked, list[Outcome]]:
    check = partial(_check, raw, encoding, intake, batch, hold)
    pipeline = intake.pipeline
    if len(raw) <= _INLINE_BYTES and not encoding:
        checked, valid = check()
    elif pipeline.prepares_while_waiting:
        # The writer thread parses it, while another process writes (see pipeline.py).
        return await asyncio.wrap_future(pipeline.submit_deferred(check))
    else:  # PostgreSQL: parsing overlaps the writer's waits for the database
        checked, valid = await run_in_thread(check)
    outcomes = await asyncio.wrap_future(pipeline.submit(valid)) if valid else []
    return checked, outcomes


async def ingest(
    intake: Intake, raw: bytes, encoding: str | None, *, batch: bool, hold: BodyHold | None = None
) -> IngestResult:
    """Store the events of a body (an event or an array; an array only, with ``batch``).

    ``hold``: the body's share of the worker's budget, which inflating a
    compressed body grows by the inflated bytes.
    """
    checked, outcomes = await _check_and_store(intake, raw, encoding, batch, hold)
    parsed, errors = checked.parsed, checked.errors
    successful = 0
    refused = bool(errors)  # some event was refused for what it holds
    down = False
    stored: list[str] = []
    for index, outcome, rows in zip(checked.positions, outcomes, checked.valid, strict=True):
        if outcome is None:
            successful += 1
            stored.extend(event["event_key"] for event in rows.events)
            continue
        unavailable = isinstance(outcome, StoreUnavailable)
        down = down or unavailable
        refused = refused or not unavailable
        item_error: dict[str, Any] = {"path": "$", "message": str(outcome)}
        if parsed.is_array:
            item_error = {"index": index, "path": f"$[{index}]", "message": str(outcome)}
        item_error["code"] = "store_unavailable" if unavailable else "rejected"
        errors.append(item_error)
    errors.sort(key=lambda e: e.get("index", 0))
    return IngestResult(
        is_array=parsed.is_array,
        received=len(parsed.results),
        successful=successful,
        errors=errors,
        unavailable=down and not refused,
        warnings=parsed.warnings,
        event_ids=stored,
    )
