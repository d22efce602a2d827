"""The server answers as its OpenAPI document says: schemathesis against a real server process.

Every operation gets 50 generated cases, valid (positive) and invalid
(negative) ones, from a fixed seed, and every schemathesis check: no 5xx,
status codes, content types, headers and bodies as documented, invalid
input refused, valid input accepted. The server is a real
``feast-lineage serve_lineage`` process on a SQLite store with a little
lineage in it, so reads find something, and no retention (kept
everything: no horizon moves while generated cases run).

Two rules between parameters that OpenAPI cannot state are kept out of the
generated cases instead: an events or runs page's ``since`` must not be
after its ``until`` (their descriptions say so; the server answers 400;
equal, they are an empty window), and the graph's ``as_of`` is never given
with ``since`` or ``until`` (a 400 too: one instant or one window) nor
before the retention horizon (the last prune's cutoff, a 400 naming it):
a generated instant is asked as a future one, which is now. A graph
window's ``since`` before that horizon is a 400 as well: a generated one
is asked from the future, with no ``until`` (column lineage's too). The diff takes exactly one of
``from`` and ``from_run`` (and of ``to`` and ``to_run``), its centre whole
(``node_type``, ``namespace`` and ``name``, none empty) or not at all (and ``depth`` or
``direction`` only with one, ``within`` only without), and instants after the horizon; the catalog
(``/jobs``, ``/datasets``) takes ``as_of`` but no window: the cases are
mended to that (the 400s are tested in tests/consumer/routes/test_lineage_diff.py).

Nothing is excluded from the positive-data check (a valid body must be
accepted): the document states the server's limits on events (no NUL
character in any string, numbers within 64 bits, event times in the years
it keeps, ``max_batch_events``; see ``openapi_document``). Only
``max_request_bytes`` and the nesting limit (254 levels) go unstated, and no
generated case comes near them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode

from feast_lineage.config import ConsumerSettings
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.settings import AppSettings
from feast_lineage.event_time import EventTimeError, parse_us
from tests.factories import dataset, run_event
from tests.server_process import lineage_server, write_repo

SEED = 20261201
# The server's own run: recent, so its lineage is answered (see _known_run).
RECENT_RUN = "0190e6a1-7c3f-7b6e-9a1d-3f2b8c4d5e6f"
EXAMPLES = 50


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # No retention: generated events are dated as early as 1901, and a background prune
    # would put their runs before the horizon while the test runs (a run's lineage as of
    # its end, or a diff to it, would then be a 400 one time and a 200 another).
    repo = write_repo(
        tmp_path_factory.mktemp("conformance") / "repo", consumer={"retention_days": 0}
    )
    with lineage_server(repo) as running:
        events = [
            run_event(
                "COMPLETE",
                run_id=RECENT_RUN,
                time=datetime.now(UTC).isoformat().replace("+00:00", "Z"),
                inputs=[dataset("raw", "trips")],
                outputs=[dataset("dw", "t")],
            ),
        ]
        response = httpx.post(f"{running.url}/api/v1/lineage", json=events, timeout=30)
        assert response.status_code == 200, response.text
        # Open the Feast registry now: the first registry request imports Feast.
        assert httpx.get(f"{running.url}/api/v1/lineage/registry", timeout=120).status_code == 200
        yield running.url


def _schema() -> Any:
    """The OpenAPI document the server serves (the same app, built here without a store)."""
    settings = AppSettings(consumer=ConsumerSettings(enabled=True), database_url="sqlite://")
    document = create_app(settings).openapi()
    # schemathesis's statuses of a refusal, and two of ingest's: 413, a batch past
    # its maxItems (max_batch_events) is refused with 413 too_many_events; 207, a
    # batch is checked event by event, so an invalid event among valid ones is
    # refused alone, with its error, and the others are stored (docs/api.md).
    # Only the ingest endpoints answer 207.
    refused = ["207", "400", "401", "403", "404", "405", "406", "409", "413", "415", "422"]
    refused += ["428", "429", "5xx"]
    config = schemathesis.config.SchemathesisConfig.from_dict(
        {"seed": SEED, "checks": {"negative_data_rejection": {"expected-statuses": refused}}}
    )
    loaded = schemathesis.openapi.from_dict(document, config=config)
    loaded.config.generation.update(
        modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE], max_examples=EXAMPLES
    )
    return loaded


schema = _schema()


def _future(query: dict[str, Any], key: str) -> None:
    """A parseable instant in ``query[key]`` asked as a future one (now), after the horizon."""
    with contextlib.suppress(EventTimeError):
        parse_us(str(query[key]), bounded=False)
        query[key] = "2999-01-01T00:00:00Z"


def _one_diff(query: dict[str, Any]) -> None:
    """A diff case as its parameters' rules allow: one ``from``, one ``to``, a whole centre."""
    for instant, run in (("from", "from_run"), ("to", "to_run")):
        if instant in query and run in query:
            query.pop(run)
        if instant in query:
            _future(query, instant)
        elif run not in query:
            query[instant] = "2999-01-01T00:00:00Z"
    centre = [k for k in ("node_type", "namespace", "name") if query.get(k) not in (None, "")]
    if len(centre) < 3:
        for key in ("node_type", "namespace", "name", "depth", "direction"):
            query.pop(key, None)
    else:
        query.pop("within", None)  # narrows the whole graph's diff only


def _graph_window(path: str, query: dict[str, Any] | None) -> None:
    """A graph or column lineage window's ``since`` after the horizon: from the future, open."""
    windowed = "/graph" in path or path.endswith("/columns")
    if query and windowed and "since" in query:
        _future(query, "since")
        query.pop("until", None)


def _catalog_instant(path: str, query: dict[str, Any] | None) -> None:
    """The catalog answers at an instant only: its ``since`` and ``until`` are a 400."""
    if query and path.endswith(("/openlineage/jobs", "/openlineage/datasets")):
        query.pop("since", None)
        query.pop("until", None)


def _known_run(case: Any) -> None:
    """A run's lineage and a diff by runs ask for the server's recent run.

    Generated events store runs with generated ids at generated times; the
    prune keeps some of those that ended before its cutoff (each job's
    latest listing run then, which ``as_of`` needs), and the lineage of a
    run that ended before the retention horizon is a 400 naming it
    (tests/consumer/routes).
    """
    if case.path.endswith("/runs/{run_id}/lineage") and case.path_parameters:
        case.path_parameters["run_id"] = RECENT_RUN
    if case.path.endswith("/lineage/diff") and case.query:
        for key in ("from_run", "to_run"):
            if key in case.query:
                case.query[key] = RECENT_RUN


def _since_before_until(query: dict[str, Any] | None) -> None:
    """Swap a page's ``since`` and ``until`` that are the wrong way round; as_of stands alone."""
    if query and "as_of" in query:
        query.pop("since", None)
        query.pop("until", None)
        with contextlib.suppress(EventTimeError):
            parse_us(str(query["as_of"]), bounded=False)
            query["as_of"] = "2999-01-01T00:00:00Z"
    if not query or "since" not in query or "until" not in query:
        return
    try:
        since = parse_us(str(query["since"]), bounded=False)
        until = parse_us(str(query["until"]), bounded=False)
    except EventTimeError:
        return  # not a time at all: the 400 it gets is right either way
    if since > until:
        query["since"], query["until"] = query["until"], query["since"]


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_the_server_answers_as_its_openapi_document_says(server: str, case: Any) -> None:
    positive = case.meta is not None and case.meta.generation.mode == GenerationMode.POSITIVE
    if positive and case.query is not None and case.path.endswith("/lineage/diff"):
        _one_diff(case.query)
    if positive:
        _graph_window(case.path, case.query)
        _catalog_instant(case.path, case.query)
        _known_run(case)
    _since_before_until(case.query)
    case.call_and_validate(base_url=server, timeout=60)
