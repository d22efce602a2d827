"""Running ingest work in a worker thread without keeping what it failed on.

An exception raised in a worker thread and re-raised in the request keeps
every frame it went through, and each frame its variables: the request body,
the inflated data, the parsed events. Passed back through a future held by
a frame in its own traceback (anyio's ``to_thread`` keeps its future in a
variable), it forms a reference cycle that only a full garbage collection
frees, so the bodies of rejected requests would pile up in memory between
collections. Here the failure comes back as a value, its worker frames'
variables are cleared (the traceback itself stays, for the log), and only
then is it raised in the request.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import TypeVar

from anyio import to_thread

T = TypeVar("T")


def _call(func: Callable[[], T]) -> tuple[T | None, Exception | None]:
    try:
        return func(), None
    except Exception as err:
        return None, err


async def run_in_thread(func: Callable[[], T]) -> T:
    """``func()`` in a worker thread; what it raises is raised here."""
    value, failure = await to_thread.run_sync(_call, func)
    if failure is None:
        return value  # type: ignore[return-value]
    traceback.clear_frames(failure.__traceback__)  # frames that have all returned
    try:
        raise failure
    finally:
        del failure  # this frame is in its traceback now
