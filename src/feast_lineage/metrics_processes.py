"""Prometheus figures shared by pre-forked worker processes (prometheus-client's multiprocess mode).

Any pre-fork manager (gunicorn's arbiter under ``serve_lineage --workers N``, or
another) calls :func:`prepare` once in the parent before it forks the
workers, :func:`worker_exited` with the pid of each worker that exits, and
:func:`finish` when it stops. Each worker then writes its figures to files
of its own in one directory, and ``/metrics``
(:meth:`feast_lineage.consumer.metrics.Metrics.render`) adds them up:
counters and histograms keep the figures of exited workers (a total never
goes down), gauges count live workers only.

The directory is ``PROMETHEUS_MULTIPROC_DIR`` when it is set (it must then
serve this server alone: its metric files are removed at start), else a new
temporary directory, removed at the end.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


class MetricsDir:
    """The directory of the workers' metric files, as :func:`prepare` set it up."""

    def __init__(self, path: Path, *, owned: bool) -> None:
        self.path = path
        self.owned = owned  # made by prepare(), so removed by finish()


def prepare() -> MetricsDir:
    """Point the workers at a clean directory of metric files; call before forking them."""
    given = os.environ.get(MULTIPROC_ENV)
    if given:
        path = Path(given)
        path.mkdir(parents=True, exist_ok=True)
        for stale in path.glob("*.db"):  # figures of an earlier run, whose pids may recur
            stale.unlink(missing_ok=True)
        owned = False
    else:
        path = Path(tempfile.mkdtemp(prefix="feast-lineage-metrics-"))
        os.environ[MULTIPROC_ENV] = str(path)
        owned = True
    # prometheus-client picks where values live when it is first imported; had
    # anything imported it before the variable was set, pick again, so that
    # every metric made from now on (in the workers) writes to the directory.
    values = sys.modules.get("prometheus_client.values")
    if values is not None:
        values.ValueClass = values.get_value_class()  # type: ignore[attr-defined]
    return MetricsDir(path, owned=owned)


def worker_exited(pid: int) -> None:
    """Drop the live-only figures (the gauges) of a worker that exited."""
    if not os.environ.get(MULTIPROC_ENV):
        return
    from prometheus_client import multiprocess

    with contextlib.suppress(OSError):
        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]


def finish(metrics_dir: MetricsDir) -> None:
    """Remove a directory :func:`prepare` made (one it was given stays, for a last scrape)."""
    if metrics_dir.owned:
        shutil.rmtree(metrics_dir.path, ignore_errors=True)
        if os.environ.get(MULTIPROC_ENV) == str(metrics_dir.path):
            del os.environ[MULTIPROC_ENV]
