"""The ``feast-lineage`` command: Feast's CLI plus the lineage commands.

Every ``feast`` command works unchanged through it: the group takes Feast's
own options (-c/--chdir, -f/--feature-store-yaml, --log-level) and hands any
command it does not define itself to Feast's click commands. Feast is
imported only when such a command runs, so ``feast-lineage serve_lineage``
starts quickly.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import click

from feast_lineage.config import ConfigError, load_config

_FS_YAML_ENV = "FEAST_FS_YAML_FILE_PATH"


def _feast_cli() -> click.Group:
    from feast.cli.cli import cli as feast_cli

    return feast_cli


class LineageCLI(click.Group):
    """A click group whose unknown commands are Feast's."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = set(super().list_commands(ctx))
        names.update(_feast_cli().list_commands(ctx))
        return sorted(names)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        own = super().get_command(ctx, cmd_name)
        if own is not None:
            return own
        return _feast_cli().get_command(ctx, cmd_name)


@click.group(cls=LineageCLI)
@click.option(
    "--chdir",
    "-c",
    envvar="FEATURE_REPO_DIR_ENV_VAR",
    help="Switch to a different feature repository directory before executing the given "
    "subcommand. Can also be set via the FEATURE_REPO_DIR_ENV_VAR environment variable.",
)
@click.option(
    "--log-level",
    default="warning",
    help="The logging level. One of DEBUG, INFO, WARNING, ERROR, and CRITICAL (case-insensitive).",
)
@click.option(
    "--feature-store-yaml",
    "-f",
    help="Override the directory where the CLI should look for the feature_store.yaml file. "
    f"Can also be set via the {_FS_YAML_ENV} environment variable.",
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
        ctx.obj["FS_YAML_FILE"] = Path(os.environ[_FS_YAML_ENV])
    else:
        ctx.obj["FS_YAML_FILE"] = repo / "feature_store.yaml"
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
    for name in logging.root.manager.loggerDict:
        if "feast" in name:
            logging.getLogger(name).setLevel(level)
    ctx.obj["LOG_LEVEL"] = log_level


@cli.command("serve_lineage")
@click.option("--host", "-h", default="127.0.0.1", show_default=True, help="Host to listen on")
@click.option("--port", "-p", type=click.INT, default=6580, show_default=True, help="Port")
@click.option("--key", "-k", "tls_key_path", default="", help="TLS private key (with --cert)")
@click.option("--cert", "tls_cert_path", default="", help="TLS certificate (with --key)")
@click.pass_context
def serve_lineage(
    ctx: click.Context, host: str, port: int, tls_key_path: str, tls_cert_path: str
) -> None:
    """Start the standalone OpenLineage consumer (ingest, query and admin API)."""
    from feast_lineage.consumer.app import create_app
    from feast_lineage.consumer.settings import AppSettings
    from feast_lineage.server import serve

    config = _load(ctx)
    if not config.consumer.enabled:
        logging.getLogger(__name__).warning(
            "openlineage.consumer.enabled is false; serving the consumer anyway "
            "because serve_lineage was asked for"
        )
    settings = AppSettings.from_config(config, standalone=True)
    app = create_app(settings)
    try:
        serve(
            app,
            host=host,
            port=port,
            tls_key_path=tls_key_path,
            tls_cert_path=tls_cert_path,
            log_level="info",
        )
    except ConfigError as err:
        raise click.ClickException(str(err)) from None


def _load(ctx: click.Context) -> Any:
    try:
        return load_config(ctx.obj["CHDIR"], ctx.obj["FS_YAML_FILE"])
    except ConfigError as err:
        raise click.ClickException(str(err)) from None


def main() -> None:
    cli(prog_name="feast-lineage")


if __name__ == "__main__":  # pragma: no cover
    main()
