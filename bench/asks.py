"""The history answers the in-process benches ask, each returning its size (nodes)."""

from __future__ import annotations

import random

from feast_lineage.consumer.services import graph_history
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.window import Window


def page_at(read: StoreReader, rng: random.Random, at: Instant) -> int:
    """A 500-node page of the graph as of ``at``, at a random offset among the first 3,000."""
    page = graph_history.graph_page_at(
        read, namespace=None, limit=500, offset=rng.randrange(3000), at=at
    )
    return len(page["nodes"])


def subgraph_around(read: StoreReader, node: tuple[str, str, str], at: Instant | Window) -> int:
    """The depth-3 subgraph of ``node`` ((kind, namespace, name)) at ``at``, both directions.

    Raises :class:`~feast_lineage.consumer.errors.NotFound` when the node did not exist then.
    """
    kind, namespace, name = node
    answer = graph_history.subgraph_at(
        read,
        kind="job" if kind == "job" else "dataset",
        namespace=namespace,
        name=name,
        depth=3,
        direction="both",
        limit=500,
        at=at,
    )
    return len(answer["nodes"])
