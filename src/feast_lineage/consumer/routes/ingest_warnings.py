"""Warnings of a successful ingest: what was stored, but deserves a word.

They are in the answer's body (``warnings``), and, for clients that read no
body (``POST /api/v1/lineage/batch`` answers 204 without one), in the
``Lineage-Warning`` header: one value per warning, ``code; count=N;
path=P``, plain ASCII.
"""

from __future__ import annotations

from typing import Any

HEADER = "Lineage-Warning"


def warning_header(warnings: list[dict[str, Any]]) -> dict[str, str] | None:
    if not warnings:
        return None
    values = (f"{w['code']}; count={w['count']}; path={w['path']}" for w in warnings)
    return {HEADER: ", ".join(values)}
