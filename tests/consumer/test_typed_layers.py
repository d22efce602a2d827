"""No ``Any`` crosses the read side's layers: store reads, administration and services.

Every public function (and public method of a public class) of
``consumer.store.read``, ``consumer.store.admin`` and ``consumer.services``
has its parameters and return annotated with types that hold no ``Any`` at
any depth (``dict[str, Any]`` included): reads return typed records and
services the response models the routes declare.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import typing
from collections.abc import Callable, Iterator
from types import ModuleType

import pytest

import feast_lineage.consumer.services
import feast_lineage.consumer.store.admin
import feast_lineage.consumer.store.read

PACKAGES = (
    feast_lineage.consumer.store.read,
    feast_lineage.consumer.store.admin,
    feast_lineage.consumer.services,
)


def modules(package: ModuleType) -> Iterator[ModuleType]:
    for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
        yield importlib.import_module(info.name)


def public_functions(module: ModuleType) -> Iterator[tuple[str, Callable[..., object]]]:
    """Functions defined in ``module``, and the methods of its classes, not named with _."""
    for name, value in vars(module).items():
        if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(value):
            yield name, value
        elif inspect.isclass(value):
            for method_name, method in vars(value).items():
                function = (
                    method.__func__ if isinstance(method, classmethod | staticmethod) else method
                )
                if inspect.isfunction(function) and not method_name.startswith("_"):
                    yield f"{name}.{method_name}", function


def holds_any(annotation: object) -> bool:
    """Whether ``Any`` is the annotation or inside it, at any depth."""
    if annotation is typing.Any:
        return True
    return any(holds_any(arg) for arg in getattr(annotation, "__args__", ()) or ())


def untyped(function: Callable[..., object]) -> list[str]:
    """The parameters (and ``return``) of ``function`` whose annotation holds ``Any``."""
    hints = typing.get_type_hints(function)
    return sorted(name for name, hint in hints.items() if holds_any(hint))


def checked_modules() -> list[ModuleType]:
    return [m for package in PACKAGES for m in modules(package)]


@pytest.mark.parametrize("module", checked_modules(), ids=lambda m: m.__name__)
def test_public_signatures_hold_no_any(module: ModuleType) -> None:
    offenders = {
        name: params for name, function in public_functions(module) if (params := untyped(function))
    }
    assert not offenders, (
        f"{module.__name__}: these signatures hold Any (annotate with a typed record, "
        f"a response model of schemas.py, or JsonValue): {offenders}"
    )


def returns_any() -> typing.Any:
    return None


def takes_a_dict(value: dict[str, typing.Any]) -> list[int]:
    return []


def typed(value: dict[str, list[int | None]]) -> tuple[int, ...]:
    return ()


def test_the_check_finds_any_at_any_depth() -> None:
    assert untyped(returns_any) == ["return"]
    assert untyped(takes_a_dict) == ["value"]
    assert untyped(typed) == []
