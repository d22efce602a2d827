"""Names of everything the producer emits: jobs, datasets, the producer URI.

Datasets live in the project's namespace (``ProducerSettings.namespace_for``)
and are named ``<group>/<object name>``: ``entity/driver``,
``data_source/driver_stats``, ``feature_view/driver_hourly_stats`` (every
kind of view), ``feature_service/...``, ``saved_dataset/...``, and
``online_store/<view>`` for a view's online store table, and
``training_frame/...`` and ``entity_frame/...`` for what a historical
retrieval returns and is given (``feature_service/<name>`` or
``feature_list``). The group prefix
keeps a data source and a view of the same name apart. Names depend on
nothing but the objects, so every process gives the same identities.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from urllib.parse import quote

from feast_lineage import __version__
from feast_lineage.config import ProducerSettings
from feast_lineage.registry.objects import Ref

PROJECT_URL = "https://github.com/feast-lineage/feast-lineage"
DEFAULT_SERVER = "http://localhost:6580"  # where ``feast-lineage serve_lineage`` listens

APPLY_ENTITIES = "feast_apply_entities"
APPLY_DATA_SOURCES = "feast_apply_data_sources"
MATERIALIZE = "feast_materialize"
MATERIALIZE_INCREMENTAL = "feast_materialize_incremental"

_APPLY_PREFIX = {
    "feature_view": "feast_apply_feature_view_",
    "on_demand_feature_view": "feast_apply_odfv_",
    "stream_feature_view": "feast_apply_feature_view_",
    "label_view": "feast_apply_label_view_",
    "feature_service": "feast_apply_feature_service_",
    "saved_dataset": "feast_apply_saved_dataset_",
}
_URI_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def dataset_name(ref: Ref) -> str:
    return f"{ref.group}/{ref.name}"


def online_store_dataset_name(view_name: str) -> str:
    return f"online_store/{view_name}"


def _retrieved(feature_service: str | None) -> str:
    return f"feature_service/{feature_service}" if feature_service else "feature_list"


def training_frame_dataset_name(feature_service: str | None) -> str:
    """What a historical retrieval of a service (or of a feature list) returns."""
    return f"training_frame/{_retrieved(feature_service)}"


def entity_frame_dataset_name(feature_service: str | None) -> str:
    """The entity frame a historical retrieval of a service (or a feature list) is given."""
    return f"entity_frame/{_retrieved(feature_service)}"


def apply_job_name(kind: str, name: str) -> str:
    """The apply job of one view, service or saved dataset."""
    return _APPLY_PREFIX[kind] + name


def materialize_view_job_name(view_name: str) -> str:
    return f"feast_materialize_feature_view_{view_name}"


def retrieval_job_name(retrieval_type: str, feature_service: str | None) -> str:
    base = f"feast_get_{retrieval_type}_features"
    return f"{base}_{feature_service}" if feature_service else base


def producer_uri(settings: ProducerSettings) -> str:
    """The ``producer`` of every event: the configured value when it is a URI.

    OpenLineage requires a URI. A bare name such as the default ``feast``
    becomes this integration's versioned URI with the name as its fragment.
    """
    value = settings.producer.strip()
    if _URI_SCHEME.match(value):
        return value
    return f"{PROJECT_URL}/tree/v{__version__}#{quote(value, safe='')}"


def lineage_server(settings: ProducerSettings, env: Mapping[str, str] | None = None) -> str:
    """The lineage server the producer reports to, as best known.

    It serves the custom facets' schemas, so ``_schemaURL`` points there:
    ``transport_url`` for the http transport, else ``OPENLINEAGE_URL`` when
    openlineage-python's defaults are in use, else serve_lineage's default.
    """
    env = os.environ if env is None else env
    if settings.transport_type == "http" and settings.transport_url:
        return settings.transport_url
    if settings.transport_type is None and env.get("OPENLINEAGE_URL"):
        return env["OPENLINEAGE_URL"]
    return DEFAULT_SERVER
