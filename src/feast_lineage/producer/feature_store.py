"""Placeholder until the producer lands: Feast's FeatureStore, unchanged."""

from __future__ import annotations

from feast import FeatureStore

__all__ = ["FeatureStore"]
