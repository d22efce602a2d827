"""How much a run read from and wrote to each dataset: rows, bytes, files.

Taken from the dataset's facets in the run (:mod:`.run_facets`):

* an input: ``inputStatistics`` (``rowCount``, ``size``, ``fileCount``), else
  the older ``dataQualityMetrics`` input facet (``rowCount``, ``bytes``,
  ``fileCount``), which producers sent before ``inputStatistics`` existed;
* an output: ``outputStatistics`` (``rowCount``, ``size``, ``fileCount``).

A figure the facet leaves out (or that is not a whole number of at least 0)
is None; a dataset without any of these facets has no statistics.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import JsonValue

from feast_lineage.consumer.store.read.common import JsonObject

# direction -> (facet, its key of the byte count), in order of preference
_SOURCES: dict[str, tuple[tuple[str, str], ...]] = {
    "input": (("inputStatistics", "size"), ("dataQualityMetrics", "bytes")),
    "output": (("outputStatistics", "size"),),
}


@dataclass(frozen=True, slots=True)
class DatasetStatistics:
    rows: int | None
    bytes: int | None
    files: int | None
    facet: str  # the facet they came from


def _count(value: JsonValue) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def dataset_statistics(direction: str, facets: JsonObject | None) -> DatasetStatistics | None:
    """The statistics of one dataset of a run, ``direction`` "input" or "output"."""
    if not facets:
        return None
    for name, bytes_key in _SOURCES[direction]:
        facet = facets.get(name)
        if isinstance(facet, dict):
            return DatasetStatistics(
                rows=_count(facet.get("rowCount")),
                bytes=_count(facet.get(bytes_key)),
                files=_count(facet.get("fileCount")),
                facet=name,
            )
    return None
