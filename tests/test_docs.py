"""The documentation keeps up with the code.

- docs/configuration.md has a section for every option of both settings
  models, naming its environment variable and its default.
- docs/api.md names every endpoint of the app as `METHOD /path`.
- docs/ARCHITECTURE.md and docs/performance.md name only modules that exist (and the
  UI's build folder, which the server serves, whether or not the UI was built).
(docs/cli.md is checked by tests/test_cli_docs.py.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import feast_lineage
from feast_lineage.config import ConsumerSettings, ProducerSettings
from feast_lineage.config.loader import consumer_env_names
from feast_lineage.config.producer import ENV_NAMES
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.routes.ui import WEB_UI_DIR
from feast_lineage.consumer.schemas import GraphNode
from feast_lineage.consumer.services.registry_lineage import OBJECT_TYPES
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


# Graph node fields that their own sections document (Lineage health, as_of).
NODE_FIELDS_ELSEWHERE = {
    "state": "subgraph answers (and of the answers below) has a\n`state`",
    "health": "`health` is present",
    "version": "Each node carries `version`",
}


def test_the_graph_docs_name_every_field_of_a_node() -> None:
    start = API.index("A node carries Feast's fields")
    section = API[start : API.index("\n### ", start)]
    for name in GraphNode.__annotations__:
        if name in NODE_FIELDS_ELSEWHERE:
            assert NODE_FIELDS_ELSEWHERE[name] in API, name
            continue
        assert f"`{name}`" in section or f'"{name}"' in section, f"document the node's {name}"


def test_the_registry_docs_name_every_object_type() -> None:
    start = API.index("A node's id is `{project}:{group}:{name}`")
    section = API[start : API.index("\n### ", start)]
    for kind in OBJECT_TYPES:
        assert f"`{kind}`" in section, f"document the registry object type {kind}"


UI_SRC = Path(__file__).resolve().parents[1] / "ui" / "src"
NOT_ROUTE_KEYS = {"length"}  # an edge's drawn route (points), not the page's


def test_the_ui_links_table_names_every_tab_and_route_parameter() -> None:
    ui = (DOCS / "ui.md").read_text()
    start = ui.index("## Links")
    table = ui[start : ui.index("For example", start)]
    read: set[str] = set()
    for source in UI_SRC.rglob("*.ts*"):
        if source.name != "schema.d.ts":
            read |= set(re.findall(r"\broute\.([a-z_]+)\b", source.read_text()))
    missing = sorted(k for k in read - NOT_ROUTE_KEYS if f"`{k}`" not in table)
    assert not missing, f"docs/ui.md's Links table lacks {missing}"
    tabs = re.findall(r'\{ id: "([a-z]+)"', (UI_SRC / "App.tsx").read_text())
    assert "health" in tabs
    (tab_row,) = (line for line in table.splitlines() if line.startswith("| `tab` |"))
    assert not [t for t in tabs if t != "lineage" and f"`{t}`" not in tab_row], tab_row


PACKAGE = Path(__file__).resolve().parents[1] / "src" / "feast_lineage"
# Codes of warnings in a 2xx answer, not of errors.
WARNING_CODES = {"naive_event_time"}


def test_the_api_docs_error_table_lists_every_code_the_server_sends() -> None:
    table = "\n".join(line for line in API.splitlines() if re.match(r"^\| \d{3} \|", line))
    sent: set[str] = set()
    for module in PACKAGE.rglob("*.py"):
        text = module.read_text()
        sent |= set(re.findall(r'code\s*=\s*"([a-z_]+)"', text))
        sent |= set(re.findall(r'"code":\s*"([a-z_]+)"', text))  # bodies written by hand
    assert len(sent) > 20
    missing = sorted(code for code in sent - WARNING_CODES if f"`{code}`" not in table)
    assert not missing, f"docs/api.md's error table lacks {missing}"


def ui_build_folder() -> Path:
    """The folder the UI's build writes (ui/vite.config.*'s ``outDir``, from ui/): named
    by the docs on purpose, it exists only in a checkout where the UI was built."""
    (config,) = (PACKAGE.parents[1] / "ui").glob("vite.config.*")
    out_dir = re.search(r"""\boutDir\s*[:=]\s*["']([^"']+)["']""", config.read_text())
    assert out_dir, f"{config} sets no outDir"
    return (config.parent / out_dir.group(1)).resolve()


def test_the_server_serves_the_ui_from_the_ui_builds_folder() -> None:
    # (Within the package, wherever it is installed.)
    served = WEB_UI_DIR.relative_to(Path(feast_lineage.__file__).resolve().parent)
    assert served == ui_build_folder().relative_to(PACKAGE)


@pytest.mark.parametrize("doc", ["ARCHITECTURE.md", "performance.md"])
def test_the_architecture_docs_name_only_modules_that_exist(doc: str) -> None:
    text = (DOCS / doc).read_text()
    named = set(re.findall(r"`([\w/]+(?:\.py|/))`", text))
    assert len(named) > 5
    # A path from the package, the consumer package, the store or the checkout; a bare
    # module name (in its layer's row), a module somewhere in the package. The UI's build
    # folder is there once the UI is built (it is not in a fresh clone).
    roots = (PACKAGE, PACKAGE / "consumer", PACKAGE / "consumer" / "store", *PACKAGE.parents[:2])
    modules = {path.name for path in PACKAGE.rglob("*.py")}
    build = ui_build_folder()
    missing = sorted(
        name
        for name in named
        if not any((root / name).exists() or (root / name).resolve() == build for root in roots)
        and not ("/" not in name and name in modules)
    )
    assert not missing, f"docs/{doc} names modules that do not exist: {missing}"
