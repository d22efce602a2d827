"""Removing credentials from URIs before anything is stored or logged.

``postgres://user:secret@db:5432/x`` becomes ``postgres://db:5432/x``;
query parameters (``?password=...``) and JDBC-style ``;password=...``
parameters that carry secrets are dropped. Compound schemes such as
``jdbc:postgresql://`` are handled alike. Azure storage URIs name their
container in the user part (``abfss://container@account...``): a user part
without a password is kept there, as it is part of the dataset's identity.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

SECRET_PARAMS = frozenset(
    {
        "password",
        "passwd",
        "pwd",
        "secret",
        "token",
        "access_token",
        "api_key",
        "apikey",
        "key",
        "sig",
        "signature",
        "aws_secret_access_key",
        "x-amz-signature",
        "x-amz-security-token",
        "sas",
    }
)
# A scheme, possibly compound (jdbc:postgresql), then "://".
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*(?::[A-Za-z][A-Za-z0-9+.\-]*)*://")
_CONTAINER_SCHEMES = frozenset({"abfs", "abfss", "wasb", "wasbs"})
_SEMICOLON_PARAM = re.compile(r";([^;=/?#]*)=[^;?#]*")
# user:password@ of a URI inside free text (an error message, a SQL comment).
_EMBEDDED_PASSWORD = re.compile(
    r"\b([A-Za-z][A-Za-z0-9+.\-]*(?::[A-Za-z][A-Za-z0-9+.\-]*)*://)[^\s/?#:@]*:[^\s/?#]*@"
)


def _strip_userinfo(uri: str) -> str:
    scheme = _SCHEME.match(uri)
    if scheme is None:
        return uri
    start = scheme.end()
    end = len(uri)
    for sep in "/?#":
        found = uri.find(sep, start, end)
        if found != -1:
            end = found
    # The last "@" of the authority ends the user part: a raw "@" inside a
    # password must not leave the rest of the password behind.
    at = uri.rfind("@", start, end)
    if at == -1:
        return uri
    if ":" not in uri[start:at] and uri[: start - 3].lower() in _CONTAINER_SCHEMES:
        return uri
    return uri[:start] + uri[at + 1 :]


def _drop_semicolon_secret(match: re.Match[str]) -> str:
    return "" if match.group(1).strip().lower() in SECRET_PARAMS else match.group(0)


def strip_credentials(uri: str) -> str:
    """Return ``uri`` without user information or secret query parameters."""
    if "://" not in uri:
        return uri
    cleaned = _strip_userinfo(uri)
    if "@" in cleaned:
        cleaned = _EMBEDDED_PASSWORD.sub(r"\1", cleaned)
    if ";" in cleaned:
        cleaned = _SEMICOLON_PARAM.sub(_drop_semicolon_secret, cleaned)
    if "?" not in cleaned:
        return cleaned
    try:
        parts = urlsplit(cleaned)
    except ValueError:
        return cleaned.split("?", 1)[0]
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    kept = [(k, v) for k, v in query if k.lower() not in SECRET_PARAMS]
    if len(kept) == len(query):
        return cleaned
    return urlunsplit(parts._replace(query=urlencode(kept)))


# Two patterns, each led by a literal or a character class, so the regular
# expression engine can skip ahead; the byte tests in front of them (memchr,
# a fraction of a microsecond) rule most events out without either.
_USER_PART = re.compile(rb"://[^\"\s/?#]*@")
_SECRET_PARAM = re.compile(
    rb"[?&;](?:" + b"|".join(re.escape(k.encode()) for k in SECRET_PARAMS) + rb")=",
    re.IGNORECASE,
)


def may_hold_credentials(json_text: bytes) -> bool:
    """Whether serialized JSON has a URI with a user part or a secret parameter.

    A cheap pre-check on the bytes so that :func:`scrub` walks only the rare
    events that need it. The text must be unescaped JSON as orjson writes it
    (``@`` never spelled ``\\u0040``).
    """
    if b"@" in json_text and _USER_PART.search(json_text) is not None:
        return True
    if b"=" not in json_text:
        return False
    if b"?" in json_text or b";" in json_text or b"&" in json_text:
        return _SECRET_PARAM.search(json_text) is not None
    return False


def has_credentials(uri: str) -> bool:
    return strip_credentials(uri) != uri


def scrub(value: Any) -> Any:
    """Strip credentials from every URI-like string inside a JSON value.

    Returns the same object when nothing changed, so callers can test
    identity cheaply.
    """
    if isinstance(value, str):
        return strip_credentials(value) if "://" in value else value
    if isinstance(value, dict):
        changed = False
        out: dict[str, Any] = {}
        for k, v in value.items():
            nv = scrub(v)
            changed = changed or nv is not v
            out[k] = nv
        return out if changed else value
    if isinstance(value, list):
        items = [scrub(v) for v in value]
        if any(a is not b for a, b in zip(items, value, strict=True)):
            return items
        return value
    return value
