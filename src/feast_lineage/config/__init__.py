"""Configuration: the ``openlineage`` section of feature_store.yaml.

One settings model per section (:mod:`.producer`, :mod:`.consumer`), loaded
by :mod:`.loader` from the file and the ``FEAST_OPENLINEAGE_*`` environment.
"""

from feast_lineage.config.consumer import ConsumerSettings
from feast_lineage.config.errors import ConfigError
from feast_lineage.config.loader import LineageConfig, load_config
from feast_lineage.config.producer import ProducerSettings

__all__ = ["ConfigError", "ConsumerSettings", "LineageConfig", "ProducerSettings", "load_config"]
