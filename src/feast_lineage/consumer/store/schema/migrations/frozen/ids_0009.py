"""FROZEN at migration 0009 (used by 0009, 0010, 0011): never change this module.

The stable ids of jobs, datasets, namespaces and free text, copied from
``feast_lineage/identity.py`` as it was when migration 0009 was written.
The ids are stored in every row; what a migration derives must key its rows
exactly as ingest did then, whatever the live module becomes. Why frozen,
and why ``duplicates`` lists this beside its source: see ``frozen/__init__.py``.
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
    """The URI a dataset's namespace and name stand for, when they form one."""
    if "://" in namespace:
        return namespace.rstrip("/") + "/" + name.lstrip("/")
    if namespace == "file" and name.startswith("/"):
        return "file://" + name
    return None
