"""The shared OpenLineage fixtures of other projects, loaded and made postable.

``../shared/openlineage/events`` holds real events written by other
producers (see its SOURCES.md). :func:`load_fixtures` reads every ``.json``
file and classifies it by content:

* ``malformed``: not parseable JSON;
* ``templated``: contains placeholders of a matcher library (json-unit's
  ``${json-unit.any-string}`` / ``${json-unit.regex}...``, the Jinja-ish
  ``{{ any(result) }}``, ``{{ is_uuid(result) }}``, ``{{ match(result, '...') }}``
  of dbt and compatibility-tests, Marquez's ``{{RUN_START_TIME}}``);
* ``partial``: lacks a field every OpenLineage event needs (``eventTime``,
  ``producer``, ``run.runId`` and ``job`` of a RunEvent, ``dataset`` of a
  DatasetEvent, ``job`` of a JobEvent);
* ``lenient``: complete except ``schemaURL``;
* ``complete``: everything the core schema requires.

:class:`TemplateFiller` turns a templated file into realistic events: run
ids are uuid4 (one per job within a file, so a START and its COMPLETE share
a run; a parent facet points at its parent job's run), times are "now" and
increase through the file, versions look like versions, regex placeholders
get a string the regex matches. Envelope fields a partial-match template
leaves out (``eventTime``, ``producer``, ``run.runId``) are added.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.conftest import EVENTS_DIR

_JSON_UNIT = "${json-unit."
_JINJA = re.compile(r"^\{\{\s*(?P<body>.*?)\s*\}\}$", re.DOTALL)
_MARQUEZ_END = re.compile(r"^RUN_END_TIME_AFTER_(?P<minutes>\d+)_MINUTES$")
_MATCH = re.compile(r"^match\(result,\s*'(?P<regex>.*)'\)$", re.DOTALL)
_FACET_KEYS = {"facets", "inputFacets", "outputFacets"}
_NUMBER_KEYS = {"rowCount", "size", "fileCount", "completed", "failed", "in-progress", "restored"}
_NUMBER_KEYS |= {"total"}


def has_placeholders(text: str) -> bool:
    return _JSON_UNIT in text or "{{" in text


def event_kind(event: Any) -> str | None:
    """How the consumer tells events apart: by structure."""
    if not isinstance(event, dict):
        return None
    for kind in ("run", "dataset", "job"):
        if kind in event:
            return kind
    return None


def missing_fields(event: Any) -> list[str]:
    """JSON paths of the required fields ``event`` lacks (schemaURL is not required here)."""
    if not isinstance(event, dict):
        return ["$"]
    kind = event_kind(event)
    if kind is None:
        return ["$"]
    missing = [f"$.{key}" for key in ("eventTime", "producer") if key not in event]
    run = event.get("run")
    if kind == "run" and isinstance(run, dict) and "runId" not in run:
        missing.append("$.run.runId")
    subject_key = "dataset" if kind == "dataset" else "job"
    if subject_key not in event:
        missing.append(f"$.{subject_key}")
    subject = event.get(subject_key)
    if isinstance(subject, dict):
        missing += [f"$.{subject_key}.{k}" for k in ("namespace", "name") if k not in subject]
    return missing


@dataclass(frozen=True)
class Fixture:
    path: Path
    text: str
    value: Any  # None when malformed
    kind: str  # complete | lenient | partial | templated | malformed

    @property
    def name(self) -> str:
        return self.path.relative_to(EVENTS_DIR).as_posix()

    @property
    def events(self) -> list[Any]:
        return self.value if isinstance(self.value, list) else [self.value]

    @property
    def group(self) -> str:
        return self.name.split("/", 1)[0]


def classify(text: str) -> tuple[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return "malformed", None
    if has_placeholders(text):
        return "templated", value
    events = value if isinstance(value, list) else [value]
    if any(missing_fields(e) for e in events):
        return "partial", value
    if any("schemaURL" not in e for e in events):
        return "lenient", value
    return "complete", value


def load_fixtures() -> list[Fixture]:
    fixtures = []
    for path in sorted(EVENTS_DIR.rglob("*.json")):
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        kind, value = classify(text)
        fixtures.append(Fixture(path, text, value, kind))
    return fixtures


def producer_for(group: str) -> str:
    if group.startswith("compat_"):
        return "https://github.com/OpenLineage/compatibility-tests"
    if group == "marquez":
        return "https://github.com/MarquezProject/marquez"
    integration = group.removeprefix("ol_").split("_", 1)[0]
    return f"https://github.com/OpenLineage/OpenLineage/tree/1.52.0/integration/{integration}"


def sample_for_regex(pattern: str) -> str:
    """A plausible string that ``pattern`` (a simple regex) fully matches."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        rest = pattern[i:]
        if rest.startswith(r"\d{"):
            end = rest.index("}")
            low, _, high = rest[3:end].partition(",")
            out.append("10" if int(high or low) >= 2 else "1")
            i += end + 1
        elif rest.startswith(r"\d+"):
            out.append("17")
            i += 3
        elif rest.startswith(r"\d"):
            out.append("7")
            i += 2
        elif rest.startswith("\\"):
            out.append(rest[1])
            i += 2
        elif rest.startswith((".*", ".+")):
            following = pattern[i + 2 : i + 3]
            if following == "/":
                out.append("/tmp")
            elif not following and out and out[-1].endswith("_"):
                out.append("0001")
            elif rest.startswith(".+"):
                out.append("x")
            i += 2
        else:
            out.append(rest[0])
            i += 1
    sample = "".join(out)
    if not re.fullmatch(pattern, sample):
        raise ValueError(f"no sample for regex {pattern!r}: extend sample_for_regex")
    return sample


def iso(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TemplateFiller:
    """Fills one templated file; keep one filler per file so run ids pair up."""

    def __init__(self, group: str, now: datetime | None = None) -> None:
        self.now = now or datetime.now(tz=UTC)
        self.producer = producer_for(group)
        self.tick = 0
        self.run_ids: dict[tuple[str, str], str] = {}

    def fill_file(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.fill_event(e) for e in value]
        return self.fill_event(value)

    def fill_event(self, event: dict[str, Any]) -> dict[str, Any]:
        self.tick += 1
        out: dict[str, Any] = {key: self._fill(key, val) for key, val in event.items()}
        job = out.get("job")
        job_key = _job_key(job)
        if "eventTime" not in out or _is_placeholder(event.get("eventTime")):
            out["eventTime"] = self._event_time(event.get("eventTime"))
        out.setdefault("producer", self.producer)
        run = out.get("run")
        if isinstance(run, dict):
            raw = event["run"].get("runId") if isinstance(event["run"], dict) else None
            if raw is None or _is_placeholder(raw):
                run["runId"] = self.run_id(job_key)
            facets = run.get("facets")
            if isinstance(facets, dict) and isinstance(facets.get("parent"), dict):
                self._link_runs(facets["parent"])
        return self._fill_run_ids(out)

    def run_id(self, job_key: tuple[str, str] | None) -> str:
        if job_key is None:
            return str(uuid.uuid4())
        return self.run_ids.setdefault(job_key, str(uuid.uuid4()))

    def _link_runs(self, parent: dict[str, Any]) -> None:
        for link in (parent, parent.get("root")):
            if not isinstance(link, dict) or not isinstance(link.get("run"), dict):
                continue
            run_ref = link["run"]
            if _is_placeholder(run_ref.get("runId")):
                run_ref["runId"] = self.run_id(_job_key(link.get("job")))

    def _fill_run_ids(self, value: Any) -> Any:
        """Any run id placeholder not paired with a job gets a fresh uuid4."""
        if isinstance(value, dict):
            return {
                k: str(uuid.uuid4())
                if k == "runId" and _is_placeholder(v)
                else self._fill_run_ids(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self._fill_run_ids(v) for v in value]
        return value

    def _event_time(self, placeholder: Any) -> str:
        body = _placeholder_body(placeholder) if isinstance(placeholder, str) else None
        if body == "RUN_START_TIME":
            return iso(self.now)
        end = _MARQUEZ_END.match(body or "")
        if end:
            return iso(self.now + timedelta(minutes=int(end["minutes"])))
        return iso(self.now + timedelta(seconds=self.tick))

    def _fill(self, key: str, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: self._fill(k, v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._fill(key, v) for v in value]
        if not _is_placeholder(value) or key == "runId":
            return value  # run ids are paired up by fill_event
        return self._sample(key, value)

    def _sample(self, key: str, placeholder: str) -> Any:
        if placeholder.startswith("${json-unit.regex}"):
            return sample_for_regex(placeholder.removeprefix("${json-unit.regex}"))
        body = _placeholder_body(placeholder) or ""
        match = _MATCH.match(body)
        if match:
            return sample_for_regex(match["regex"])
        if key in _FACET_KEYS:
            return {}
        if placeholder == "${json-unit.any-number}" or key in _NUMBER_KEYS:
            return 3
        lowered = key.lower()
        if "is_uuid" in body or lowered.endswith("id") or key == "hive.query.id":
            return str(uuid.uuid4())
        if "is_datetime" in body or lowered.endswith("time") or body.startswith("RUN_"):
            return iso(self.now + timedelta(seconds=self.tick))
        if "version" in lowered:
            return "1.52.0"
        return f"sample-{key}"


def _is_placeholder(value: Any) -> bool:
    return isinstance(value, str) and (
        value.startswith(_JSON_UNIT) or _JINJA.match(value) is not None
    )


def _placeholder_body(value: str) -> str | None:
    match = _JINJA.match(value)
    return match["body"] if match else None


def _job_key(job: Any) -> tuple[str, str] | None:
    if not isinstance(job, dict):
        return None
    namespace, name = job.get("namespace"), job.get("name")
    if isinstance(namespace, str) and isinstance(name, str):
        return namespace, name
    return None


def contains_placeholder(value: Any) -> bool:
    if isinstance(value, dict):
        return any(contains_placeholder(v) for v in value.values())
    if isinstance(value, list):
        return any(contains_placeholder(v) for v in value)
    return _is_placeholder(value)
