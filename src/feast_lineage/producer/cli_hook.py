"""Running Feast's own CLI commands with the lineage-emitting FeatureStore.

Feast's commands build their FeatureStore in ``feast.repo_operations``
(``apply_total``, ``plan``, ``teardown``, ``create_feature_store`` for
materialize and the rest), all through that module's ``FeatureStore`` name,
or with ``from feast import FeatureStore`` at call time (``serve``,
``serve_registry``). Most of them load feature_store.yaml first with
``load_repo_config``, which on Feast 0.60+ validates the ``openlineage``
section with Feast's own model. While a Feast command runs under
``feast-lineage``, those names are ours: our FeatureStore, and the loader of
:mod:`feast_lineage.registry.repo_config`, which leaves the section to us.
So every command keeps Feast's behaviour and output, the store operations
emit our lineage (the feature server's online retrievals too), and Feast's
own emitter and consumer never start. ``feast plan`` is a dry run and emits
nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from types import ModuleType
from typing import Any


@contextmanager
def lineage_feature_store() -> Iterator[None]:
    """Within this block, Feast's CLI code paths build our FeatureStore and load configs our way."""
    import feast
    import feast.repo_config
    import feast.repo_operations as operations

    from feast_lineage.producer.feature_store import FeatureStore
    from feast_lineage.registry.repo_config import load_repo_config

    feast_loader = feast.repo_config.load_repo_config
    binders = [
        module
        for name, module in list(sys.modules.items())
        if (name == "feast" or name.startswith("feast."))
        and isinstance(module, ModuleType)
        and module.__dict__.get("load_repo_config") is feast_loader
    ]
    with ExitStack() as stack:
        for module in (operations, feast):
            stack.enter_context(_replaced(module, "FeatureStore", FeatureStore))
        for module in binders:
            stack.enter_context(_replaced(module, "load_repo_config", load_repo_config))
        stack.enter_context(_told(FeatureStore))
        yield


@contextmanager
def _replaced(module: ModuleType, name: str, value: Any) -> Iterator[None]:
    original = module.__dict__[name]
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, original)


@contextmanager
def _told(cls: Any) -> Iterator[None]:
    """Our FeatureStore prints what lineage did (``teardown``) while the command runs."""
    cls.tells_user = True
    try:
        yield
    finally:
        cls.tells_user = False
