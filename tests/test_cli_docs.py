"""docs/cli.md is generated from --help and must be current."""

from __future__ import annotations

from pathlib import Path

import click

from feast_lineage import cli_docs
from feast_lineage.cli import cli

DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def test_docs_cli_md_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == cli_docs.render(), (
        "docs/cli.md is out of date: run `python -m feast_lineage.cli_docs`"
    )


def test_every_own_command_has_its_help_in_the_docs() -> None:
    text = cli_docs.render()
    assert cli.commands, "the group defines no command of its own"
    for name, command in cli.commands.items():
        assert f"## `feast-lineage {name}`" in text
        assert f"Usage: feast-lineage {name}" in text
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.opts[0] in text, f"{name}: {param.opts[0]} is not in the docs"


def test_feasts_commands_are_left_to_feasts_docs() -> None:
    text = cli_docs.render()
    commands = text.split("Commands:", 1)[1].split("```", 1)[0]
    listed = {line.split()[0] for line in commands.splitlines() if line.strip()}
    assert listed == set(cli.commands)


def test_a_new_command_shows_up_after_regenerating(tmp_path: Path) -> None:
    @cli.command("lineage_example_for_test")
    @click.option("--flavour", help="Which flavour.")
    def example(flavour: str | None) -> None:
        """An example command."""

    try:
        target = tmp_path / "cli.md"
        assert cli_docs.main([str(target)]) == 0
        text = target.read_text()
    finally:
        del cli.commands["lineage_example_for_test"]
    assert "## `feast-lineage lineage_example_for_test`" in text
    assert "--flavour TEXT  Which flavour." in text
    assert "lineage_example_for_test" not in cli_docs.render()
