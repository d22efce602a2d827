"""The ``feast-lineage`` command: Feast's CLI plus the lineage commands.

Every ``feast`` command works unchanged through it: the group takes Feast's
own options (-c/--chdir, -f/--feature-store-yaml, --log-level) and hands any
command it does not define itself to Feast's click commands. Feast is
imported only when such a command runs, so ``feast-lineage serve_lineage``
starts quickly.

``-c DIR`` does what Feast's help says of it: the command runs in DIR (the
current directory is DIR until it ends). Feast's own ``feast -c`` only
changes directory in ``apply`` and ``plan``, so elsewhere it opens a SQL
registry's relative ``sqlite:///`` URL from where it was started, and
fails. A SQLite file that cannot be opened is one line naming it
(:mod:`feast_lineage.repo_databases`), not a traceback.
"""

from __future__ import annotations

import logging
import os
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from feast_lineage.config import ConfigError, load_config
from feast_lineage.config.loader import normalize_database_url

if TYPE_CHECKING:
    from collections.abc import Callable

    from feast_lineage.consumer.store.engine.migration_progress import MigrationProgress

_FS_YAML_ENV = "FEAST_FS_YAML_FILE_PATH"


def _feast_cli() -> click.Group:
    from feast.cli.cli import cli as feast_cli

    return feast_cli


# Set in ctx.meta to list only our own commands (the generated docs/cli.md).
OWN_COMMANDS_ONLY = "feast_lineage.own_commands_only"
_LINEAGE_STORE = "feast_lineage.lineage_store"


class LineageCLI(click.Group):
    """A click group whose unknown commands are Feast's."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = set(super().list_commands(ctx))
        if not ctx.meta.get(OWN_COMMANDS_ONLY):
            names.update(_feast_cli().list_commands(ctx))
        return sorted(names)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        own = super().get_command(ctx, cmd_name)
        if own is not None:
            return own
        command = _feast_cli().get_command(ctx, cmd_name)
        if command is not None and not ctx.meta.get(_LINEAGE_STORE):
            # Feast's command runs with the lineage-emitting FeatureStore
            # until this context closes (see feast_lineage.producer.cli_hook).
            from feast_lineage.producer.cli_hook import lineage_feature_store

            ctx.meta[_LINEAGE_STORE] = True
            ctx.with_resource(lineage_feature_store())
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.NoSuchOption as err:
            # The group's own options (-c DIR, -f FILE, --log-level) put after the command.
            own = {name for param in self.params for name in param.opts}
            if err.option_name not in own or not ctx.invoked_subcommand:
                raise
            raise click.UsageError(
                f"No such option '{err.option_name}'. {err.option_name} is an option of"
                " feast-lineage itself: put it before the command, as in"
                f" `feast-lineage {err.option_name} ... {ctx.invoked_subcommand}`.",
                ctx=err.ctx,
            ) from None
        except Exception as err:
            from feast_lineage.repo_databases import cannot_open, unopenable

            if not cannot_open(err) or not isinstance(ctx.obj, dict) or "CHDIR" not in ctx.obj:
                raise
            raise click.ClickException(
                unopenable(ctx.obj["CHDIR"], ctx.obj["FS_YAML_FILE"])
            ) from None


@click.group(cls=LineageCLI)
@click.option(
    "--chdir",
    "-c",
    envvar="FEATURE_REPO_DIR_ENV_VAR",
    metavar="DIR",
    type=click.Path(exists=True, file_okay=False),
    help="The feature repository to work on: the command runs in DIR, so the relative "
    "paths of feature_store.yaml and of the command's options are read from there "
    "(default: the current directory). Environment: FEATURE_REPO_DIR_ENV_VAR.",
)
@click.option(
    "--log-level",
    default="warning",
    show_default=True,
    help="Log level: debug, info, warning, error or critical.",
)
@click.option(
    "--feature-store-yaml",
    "-f",
    metavar="FILE",
    help="The feature_store.yaml to read (default: the one in the repository). "
    f"Environment: {_FS_YAML_ENV}.",
)
@click.version_option(package_name="feast-lineage")
@click.pass_context
def cli(
    ctx: click.Context, chdir: str | None, log_level: str, feature_store_yaml: str | None
) -> None:
    """Feast with OpenLineage lineage: every feast command, plus the lineage server.

    For Feast's own commands, see https://docs.feast.dev/.
    """
    ctx.ensure_object(dict)
    repo = Path.cwd() if chdir is None else Path(chdir).absolute()
    ctx.obj["CHDIR"] = repo
    if feature_store_yaml:
        ctx.obj["FS_YAML_FILE"] = Path(feature_store_yaml).absolute()
    elif _FS_YAML_ENV in os.environ:
        ctx.obj["FS_YAML_FILE"] = Path(os.environ[_FS_YAML_ENV]).absolute()
    else:
        ctx.obj["FS_YAML_FILE"] = repo / "feature_store.yaml"
    # As `git -C`: the command runs in the repository (-f was read from where it was given).
    # The directory is given back when the command ends (Feast's apply changes it too).
    ctx.call_on_close(partial(os.chdir, os.getcwd()))
    os.chdir(repo)
    level = getattr(logging, log_level.upper(), None)
    if not isinstance(level, int):
        raise click.BadParameter(
            "use one of DEBUG, INFO, WARNING, ERROR, CRITICAL", param_hint="--log-level"
        )
    logging.basicConfig(
        format="%(asctime)s %(name)s %(levelname)s: %(message)s",
        datefmt="%m/%d/%Y %I:%M:%S %p",
        level=level,
    )
    # Feast's CLI modules call logging.basicConfig(level=INFO) when imported
    # (before this runs), which makes the call above a no-op: the level is set
    # here, so --log-level holds for every logger, Alembic's too.
    logging.getLogger().setLevel(level)
    for name in logging.root.manager.loggerDict:
        if "feast" in name:
            logging.getLogger(name).setLevel(level)
    ctx.obj["LOG_LEVEL"] = log_level


_TLS_FILE = click.Path(exists=True, dir_okay=False)
# Port 0 (any free port) is left out: the server would print and listen on a port no one knows.
_PORT = click.IntRange(1, 65535)


@cli.command("serve_lineage")
@click.option(
    "--host",
    "-h",
    default="127.0.0.1",
    show_default=True,
    envvar="FEAST_LINEAGE_HOST",
    show_envvar=True,
    help="Address to listen on.",
)
@click.option(
    "--port",
    "-p",
    type=_PORT,
    default=6580,
    show_default=True,
    envvar="FEAST_LINEAGE_PORT",
    show_envvar=True,
    help="Port.",
)
@click.option(
    "--workers",
    "-w",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    envvar="FEAST_LINEAGE_WORKERS",
    show_envvar=True,
    help="Worker processes; more use more cores for ingest (at most one per core).",
)
@click.option("--key", "-k", "tls_key_path", type=_TLS_FILE, help="TLS private key (with --cert).")
@click.option("--cert", "tls_cert_path", type=_TLS_FILE, help="TLS certificate (with --key).")
@click.pass_context
def serve_lineage(
    ctx: click.Context,
    host: str,
    port: int,
    workers: int,
    tls_key_path: str | None,
    tls_cert_path: str | None,
) -> None:
    """Start the standalone OpenLineage consumer (ingest, query and admin API).

    It reads the openlineage.consumer section of feature_store.yaml, stores
    lineage in consumer.connection_string or else the SQL registry's
    database, and serves HTTPS when given both --key and --cert.
    """
    _check_tls(tls_key_path, tls_cert_path)
    config = _load(ctx)  # before the heavy imports, so a bad config fails fast

    from feast_lineage.consumer.app import create_app
    from feast_lineage.consumer.settings import AppSettings
    from feast_lineage.registry.source import OPENING_IMPORTS

    if not config.consumer.enabled:
        logging.getLogger(__name__).warning(
            "openlineage.consumer.enabled is false; serving the consumer anyway "
            "because serve_lineage was asked for"
        )
    try:
        settings = AppSettings.from_config(
            config, standalone=True, fs_yaml_file=ctx.obj["FS_YAML_FILE"], workers=workers
        )
        _check_database(settings.database_url, config.database_option())
    except ConfigError as err:
        raise click.ClickException(str(err)) from None
    _serve(
        partial(create_app, settings),
        host,
        port,
        tls_key_path,
        tls_cert_path,
        workers=workers,
        header_timeout=config.consumer.header_timeout_seconds,
        # Once, before the workers start, while the port answers not-ready.
        database=(settings.database_url, config.database_option()),
        # Each worker opens the Feast registry as it starts: Feast is imported once, before.
        preload=OPENING_IMPORTS if settings.repo_path is not None else (),
    )


@cli.command("ui")
@click.option(
    "--host",
    "-h",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on (0.0.0.0: every interface).",
)
@click.option("--port", "-p", type=_PORT, default=8888, show_default=True, help="Port.")
@click.option(
    "--root-path",
    "--root_path",
    "root_path",
    default="",
    metavar="PATH",
    help="The path prefix when served behind a proxy, e.g. /lineage.",
)
@click.option("--key", "-k", "tls_key_path", type=_TLS_FILE, help="TLS private key (with --cert).")
@click.option("--cert", "tls_cert_path", type=_TLS_FILE, help="TLS certificate (with --key).")
@click.pass_context
def ui(
    ctx: click.Context,
    host: str,
    port: int,
    root_path: str,
    tls_key_path: str | None,
    tls_cert_path: str | None,
) -> None:
    """Start the lineage web UI, with the registry lineage and consumer APIs.

    One server for the feature repository: the web UI at /, the registry
    lineage endpoints, and, when openlineage.consumer.enabled is true, every
    consumer endpoint (ingest, graph, events, runs, admin) on the consumer's
    database. With the consumer off, the UI shows the registry's lineage only.
    Serves HTTPS when given both --key and --cert.
    """
    _check_tls(tls_key_path, tls_cert_path)
    config = _load(ctx)

    from feast_lineage.consumer.app import create_app
    from feast_lineage.consumer.routes.ui import WEB_UI_DIR, web_ui_built
    from feast_lineage.consumer.settings import AppSettings

    consumer = config.consumer.enabled
    try:
        settings = AppSettings.from_config(
            config,
            standalone=False,
            fs_yaml_file=ctx.obj["FS_YAML_FILE"],
            serve_consumer=consumer,
            serve_ui=True,
        )
        if consumer:
            _check_database(settings.database_url, config.database_option())
    except ConfigError as err:
        raise click.ClickException(str(err)) from None
    if not web_ui_built():
        logging.getLogger(__name__).warning(
            "the web UI is not built (%s has no index.html); run ./scripts/bootstrap.sh, "
            "or npm ci && npm run build in ui/",
            WEB_UI_DIR,
        )
    shown_host = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host  # noqa: S104
    if ":" in shown_host:
        shown_host = f"[{shown_host}]"
    scheme = "https" if tls_key_path else "http"
    url = f"{scheme}://{shown_host}:{port}{root_path.rstrip('/')}/"
    announcement = (
        f"feast-lineage ui: {url} (project {config.project}; consumer "
        + ("on" if consumer else "off: registry lineage only")
        + ")"
    )
    _serve(
        partial(create_app, settings),
        host,
        port,
        tls_key_path,
        tls_cert_path,
        root_path=root_path,
        header_timeout=config.consumer.header_timeout_seconds,
        database=(settings.database_url, config.database_option()) if consumer else None,
        # Once the port is bound: a port that is taken is the one line of its error.
        listening=partial(click.echo, announcement),
    )


@cli.command("configuration")
@click.option(
    "--show-secrets",
    is_flag=True,
    help="Print API keys, passwords and URI credentials as they are.",
)
@click.pass_context
def configuration(ctx: click.Context, show_secrets: bool) -> None:
    """Display Feast configuration, secrets masked.

    Feast's own command with one difference: values that are secrets (API
    keys, passwords, tokens, credentials in URIs) print as ***, so the
    output can be pasted into an issue or a chat. --show-secrets prints them.
    """
    import yaml
    from feast.repo_operations import cli_check_repo

    from feast_lineage.config.masking import mask_secrets
    from feast_lineage.registry.repo_config import load_repo_config

    repo, fs_yaml_file = ctx.obj["CHDIR"], ctx.obj["FS_YAML_FILE"]
    cli_check_repo(repo, fs_yaml_file)
    repo_config = load_repo_config(repo, fs_yaml_file)
    if not repo_config:
        click.echo("No configuration found.")
        return
    config = repo_config.model_dump(by_alias=True, exclude_unset=True)
    config.pop("repo_path", None)
    if not show_secrets:
        config = mask_secrets(config)
    click.echo(yaml.dump(config, default_flow_style=False, sort_keys=False))


@cli.command("lineage-sync")
@click.pass_context
def lineage_sync(ctx: click.Context) -> None:
    """Emit the project's whole registry state as OpenLineage events, once.

    Apply emits lineage only for what it changed. Run this after the lineage
    server (or another collector) was down or unreachable during an apply,
    when you point Feast at a new collector, or after enabling openlineage on
    an existing repository. Running it again changes nothing in the graph.
    """
    config = _load(ctx, consumer_database=False)  # a producer command: see StoreLineage
    if not config.producer.enabled:
        raise click.ClickException(
            "openlineage.enabled is false; set it to true (or FEAST_OPENLINEAGE_ENABLED=true) "
            "to send lineage"
        )
    from feast.repo_operations import create_feature_store

    from feast_lineage.producer.cli_hook import lineage_feature_store
    from feast_lineage.producer.feature_store import FeatureStore

    with lineage_feature_store():
        store = create_feature_store(ctx)
    assert isinstance(store, FeatureStore)
    result = store.sync_lineage()
    delivered = [sink for sink in result.sinks if sink not in result.failed]
    if result.failed or not result.sinks:
        raise click.ClickException(
            f"{result.events} lineage events of project {store.project} could not be sent to "
            + (", ".join(result.failed) or "any transport")
            + "; see the warning above, fix it and run lineage-sync again"
        )
    click.echo(
        f"Sent {result.events} lineage events of project {store.project} to "
        + " and ".join(delivered)
        + "."
    )


@cli.command("import-feast-lineage")
@click.option(
    "--source",
    metavar="URL",
    help="The database where Feast's lineage consumer stored its events (a SQLAlchemy URL; "
    "a relative SQLite path is the repository's, as in feature_store.yaml); "
    "default: the one feature_store.yaml names for the consumer (consumer.connection_string, "
    "else the SQL registry's database), as Feast's consumer used it.",
)
@click.option(
    "--show-refused/--no-show-refused",
    default=True,
    show_default=True,
    help="List each refused event (Feast's event_id) and the reason.",
)
@click.pass_context
def import_feast_lineage(ctx: click.Context, source: str | None, show_refused: bool) -> None:
    """Import the events Feast's built-in lineage consumer stored (Feast 0.65 to 0.67).

    Reads Feast's openlineage_events table, read-only (Feast's server may keep
    running), and ingests each event as if it were posted now: the same
    validation, credential removal, deduplication and ordering. Feast's names
    become ours (driver_hourly_stats: feature_view/driver_hourly_stats), Feast's
    kept as an alias, so the history joins what feast-lineage reports. Prints how
    many rows were read, imported, duplicates (one event Feast received more
    than once, or already imported) and refused, with the reason for each.
    Running it again imports nothing new.
    """
    config = _load(ctx)
    try:
        target_url = config.database_url()
        # A relative SQLite path is the repository's, as in feature_store.yaml.
        source_url = (
            normalize_database_url(source, config.repo_path, "--source") if source else target_url
        )
    except ConfigError as err:
        raise click.ClickException(str(err)) from None

    from feast_lineage.consumer.embedded import LocalStore
    from feast_lineage.consumer.feast_import import (
        FeastTableMissing,
        SourceUnreadable,
        count_rows,
        import_feast_events,
        read_only_engine,
    )

    # The source first: an import that cannot read it creates (and migrates) nothing.
    try:
        reader = read_only_engine(source_url)
        total = count_rows(reader)
    except (FeastTableMissing, SourceUnreadable, ValueError) as err:
        raise click.ClickException(f"{err}; give the right database with --source") from None
    try:
        _check_database(target_url, config.database_option(), migrate=True)
    except ConfigError as err:
        reader.dispose()
        raise click.ClickException(str(err)) from None
    store = LocalStore(target_url)
    try:
        with click.progressbar(
            length=total, label="Importing Feast's lineage events", file=sys.stderr
        ) as bar:
            summary = import_feast_events(reader, store.engine, progress=bar.update)
    finally:
        store.close()
        reader.dispose()
    click.echo(
        f"Read {summary.read} events from Feast's openlineage_events: "
        f"{summary.imported} imported, {summary.duplicates} duplicates, "
        f"{len(summary.refused)} refused."
    )
    if show_refused:
        for refusal in summary.refused:
            click.echo(f"refused {refusal.event_id}: {refusal.reason}")


def _check_tls(key: str | None, cert: str | None) -> None:
    """Both TLS files or neither, and a pair that loads: else one line naming the file.

    Checked here, before the port is bound: the servers would fail later, with a traceback.
    """
    if bool(key) != bool(cert):
        given, missing = ("--key", "--cert") if key else ("--cert", "--key")
        raise click.ClickException(
            f"{given}: TLS needs both files but {missing} is missing; "
            "pass --key and --cert together, or neither for plain HTTP"
        )
    if key is None or cert is None:
        return
    import ssl

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_verify_locations(cafile=cert)
    except (ssl.SSLError, ValueError):
        raise click.ClickException(
            f"--key/--cert: cannot load the certificate {cert} (no PEM certificate in it); "
            "pass the server's certificate in PEM format with --cert"
        ) from None
    asked: list[bool] = []

    def password() -> bytes:  # else OpenSSL would prompt for the password of an encrypted key
        asked.append(True)
        return b""

    try:
        context.load_cert_chain(cert, key, password=password)
    except ssl.SSLError as err:
        if err.reason == "KEY_VALUES_MISMATCH":
            problem = f"it is not the key of the certificate {cert}"
        elif asked:
            problem = "it is encrypted, and the server cannot ask for its password"
        else:
            problem = "no PEM private key in it"
        raise click.ClickException(
            f"--key/--cert: cannot load the private key {key} ({problem}); "
            "pass the certificate's unencrypted private key in PEM format with --key"
        ) from None


def _load(ctx: click.Context, *, consumer_database: bool = True) -> Any:
    try:
        return load_config(
            ctx.obj["CHDIR"], ctx.obj["FS_YAML_FILE"], consumer_database=consumer_database
        )
    except ConfigError as err:
        raise click.ClickException(str(err)) from None


def _check_database(
    url: str, option: str, *, migrate: bool = False, progress: MigrationProgress | None = None
) -> None:
    """Probe the lineage database, so a wrong one stops here with one line, not a traceback.

    With ``migrate``, bring its schema up to date too, telling ``progress``
    how far it has got.
    """
    from feast_lineage.consumer.store.engine.database import UnsuitableDatabase
    from feast_lineage.consumer.store.engine.probe import (
        DatabaseUnreachable,
        MigrationFailed,
        probe_database,
    )

    try:
        probe_database(url, migrate=migrate, progress=progress)
    except UnsuitableDatabase as err:
        raise ConfigError(option, err.problem, err.fix) from None
    except DatabaseUnreachable as err:
        raise ConfigError(
            option,
            str(err),
            "check the host, port, database name and credentials, and that the server is running",
        ) from None
    except MigrationFailed as err:
        raise ConfigError(
            option,
            str(err),
            "fix what the database said (space, permissions, a lock held elsewhere) and start "
            "again: the pending migrations run again",
        ) from None


def _serve(
    factory: Any,
    host: str,
    port: int,
    tls_key_path: str | None,
    tls_cert_path: str | None,
    *,
    root_path: str = "",
    workers: int = 1,
    header_timeout: float = 30,
    database: tuple[str, str] | None = None,
    preload: tuple[str, ...] = (),
    listening: Callable[[], None] | None = None,
) -> None:
    """Serve ``app`` until interrupted; a server-side config problem is one line.

    With ``database`` (its URL and the option that names it), its schema is
    brought up to date first, while the port answers not-ready. ``listening``
    is called once the port is bound.
    """
    from sqlalchemy import make_url

    from feast_lineage.server import SchemaUpgrade, WorkerStartupError, serve

    upgrade = None
    if database is not None:
        url, option = database
        upgrade = SchemaUpgrade(
            run=partial(_migrate, url, option), database=make_url(url).get_backend_name()
        )
    try:
        serve(
            factory,
            host=host,
            port=port,
            workers=workers,
            tls_key_path=tls_key_path or "",
            tls_cert_path=tls_cert_path or "",
            log_level="info",
            root_path=root_path,
            header_timeout=header_timeout,
            upgrade=upgrade,
            preload=preload,
            listening=listening,
        )
    except (ConfigError, WorkerStartupError) as err:
        raise click.ClickException(str(err)) from None


def _migrate(url: str, option: str, progress: MigrationProgress) -> None:
    _check_database(url, option, migrate=True, progress=progress)


def main() -> None:
    cli(prog_name="feast-lineage")


if __name__ == "__main__":  # pragma: no cover
    main()
