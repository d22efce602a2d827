"""The ``feast-lineage`` command: Feast's commands unchanged, plus serve_lineage."""

from __future__ import annotations

import json
import shutil
import socket
import sqlite3
import ssl
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner, Result

from feast_lineage.cli import cli
from tests.mysql import MySQLServer
from tests.postgres import free_port
from tests.server_process import ServerProcess, lineage_server, wait_ready, write_repo

SECRET = "pw-9f3Kq"

DEFINITIONS = """\
from datetime import timedelta

from feast import Entity, FeatureView, Field, FileSource, ValueType
from feast.types import Float32

driver = Entity(name="driver", join_keys=["driver_id"], value_type=ValueType.INT64)
trips = FileSource(
    name="driver_trips",
    path="data/driver_trips.parquet",
    timestamp_field="event_timestamp",
)
driver_trips = FeatureView(
    name="driver_trips",
    entities=[driver],
    ttl=timedelta(days=1),
    schema=[Field(name="conv_rate", dtype=Float32)],
    source=trips,
)
"""


def feast_repo(root: Path) -> Path:
    """A tiny Feast repository: a file registry and a FileSource over a parquet file."""
    (root / "data").mkdir(parents=True)
    config = {
        "project": "tiny",
        "registry": "data/registry.db",
        "provider": "local",
        "online_store": {"type": "sqlite", "path": "data/online.db"},
        "entity_key_serialization_version": 3,
    }
    (root / "feature_store.yaml").write_text(yaml.safe_dump(config))
    (root / "definitions.py").write_text(DEFINITIONS)
    frame = pd.DataFrame(
        {
            "driver_id": [1001, 1002],
            "conv_rate": [0.5, 0.75],
            "event_timestamp": pd.to_datetime(["2026-01-01", "2026-01-02"], utc=True),
        }
    )
    frame.to_parquet(root / "data" / "driver_trips.parquet")
    return root


def invoke(*args: str | Path, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], env=env, prog_name="feast-lineage")


def one_line_error(result: Result) -> str:
    """The message of a clean failure: exit code 1 and exactly one 'Error:' line."""
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    lines = result.output.splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: ")
    return lines[0].removeprefix("Error: ")


# --- The group: Feast's commands, unchanged ---------------------------------


def test_help_lists_feasts_commands_and_serve_lineage() -> None:
    from feast.cli.cli import cli as feast_cli

    result = invoke("--help")
    assert result.exit_code == 0, result.output
    listed = {
        line.split()[0]
        for line in result.output.split("Commands:", 1)[1].splitlines()
        if line.startswith("  ") and line.split()
    }
    feast_commands = set(feast_cli.list_commands(None))  # type: ignore[arg-type]
    assert {"apply", "plan", "materialize", "ui", "serve", "configuration"} <= feast_commands
    assert "serve_lineage" in cli.commands
    assert listed == feast_commands | set(cli.commands)
    for option in ("--chdir", "--feature-store-yaml", "--log-level"):
        assert option in result.output


def test_a_feast_command_gives_the_same_output_through_feast_lineage(tmp_path: Path) -> None:
    from feast.cli.cli import cli as feast_cli

    repo = feast_repo(tmp_path / "repo")
    ours = invoke("-c", repo, "configuration")
    theirs = CliRunner().invoke(feast_cli, ["-c", str(repo), "configuration"])
    assert ours.exit_code == 0, ours.output
    assert "project: tiny" in ours.output
    assert ours.output == theirs.output


# Feast 0.60+'s own `configuration` (compared with ours below) warns about its
# own openlineage field, which holds the section as written.
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")
def test_configuration_masks_secrets_unless_asked(tmp_path: Path) -> None:
    from feast.cli.cli import cli as feast_cli

    repo = feast_repo(tmp_path / "repo")
    config = yaml.safe_load((repo / "feature_store.yaml").read_text())
    config["registry"] = {
        "registry_type": "sql",
        "path": f"postgresql://feast:{SECRET}@db.example:5432/registry",
    }
    config["openlineage"] = {
        "enabled": True,
        "transport_type": "http",
        "transport_url": "http://lineage.example:6580",
        "api_key": f"emit-{SECRET}",
        "consumer": {"enabled": True, "api_key": f"consumer-{SECRET}"},
    }
    (repo / "feature_store.yaml").write_text(yaml.safe_dump(config))

    masked = invoke("-c", repo, "configuration")
    assert masked.exit_code == 0, masked.output
    assert SECRET not in masked.output
    shown = yaml.safe_load(masked.output)
    assert shown["registry"]["path"] == "postgresql://feast:***@db.example:5432/registry"
    assert shown["openlineage"]["api_key"] == "***"
    assert shown["openlineage"]["consumer"]["api_key"] == "***"
    assert shown["openlineage"]["transport_url"] == "http://lineage.example:6580"

    full = invoke("-c", repo, "configuration", "--show-secrets")
    theirs = CliRunner().invoke(feast_cli, ["-c", str(repo), "configuration"])
    assert full.exit_code == 0, full.output
    assert f"consumer-{SECRET}" in full.output
    assert full.output == theirs.output


def test_unknown_commands_fail_as_in_click() -> None:
    result = invoke("no-such-command")
    assert result.exit_code == 2
    assert "No such command 'no-such-command'" in result.output


def test_a_bad_log_level_names_the_option(tmp_path: Path) -> None:
    result = invoke("--log-level", "loud", "-c", tmp_path, "serve_lineage")
    assert result.exit_code == 2
    assert "--log-level" in result.output


@pytest.mark.slow
def test_feast_plan_runs_through_feast_lineage(tmp_path: Path) -> None:
    repo = feast_repo(tmp_path / "repo")
    done = subprocess.run(
        [sys.executable, "-m", "feast_lineage.cli", "-c", str(repo), "plan"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "Created entity driver" in done.stdout
    assert "Created feature view driver_trips" in done.stdout


def sql_registry_repo(root: Path, events: Path) -> Path:
    """The tiny repository on a SQL registry at a relative sqlite:/// URL, as the quickstart's,
    emitting lineage to the file ``events``."""
    repo = feast_repo(root)
    config = yaml.safe_load((repo / "feature_store.yaml").read_text())
    config["registry"] = {"registry_type": "sql", "path": "sqlite:///data/registry.db"}
    config["openlineage"] = {
        "enabled": True,
        "transport_type": "file",
        "additional_config": {"log_file_path": str(events)},
    }
    (repo / "feature_store.yaml").write_text(yaml.safe_dump(config))
    # A module name of its own: Feast imports the definitions into this process.
    (repo / "definitions.py").rename(repo / f"defs_{uuid.uuid4().hex[:10]}.py")
    return repo


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current directory: not the repository, and without a data/ folder."""
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("FEAST_FS_YAML_FILE_PATH", raising=False)
    monkeypatch.delenv("FEATURE_REPO_DIR_ENV_VAR", raising=False)
    return cwd


def test_every_command_runs_in_the_repository_given_with_c(tmp_path: Path, elsewhere: Path) -> None:
    # feast -c changes directory only for apply and plan: the others opened
    # sqlite:///data/registry.db from where they were started, and failed.
    events = tmp_path / "events.jsonl"
    sql_registry_repo(tmp_path / "repo", events)
    outputs = {}
    for command in (
        ["apply"],
        ["feature-views", "list"],
        ["materialize-incremental", "2026-01-03T00:00:00"],
        ["lineage-sync"],
        ["teardown"],
    ):
        result = invoke("-c", "../repo", *command)
        assert result.exit_code == 0, (command, result.output, result.exception)
        assert Path.cwd() == elsewhere  # given back when the command ends
        outputs[command[0]] = result.output
    assert "driver_trips" in outputs["feature-views"]
    assert outputs["lineage-sync"].startswith("Sent ")
    assert not (elsewhere / "data").exists()
    jobs = {json.loads(line)["job"]["name"] for line in events.read_text().splitlines()}
    assert "feast_materialize_incremental" in jobs


def test_relative_paths_of_a_commands_options_are_read_from_the_repository(
    tmp_path: Path, elsewhere: Path
) -> None:
    repo = write_repo(tmp_path / "repo")
    (repo / "junk.pem").write_text("not a PEM file\n")
    result = invoke("-c", repo, "serve_lineage", "--key", "junk.pem", "--cert", "junk.pem")
    assert one_line_error(result).startswith(
        "--key/--cert: cannot load the certificate junk.pem (no PEM certificate in it)"
    )


def test_a_chdir_that_is_no_folder_is_a_usage_error(elsewhere: Path) -> None:
    result = invoke("-c", "no-such-repo", "feature-views", "list")
    assert result.exit_code == 2
    assert "Invalid value for '--chdir' / '-c': Directory 'no-such-repo' does not exist" in (
        result.output
    )


@pytest.mark.parametrize("command", [["feature-views", "list"], ["lineage-sync"]])
def test_a_registry_sqlite_cannot_open_is_one_line_naming_it(
    tmp_path: Path, elsewhere: Path, command: list[str]
) -> None:
    # -f names the file; the repository stays the current directory, as with feast.
    repo = sql_registry_repo(tmp_path / "repo", tmp_path / "events.jsonl")
    message = one_line_error(invoke("-f", repo / "feature_store.yaml", *command))
    assert message == (
        f"registry.path: cannot open the SQLite database {elsewhere}/data/registry.db "
        f"(its folder {elsewhere}/data does not exist); a relative path in "
        f"feature_store.yaml is read from the feature repository ({elsewhere}), not from "
        f"the file's folder: pass the repository with -c {repo}"
    )


def test_a_repositorys_missing_data_folder_is_one_line(tmp_path: Path, elsewhere: Path) -> None:
    repo = sql_registry_repo(tmp_path / "repo", tmp_path / "events.jsonl")
    shutil.rmtree(repo / "data")
    message = one_line_error(invoke("-c", repo, "feature-views", "list"))
    assert message == (
        f"registry.path: cannot open the SQLite database {repo}/data/registry.db "
        f"(its folder {repo}/data does not exist); a relative path in feature_store.yaml is "
        f"read from the feature repository ({repo}): create the folder, or correct registry.path"
    )


# --- serve_lineage: configs that cannot work --------------------------------


BROKEN: list[tuple[str, dict[str, Any], str]] = [
    (
        "consumer on a file registry",
        {"registry": "data/registry.db"},
        "openlineage.consumer.connection_string: the consumer stores lineage in SQL",
    ),
    (
        "negative retention",
        {"consumer": {"retention_days": -1}},
        "openlineage.consumer.retention_days: input should be greater than or equal to 0",
    ),
    (
        "unknown store type",
        {"consumer": {"store_type": "mongo"}},
        "openlineage.consumer.store_type: input should be 'sql'",
    ),
]


@pytest.mark.parametrize(("change", "message"), [pytest.param(c, m, id=n) for n, c, m in BROKEN])
def test_serve_lineage_with_a_broken_config_prints_one_line(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    repo = write_repo(tmp_path, consumer=change.get("consumer"), registry=change.get("registry"))
    assert one_line_error(invoke("-c", repo, "serve_lineage")).startswith(message)


def test_serve_lineage_without_a_feature_store_yaml(tmp_path: Path) -> None:
    message = one_line_error(invoke("-c", tmp_path, "serve_lineage"))
    assert message.startswith(f"feature_store.yaml: {tmp_path / 'feature_store.yaml'} does not")


def test_serve_lineage_broken_config_in_a_real_process(tmp_path: Path) -> None:
    repo = write_repo(tmp_path, registry="data/registry.db")
    done = subprocess.run(
        [sys.executable, "-m", "feast_lineage.cli", "-c", str(repo), "serve_lineage"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "Error: openlineage.consumer.connection_string: the consumer stores lineage in SQL, "
        "but the registry is a file registry and no connection_string is set; "
        "set openlineage.consumer.connection_string (e.g. sqlite:///data/lineage.db) "
        "or use registry_type: sql"
    ]


def test_an_unreachable_database_fails_in_one_line_without_the_password(tmp_path: Path) -> None:
    url = f"postgresql://feast:{SECRET}@127.0.0.1:{free_port()}/lineage"
    repo = write_repo(tmp_path, consumer={"connection_string": url})
    message = one_line_error(invoke("-c", repo, "serve_lineage"))
    assert message.startswith(
        "openlineage.consumer.connection_string: cannot connect to the lineage database ("
    )
    assert message.endswith("and that the server is running")
    assert SECRET not in message


@pytest.mark.mysql
def test_a_case_insensitive_mysql_database_fails_in_one_line(
    tmp_path: Path, my: MySQLServer
) -> None:
    url = my.create_database(collation="utf8mb4_general_ci")
    repo = write_repo(tmp_path, consumer={"connection_string": url})
    assert one_line_error(invoke("-c", repo, "serve_lineage")) == (
        "openlineage.consumer.connection_string: the MySQL database uses utf8mb4 with "
        "collation utf8mb4_general_ci; create it with CHARACTER SET utf8mb4 COLLATE "
        "utf8mb4_bin (or ALTER DATABASE to those before the first start)"
    )


def _repo_with_store_at(tmp_path: Path, revision: str) -> Path:
    """A feature repo whose SQLite store is stamped at ``revision`` and holds nothing else."""
    (tmp_path / "data").mkdir()
    db = sqlite3.connect(tmp_path / "data" / "lineage.db")
    db.execute("CREATE TABLE feast_lineage_alembic_version (version_num VARCHAR(32) PRIMARY KEY)")
    db.execute("INSERT INTO feast_lineage_alembic_version VALUES (?)", (revision,))
    db.commit()
    db.close()
    return write_repo(tmp_path, consumer={"connection_string": "sqlite:///data/lineage.db"})


def test_a_store_a_newer_release_migrated_fails_in_one_line(tmp_path: Path) -> None:
    # Rolling a deployment back: the store's revision is one this release never had.
    repo = _repo_with_store_at(tmp_path, "0099_from_a_newer_release")
    message = one_line_error(invoke("-c", repo, "serve_lineage"))
    assert message.startswith(
        "openlineage.consumer.connection_string: the lineage store's schema is at revision "
        "0099_from_a_newer_release, which this feast-lineage does not know (its newest is "
    )
    assert message.endswith("or point connection_string at another database")


def test_a_migration_that_fails_says_so_in_one_line(tmp_path: Path) -> None:
    # A store stamped at 0018 whose tables are gone: migration 0019 reads the runs.
    repo = _repo_with_store_at(tmp_path, "0018")
    message = one_line_error(invoke("-c", repo, "serve_lineage"))
    assert message.startswith(
        "openlineage.consumer.connection_string: upgrading the lineage store's schema failed "
        "(OperationalError: no such table: feast_lineage_"
    )
    assert "cannot connect" not in message
    assert message.endswith("the pending migrations run again")


def test_an_unusable_sqlite_path_fails_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("a file where the data folder should be")
    repo = write_repo(tmp_path)  # the store is data/registry.db
    message = one_line_error(invoke("-c", repo, "serve_lineage"))
    assert message.startswith("registry.path: cannot connect to the lineage database (")


@pytest.mark.parametrize(("given", "missing"), [("--key", "--cert"), ("--cert", "--key")])
def test_half_a_tls_pair_fails_clearly(tmp_path: Path, given: str, missing: str) -> None:
    repo = write_repo(tmp_path)
    pem = tmp_path / "half.pem"
    pem.write_text("not used")
    message = one_line_error(invoke("-c", repo, "serve_lineage", given, pem))
    assert message == (
        f"{given}: TLS needs both files but {missing} is missing; "
        "pass --key and --cert together, or neither for plain HTTP"
    )


def test_a_missing_tls_file_is_a_usage_error(tmp_path: Path) -> None:
    repo = write_repo(tmp_path)
    result = invoke(
        "-c", repo, "serve_lineage", "--key", tmp_path / "no.key", "--cert", tmp_path / "no.crt"
    )
    assert result.exit_code == 2
    assert "Invalid value for '--key' / '-k'" in result.output
    assert "does not exist" in result.output


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["serve_lineage", "-p", "70000"], {}),
        (["ui", "--port", "65536"], {}),
        (["serve_lineage"], {"FEAST_LINEAGE_PORT": "99999"}),
        (["serve_lineage", "-p", "0"], {}),
    ],
    ids=["serve_lineage", "ui", "environment", "zero"],
)
def test_a_port_out_of_range_is_a_usage_error(
    tmp_path: Path, args: list[str], env: dict[str, str]
) -> None:
    repo = write_repo(tmp_path)
    result = invoke("-c", repo, *args, env=env)
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--port' / '-p'" in result.output
    assert "is not in the range 1<=x<=65535" in result.output


@pytest.mark.parametrize("consumer", [True, False], ids=["consumer-on", "consumer-off"])
def test_ui_on_a_port_that_is_taken_says_only_that(tmp_path: Path, consumer: bool) -> None:
    """The UI's address is printed once the port is bound: a taken port is one error line,
    never the address of a server that is not there."""
    repo = write_repo(tmp_path, consumer={"enabled": consumer})
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = invoke("-c", repo, "ui", "--port", port)
    said = one_line_error(result)
    assert said.startswith(f"--host/--port: cannot listen on 127.0.0.1:{port} ("), said
    assert "feast-lineage ui:" not in result.output


@pytest.fixture
def pems(tmp_path: Path) -> dict[str, Path]:
    """A key and its certificate, another pair's key, an encrypted key and a file of junk."""
    key, cert = self_signed(tmp_path)
    (tmp_path / "other").mkdir()
    other_key, _ = self_signed(tmp_path / "other")
    encrypted = tmp_path / "encrypted.key"
    subprocess.run(
        ["openssl", "rsa", "-in", str(key), "-aes256", "-passout", "pass:pw", "-out", encrypted],
        check=True,
        capture_output=True,
        timeout=60,
    )
    junk = tmp_path / "junk.pem"
    junk.write_text("not a PEM file\n")
    return {"key": key, "cert": cert, "other": other_key, "encrypted": encrypted, "junk": junk}


@pytest.mark.parametrize("command", ["serve_lineage", "ui"])
@pytest.mark.parametrize(
    ("key", "cert", "message"),
    [
        ("key", "key", "cannot load the certificate {key} (no PEM certificate in it)"),
        ("key", "junk", "cannot load the certificate {junk} (no PEM certificate in it)"),
        ("junk", "cert", "cannot load the private key {junk} (no PEM private key in it)"),
        ("cert", "cert", "cannot load the private key {cert} (no PEM private key in it)"),
        (
            "other",
            "cert",
            "cannot load the private key {other} (it is not the key of the certificate {cert})",
        ),
        ("encrypted", "cert", "cannot load the private key {encrypted} (it is encrypted, "),
    ],
    ids=["key-as-cert", "junk-cert", "junk-key", "cert-as-key", "other-key", "encrypted-key"],
)
def test_a_tls_file_that_does_not_load_is_one_line_naming_it(
    tmp_path: Path, pems: dict[str, Path], command: str, key: str, cert: str, message: str
) -> None:
    repo = write_repo(tmp_path / "repo")
    result = invoke(
        "-c", repo, command, "--port", free_port(), "--key", pems[key], "--cert", pems[cert]
    )
    said = one_line_error(result)
    assert said.startswith("--key/--cert: " + message.format(**pems)), said
    flag = "--cert" if message.startswith("cannot load the certificate") else "--key"
    assert said.endswith(f"in PEM format with {flag}"), said


@pytest.mark.parametrize("command", ["serve_lineage", "ui"])
def test_c_is_the_groups_chdir_only_not_cert(tmp_path: Path, command: str) -> None:
    key, cert = self_signed(tmp_path)
    result = invoke("-c", tmp_path, command, "--key", key, "-c", cert)
    assert result.exit_code == 2
    assert "No such option '-c'" in result.output
    help_text = invoke(command, "--help").output
    assert "  --cert FILE" in help_text
    assert "-c, --cert" not in help_text


@pytest.mark.parametrize("option", ["-c", "--chdir", "-f", "--log-level"])
def test_a_group_option_after_the_command_says_to_put_it_before(
    tmp_path: Path, option: str
) -> None:
    result = invoke("serve_lineage", option, tmp_path)
    assert result.exit_code == 2
    said = result.output.strip().splitlines()[-1]
    assert said == (
        f"Error: No such option '{option}'. {option} is an option of feast-lineage itself:"
        f" put it before the command, as in `feast-lineage {option} ... serve_lineage`."
    )


# --- serve_lineage: which feature_store.yaml, the way feast picks it --------


@pytest.fixture
def two_configs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """repo/feature_store.yaml lacks a project; conf/other.yaml has a bad retention."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "feature_store.yaml").write_text("openlineage: {}\n")
    write_repo(tmp_path / "conf", consumer={"retention_days": -5})
    (tmp_path / "conf" / "feature_store.yaml").rename(tmp_path / "conf" / "other.yaml")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FEAST_FS_YAML_FILE_PATH", raising=False)
    monkeypatch.delenv("FEATURE_REPO_DIR_ENV_VAR", raising=False)
    return repo


def test_chdir_picks_the_repository(two_configs: Path) -> None:
    assert one_line_error(invoke("-c", "repo", "serve_lineage")).startswith("project: is missing")
    assert one_line_error(invoke("--chdir", two_configs, "serve_lineage")).startswith("project:")


def test_the_current_directory_is_the_default_repository(
    two_configs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(two_configs)
    assert one_line_error(invoke("serve_lineage")).startswith("project: is missing")


def test_the_repository_can_come_from_the_environment(two_configs: Path) -> None:
    result = invoke("serve_lineage", env={"FEATURE_REPO_DIR_ENV_VAR": str(two_configs)})
    assert one_line_error(result).startswith("project: is missing")


@pytest.mark.parametrize("flag", ["-f", "--feature-store-yaml"])
def test_f_picks_the_file_relative_to_the_current_directory(two_configs: Path, flag: str) -> None:
    # As with feast: -f is a path from where the command runs, not from the repository.
    result = invoke("-c", "repo", flag, "conf/other.yaml", "serve_lineage")
    assert one_line_error(result).startswith("openlineage.consumer.retention_days:")


def test_the_file_can_come_from_the_environment(two_configs: Path) -> None:
    result = invoke(
        "-c", "repo", "serve_lineage", env={"FEAST_FS_YAML_FILE_PATH": "conf/other.yaml"}
    )
    assert one_line_error(result).startswith("openlineage.consumer.retention_days:")


# --- serve_lineage really serves ---------------------------------------------


def test_serve_lineage_serves_on_the_registry_database(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo")
    with lineage_server(repo) as server:
        response = httpx.get(server.url + "/healthz", timeout=5)
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert response.json()["database"] == "sqlite"
    # Without connection_string, the SQL registry's database holds the lineage.
    assert (repo / "data" / "registry.db").is_file()


def test_serve_lineage_reads_the_file_given_with_f(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "feature_store.yaml").write_text("this: [is not, usable\n")
    write_repo(tmp_path / "conf", consumer={"connection_string": "sqlite:///via-f/lineage.db"})
    port = free_port()
    log_path = tmp_path / "server.log"
    cmd = [sys.executable, "-m", "feast_lineage.cli", "-c", str(repo)]
    cmd += ["-f", str(tmp_path / "conf" / "feature_store.yaml"), "serve_lineage"]
    cmd += ["--port", str(port)]
    with started(cmd, log_path) as process:
        server = ServerProcess(process, f"http://127.0.0.1:{port}", log_path)
        wait_ready(server)
        assert httpx.get(server.url + "/healthz", timeout=5).status_code == 200
    # Relative SQLite paths resolve against the repository (-c), not the file's folder.
    assert (repo / "via-f" / "lineage.db").is_file()


def self_signed(tmp_path: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command-line tool is not installed")
    key, cert = tmp_path / "server.key", tmp_path / "server.crt"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return key, cert


@contextmanager
def started(cmd: list[str], log_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    with open(log_path, "ab") as log:
        process = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    server = ServerProcess(process, "", log_path)
    try:
        yield process
    finally:
        server.stop()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_serve_lineage_serves_https_with_key_and_cert(tmp_path: Path, workers: str) -> None:
    key, cert = self_signed(tmp_path)
    repo = write_repo(tmp_path / "repo")
    port = free_port()
    log_path = tmp_path / "server.log"
    cmd = [sys.executable, "-m", "feast_lineage.cli", "-c", str(repo), "serve_lineage"]
    cmd += ["--port", str(port), "--key", str(key), "--cert", str(cert), "--workers", workers]
    url = f"https://127.0.0.1:{port}/healthz"
    trust = ssl.create_default_context(cafile=str(cert))
    with started(cmd, log_path) as process:
        statuses: list[int] = []  # /readyz: 503 over TLS too while the schema is upgraded
        deadline = time.monotonic() + 60
        while 200 not in statuses and time.monotonic() < deadline:
            assert process.poll() is None, log_path.read_text()
            try:
                ready = httpx.get(url.replace("healthz", "readyz"), verify=trust, timeout=2)
                statuses.append(ready.status_code)
            except httpx.TransportError:  # refused, or a handshake no worker takes up yet
                time.sleep(0.1)
        assert 200 in statuses, log_path.read_text()
        response = httpx.get(url, verify=trust, timeout=5)
        assert response.status_code == 200
        assert response.json()["status"] == "ok"
        # The port speaks TLS only: plain HTTP gets no answer.
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5)
        # And the certificate is really checked: an unrelated CA is refused.
        with pytest.raises(httpx.ConnectError):
            httpx.get(url, timeout=5)


def test_an_import_from_no_feast_store_leaves_no_lineage_store_behind(tmp_path: Path) -> None:
    # The source is read first: a failed import created (and migrated) an empty store.
    repo = write_repo(
        tmp_path / "repo", consumer={"connection_string": "sqlite:///data/lineage.db"}
    )
    (repo / "data").mkdir()
    result = CliRunner().invoke(cli, ["-c", str(repo), "import-feast-lineage"])
    assert result.exit_code == 1, result.output
    assert "--source" in result.output
    assert sorted(p.name for p in (repo / "data").iterdir()) == []
