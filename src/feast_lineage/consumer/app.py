"""The consumer's app factory: :func:`create_app` builds a fresh app per call.

Nothing happens at import time. The lifespan opens the Feast registry when
the server has a feature repository (each worker, before it accepts a
connection: no request waits for Feast to load), builds the engine, brings the
schema up to date with Alembic (under ``serve_lineage`` and ``ui`` the server
has done so before the app starts, answering not-ready meanwhile:
:mod:`feast_lineage.listener`; here it finds the schema current), builds the
authorizer, and starts the writer
thread (and the retention thread when this server prunes: ``run_retention``
and ``retention_days`` > 0); shutdown stops them (the writer after it has
committed what it holds) and disposes the engine.

With ``settings.serve_consumer`` false (``feast-lineage ui`` with the
consumer off) the app has no database: it serves registry lineage, and the
web UI when ``settings.serve_ui`` is set.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from feast_lineage import __version__
from feast_lineage.config.authorizer import FEAST_AUTH_TYPES
from feast_lineage.consumer.access.authorizers import OpenAuthorizer, build_authorizer
from feast_lineage.consumer.access.origin import SameOriginMiddleware
from feast_lineage.consumer.compression import CompressionMiddleware
from feast_lineage.consumer.errors import install_error_handlers
from feast_lineage.consumer.head import HeadAsGetMiddleware
from feast_lineage.consumer.intake.pipeline import IngestPipeline
from feast_lineage.consumer.metrics import Metrics, QueryTimer
from feast_lineage.consumer.openapi_document import install_openapi
from feast_lineage.consumer.routes import include_routes
from feast_lineage.consumer.services.retention import Retention
from feast_lineage.consumer.settings import AppSettings
from feast_lineage.consumer.state import ConsumerState
from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema
from feast_lineage.consumer.trailing_slash import TrailingSlashMiddleware
from feast_lineage.registry.source import RegistrySource

log = logging.getLogger(__name__)


def create_app(settings: AppSettings) -> FastAPI:
    # One registry source for the registry endpoints, the UI and the authorizer
    # (opened by the lifespan).
    registry = RegistrySource(
        settings.repo_path, fs_yaml_file=settings.fs_yaml_file, project=settings.project
    )
    source = registry if settings.repo_path is not None else None
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if source is not None:
            # Before the worker accepts a connection (readiness waits for it),
            # so no request pays for importing Feast (seconds).
            await asyncio.to_thread(source.open_now)
        if not settings.serve_consumer:
            # Registry lineage (and the UI) only: no database, no threads.
            app.state.authorizer = build_authorizer(settings, source)
            yield
            return
        engine = create_store_engine(settings.database_url)
        upgrade_schema(engine)
        pipeline = IngestPipeline(engine, observer=metrics)
        pipeline.start()
        authorizer = build_authorizer(settings, source)
        if settings.feast_auth in FEAST_AUTH_TYPES and isinstance(authorizer, OpenAuthorizer):
            log.warning(
                "feature_store.yaml turns Feast auth on (%s), but openlineage.consumer.authorizer "
                "is open: anyone who can reach this server reads all lineage; remove the "
                "authorizer option to follow Feast's permissions",
                settings.feast_auth,
            )
        if settings.consumer.api_key is None:
            log.warning(
                "openlineage.consumer.api_key is not set: ingest is open to anyone who can "
                "reach this server, and %s",
                "so are prune and reset"
                if isinstance(authorizer, OpenAuthorizer)
                else "prune and reset are refused (the authorizer restricts reads)",
            )
        state = ConsumerState(
            settings=settings,
            engine=engine,
            pipeline=pipeline,
            authorizer=authorizer,
            retention=Retention(on_prune=metrics.prune),
        )
        consumer = settings.consumer
        if settings.run_retention and consumer.retention_days > 0:
            state.retention.start(
                engine, consumer.retention_days, consumer.retention_check_interval_hours
            )
        app.state.consumer = state
        try:
            yield
        finally:
            app.state.consumer = None
            state.retention.stop()
            pipeline.stop()
            engine.dispose()

    app = FastAPI(
        title="feast-lineage",
        version=__version__,
        summary="OpenLineage consumer for the Feast feature store",
        lifespan=lifespan,
        # The interactive reference is routes/api_docs.py's: FastAPI's load from a CDN.
        docs_url=None,
        redoc_url=None,
        # trailing_slash.py redirects a trailing slash from the path as sent: the router's
        # redirect decoded a %2F inside a name.
        redirect_slashes=False,
    )
    app.state.consumer = None
    app.state.settings = settings
    app.state.registry_source = registry
    app.state.metrics = metrics
    install_error_handlers(app)
    install_openapi(app)
    reads = include_routes(app, consumer=settings.serve_consumer, web_ui=settings.serve_ui)
    app.add_middleware(TrailingSlashMiddleware, routes=app.router.routes)
    app.add_middleware(QueryTimer, metrics=metrics, routes=reads)
    app.add_middleware(SameOriginMiddleware)
    app.add_middleware(HeadAsGetMiddleware)
    app.add_middleware(CompressionMiddleware)
    return app
