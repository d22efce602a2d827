"""Removing credentials from URIs before anything is stored or logged.

``postgres://user:secret@db:5432/x`` becomes ``postgres://db:5432/x``.
Compound schemes such as ``jdbc:postgresql://`` are handled alike. Azure
storage URIs name their container in the user part
(``abfss://container@account...``): a user part without a password is kept
there, as it is part of the dataset's identity. Oracle's ``user/password@``
form is handled too (``jdbc:oracle:`` in lower or upper case, as the driver
reads it): ``jdbc:oracle:thin:scott/tiger@db:1521:orcl`` becomes
``jdbc:oracle:thin:@db:1521:orcl``, the whole user part going as with
``user:password@``.

Secret parameters are dropped, name and value, from

* a query or fragment, with or without a scheme (``s3://b/k?X-Amz-Signature=``,
  a dataset name ``f?sig=``, ``#access_token=``): every ``?``, ``&`` or ``#``
  after the first ``?`` or ``#`` of a run of non-blank characters starts a
  parameter. A secret value runs to the next ``&`` or blank, so a raw ``?``
  or ``#`` inside it does not leave its end behind;
* ``;name=value`` lists (JDBC, ODBC and Azure connection strings: ``;pwd=``,
  ``;AccountKey=``): the name may be two words (``;SSL Password=``), the
  value runs to the next ``;`` (a ``{...}`` value may hold ``;``).

A parameter is secret (:func:`is_secret_param`) when its name, in ASCII
lower case, is in :data:`SECRET_PARAMS` (short names such as ``key``,
``sig``, ``pw`` are matched whole only), or contains one of

* ``password``, ``passwd``, ``passwort``, ``passphrase``, ``pwd``,
  ``secret``, ``token``, ``signature``, ``credential``, ``assertion``:
  ``sslpassword``, ``client_secret``, ``aws_secret_access_key``,
  ``refresh_token``, ``id_token``, ``X-Amz-Security-Token``,
  ``X-Goog-Signature``, ``X-Amz-Credential``;
* ``key`` after ``api``, ``access``, ``account``, ``private``, ``secret``,
  ``shared``, ``master``, ``signing``, ``encryption``, ``customer``,
  ``subscription`` or ``session`` (with or without a ``-``, ``_``, ``.`` or
  space between): ``AccountKey``, ``private_key``, ``accesskey``,
  ``Ocp-Apim-Subscription-Key``; and ``session id``, ``sessid``;

unless that word is followed by ``type``, ``method``, ``version``,
``algorithm``, ``name``, ``less`` or ``iz`` (``token_type``,
``SignatureVersion``, ``SharedAccessKeyName``, ``passwordless``,
``tokenizer``), which describe a secret without holding one. Other names
are kept, among them ``key_prefix``, ``sort_key``, ``sslkey`` (a file),
``X-Amz-Date``, ``X-Amz-SignedHeaders`` and an Azure SAS's ``sv``, ``se``
and ``sp`` (only its ``sig`` grants access).
"""

from __future__ import annotations

import functools
import re
from typing import Any

import orjson

# Secret parameter names, lower case, matched whole (more by the rule above).
SECRET_PARAMS = frozenset(
    {
        "password",
        "passwd",
        "pwd",
        "pass",
        "pw",
        "sslpassword",
        "secret",
        "client_secret",
        "token",
        "access_token",
        "refresh_token",
        "id_token",
        "sas_token",
        "api_key",
        "apikey",
        "key",
        "access_key",
        "accesskey",
        "accountkey",
        "sharedaccesskey",
        "private_key",
        "privatekey",
        "sig",
        "signature",
        "sharedaccesssignature",
        "aws_secret_access_key",
        "x-amz-signature",
        "x-amz-security-token",
        "x-amz-credential",
        "x-goog-signature",
        "x-goog-credential",
        "authorization",
        "jwt",
        "sas",
    }
)
# Words that make a parameter name secret, and the words after them that do not.
_NAME_WORDS = (
    r"(?:pass(?:word|wd|wort|phrase)|pwd|secret|token|signature|credential|assertion"
    r"|(?:api|access|account|private|secret|shared|master|signing|encryption|customer"
    r"|subscription|session)[-_. ]?key|session[-_. ]?id|sessid)"
    r"(?!s?[-_. ]?(?:type|method|version|algorithm|name|less|iz))"
)
_SECRET_WORD = re.compile(_NAME_WORDS, re.ASCII | re.IGNORECASE)


# Every word of the rule holds one of these (SECRET_PARAMS are looked up).
_WORD_HINTS = ("pass", "pw", "secret", "token", "key", "sig", "credential", "assertion", "sess")


def is_secret_param(name: str) -> bool:
    """Whether a query or connection-string parameter called ``name`` holds a secret."""
    lowered = name.lower()
    if name.isascii() and lowered in SECRET_PARAMS:
        return True
    for hint in _WORD_HINTS:
        if hint in lowered:
            return _SECRET_WORD.search(name) is not None
    return False


# A scheme, possibly compound (jdbc:postgresql), then "://".
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*(?::[A-Za-z][A-Za-z0-9+.\-]*)*://")
_CONTAINER_SCHEMES = frozenset({"abfs", "abfss", "wasb", "wasbs"})
# user:password@ of a URI inside free text (an error message, a SQL comment).
_EMBEDDED_PASSWORD = re.compile(
    r"\b([A-Za-z][A-Za-z0-9+.\-]*(?::[A-Za-z][A-Za-z0-9+.\-]*)*://)[^\s/?#:@]*:[^\s/?#]*@"
)
# jdbc:oracle:thin:user/password@host...: the user part ends at the last "@"
# of the word that is followed by another "@" before any "/", so a raw "@"
# in the password does not leave the rest of it behind.
_ORACLE_USER = re.compile(
    r"\b((?:jdbc:oracle|JDBC:ORACLE):[A-Za-z0-9]+:)(?=[^\s@])[^\s@]*(?:@[^\s@/]*(?=@))*@",
    re.ASCII,
)
_ASCII_BLANKS = " \t\n\r\f\v"
# ;name=value, the name one or two words; a {braced} value may hold ";".
_SEMICOLON_NAME = r"[^\s;=/?#&]+(?: [^\s;=/?#&]+)?"
_SEMICOLON_PARAM = re.compile(
    r";\s*(" + _SEMICOLON_NAME + r")\s*=(?:\{(?:\}\}|[^{}])*\}|[^;])*", re.ASCII
)
# From the first "?" or "#" of a run of non-blank characters to its end.
_QUERY = re.compile(r"[?#]\S*", re.ASCII)
_QUERY_SEPARATORS = re.compile(r"([?&#])")


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
    return "" if is_secret_param(match.group(1)) else match.group(0)


def _drop_query_secrets(match: re.Match[str]) -> str:
    query = match.group(0)
    if "=" not in query:
        return query
    parts = _QUERY_SEPARATORS.split(query)  # ["", sep, param, sep, param, ...]
    kept: list[str] = []
    opener = ""  # the "?" or "#" of a dropped parameter, for the next one kept
    in_secret = False
    for i in range(1, len(parts), 2):
        sep, param = parts[i], parts[i + 1]
        if in_secret and sep != "&":
            continue  # a raw "?" or "#" inside a secret value
        name, eq, _ = param.partition("=")
        in_secret = bool(eq) and ";" not in name and is_secret_param(name)
        if in_secret:
            if sep != "&" and not opener:
                opener = sep
            continue
        if opener:
            sep = opener if sep == "&" else sep
            opener = ""
        kept.append(sep + param)
    return "".join(kept)


def strip_credentials(uri: str) -> str:
    """Return ``uri`` without user information or secret parameters.

    ``uri`` may also be a bare name with a query (``f?sig=...``) or free
    text holding URIs; text without credentials is returned as it is.
    """
    cleaned = _strip_once(uri)
    # Removing one credential can expose another form (rarely): strip until
    # nothing changes, so that stripping again never removes more. Each
    # round that changes the text shortens it, so this ends.
    previous = uri
    while cleaned != previous:
        previous, cleaned = cleaned, _strip_once(cleaned)
    return cleaned


def _strip_once(uri: str) -> str:
    cleaned = uri
    if "@" in cleaned:
        if "://" in cleaned:
            cleaned = _strip_userinfo(cleaned)
            if "@" in cleaned:
                cleaned = _EMBEDDED_PASSWORD.sub(r"\1", cleaned)
        if "@" in cleaned and ("jdbc:oracle:" in cleaned or "JDBC:ORACLE:" in cleaned):
            cleaned = _ORACLE_USER.sub(r"\1@", cleaned)
    if "=" in cleaned:
        if ";" in cleaned:
            cleaned = _SEMICOLON_PARAM.sub(_drop_semicolon_secret, cleaned)
        if "?" in cleaned or "#" in cleaned:
            cleaned = _QUERY.sub(_drop_query_secrets, cleaned)
    return cleaned


# The pre-check reads canonical JSON bytes. Each pattern is led by a literal
# or a rare character, and the byte tests in front of them (memchr, a
# fraction of a microsecond) rule most events out without any.
# "://" then an authority with an "@" (JSON escapes such as \" inside it).
_USER_PART = re.compile(rb'://[^"\\/?#@]*+(?:\\.[^"\\/?#@]*+)*+@')
_ORACLE_PREFIX = re.compile(rb"(?:jdbc:oracle|JDBC:ORACLE):[A-Za-z0-9]+:[^\s@]")
# Parameter names as the text rules read them, JSON-escaped: after "?", "&"
# or "#", no blank and no ";"; after ";", one or two words between blanks.
# orjson escapes blanks as \n, \t, \r, \f and \u000b, and no other
# character as those. Possessive quantifiers: no backtracking.
_ESCAPE = rb"\\(?:[^ntrfu]|u(?!000b))"
_QUERY_CHARS = rb'[^"\\?&;#=\s]*+(?:' + _ESCAPE + rb'[^"\\?&;#=\s]*+)*+'
_WORD_CHAR = rb'[^"\\?&;#=\s/]'
_WORD = rb"(?:" + _WORD_CHAR + rb"|" + _ESCAPE + rb")" + _WORD_CHAR + rb"*+(?:"
_WORD += _ESCAPE + _WORD_CHAR + rb"*+)*+"
_BLANKS = rb"(?:[ ]|\\[ntrf]|\\u000b)*+"
# One pattern per separator, each led by its literal, which the engine finds
# fast; (separator, pattern, whether the name follows ";").
_PARAM_NAMES = (
    (b"?", re.compile(rb"\?(" + _QUERY_CHARS + rb")="), False),
    (b"&", re.compile(rb"&(" + _QUERY_CHARS + rb")="), False),
    (b"#", re.compile(rb"#(" + _QUERY_CHARS + rb")="), False),
    (
        b";",
        re.compile(rb";(" + _BLANKS + _WORD + rb"(?:[ ]" + _WORD + rb")?" + _BLANKS + rb")="),
        True,
    ),
)


def _secret_param_name(raw: bytes, after_semicolon: bool) -> bool:
    """Whether the JSON-escaped parameter name ``raw`` names a secret."""
    if len(raw) <= 64:
        return _short_secret_param_name(raw, after_semicolon)
    return _decoded_secret_param_name(raw, after_semicolon)


def _decoded_secret_param_name(raw: bytes, after_semicolon: bool) -> bool:
    try:
        name: str = orjson.loads(b'"' + raw + b'"')
    except orjson.JSONDecodeError:
        return True
    return is_secret_param(name.strip(_ASCII_BLANKS) if after_semicolon else name)


# The same few names come again and again; short ones are remembered.
_short_secret_param_name = functools.lru_cache(maxsize=4096)(_decoded_secret_param_name)


def may_hold_credentials(json_text: bytes) -> bool:
    """Whether serialized JSON may hold a string that :func:`scrub` would change.

    A cheap pre-check on the bytes so that :func:`scrub` walks only the rare
    events that need it: a URI with a user part, an Oracle ``user/password@``,
    or a parameter whose name :func:`is_secret_param` calls secret. The text
    must be JSON as orjson writes it (``@``, ``?``, ``&``, ``;``, ``#``,
    ``=`` and ``/`` never escaped, control characters as ``\\n`` or
    ``\\u000b``).
    """
    if b"@" in json_text:
        if b"://" in json_text and _USER_PART.search(json_text) is not None:
            return True
        oracle = b"jdbc:oracle:" in json_text or b"JDBC:ORACLE:" in json_text
        if oracle and _ORACLE_PREFIX.search(json_text) is not None:
            return True
    if b"=" not in json_text:
        return False
    for separator, pattern, after_semicolon in _PARAM_NAMES:
        if separator in json_text:
            for match in pattern.finditer(json_text):
                if _secret_param_name(match.group(1), after_semicolon):
                    return True
    return False


def has_credentials(uri: str) -> bool:
    return strip_credentials(uri) != uri


def scrub(value: Any) -> Any:
    """Strip credentials from every string inside a JSON value (keys excepted).

    Returns the same object when nothing changed, so callers can test
    identity cheaply.
    """
    if isinstance(value, str):
        cleaned = strip_credentials(value)
        return value if cleaned == value else cleaned
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
