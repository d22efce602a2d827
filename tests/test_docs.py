"""The documentation keeps up with the code.

- docs/configuration.md has a section for every option of both settings
  models, naming its environment variable and its default.
- docs/api.md names every endpoint of the app as `METHOD /path`.
- docs/ARCHITECTURE.md and docs/performance.md name only modules that exist.
(docs/cli.md is checked by tests/test_cli_docs.py.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from feast_lineage.config import ConsumerSettings, ProducerSettings
from feast_lineage.config.loader import consumer_env_names
from feast_lineage.config.producer import ENV_NAMES
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.settings import AppSettings

DOCS = Path(__file__).resolve().parents[1] / "docs"
CONFIGURATION = (DOCS / "configuration.md").read_text()
API = (DOCS / "api.md").read_text()


def option_sections(text: str) -> dict[str, str]:
    """``### `openlineage.x` `` headings and the text under each."""
    parts = re.split(r"^### `([^`]+)`\s*$", text, flags=re.MULTILINE)
    return {parts[i]: parts[i + 1].split("\n## ", 1)[0] for i in range(1, len(parts), 2)}


SECTIONS = option_sections(CONFIGURATION)

OPTIONS: list[tuple[str, str, str, Any]] = [
    (f"openlineage.{name}", name, ENV_NAMES[name], field.get_default(call_default_factory=True))
    for name, field in ProducerSettings.model_fields.items()
] + [
    (
        f"openlineage.consumer.{name}",
        name,
        consumer_env_names()[name],
        field.get_default(call_default_factory=True),
    )
    for name, field in ConsumerSettings.model_fields.items()
]


def as_documented(value: Any) -> str:
    """A default as the docs write it."""
    if value is None:
        return "unset"
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, bool | dict | list):
        return f"`{json.dumps(value)}`"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"`{value}`"


@pytest.mark.parametrize(
    ("option", "field", "env", "default"), OPTIONS, ids=[o[0] for o in OPTIONS]
)
def test_every_option_is_documented(option: str, field: str, env: str, default: Any) -> None:
    assert option in SECTIONS, f"docs/configuration.md has no '### `{option}`' section"
    section = SECTIONS[option]
    assert f"- Environment: `{env}`" in section, f"{option}: document its variable {env}"
    default_line = next(
        (line for line in section.splitlines() if line.startswith("- Default: ")), None
    )
    assert default_line is not None, f"{option}: document its default"
    assert default_line.removeprefix("- Default: ").startswith(as_documented(default)), (
        f"{option}: the default is {as_documented(default)}, the docs say {default_line!r}"
    )
    # Some prose beyond the two lines.
    prose = [line for line in section.splitlines() if line and not line.startswith("- ")]
    assert prose, f"{option}: say what it means"
    # And the summary table of its section has a row for it.
    assert re.search(rf"^\| `{field}` \|.*\| `{env}` \|$", CONFIGURATION, re.MULTILINE), (
        f"{option}: add it to the table"
    )


def test_no_documented_option_is_stale() -> None:
    known = {o[0] for o in OPTIONS}
    assert set(SECTIONS) == known, set(SECTIONS) ^ known


def test_the_consumers_extra_options_have_examples() -> None:
    for option in ("max_request_bytes", "max_batch_events"):
        section = SECTIONS[f"openlineage.consumer.{option}"]
        assert "```" in section, f"{option}: add an example"


def api_operations() -> list[str]:
    app = create_app(AppSettings(consumer=ConsumerSettings(), database_url="sqlite://"))
    return [
        f"{method.upper()} {path}" for path, ops in app.openapi()["paths"].items() for method in ops
    ]


@pytest.mark.parametrize("operation", api_operations())
def test_every_endpoint_is_in_the_api_docs(operation: str) -> None:
    assert f"`{operation}`" in API, f"docs/api.md does not mention `{operation}`"


def test_the_api_docs_list_every_error_status_of_the_handler() -> None:
    # The statuses the one error handler maps to codes appear in the table.
    for status, code in ((404, "not_found"), (405, "method_not_allowed"), (413, "body_too_large")):
        assert re.search(rf"^\| {status} \|.*`{code}`", API, re.MULTILINE), (status, code)


PACKAGE = Path(__file__).resolve().parents[1] / "src" / "feast_lineage"


@pytest.mark.parametrize("doc", ["ARCHITECTURE.md", "performance.md"])
def test_the_architecture_docs_name_only_modules_that_exist(doc: str) -> None:
    text = (DOCS / doc).read_text()
    named = set(re.findall(r"`([\w/]+(?:\.py|/))`", text))
    assert len(named) > 5
    # A path from the package, the consumer package, the store or the checkout; a bare
    # module name (in its layer's row), a module somewhere in the package.
    roots = (PACKAGE, PACKAGE / "consumer", PACKAGE / "consumer" / "store", *PACKAGE.parents[:2])
    modules = {path.name for path in PACKAGE.rglob("*.py")}
    missing = sorted(
        name
        for name in named
        if not any((root / name).exists() for root in roots)
        and not ("/" not in name and name in modules)
    )
    assert not missing, f"docs/{doc} names modules that do not exist: {missing}"
