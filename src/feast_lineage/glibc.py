"""The C library's allocator controls, where the C library is glibc.

Both the server (``mallopt``, once at start) and a worker after a large body
(``malloc_trim``) reach glibc's allocator through ctypes; elsewhere (musl,
another platform) there is nothing to call and they do without.
"""

from __future__ import annotations

import contextlib
import ctypes
import os


def libc() -> ctypes.CDLL | None:
    """The process's C library when it is glibc, else None."""
    try:
        version = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (ValueError, OSError):
        version = ""
    if not version.startswith("glibc"):
        return None
    with contextlib.suppress(OSError):
        return ctypes.CDLL(None)
    return None
