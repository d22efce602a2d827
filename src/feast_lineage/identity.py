"""Stable identities of lineage nodes.

Jobs, datasets and namespaces are keyed by a 63-bit integer derived from
their OpenLineage identity with BLAKE2b, so every process, every database and
every run computes the same id without a lookup. Python's ``hash()`` is never
used: it changes between processes. Ids are memoized: the same few
thousand identities recur in every event.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Literal

NodeKind = Literal["job", "dataset"]

_MASK = (1 << 63) - 1


@lru_cache(maxsize=1 << 16)
def _h(*parts: str) -> int:
    data = "\x1f".join(parts).encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big") & _MASK


def forget_ids() -> None:
    """Empty the memo of ids (after a spike, so its memory can go back to the system)."""
    _h.cache_clear()


def node_id(kind: NodeKind, namespace: str, name: str) -> int:
    return _h(kind, namespace, name)


def job_id(namespace: str, name: str) -> int:
    return _h("job", namespace, name)


def dataset_id(namespace: str, name: str) -> int:
    return _h("dataset", namespace, name)


def namespace_id(namespace: str) -> int:
    return _h("namespace", namespace)


def text_id(text: str) -> int:
    """Id of a free text value (a URI), for indexed equality lookups."""
    return _h("text", text)


def identity_uri(namespace: str, name: str) -> str | None:
    """The URI a dataset's namespace and name stand for, when they form one.

    ``s3://bucket`` + ``path/x`` gives ``s3://bucket/path/x``; ``file`` +
    ``/data/x.parquet`` gives ``file:///data/x.parquet``. Other namespaces
    (a bare word such as a Feast project) name no location and give None.
    """
    if "://" in namespace:
        return namespace.rstrip("/") + "/" + name.lstrip("/")
    if namespace == "file" and name.startswith("/"):
        return "file://" + name
    return None
