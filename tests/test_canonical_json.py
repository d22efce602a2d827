"""Canonical JSON: one byte form per value, and content keys."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from feast_lineage import canonical_json

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


def test_keys_are_sorted_and_separators_compact() -> None:
    value = {"b": 1, "a": [None, {"z": 1, "y": 2}], "c": "é"}
    assert canonical_json.dumps(value) == '{"a":[null,{"y":2,"z":1}],"b":1,"c":"é"}'.encode()
    assert canonical_json.dumps_str(value) == '{"a":[null,{"y":2,"z":1}],"b":1,"c":"é"}'


def test_nulls_are_kept_verbatim() -> None:
    # A producer's explicit null is data: facets are stored as sent.
    assert canonical_json.dumps({"x": None}) == b'{"x":null}'


def test_control_characters_are_escaped() -> None:
    # NUL never reaches a database text column through a payload.
    assert canonical_json.dumps({"a": "x\x00y"}) == b'{"a":"x\\u0000y"}'


@settings(max_examples=200, derandomize=True, database=None)
@given(json_values)
def test_round_trip_and_key_order_independence(value: Any) -> None:
    data = canonical_json.dumps(value)
    assert canonical_json.loads(data) == value
    assert canonical_json.loads(data.decode()) == value
    if isinstance(value, dict):
        reordered = dict(reversed(list(value.items())))
        assert canonical_json.dumps(reordered) == data
        assert canonical_json.digest(canonical_json.dumps(reordered)) == canonical_json.digest(data)


def test_digest_is_a_pinned_128_bit_hex_key() -> None:
    key = canonical_json.digest(b"{}")
    assert key == "2afb9b83f9314e5d029766197f539792"
    assert len(canonical_json.digest(b'{"a":1}')) == 32
    assert canonical_json.digest(b'{"a":1}') != canonical_json.digest(b'{"a":2}')
