"""Removing credentials from URIs."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from feast_lineage import canonical_json
from feast_lineage.uris import (
    has_credentials,
    is_secret_param,
    may_hold_credentials,
    scrub,
    strip_credentials,
)

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
    # Oracle's user/password@: the whole user part goes, as with user:password@.
    ("jdbc:oracle:thin:u/hunter2@h:1521:orcl", "jdbc:oracle:thin:@h:1521:orcl"),
    ("jdbc:oracle:thin:u/hunter2@//host:1521/service", "jdbc:oracle:thin:@//host:1521/service"),
    ("jdbc:oracle:thin:u/hun@ter2@h:1521:orcl", "jdbc:oracle:thin:@h:1521:orcl"),
    ("JDBC:ORACLE:OCI:scott/hunter2@tns_alias", "JDBC:ORACLE:OCI:@tns_alias"),
    (
        "jdbc:oracle:thin:u/hunter2@(DESCRIPTION=(ADDRESS=(HOST=h)(PORT=1521)))",
        "jdbc:oracle:thin:@(DESCRIPTION=(ADDRESS=(HOST=h)(PORT=1521)))",
    ),
    (
        "ORA-01017 on jdbc:oracle:thin:u/hunter2@h:1521:orcl, retrying",
        "ORA-01017 on jdbc:oracle:thin:@h:1521:orcl, retrying",
    ),
    # Parameters secret by a word in their name, not only by the listed names.
    (
        "postgres://h:5432/db?sslmode=require&sslpassword=hunter2",
        "postgres://h:5432/db?sslmode=require",
    ),
    ("https://idp/cb?client_id=app&client_secret=hunter2", "https://idp/cb?client_id=app"),
    (
        "s3://b/k?X-Amz-Algorithm=AWS4&X-Amz-Credential=AKIA%2Fhunter2&X-Amz-Date=20260101"
        "&X-Amz-Security-Token=hunter2&X-Amz-SignedHeaders=host&X-Amz-Signature=hunter2",
        "s3://b/k?X-Amz-Algorithm=AWS4&X-Amz-Date=20260101&X-Amz-SignedHeaders=host",
    ),
    (
        "gs://b/k?X-Goog-Credential=sa%40p.iam&X-Goog-Signature=hunter2&X-Goog-Expires=60",
        "gs://b/k?X-Goog-Expires=60",
    ),
    (
        "https://acct.blob.core.windows.net/c/x?sv=2022-11-02&sp=r&sig=hunter2%3D",
        "https://acct.blob.core.windows.net/c/x?sv=2022-11-02&sp=r",
    ),
    ("https://h/x?refresh_token=hunter2&id_token=hunter2&page=2", "https://h/x?page=2"),
    ("snowflake://acct/db?private_key=hunter2&warehouse=wh", "snowflake://acct/db?warehouse=wh"),
    ("s3://b/k?aws_secret_access_key=hunter2&region=eu", "s3://b/k?region=eu"),
    # The first secret parameter's "?" passes to the next one kept.
    ("s3://b/k?X-Amz-Signature=hunter2&versionId=3", "s3://b/k?versionId=3"),
    # A raw "?" or "#" inside a secret value does not leave its end behind.
    ("https://h/x?password=hun?ter2&db=1", "https://h/x?db=1"),
    ("https://h/x?token=hun#ter2", "https://h/x"),
    # Fragments too (OAuth's implicit flow).
    (
        "https://app/cb#access_token=hunter2&token_type=bearer&expires_in=60",
        "https://app/cb#token_type=bearer&expires_in=60",
    ),
    # A name that is not a URI: its query is cleaned all the same.
    ("f?X-Amz-Signature=hunter2&X-Amz-Credential=AKIA", "f"),
    ("orders.parquet?apikey=hunter2&v=2", "orders.parquet?v=2"),
    (
        "GET reports/x.csv?sig=hunter2 failed: 403 Forbidden",
        "GET reports/x.csv failed: 403 Forbidden",
    ),
    # Connection strings: ;AccountKey=, two-word names, a {braced} value.
    (
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=hunter2==;"
        "EndpointSuffix=core.windows.net",
        "DefaultEndpointsProtocol=https;AccountName=acct;EndpointSuffix=core.windows.net",
    ),
    (
        "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=hunter2",
        "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root",
    ),
    (
        "Server=tcp:db,1433;User ID=sa;SSL Password=hunter2;Encrypt=True",
        "Server=tcp:db,1433;User ID=sa;Encrypt=True",
    ),
    (
        "jdbc:sqlserver://db;user=sa;password={hun;ter}}2};encrypt=true",
        "jdbc:sqlserver://db;user=sa;encrypt=true",
    ),
    ("jdbc:sqlserver://db;pwd=hun?ter#2;x=1", "jdbc:sqlserver://db;x=1"),
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
        # Oracle without a user part.
        "jdbc:oracle:thin:@h:1521:orcl",
        "jdbc:oracle:thin:@//host:1521/service",
        # Parameters that describe a secret, or only look like one.
        "s3://b/k?key_prefix=a/b&sort_key=id&keyspace=ks",
        "s3://b/k?X-Amz-Date=20260101&X-Amz-Expires=60&X-Amz-SignedHeaders=host",
        "https://h/x?token_type=bearer&SignatureVersion=2&SignatureMethod=HmacSHA256",
        "https://h/x?sv=2022-11-02&se=2026-01-01&sp=r",
        "postgres://db/x?sslmode=verify-full&sslkey=/etc/key.pem&sslcert=/etc/c.pem",
        "mongodb://db/x?authSource=admin&authMechanism=SCRAM-SHA-256",
        "orders?version=2&mode=ro",
        "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunEvent",
        "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root",
        # SQL is left alone: a name with blanks is no parameter.
        "SELECT a FROM t WHERE token = ? AND b = ?; UPDATE t SET password = 'x'",
        "user@example.com",
    ],
)
def test_uris_without_credentials_are_unchanged(uri: str) -> None:
    assert strip_credentials(uri) == uri
    assert not has_credentials(uri)


@pytest.mark.parametrize(
    "name",
    [
        "password",
        "PWD",
        "pass",
        "sslpassword",
        "ssl password",
        "db_passwd",
        "private_key_passphrase",
        "client_secret",
        "aws_secret_access_key",
        "X-Amz-Credential",
        "X-Amz-Security-Token",
        "X-Amz-Signature",
        "X-Goog-Signature",
        "X-Goog-Credential",
        "sig",
        "refresh_token",
        "id_token",
        "sas_token",
        "private_key",
        "privatekey",
        "accesskey",
        "access_key",
        "AWSAccessKeyId",
        "AccountKey",
        "SharedAccessKey",
        "SharedAccessSignature",
        "Ocp-Apim-Subscription-Key",
        "api-key",
        "key",
        "client_assertion",
        "jsessionid",
    ],
)
def test_secret_parameter_names(name: str) -> None:
    assert is_secret_param(name)


@pytest.mark.parametrize(
    "name",
    [
        "key_prefix",
        "sort_key",
        "keyspace",
        "sslkey",
        "sslmode",
        "user",
        "sv",
        "se",
        "sp",
        "X-Amz-Date",
        "X-Amz-SignedHeaders",
        "X-Amz-Algorithm",
        "token_type",
        "tokenizer",
        "SignatureVersion",
        "oauth_signature_method",
        "SharedAccessKeyName",
        "secret_name",
        "passwordless",
        "authSource",
        "version",
        "",
    ],
)
def test_ordinary_parameter_names(name: str) -> None:
    assert not is_secret_param(name)


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


def test_scrub_cleans_names_that_are_not_uris() -> None:
    event = {
        "inputs": [
            {"namespace": "jdbc:oracle:thin:u/hunter2@h:1521:orcl", "name": "f?sig=hunter2&v=1"}
        ],
        "sql": "SELECT 1; -- no credentials",
    }
    assert may_hold_credentials(canonical_json.dumps(event))
    assert scrub(event) == {
        "inputs": [{"namespace": "jdbc:oracle:thin:@h:1521:orcl", "name": "f?v=1"}],
        "sql": "SELECT 1; -- no credentials",
    }


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


# --- the pre-check never misses what stripping would change --------------------

# Inputs near the edges of every rule: JSON escapes (quotes, backslashes,
# control characters), blanks, non-ASCII text and letters that lower-case
# to ASCII ones (KELVIN SIGN).
_EDGES = [
    *(uri for uri, _ in _DIRTY),
    'postgres://us"er:pw@db/x',
    "postgres://us\\er:pw@db/x",
    "postgres://user:pass word@db/x",
    "postgres://user:pw\x01@db/x",
    "https://host is down, mail admin@example.com",
    'jdbc:oracle:thin:"u"/"p"@h:1521:orcl',
    "jdbc:oracle:thin:\u00e9/p@h",
    "jdbc:oracle:thin:u\x7f/p@h",
    "xjdbc:oracle:thin:u/p@h",
    'f?pass"word=1',
    "f?pass\\word=1",
    'f?a=1;to"ken=2',
    "f?\u212aey=1",
    "f?ke\u0131=1",
    "f?TOKEN=1",
    "f?token\x01type=1",
    "f?token\u00a0=1",
    "f?to ken=1",
    "x;\npassword\t=1",
    "x; pass word =1",
    "x;a/password=1",
    "x;one two password=1",
    "x;\u00a0pwd=1",
    "x;\x0bpwd\x0b=1",
    "x;\x1cpwd=1",
    "f?\x1cpwd=1",
    "f?pw\x0bd=1&token\x0b=2",
    "&token=1",
    "#token=1",
    "a?b#c?d&sig=1&e=2#f",
    "a?x;password;y=1",
    "a?password;y=1",
    "?=1&=2&sig&sig=",
]


@pytest.mark.parametrize("text", _EDGES)
def test_precheck_flags_whatever_stripping_changes(text: str) -> None:
    if strip_credentials(text) != text:
        assert may_hold_credentials(orjson.dumps(text))
        assert may_hold_credentials(canonical_json.dumps({"a": [1, {"b": text}]}))
    assert scrub({"x": text}) == {"x": strip_credentials(text)}


_PIECES = [
    "://",
    "postgres",
    "jdbc:oracle:thin:",
    "JDBC:ORACLE:OCI:",
    "u",
    "/",
    "//",
    "@",
    ":",
    "?",
    "&",
    "#",
    ";",
    "=",
    " ",
    "\n",
    '"',
    "\\",
    "{",
    "}",
    "}}",
    "\x01",
    "\x0b",
    "\x1c",
    "\t",
    "\u00e9",
    "\u212a",
    "\u00a0",
    "password",
    "Pass",
    "word",
    "sig",
    "key",
    "token",
    "_type",
    "X-Amz-",
    "Credential",
    "Account",
    "Key",
    "less",
    "x",
    "1",
]


@settings(max_examples=3000, derandomize=True, database=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=14).map("".join))
def test_precheck_is_a_correct_filter(text: str) -> None:
    cleaned = strip_credentials(text)
    if cleaned != text:
        assert may_hold_credentials(orjson.dumps(text)), text
    # Stripping again removes nothing more.
    assert strip_credentials(cleaned) == cleaned, text
