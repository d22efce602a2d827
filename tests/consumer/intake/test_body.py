"""Request bodies: decompression, JSON parsing, and per-event results."""

from __future__ import annotations

import gzip
import json
import zlib
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feast_lineage.consumer.intake.body import (
    MAX_DEPTH,
    BodyError,
    decompress,
    parse_events,
    problem_dicts,
)
from feast_lineage.consumer.intake.budget import BodyBudget, BodyHold
from feast_lineage.consumer.intake.problems import EventProblem, InvalidEvent
from feast_lineage.consumer.store.write.rows import RowBatch
from tests.factories import at, dataset, dataset_event, facet, job_event, run_event
from tests.store_helpers import event_payload

BODY = orjson.dumps([run_event("START"), run_event("COMPLETE")])


def parse(data: bytes, **kwargs: Any) -> list[RowBatch | InvalidEvent]:
    return parse_events(data, 0, max_events=kwargs.pop("max_events", 100), **kwargs).results


def body_error(data: bytes, **kwargs: Any) -> BodyError:
    with pytest.raises(BodyError) as caught:
        parse_events(data, 0, max_events=kwargs.pop("max_events", 100), **kwargs)
    return caught.value


# --- decompression -----------------------------------------------------------


@pytest.mark.parametrize("encoding", [None, "", "identity", " Identity "])
def test_identity_is_passed_through(encoding: str | None) -> None:
    assert decompress(BODY, encoding, 10) is BODY


@pytest.mark.parametrize("encoding", ["gzip", "GZIP", "x-gzip", " gzip "])
def test_gzip_is_inflated(encoding: str) -> None:
    assert decompress(gzip.compress(BODY), encoding, len(BODY)) == BODY


def test_deflate_is_inflated() -> None:
    assert decompress(zlib.compress(BODY), "deflate", len(BODY)) == BODY


def test_every_gzip_member_is_inflated() -> None:
    half = len(BODY) // 2
    data = gzip.compress(BODY[:half]) + gzip.compress(BODY[half:])
    assert decompress(data, "gzip", len(BODY)) == BODY


def test_inflating_past_the_limit_is_413() -> None:
    bomb = gzip.compress(b" " * 5_000_000)
    assert len(bomb) < 10_000
    err = _decompress_error(bomb, "gzip", 1_000_000)
    assert (err.status, err.code) == (413, "body_too_large")
    assert "1000000 bytes" in err.message


def test_limit_counts_every_gzip_member() -> None:
    data = gzip.compress(BODY) + gzip.compress(BODY)
    assert decompress(data, "gzip", 2 * len(BODY)) == BODY + BODY
    err = _decompress_error(data, "gzip", 2 * len(BODY) - 1)
    assert err.status == 413


def test_inflated_bytes_are_held_in_the_budget_piece_by_piece() -> None:
    """A small gzip body inflating to megabytes holds what it inflates to, not what it sent."""
    text = b" " * (3 * 1024 * 1024 + 10)
    budget = BodyBudget(10**9)
    hold = budget.hold()
    assert decompress(gzip.compress(text), "gzip", len(text), hold) == text
    assert hold.size == len(text)
    # A budget that others fill refuses the body once its inflated bytes do not fit.
    busy = BodyBudget(2 * 1024 * 1024)
    assert busy.hold().grow(1024 * 1024)
    mine = busy.hold()
    err = _decompress_error(gzip.compress(text), "gzip", len(text), mine)
    assert (err.status, err.code) == (503, "ingest_busy")
    assert mine.size <= 1024 * 1024  # refused at the first piece past the budget


def test_exactly_the_limit_is_fine() -> None:
    assert decompress(gzip.compress(BODY), "gzip", len(BODY)) == BODY
    assert _decompress_error(gzip.compress(BODY), "gzip", len(BODY) - 1).status == 413


@pytest.mark.parametrize(
    ("data", "encoding", "fragment"),
    [
        (BODY, "gzip", "not valid gzip"),
        (b"", "gzip", "truncated"),
        (gzip.compress(BODY)[:-10], "gzip", "truncated"),
        (gzip.compress(BODY)[:40], "gzip", "truncated"),
        (gzip.compress(BODY) + b"junk", "gzip", "not valid gzip"),
        (zlib.compress(BODY) + b"junk", "deflate", "trailing data"),
        (gzip.compress(BODY), "deflate", "not valid deflate"),
    ],
    ids=["plain", "empty", "cut-tail", "cut-40", "junk", "deflate-junk", "gzip-as-deflate"],
)
def test_broken_compression_is_400(data: bytes, encoding: str, fragment: str) -> None:
    err = _decompress_error(data, encoding, 1_000_000)
    assert (err.status, err.code) == (400, "invalid_encoding")
    assert fragment in err.message


@pytest.mark.parametrize("encoding", ["br", "zstd", "gzip, br"])
def test_unknown_encoding_is_415(encoding: str) -> None:
    err = _decompress_error(BODY, encoding, 1_000_000)
    assert (err.status, err.code) == (415, "unsupported_encoding")
    assert "use gzip" in err.message


def _decompress_error(
    data: bytes, encoding: str, limit: int, hold: BodyHold | None = None
) -> BodyError:
    with pytest.raises(BodyError) as caught:
        decompress(data, encoding, limit, hold)
    return caught.value


# --- JSON --------------------------------------------------------------------


def test_one_event_and_an_array() -> None:
    one = parse_events(orjson.dumps(run_event()), 0, max_events=10)
    assert not one.is_array
    assert [type(r) for r in one.results] == [RowBatch]
    many = parse_events(orjson.dumps([run_event(), dataset_event("s3://b", "x")]), 0, max_events=10)
    assert many.is_array
    assert [type(r) for r in many.results] == [RowBatch, RowBatch]
    assert parse_events(b"[]", 0, max_events=10).results == []


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "empty_body"),
        (b"  \n\t", "empty_body"),
        (b"{", "invalid_json"),
        (b'{"eventTime": }', "invalid_json"),
        (b"[1, 2,]", "invalid_json"),
        (b"NaN", "invalid_json"),
        (b'{"a": 1} {"b": 2}', "invalid_json"),
        # Invalid UTF-8, and an escaped lone surrogate no store can hold.
        (b'{"eventTime": "\xff\xfe"}', "invalid_json"),
        (b'{"producer": "\xc3"}', "invalid_json"),
        (b'{"producer": "\\ud800"}', "invalid_json"),
        (b'"an event"', "unexpected_body"),
        (b"42", "unexpected_body"),
        (b"null", "unexpected_body"),
    ],
)
def test_unusable_bodies_are_400(data: bytes, code: str) -> None:
    err = body_error(data)
    assert (err.status, err.code) == (400, code)
    assert err.message


def test_a_body_not_in_utf8_is_told_to_be_utf8_at_the_first_bad_byte() -> None:
    latin1 = '{"producer": "café"}'.encode("latin-1")
    err = body_error(latin1)
    assert (err.status, err.code) == (400, "invalid_json")
    assert "must be UTF-8" in err.message
    assert "offset 17" in err.message  # the é, not "line 1 column 1"
    assert "0xe9" in err.message
    assert "surrogates" not in err.message
    assert "str is" not in err.message


def test_batch_endpoint_requires_an_array() -> None:
    err = body_error(orjson.dumps(run_event()), require_array=True)
    assert (err.status, err.code) == (400, "expected_array")
    assert parse_events(b"[]", 0, max_events=1, require_array=True).is_array


def test_too_many_events_is_413() -> None:
    err = body_error(orjson.dumps([run_event()] * 3), max_events=2)
    assert (err.status, err.code) == (413, "too_many_events")
    assert "3 events" in err.message
    assert "limit of 2" in err.message
    assert len(parse(orjson.dumps([run_event()] * 2), max_events=2)) == 2


def test_each_event_is_judged_alone() -> None:
    good = run_event()
    bad = run_event()
    del bad["run"]["runId"]
    results = parse(orjson.dumps([good, "not an event", bad, job_event("ns", "j")]))
    assert isinstance(results[0], RowBatch)
    assert isinstance(results[1], InvalidEvent)
    assert results[1].problems == [EventProblem("$", "an event must be a JSON object")]
    assert isinstance(results[2], InvalidEvent)
    assert [p.path for p in results[2].problems] == ["$.run.runId"]
    assert isinstance(results[3], RowBatch)


def test_problem_dicts_name_the_index_and_path() -> None:
    err = InvalidEvent([EventProblem("$.inputs[1].namespace", "is required")])
    assert problem_dicts(3, err) == [
        {
            "index": 3,
            "path": "$[3].inputs[1].namespace",
            "message": "is required",
            "code": "invalid_event",
        }
    ]
    assert problem_dicts(None, err) == [
        {"path": "$.inputs[1].namespace", "message": "is required", "code": "invalid_event"}
    ]


# --- deep nesting --------------------------------------------------------------


def _nested_event(depth: int, *, with_at: bool = False) -> bytes:
    event = run_event(run_facets={"deep": facet()})
    if with_at:
        event["producer"] = "https://user@example.com/producer"
    data = orjson.dumps(event)
    nest = b'"nest":' + b'{"a":' * depth + b"1" + b"}" * depth + b","
    return data.replace(b'"_producer"', nest + b'"_producer"', 1)


def test_deep_nesting_up_to_the_limit_is_stored() -> None:
    # event, run, facets, deep: four levels before the nested objects.
    (result,) = parse(_nested_event(MAX_DEPTH - 4))
    assert isinstance(result, RowBatch)


@pytest.mark.parametrize("depth", [MAX_DEPTH - 3, 300, 1000])
@pytest.mark.parametrize("with_at", [False, True])
def test_deeper_nesting_is_an_invalid_event_with_its_path(depth: int, with_at: bool) -> None:
    (result,) = parse(_nested_event(depth, with_at=with_at))
    assert isinstance(result, InvalidEvent)
    (problem,) = result.problems
    # The object at "nest" is level 5; each ".a" is one level more.
    assert problem.path == "$.run.facets.deep.nest" + ".a" * (MAX_DEPTH - 4)
    assert "nested too deeply" in problem.message
    assert "flatten" in problem.message


def test_deep_nesting_in_a_list_names_the_index() -> None:
    event = run_event()
    data = orjson.dumps([event, event]).replace(
        b'"facets":{}', b'"facets":{"x":{"y":' + b"[" * 400 + b"]" * 400 + b"}}", 1
    )
    results = parse(data)
    assert isinstance(results[0], InvalidEvent)
    assert isinstance(results[1], RowBatch)
    path = results[0].problems[0].path
    assert path.startswith("$.run.facets.x.y[0][0]")


@pytest.mark.parametrize("depth", [1100, 2000, 100_000])
def test_nesting_past_the_parser_limit_is_400(depth: int) -> None:
    err = body_error(b"[" * depth + b"]" * depth)
    assert (err.status, err.code) == (400, "invalid_json")
    assert "nested too deeply" in err.message
    assert "1024 levels" in err.message
    assert "UTF-8" not in err.message  # the encoding is not what is wrong


# --- credentials ---------------------------------------------------------------


@pytest.mark.parametrize(
    "spelling",
    [b"@", b"\\u0040"],
)
def test_credentials_are_scrubbed_however_json_spells_them(spelling: bytes) -> None:
    event = run_event(
        inputs=[dataset("postgres://NS", "public.orders", dataSource=facet(uri="URI"))]
    )
    data = (
        orjson.dumps(event)
        .replace(b"NS", b"admin:hunter2" + spelling + b"db:5432")
        .replace(b'"URI"', b'"jdbc:postgresql://admin:hunter2' + spelling + b'db/feast"')
    )
    (result,) = parse(data)
    assert isinstance(result, RowBatch)
    stored = [event_payload(result.events[0]), result.datasets, list(result.blobs.values())]
    assert "hunter2" not in str(stored)
    (ds,) = result.datasets.values()
    assert ds["namespace"] == "postgres://db:5432"
    assert ds["datasource_uri"] == "jdbc:postgresql://db/feast"


def test_semicolon_parameters_are_scrubbed() -> None:
    uri = "jdbc:sqlserver://db:1433;databaseName=feast;password=hunter2"
    event = run_event(inputs=[dataset("mssql://db:1433", "dbo.t", dataSource=facet(uri=uri))])
    (result,) = parse(orjson.dumps(event))
    assert isinstance(result, RowBatch)
    assert "hunter2" not in orjson.dumps(event_payload(result.events[0])).decode()
    assert "hunter2" not in "".join(result.blobs.values())


# --- robustness ------------------------------------------------------------------

_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=10), children, max_size=3)
    ),
    max_leaves=15,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_paths(v, (*prefix, i)))
    return out


_TEMPLATES = [
    run_event(
        "COMPLETE",
        inputs=[dataset("s3://b", "in", schema=facet(fields=[{"name": "a"}]))],
        outputs=[dataset("s3://b", "out", dataSource=facet(uri="s3://b"))],
        parent=("3f8e2a1c-5b7d-4c9e-8f6a-2d1b0c9e7a54", ("airflow://prod", "dag")),
        run_facets={"nominalTime": facet(nominalStartTime=at(0))},
    ),
    dataset_event("s3://b", "x", symlinks=facet(identifiers=[{"namespace": "n", "name": "x"}])),
    job_event("ns", "job", inputs=[dataset("s3://b", "in")]),
]


@settings(
    max_examples=300,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.data())
def test_any_mutation_of_an_event_is_stored_or_explained(data: st.DataObject) -> None:
    event = orjson.loads(orjson.dumps(data.draw(st.sampled_from(_TEMPLATES))))
    path = data.draw(st.sampled_from(_paths(event)))
    replacement = data.draw(_json)
    if not path:
        event = replacement
    else:
        target = event
        for part in path[:-1]:
            target = target[part]
        if data.draw(st.booleans()) and isinstance(target, dict):
            del target[path[-1]]
        else:
            target[path[-1]] = replacement
    outcome = _outcome(orjson.dumps(event), None)
    if isinstance(outcome, BodyError):
        assert 400 <= outcome.status < 500
        return
    for result in outcome:
        if isinstance(result, InvalidEvent):
            assert result.problems
            for problem in result.problems:
                assert problem.path.startswith("$")
                assert problem.message
        else:
            assert result.events


def _outcome(data: bytes, encoding: str | None) -> list[RowBatch | InvalidEvent] | BodyError:
    try:
        return parse(decompress(data, encoding, 10_000), max_events=10)
    except BodyError as err:
        return err


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_are_parsed_or_refused_with_a_4xx(data: bytes) -> None:
    for encoding in (None, "gzip"):
        outcome = _outcome(data, encoding)
        if isinstance(outcome, BodyError):
            assert 400 <= outcome.status < 500


# --- integers beyond 64 bits -----------------------------------------------------


def with_number(text: str) -> bytes:
    """A run event whose custom facet holds ``text`` as a JSON number, literally."""
    event = run_event("START", run_facets={"big": facet(n=0)})
    raw = orjson.dumps(event).decode()
    return raw.replace('"n":0', f'"n":{text}').encode()


@pytest.mark.parametrize(
    "text", ["123456789012345678901234567890", "18446744073709551616", "-9223372036854775809"]
)
def test_an_integer_beyond_64_bits_is_refused_naming_its_path(text: str) -> None:
    # orjson would read it as a float and lose digits: refused, not altered.
    for body in (with_number(text), b"[" + with_number(text) + b"]"):
        (result,) = parse(body)
        assert isinstance(result, InvalidEvent)
        (problem,) = result.problems
        assert problem.path == "$.run.facets.big.n"
        assert "send it as a string" in problem.message


@pytest.mark.parametrize(
    "text", ["18446744073709551615", "-9223372036854775808", "1.00000000000000000000001"]
)
def test_numbers_that_fit_are_kept_exactly(text: str) -> None:
    (result,) = parse(with_number(text))
    assert isinstance(result, RowBatch)
    (row,) = result.events
    assert event_payload(row)["run"]["facets"]["big"]["n"] == orjson.loads(text)


def test_only_the_event_with_a_huge_integer_fails_in_a_batch() -> None:
    good = orjson.dumps(run_event("START", run_facets={"id": facet(v="123456789012345678901")}))
    results = parse(b"[" + good + b"," + with_number("99999999999999999999") + b"]")
    assert isinstance(results[0], RowBatch)  # 21 digits in a string are fine
    assert isinstance(results[1], InvalidEvent)


@pytest.mark.parametrize("text", ["1e20", "-1.66e147", "1.8446744073709552E+19", "-1e19", "2E19"])
def test_a_number_beyond_64_bits_with_an_exponent_is_refused_too(text: str) -> None:
    # A double holds it, but the API document allows no number beyond 64 bits
    # (JSON Schema counts 1e20 an integer): refused like the integer it is.
    (result,) = parse(with_number(text))
    assert isinstance(result, InvalidEvent), text
    (problem,) = result.problems
    assert problem.path == "$.run.facets.big.n"
    assert "beyond 64 bits" in problem.message


@pytest.mark.parametrize(
    ("text", "stored"),
    [("1e19", 1e19), ("1.5e10", 1.5e10), ("-9.2e18", -9.2e18), ("1E+2", 100.0), ("2.5e05", 2.5e5)],
)
def test_numbers_with_an_exponent_within_64_bits_are_kept(text: str, stored: float) -> None:
    (result,) = parse(with_number(text))
    assert isinstance(result, RowBatch), text
    (row,) = result.events
    assert event_payload(row)["run"]["facets"]["big"]["n"] == stored


# --- numbers too small for a double ----------------------------------------------


@pytest.mark.parametrize(
    "text", ["1e-400", "-1E-400", "2e-324", "0.000001e-320", "0." + "0" * 400 + "1", "1e-0400"]
)
def test_a_number_a_double_would_hold_as_zero_is_refused_naming_its_path(text: str) -> None:
    # orjson reads it as 0.0: refused, like 1e400, not stored as 0.
    for body in (with_number(text), b"[" + with_number(text) + b"]"):
        (result,) = parse(body)
        assert isinstance(result, InvalidEvent), text
        (problem,) = result.problems
        assert problem.path == "$.run.facets.big.n"
        assert "too small for a double" in problem.message
        assert "send 0, or the value as a string" in problem.message


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("0e-400", 0.0),  # zero written small is still zero
        ("0.0e-999", 0.0),
        ("-0.0E-500", -0.0),
        ("1e-300", 1e-300),
        ("1e-320", 1e-320),  # subnormal, not zero
        ("5e-324", 5e-324),
        ("1.5e-99", 1.5e-99),
    ],
)
def test_small_numbers_a_double_holds_are_kept(text: str, stored: float) -> None:
    (result,) = parse(with_number(text))
    assert isinstance(result, RowBatch), text
    (row,) = result.events
    assert event_payload(row)["run"]["facets"]["big"]["n"] == stored


def test_only_the_event_with_a_tiny_number_fails_and_strings_are_left_alone() -> None:
    # "e-000" in a string sends the body to the exact parse, which finds nothing.
    good = orjson.dumps(run_event("START", run_facets={"id": facet(v="file-0001e-0001")}))
    results = parse(b"[" + good + b"," + with_number("1e-400") + b"," + good + b"]")
    assert [type(r) for r in results] == [RowBatch, InvalidEvent, RowBatch]


@pytest.mark.parametrize("number", [b"12345678901234567890", b"1e-400"])
def test_a_deep_event_with_a_number_to_check_is_refused_as_deep_not_a_crash(number: bytes) -> None:
    # The exact parse (Python's json) gives up past about 1000 levels, with
    # a RecursionError that was a 500; orjson's depth check refuses the event.
    body = _nested_event(1000).replace(b'"_producer"', b'"n":' + number + b',"_producer"', 1)
    (result,) = parse(body)
    assert isinstance(result, InvalidEvent)
    assert "nested too deeply" in result.problems[0].message


def test_huge_and_tiny_numbers_of_one_event_are_all_named() -> None:
    body = with_number("1e-400").replace(b'"_producer"', b'"m":99999999999999999999,"_producer"')
    (result,) = parse(body)
    assert isinstance(result, InvalidEvent)
    assert sorted(p.path for p in result.problems) == ["$.run.facets.big.m", "$.run.facets.big.n"]


# --- keys given twice ------------------------------------------------------------


RUN_ID = "0190e6a1-7c3f-7b6e-9a1d-3f2b8c4d5e6f"


def _event_bytes(**run_facets: Any) -> bytes:
    return orjson.dumps(run_event("START", run_facets=run_facets))


def _repeat_key(data: bytes, key: bytes, value: bytes) -> bytes:
    """``data`` with ``"key":value,`` written once more before the first ``"key":``."""
    return data.replace(b'"' + key + b'":', b'"' + key + b'":' + value + b',"' + key + b'":', 1)


def _problems(body: bytes) -> list[tuple[str, str]]:
    (result,) = parse(body)
    assert isinstance(result, InvalidEvent), body[:200]
    return [(p.path, p.message) for p in result.problems]


@pytest.mark.parametrize(
    ("key", "value", "path"),
    [
        (b"runId", f'"{RUN_ID}"'.encode(), "$.run.runId"),
        (b"eventType", b'"COMPLETE"', "$.eventType"),
        (b"namespace", b'"other"', "$.job.namespace"),
        (b"value", b"1", "$.run.facets.stats.value"),
        (b"value", b"[1,2]", "$.run.facets.stats.value"),
    ],
)
def test_a_key_given_twice_is_refused_naming_its_path(key: bytes, value: bytes, path: str) -> None:
    # orjson keeps the last value without a word; another parser may keep the first.
    body = _repeat_key(_event_bytes(stats=facet(value=0)), key, value)
    for data in (body, b"[" + body + b"]"):
        ((where, message),) = _problems(data)
        assert where == path
        assert "given more than once" in message
        assert "send each key once" in message


def test_a_repeated_key_is_found_however_the_body_is_spaced() -> None:
    body = _repeat_key(_event_bytes(), b"runId", f'"{RUN_ID}"'.encode())
    pretty = json.dumps(json.loads(body), indent=2).encode()  # no repeat left: json kept one
    spaced = body.replace(b'":', b'" :\n ').replace(b",", b" ,\t")
    assert [p for p, _ in _problems(spaced)] == ["$.run.runId"]
    (result,) = parse(pretty.replace(b'": ', b'" : '))
    assert isinstance(result, RowBatch)


def test_an_escaped_colon_does_not_hide_a_repeated_key() -> None:
    # \u003a is a colon once parsed: it must not make up for the one a
    # dropped key took away.
    plain = _event_bytes(note=facet(text="HERE")).replace(b"HERE", b"a\\u003ab")
    assert orjson.loads(plain)["run"]["facets"]["note"]["text"] == "a:b"
    body = _repeat_key(plain, b"runId", b'"x"')
    assert [p for p, _ in _problems(body)] == ["$.run.runId"]
    (result,) = parse(plain)  # the escape alone is fine
    assert isinstance(result, RowBatch)


def test_keys_repeated_across_objects_and_colons_in_strings_are_fine() -> None:
    event = run_event(
        "START",
        run_facets={
            "a": facet(name="x", uri="postgres://h:5432/db?x=1:2", text='say "a": 1'),
            "b": facet(name="x", nested={"name": "y", "a:b": ":"}),
        },
        inputs=[dataset("s3://b", "k"), dataset("s3://b", "l")],
    )
    for data in (orjson.dumps(event), json.dumps(event, indent=1).encode()):
        (result,) = parse(data)
        assert isinstance(result, RowBatch)


def test_only_the_event_with_a_repeated_key_fails_in_a_batch() -> None:
    good = _event_bytes()
    bad = _repeat_key(_event_bytes(), b"runId", b'"x"')
    results = parse(b"[" + good + b"," + bad + b"," + good + b"]")
    assert [type(r) for r in results] == [RowBatch, InvalidEvent, RowBatch]
