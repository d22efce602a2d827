"""An event's explicit lineage (``lineage`` facets, ``jobDependencies``) as rows of its batch.

:func:`add_explicit_lineage` reads the event's statements
(:func:`feast_lineage.explicit_lineage.event_statements`) and adds their
rows (:mod:`feast_lineage.consumer.store.write.explicit_rows`): the pointer and
entity edges of each, their field-level entries as column lineage, and a
node for every job or dataset they name (a job only named is a stub, as a
parent job is). Called after the event's inputs and outputs, so a
``columnLineage`` facet of the same event wins over field entries for the
same (dataset, job, origin).
"""

from __future__ import annotations

from typing import Any

from feast_lineage.consumer.intake.row_builder import RowBuilder
from feast_lineage.consumer.store.write.explicit_rows import add_explicit_rows, explicit_rows
from feast_lineage.explicit_lineage import Node, event_statements
from feast_lineage.identity import dataset_id, job_id


def add_explicit_lineage(b: RowBuilder, event: dict[str, Any]) -> None:
    statements = event_statements(event)
    if not statements:
        return
    job = event.get("job")
    own = Node("job", job["namespace"], job["name"]) if isinstance(job, dict) else None
    for statement in statements:
        rows = explicit_rows(statement, rank=b.rank, time_us=b.time_us, run_id=b.run_id, job=own)
        add_explicit_rows(b.out, rows)
        for edge in statement.edges:
            for node in (edge.src, edge.dst):
                _named(b, node)


def _named(b: RowBuilder, node: Node) -> None:
    """A node a statement names: a stub job, or a dataset (kept as it is when the event has it)."""
    if node.kind == "job":
        if job_id(node.namespace, node.name) not in b.out.jobs:
            b.job(node.namespace, node.name, stub=True)
    elif dataset_id(node.namespace, node.name) not in b.out.datasets:
        # Named by a facet, not written: it does not make the event's producer its producer.
        b.dataset({"namespace": node.namespace, "name": node.name}, writes=False)
