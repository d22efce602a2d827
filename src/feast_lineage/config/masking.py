"""Masking secrets in a configuration before it is shown.

``feast-lineage configuration`` prints feature_store.yaml as Feast reads it,
with every secret replaced by ``***``:

* option values that are secrets by name (``api_key``, ``password``,
  ``client_secret``, ``private_key``, ``sas_token``...);
* the password of a URI (``postgresql://feast:***@db/x``; the user stays, to
  show which account is used);
* secret parameters in URIs and connection strings (``?password=***``,
  ``;pwd=***``, Redis's ``host:6379,password=***``), by the names
  :data:`feast_lineage.uris.SECRET_PARAMS` lists.
"""

from __future__ import annotations

import re
from typing import Any

from feast_lineage.uris import SECRET_PARAMS

MASK = "***"

_SECRET_NAME = re.compile(
    r"(?:^|_)(?:password|passwd|pwd|passphrase|secret|token|api_?key|access_key|"
    r"private_key|credentials?)(?:$|_)",
    re.IGNORECASE,
)
# scheme://user:password@ (the last "@" before the path ends the password).
_URI_PASSWORD = re.compile(r"(://[^\s/?#:@]*):[^\s/?#]*@")
_SECRET_PARAM = re.compile(
    r"(^|[?&;,\s])("
    + "|".join(re.escape(name) for name in sorted(SECRET_PARAMS))
    + r")=[^&;,#\s]*",
    re.IGNORECASE,
)


def is_secret_name(name: str) -> bool:
    """Whether an option called ``name`` holds a secret."""
    return _SECRET_NAME.search(name) is not None


def mask_text(text: str) -> str:
    """``text`` with URI passwords and secret parameters masked."""
    if "@" in text:
        text = _URI_PASSWORD.sub(rf"\1:{MASK}@", text)
    if "=" in text:
        text = _SECRET_PARAM.sub(rf"\1\2={MASK}", text)
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
