"""Ingest service: validate and derive a body's events, commit them, and say what happened.

It takes the body's bytes (read and checked at the HTTP edge,
:mod:`feast_lineage.consumer.routes.ingest_body`) and returns an
:class:`IngestResult`; the route turns that into a status code. A body that
is unusable as a whole raises :class:`~feast_lineage.consumer.intake.body.BodyError`.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from feast_lineage.consumer.intake.body import (
    OpenBody,
    ParsedBody,
    decompress,
    open_events,
    problem_dicts,
)
from feast_lineage.consumer.intake.budget import BodyHold
from feast_lineage.consumer.intake.facet_memo import FacetMemo
from feast_lineage.consumer.intake.pipeline import IngestPipeline, Outcome, StoreUnavailable
from feast_lineage.consumer.intake.problems import InvalidEvent
from feast_lineage.consumer.intake.threads import run_in_thread
from feast_lineage.consumer.intake.validation import NaiveEventTime
from feast_lineage.consumer.store.write.rows import RowBatch
from feast_lineage.event_time import now_us

T = TypeVar("T")

# Bodies up to this size are parsed on the event loop (tens of microseconds);
# larger ones off it (by the writer thread, or a worker thread), so the loop
# never stalls.
_INLINE_BYTES = 32 * 1024
# Bodies up to this size are derived and stored at once; larger ones (and
# every compressed one) PIECE_EVENTS events at a time, so that a worker never
# holds the rows of a whole large batch (docs/deployment.md, "Memory").
_WHOLE_BYTES = 1024 * 1024
PIECE_EVENTS = 500


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
class _Piece:
    """What became of some events of a body: stored (outcome None), or not, and why."""

    positions: list[int] = field(default_factory=list)  # index of each valid event
    keys: list[list[str]] = field(default_factory=list)  # each valid event's dedup keys
    outcomes: list[Outcome] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class _Body:
    is_array: bool
    received: int
    pieces: list[_Piece]
    warnings: list[dict[str, Any]]


def _sort(
    results: list[RowBatch | InvalidEvent], offset: int, is_array: bool
) -> tuple[_Piece, list[RowBatch]]:
    """Valid events apart from invalid ones (``offset``: the first one's index in the body)."""
    piece = _Piece()
    valid: list[RowBatch] = []
    for index, item in enumerate(results, offset):
        if isinstance(item, InvalidEvent):
            piece.errors.extend(problem_dicts(index if is_array else None, item))
        else:
            valid.append(item)
            piece.positions.append(index)
            piece.keys.append([event["event_key"] for event in item.events])
    return piece, valid


def _open(
    raw: bytes, encoding: str | None, intake: Intake, batch: bool, hold: BodyHold | None
) -> OpenBody | ParsedBody:
    data = decompress(raw, encoding, intake.max_request_bytes, hold)
    return open_events(
        data,
        now_us(),
        max_events=intake.max_batch_events,
        require_array=batch,
        memo=intake.memo,
        naive_event_time=intake.naive_event_time,
        codec=intake.pipeline.codec,
    )


def _parse(
    raw: bytes, encoding: str | None, intake: Intake, batch: bool, hold: BodyHold | None
) -> tuple[tuple[_Piece, ParsedBody], list[RowBatch]]:
    """A whole body parsed and derived at once (small bodies)."""
    opened = _open(raw, encoding, intake, batch, hold)
    if isinstance(opened, OpenBody):
        opened = opened.whole()
    piece, valid = _sort(opened.results, 0, opened.is_array)
    return (piece, opened), valid


def _derive(opened: OpenBody, start: int, stop: int) -> tuple[_Piece, list[RowBatch]]:
    return _sort(opened.derive(start, stop), start, True)


async def _store_piece(
    pipeline: IngestPipeline, prepare: Callable[[], tuple[T, list[RowBatch]]]
) -> tuple[T, list[Outcome]]:
    """Prepare rows and store them: by the writer thread on SQLite, else in a thread."""
    if pipeline.prepares_while_waiting:
        # The writer thread parses it, while another process writes (see pipeline.py).
        return await asyncio.wrap_future(pipeline.submit_deferred(prepare))
    value, valid = await run_in_thread(prepare)  # parsing overlaps the database's waits
    outcomes = await asyncio.wrap_future(pipeline.submit(valid)) if valid else []
    return value, outcomes


async def _check_and_store(
    intake: Intake, raw: bytes, encoding: str | None, batch: bool, hold: BodyHold | None
) -> _Body:
    pipeline = intake.pipeline
    whole = partial(_parse, raw, encoding, intake, batch, hold)
    if len(raw) <= _INLINE_BYTES and not encoding:
        (piece, parsed), valid = whole()
        piece.outcomes = await asyncio.wrap_future(pipeline.submit(valid)) if valid else []
        return _Body(parsed.is_array, len(parsed.results), [piece], parsed.warnings)
    if len(raw) <= _WHOLE_BYTES and not encoding:
        (piece, parsed), piece.outcomes = await _store_piece(pipeline, whole)
        return _Body(parsed.is_array, len(parsed.results), [piece], parsed.warnings)
    # A large body: parsed once, then derived and stored PIECE_EVENTS at a time.
    opened = await run_in_thread(partial(_open, raw, encoding, intake, batch, hold))
    if isinstance(opened, ParsedBody):  # one event
        piece, valid = _sort(opened.results, 0, False)
        piece.outcomes = await asyncio.wrap_future(pipeline.submit(valid)) if valid else []
        return _Body(False, 1, [piece], opened.warnings)
    pieces = []
    for start in range(0, len(opened), PIECE_EVENTS):
        stop = min(start + PIECE_EVENTS, len(opened))
        piece, piece.outcomes = await _store_piece(pipeline, partial(_derive, opened, start, stop))
        pieces.append(piece)
    return _Body(True, len(opened), pieces, opened.warnings())


async def ingest(
    intake: Intake, raw: bytes, encoding: str | None, *, batch: bool, hold: BodyHold | None = None
) -> IngestResult:
    """Store the events of a body (an event or an array; an array only, with ``batch``).

    ``hold``: the body's share of the worker's budget, which inflating a
    compressed body grows by the inflated bytes.
    """
    body = await _check_and_store(intake, raw, encoding, batch, hold)
    errors: list[dict[str, Any]] = []
    successful = 0
    down = False
    stored: list[str] = []
    for piece in body.pieces:
        errors.extend(piece.errors)
    refused = bool(errors)  # some event was refused for what it holds
    for piece in body.pieces:
        for index, outcome, keys in zip(piece.positions, piece.outcomes, piece.keys, strict=True):
            if outcome is None:
                successful += 1
                stored.extend(keys)
                continue
            unavailable = isinstance(outcome, StoreUnavailable)
            down = down or unavailable
            refused = refused or not unavailable
            item_error: dict[str, Any] = {"path": "$", "message": str(outcome)}
            if body.is_array:
                item_error = {"index": index, "path": f"$[{index}]", "message": str(outcome)}
            item_error["code"] = "store_unavailable" if unavailable else "rejected"
            errors.append(item_error)
    errors.sort(key=lambda e: e.get("index", 0))
    return IngestResult(
        is_array=body.is_array,
        received=body.received,
        successful=successful,
        errors=errors,
        unavailable=down and not refused,
        warnings=body.warnings,
        event_ids=stored,
    )
