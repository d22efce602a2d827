"""Masking secrets in a configuration before it is shown.

``feast-lineage configuration`` prints feature_store.yaml as Feast reads it,
with every secret replaced by ``***``:

* option values that are secrets by name (``api_key``, ``password``,
  ``client_secret``, ``private_key``, ``sas_token``...);
* the password of a URI (``postgresql://feast:***@db/x``; the user stays, to
  show which account is used);
* secret parameters in URIs and connection strings (``?password=***``,
  ``;pwd=***``, ``?sslpassword=***``, Redis's ``host:6379,password=***``), by
  the rule that removes them at ingest (:func:`feast_lineage.uris.is_secret_param`).
"""

from __future__ import annotations

import re
from typing import Any

from feast_lineage.uris import is_secret_param

MASK = "***"

_SECRET_NAME = re.compile(
    r"(?:^|_)(?:password|passwd|pwd|passphrase|secret|token|api_?key|access_key|"
    r"private_key|credentials?)(?:$|_)",
    re.IGNORECASE,
)
# scheme://user:password@ (the last "@" before the path ends the password).
_URI_PASSWORD = re.compile(r"(://[^\s/?#:@]*):[^\s/?#]*@")
# Any name=value parameter; _mask_param decides whether its value is secret.
_PARAM = re.compile(r"(^|[?&;,\s])([A-Za-z][\w.\-]*)=([^&;,#\s]*)")


def _mask_param(match: re.Match[str]) -> str:
    lead, name, _value = match.groups()
    return f"{lead}{name}={MASK}" if is_secret_param(name) else match.group(0)


def is_secret_name(name: str) -> bool:
    """Whether an option called ``name`` holds a secret."""
    return _SECRET_NAME.search(name) is not None


def mask_text(text: str) -> str:
    """``text`` with URI passwords and secret parameters masked."""
    if "@" in text:
        text = _URI_PASSWORD.sub(rf"\1:{MASK}@", text)
    if "=" in text:
        text = _PARAM.sub(_mask_param, text)
    return text


def mask_secrets(value: Any) -> Any:
    """A copy of ``value`` (nested dicts and lists) with every secret masked."""
    if isinstance(value, dict):
        return {
            key: MASK if _is_secret(key, item) else mask_secrets(item)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [mask_secrets(item) for item in value]
    if isinstance(value, str):
        return mask_text(value)
    return value


def _is_secret(key: Any, value: Any) -> bool:
    return isinstance(key, str) and is_secret_name(key) and value not in (None, "")
