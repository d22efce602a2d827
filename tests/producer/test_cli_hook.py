"""While a Feast command runs under feast-lineage, Feast builds our FeatureStore."""

from __future__ import annotations

import feast
import feast.repo_operations

import feast_lineage
from feast_lineage.producer.cli_hook import lineage_feature_store


def test_feasts_names_are_ours_only_inside_the_block() -> None:
    original = feast.FeatureStore
    with lineage_feature_store():
        assert feast.repo_operations.FeatureStore is feast_lineage.FeatureStore  # type: ignore[attr-defined]
        from feast import FeatureStore  # what `feast serve` does at call time

        assert FeatureStore is feast_lineage.FeatureStore
        assert issubclass(FeatureStore, original)
    assert feast.FeatureStore is original
    assert feast.repo_operations.FeatureStore is original  # type: ignore[attr-defined]
