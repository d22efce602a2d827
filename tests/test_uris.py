"""Removing credentials from URIs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from feast_lineage import canonical_json
from feast_lineage.uris import has_credentials, may_hold_credentials, scrub, strip_credentials

_DIRTY = [
    ("postgres://user:hunter2@db:5432/feast", "postgres://db:5432/feast"),
    ("postgresql+psycopg://user:hunter2@db/feast", "postgresql+psycopg://db/feast"),
    ("postgres://user:hunter2@db:5432", "postgres://db:5432"),
    ("redis://:hunter2@cache:6379/0", "redis://cache:6379/0"),
    ("https://ghp_hunter2@github.com/org/repo", "https://github.com/org/repo"),
    # Compound JDBC schemes.
    ("jdbc:postgresql://user:hunter2@db:5432/feast", "jdbc:postgresql://db:5432/feast"),
    # A raw "@" inside the password must not leave part of it behind.
    ("postgres://user:hun@ter2@db/feast", "postgres://db/feast"),
    # Secret query parameters, in any case, keeping the others.
    (
        "postgres://db/feast?sslmode=require&password=hunter2",
        "postgres://db/feast?sslmode=require",
    ),
    ("s3://bucket/key?X-Amz-Signature=hunter2&versionId=3", "s3://bucket/key?versionId=3"),
    (
        "https://acct.blob.core.windows.net/c/x?sig=hunter2",
        "https://acct.blob.core.windows.net/c/x",
    ),
    ("jdbc:mysql://db:3306/feast?user=u&password=hunter2", "jdbc:mysql://db:3306/feast?user=u"),
    (
        "jdbc:sqlserver://db:1433;databaseName=feast;user=sa;password=hunter2;encrypt=true",
        "jdbc:sqlserver://db:1433;databaseName=feast;user=sa;encrypt=true",
    ),
    # Free text that contains a URI with a password.
    (
        "could not connect to postgres://user:hunter2@db/feast: refused",
        "could not connect to postgres://db/feast: refused",
    ),
]


@pytest.mark.parametrize(("uri", "clean"), _DIRTY)
def test_credentials_are_removed(uri: str, clean: str) -> None:
    assert strip_credentials(uri) == clean
    assert "hunter2" not in strip_credentials(uri)
    assert has_credentials(uri)
    # Stripping is idempotent.
    assert strip_credentials(clean) == clean


@pytest.mark.parametrize(
    "uri",
    [
        "s3://bucket/path/x.parquet",
        "postgres://db:5432/feast",
        "file:///data/x.parquet",
        "kafka://broker:9092",
        "bigquery",
        "demo",
        "s3://bucket/path@v1/x",
        "https://example.com/x?page=2#frag",
        # Azure storage names the container in the user part: it is identity, not a secret.
        "abfss://container@account.dfs.core.windows.net/path",
        "wasbs://container@account.blob.core.windows.net/path",
        "mailto:someone@example.com",
    ],
)
def test_uris_without_credentials_are_unchanged(uri: str) -> None:
    assert strip_credentials(uri) == uri
    assert not has_credentials(uri)


def test_azure_password_is_still_removed() -> None:
    assert (
        strip_credentials("abfss://acct:hunter2@account.dfs.core.windows.net/p")
        == "abfss://account.dfs.core.windows.net/p"
    )


@pytest.mark.parametrize(("uri", "clean"), _DIRTY)
def test_precheck_flags_every_uri_with_credentials(uri: str, clean: str) -> None:
    event = {"facets": {"dataSource": {"name": "db", "uri": uri}}, "producer": "p"}
    assert may_hold_credentials(canonical_json.dumps(event))
    cleaned = {"facets": {"dataSource": {"name": "db", "uri": clean}}, "producer": "p"}
    # Plain parameters (?sslmode=...) may still match; user parts never do.
    if "@" not in clean and "=" not in clean:
        assert not may_hold_credentials(canonical_json.dumps(cleaned))


@pytest.mark.parametrize(
    "text",
    [
        "s3://bucket/path/key.parquet",
        "mailto-like text: someone@example.com",  # an "@" outside a URI's authority
        "SELECT a FROM t WHERE b = 1; -- no URI",
        "https://host/x?version=3&mode=ro",
    ],
)
def test_precheck_passes_text_without_credentials(text: str) -> None:
    assert not may_hold_credentials(canonical_json.dumps({"facets": {"sql": {"query": text}}}))


def test_scrub_walks_json_and_keeps_identity_when_clean() -> None:
    clean = {"a": ["s3://b/x", {"uri": "postgres://db/x"}], "n": 1, "z": None}
    assert scrub(clean) is clean
    dirty = {
        "a": ["s3://b/x", {"uri": "postgres://u:hunter2@db/x"}],
        "n": 1,
        "keep": "user:hunter2 without a scheme is not a URI",
    }
    out = scrub(dirty)
    assert out == {
        "a": ["s3://b/x", {"uri": "postgres://db/x"}],
        "n": 1,
        "keep": "user:hunter2 without a scheme is not a URI",
    }
    # The input is not modified.
    assert dirty["a"][1] == {"uri": "postgres://u:hunter2@db/x"}  # type: ignore[index]


_hosts = st.from_regex(r"[a-z][a-z0-9\-]{0,12}(\.[a-z]{2,5})?(:[0-9]{2,5})?", fullmatch=True)
_users = st.from_regex(r"[A-Za-z0-9_.\-]{0,10}", fullmatch=True)
_passwords = st.from_regex(r"[A-Za-z0-9!$&'()*+,;=._~@\-]{1,16}", fullmatch=True)


@settings(max_examples=200, derandomize=True, database=None)
@given(
    st.sampled_from(["postgres", "postgresql+psycopg", "mysql", "jdbc:postgresql", "s3", "https"]),
    _users,
    _passwords,
    _hosts,
    st.from_regex(r"(/[A-Za-z0-9_.\-]{0,10}){0,3}", fullmatch=True),
)
def test_no_password_survives(scheme: str, user: str, password: str, host: str, path: str) -> None:
    uri = f"{scheme}://{user}:{password}@{host}{path}"
    assert strip_credentials(uri) == f"{scheme}://{host}{path}"
