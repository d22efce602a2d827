"""Timers around functions, for the benchmarks that split an answer's time by step."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any


def time_calls(
    spent: dict[str, float], module: ModuleType, name: str, clock: Callable[[], float]
) -> None:
    """Replace ``module.name`` by a wrapper adding the ``clock`` time of each call to
    ``spent`` under ``module.name`` (the module's last dotted part)."""
    inner: Callable[..., Any] = getattr(module, name)
    label = f"{module.__name__.rsplit('.', 1)[-1]}.{name}"

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = clock()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[label] += clock() - started

    setattr(module, name, wrapper)
