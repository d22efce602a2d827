"""The server process's own tuning (feast_lineage.server)."""

from __future__ import annotations

import subprocess
import sys

import pytest

# Allocates a 31 MB block and frees it, then a 30 MB one (less than the
# first: glibc's raised threshold puts it on the heap) and frees it, then
# prints how much the process grew, in MB.
_ALLOCATE = """
import sys
from pathlib import Path
from feast_lineage.server import tune_malloc

def resident():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

if sys.argv[1] == "tuned":
    assert tune_malloc()
start = resident()
block = b"a" * (31 << 20)
del block
block = b"b" * (30 << 20)
del block
print(resident() - start)
"""


def _growth(mode: str) -> float:
    out = subprocess.run(
        [sys.executable, "-c", _ALLOCATE, mode], check=True, capture_output=True, text=True
    )
    return float(out.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc and /proc")
def test_large_freed_blocks_go_back_to_the_system() -> None:
    # Untuned, glibc keeps the second block's 30 MB resident; the server
    # (tune_malloc) gives it back as soon as it is freed.
    assert _growth("untuned") > 25
    assert _growth("tuned") < 5
