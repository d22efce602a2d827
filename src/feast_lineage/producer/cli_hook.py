"""Running Feast's own CLI commands with the lineage-emitting FeatureStore.

Feast's commands build their FeatureStore in ``feast.repo_operations``
(``apply_total``, ``plan``, ``teardown``, ``create_feature_store`` for
materialize and the rest), all through that module's ``FeatureStore`` name.
While a Feast command runs under ``feast-lineage``, that name is our
subclass, so every command keeps Feast's behaviour and output and the store
operations emit lineage. ``feast plan`` is a dry run and emits nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def lineage_feature_store() -> Iterator[None]:
    """Within this block, Feast's CLI code paths build our FeatureStore."""
    import feast.repo_operations as operations

    from feast_lineage.producer.feature_store import FeatureStore

    previous = getattr(operations, "FeatureStore")  # noqa: B009 - not re-exported by Feast
    setattr(operations, "FeatureStore", FeatureStore)  # noqa: B010
    try:
        yield
    finally:
        setattr(operations, "FeatureStore", previous)  # noqa: B010
