"""The lineage graph's vocabulary, shared by the store's walks, the services and the routes.

A node of the graph is a dataset, a field of a dataset, a job or a run; its
:class:`NodeId` is the string the API names it by (``dataset:{namespace}:{name}``,
``field:{namespace}:{name}:{field}``, ``job:{namespace}:{name}``,
``run:{run id}``). A name or field keeps no ``:`` in an id: its ``%`` and
``:`` are written ``%25`` and ``%3A`` (:func:`id_part`), so the last colon of
a dataset's or job's id ends its namespace (which may hold colons:
``s3://b``, ``postgres://db:5432``) and two nodes never share an id. A walk
goes one :data:`Way`; a request asks for a :data:`Direction`, one way or both
(:func:`ways`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

NodeKind = Literal["dataset", "field", "job", "run"]
Way = Literal["upstream", "downstream"]
Direction = Literal["upstream", "downstream", "both"]
EdgeType = Literal[
    "input", "output", "parent", "root", "symlink", "job_to_job", "dataset_to_dataset", "derived"
]
Origin = Literal["declared", "observed"]  # of explicit lineage: a JobEvent's or a RunEvent's

# A run's state from an event's type, and how types rank when a run's events are merged
# (a terminal one over START and RUNNING, over any other): ingest's rule
# (:mod:`.intake.derive`), which the reads of the past replay (:mod:`.store.read.runs_then`).
RUN_STATE_OF_TYPE = {
    "START": "RUNNING",
    "RUNNING": "RUNNING",
    "COMPLETE": "COMPLETE",
    "FAIL": "FAIL",
    "ABORT": "ABORT",
    "OTHER": "OTHER",
}
RUN_STATE_PRIORITY = {"COMPLETE": 2, "FAIL": 2, "ABORT": 2, "START": 1, "RUNNING": 1}
TERMINAL_TYPES = frozenset({"COMPLETE", "FAIL", "ABORT"})


def id_part(text: str) -> str:
    """``text`` as a name or field in a node id: ``%`` and ``:`` percent-encoded."""
    if "%" not in text and ":" not in text:
        return text
    return text.replace("%", "%25").replace(":", "%3A")


def ways(direction: Direction) -> tuple[Way, ...]:
    """The walks a direction asks for, upstream first."""
    if direction == "both":
        return ("upstream", "downstream")
    return (direction,)


@dataclass(frozen=True, slots=True)
class NodeId:
    """A node of the lineage graph, as the API names it (``str(node)``)."""

    kind: NodeKind
    namespace: str
    name: str
    field: str | None = None

    @classmethod
    def dataset(cls, namespace: str, name: str) -> NodeId:
        return cls("dataset", namespace, name)

    @classmethod
    def of_field(cls, namespace: str, name: str, field: str | None) -> NodeId:
        """A field of a dataset; ``None``: the whole dataset (the output of its dataset inputs)."""
        return (
            cls("dataset", namespace, name)
            if field is None
            else cls("field", namespace, name, field)
        )

    @classmethod
    def job(cls, namespace: str, name: str) -> NodeId:
        return cls("job", namespace, name)

    @classmethod
    def run(cls, run_id: str) -> NodeId:
        return cls("run", "", run_id)

    def __str__(self) -> str:
        if self.kind == "run":
            return f"run:{self.name}"
        if self.kind == "field":
            return f"field:{self.namespace}:{id_part(self.name)}:{id_part(self.field or '')}"
        return f"{self.kind}:{self.namespace}:{id_part(self.name)}"
