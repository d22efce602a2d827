"""A stored event leaves in an answer as stored, and reads back as a checked StoredEvent."""

from __future__ import annotations

import orjson
import pytest
from pydantic import ValidationError

from feast_lineage.canonical_json import dumps_str
from feast_lineage.consumer.responses import FastJSONResponse
from feast_lineage.consumer.schemas import EventItem, StoredEventText
from tests.factories import run_event

EVENT = run_event("COMPLETE", run_id="0190e6a1-7c3f-7b6e-9a1d-3f2b8c4d5e6f", job=("ns", "job"))


def item(event: StoredEventText) -> EventItem:
    return EventItem(
        event_id="k",
        event_type="COMPLETE",
        event_time=1,
        producer=None,
        job_namespace="ns",
        job_name="job",
        run_id=None,
        event_json=event.text,
        created_at=1,
        id=1,
        event_time_iso="",
        created_at_iso="",
        kind="run",
        event=event,
    )


def test_the_stored_text_is_embedded_as_it_is() -> None:
    text = dumps_str(EVENT)
    rendered = FastJSONResponse(item(StoredEventText(text)).model_dump(by_alias=True)).body
    assert f'"event":{text}'.encode() in rendered
    assert orjson.loads(rendered)["event"] == EVENT


def test_an_answer_reads_back_through_the_documented_shape() -> None:
    body = item(StoredEventText(dumps_str(EVENT))).model_dump(mode="json")
    assert body["event"] == EVENT
    parsed = EventItem.model_validate(body)
    assert parsed.event == StoredEventText(dumps_str(EVENT))
    assert EventItem.model_validate_json(orjson.dumps(body)).event == parsed.event


def test_an_event_without_the_stored_fields_is_refused() -> None:
    body = item(StoredEventText(dumps_str(EVENT))).model_dump(mode="json")
    del body["event"]["eventTime"]
    with pytest.raises(ValidationError, match="eventTime"):
        EventItem.model_validate(body)
