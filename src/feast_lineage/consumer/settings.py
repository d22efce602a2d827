"""What one consumer app needs: the consumer settings and its database."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from feast_lineage.config import ConsumerSettings, LineageConfig


@dataclass(frozen=True)
class AppSettings:
    consumer: ConsumerSettings
    database_url: str = field(repr=False)  # secret: never logged
    run_retention: bool = True  # False in an embedded server when standalone_server is set
    producer_namespace: str = "feast"  # openlineage.namespace: a project's own namespace
    # The feature repository whose registry the registry lineage endpoints read
    # (Feast is loaded on their first request); None: those endpoints answer 404.
    repo_path: Path | None = None
    fs_yaml_file: Path | None = None
    project: str | None = None
    # False: no lineage database and no consumer endpoints, only the registry
    # lineage (``feast-lineage ui`` when openlineage.consumer.enabled is false).
    serve_consumer: bool = True
    # Serve the web UI (the built files in feast_lineage/webui) at "/".
    serve_ui: bool = False
    feast_auth: str = "no_auth"  # feature_store.yaml auth.type
    workers: int = 1  # the worker processes sharing the container's memory
    # Where the container's memory limit is read (cgroup v2 or v1 files under it).
    cgroup_root: Path = Path("/sys/fs/cgroup")

    @classmethod
    def from_config(
        cls,
        config: LineageConfig,
        *,
        standalone: bool,
        fs_yaml_file: Path | None = None,
        serve_consumer: bool = True,
        serve_ui: bool = False,
        workers: int = 1,
    ) -> AppSettings:
        consumer = config.consumer
        return cls(
            consumer=consumer,
            database_url=config.database_url() if serve_consumer else "",
            run_retention=standalone or not consumer.standalone_server,
            producer_namespace=config.producer.namespace,
            repo_path=config.repo_path,
            fs_yaml_file=fs_yaml_file,
            project=config.project,
            serve_consumer=serve_consumer,
            serve_ui=serve_ui,
            feast_auth=config.feast_auth,
            workers=workers,
        )
