"""Secret option values (API keys, connection strings).

They are kept as :class:`pydantic.SecretStr`, so a repr or a log line shows
``**********``. Surrounding whitespace is dropped, because keys often come
from files that end with a newline while clients send them stripped; an
empty value is refused rather than read as "no key" or as a key nobody sends.
"""

from __future__ import annotations

from pydantic import SecretStr


def strip_secret(value: SecretStr | None) -> SecretStr | None:
    if value is None:
        return None
    stripped = value.get_secret_value().strip()
    if not stripped:
        raise ValueError("is empty")
    return SecretStr(stripped)
