"""API response models (the HTTP contract; tables live in store/tables.py)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ErrorDetail(BaseModel):
    path: str = Field(description="Where: a JSON path such as $[3].run.runId, or a parameter")
    message: str
    index: int | None = Field(default=None, description="The event's index in a batch")
    code: str | None = None


class ErrorInfo(BaseModel):
    status: int
    code: str = Field(description="A stable machine-readable code, e.g. invalid_json")
    message: str = Field(description="What was wrong and how to fix it")
    details: list[ErrorDetail] | None = None


class ErrorResponse(BaseModel):
    """The one error shape of every endpoint."""

    error: ErrorInfo


class Summary(BaseModel):
    received: int
    successful: int
    failed: int


class IngestAccepted(BaseModel):
    status: str = Field(description="created")
    summary: Summary


class IngestSummary(BaseModel):
    status: str = Field(description="success or partial")
    summary: Summary
    errors: list[ErrorDetail] = Field(default_factory=list)


class EventItem(BaseModel):
    id: int
    event_type: str | None
    event_time: str
    received_at: str
    kind: str = Field(description="run, dataset or job")
    run_id: str | None
    event: dict[str, Any] = Field(description="The event as stored (credentials removed)")


class EventPage(BaseModel):
    items: list[EventItem]
    total: int
    limit: int
    offset: int


class RunDataset(BaseModel):
    namespace: str
    name: str
    facets: dict[str, Any] | None = None


class RunDetail(BaseModel):
    run_id: str
    job_namespace: str
    job_name: str
    state: str
    started_at: str | None
    ended_at: str | None
    duration_ms: int | None
    parent_run_id: str | None
    root_run_id: str | None
    facets: dict[str, Any]
    inputs: list[RunDataset]
    outputs: list[RunDataset]
    child_run_ids: list[str]


class Health(BaseModel):
    status: str
    version: str
    database: str
