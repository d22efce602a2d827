"""Running Feast's own CLI commands with the lineage-emitting FeatureStore.

Feast's commands build their FeatureStore in ``feast.repo_operations``
(``apply_total``, ``plan``, ``teardown``, ``create_feature_store`` for
materialize and the rest), all through that module's ``FeatureStore`` name,
or with ``from feast import FeatureStore`` at call time (``serve``). While a
Feast command runs under ``feast-lineage``, both names are our subclass, so
every command keeps Feast's behaviour and output and the store operations
emit lineage (the feature server's online retrievals too). ``feast plan`` is
a dry run and emits nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def lineage_feature_store() -> Iterator[None]:
    """Within this block, Feast's CLI code paths build our FeatureStore."""
    import feast
    import feast.repo_operations as operations

    from feast_lineage.producer.feature_store import FeatureStore

    modules = (operations, feast)
    previous = [getattr(module, "FeatureStore") for module in modules]  # noqa: B009
    for module in modules:
        setattr(module, "FeatureStore", FeatureStore)  # noqa: B010
    try:
        yield
    finally:
        for module, original in zip(modules, previous, strict=True):
            setattr(module, "FeatureStore", original)  # noqa: B010
