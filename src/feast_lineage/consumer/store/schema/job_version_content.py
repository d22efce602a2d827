"""A job version's stored content (``feast_lineage_job_versions.content``) and its id.

The content is canonical JSON: the tables the version reads and writes
(``[namespace, name]`` pairs, sorted) and the digest of each of its source
facets by name. The id is the digest of the job's id and that text, so
equal definitions of one job are one version however often and in
whatever order their events arrive.
"""

from __future__ import annotations

from dataclasses import dataclass

from feast_lineage import canonical_json


@dataclass(frozen=True, slots=True)
class VersionContent:
    """What defines a version: its tables read and written, and its source facets' digests."""

    inputs: tuple[tuple[str, str], ...]
    outputs: tuple[tuple[str, str], ...]
    sources: tuple[tuple[str, str], ...]  # (facet name, digest), by name

    def to_json(self) -> str:
        return canonical_json.dumps_str(
            {
                "inputs": [list(d) for d in self.inputs],
                "outputs": [list(d) for d in self.outputs],
                "sources": dict(self.sources),
            }
        )

    @staticmethod
    def from_json(text: str) -> VersionContent:
        value = canonical_json.loads(text)
        return VersionContent(
            inputs=tuple((ns, name) for ns, name in value["inputs"]),
            outputs=tuple((ns, name) for ns, name in value["outputs"]),
            sources=tuple(sorted(value["sources"].items())),
        )


def version_id(job_id: int, content: VersionContent) -> str:
    """The content-derived id of a version of job ``job_id``."""
    return text_version_id(job_id, content.to_json())


def text_version_id(job_id: int, content: str) -> str:
    """The id of a version of job ``job_id`` whose content's text is ``content``."""
    return canonical_json.digest(f"{job_id}\x1f{content}".encode())
