"""feast-lineage: OpenLineage lineage for the Feast feature store.

``from feast_lineage import FeatureStore`` gives a drop-in replacement for
``feast.FeatureStore`` that emits lineage. It is imported lazily so that the
lineage server does not pay for importing Feast.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["FeatureStore", "__version__"]


def __getattr__(name: str) -> Any:
    if name == "FeatureStore":
        from feast_lineage.producer.feature_store import FeatureStore

        return FeatureStore
    raise AttributeError(f"module 'feast_lineage' has no attribute {name!r}")
