"""Where a data source's data lives, as a URI, when the source says so.

Only sources that name one table, file or topic get a URI; a query, a push
or a request source names no location and gets None. Credentials never
reach a URI (see :mod:`feast_lineage.uris`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from feast_lineage.uris import strip_credentials


def location_uri(source: Any, repo_path: Path | None) -> str | None:
    """The URI of the data behind ``source``, or None when it names no location."""
    kind = type(source).__name__
    if kind == "FileSource":
        return _path_uri(str(getattr(source, "path", "") or ""), repo_path)
    if kind == "SparkSource":
        path = getattr(source, "path", None)
        return _path_uri(str(path), repo_path) if path else None
    if kind == "KafkaSource":
        options = getattr(source, "kafka_options", None)
        servers = getattr(options, "kafka_bootstrap_servers", None)
        topic = getattr(options, "topic", None)
        if servers and topic:
            first = str(servers).split(",")[0].strip()
            return strip_credentials(f"kafka://{first}/{topic}")
    return None


def _path_uri(path: str, repo_path: Path | None) -> str | None:
    if not path:
        return None
    if "://" in path:
        return strip_credentials(path)
    local = Path(path)
    if not local.is_absolute():
        if repo_path is None:
            return None
        local = repo_path / local
    return local.resolve().as_uri()
