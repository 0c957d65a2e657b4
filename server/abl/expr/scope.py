"""Where condition variables come from.

The evaluator only asks one question: "what is at this path?". The runtime answers it from its
session, persistent memory and tool results; tests and simple callers pass nested dicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from .ast import PathKey
from .values import UNDEFINED, is_list


@runtime_checkable
class Scope(Protocol):
    def lookup(self, path: Sequence[PathKey]) -> Any:
        """The value at `path` (first segment is the variable name), or `UNDEFINED`."""
        ...


class DictScope:
    """Variables in a (nested) mapping. A null or missing step makes the whole path undefined.

    A flat key spelled with dots (`{"intent.category": "x"}`) is also found, because runtimes
    often store routing state that way.
    """

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any] | None = None) -> None:
        self._data: Mapping[str, Any] = data if data is not None else {}

    def lookup(self, path: Sequence[PathKey]) -> Any:
        if not path:
            return UNDEFINED
        found = walk_value(self._data, path)
        if found is UNDEFINED and len(path) > 1 and all(isinstance(k, str) for k in path):
            flat = ".".join(path)  # type: ignore[arg-type]
            if flat in self._data:
                return self._data[flat]
        return found


class ChainScope:
    """Several scopes searched in order; the first that knows the path answers."""

    __slots__ = ("_scopes",)

    def __init__(self, *scopes: Scope) -> None:
        self._scopes = scopes

    def lookup(self, path: Sequence[PathKey]) -> Any:
        for scope in self._scopes:
            value = scope.lookup(path)
            if value is not UNDEFINED:
                return value
        return UNDEFINED


def walk_value(root: Any, path: Sequence[PathKey]) -> Any:
    """Follow `path` through mappings and lists; `UNDEFINED` as soon as a step is missing."""
    current = root
    for key in path:
        current = step_into(current, key)
        if current is UNDEFINED:
            return UNDEFINED
    return current


def step_into(container: Any, key: PathKey) -> Any:
    if isinstance(container, Mapping):
        if key in container:
            return container[key]
        if isinstance(key, int) and str(key) in container:
            return container[str(key)]
        return UNDEFINED
    if is_list(container):
        index = key if isinstance(key, int) else _digits(key)
        if index is None or not -len(container) <= index < len(container):
            return UNDEFINED
        return container[index]
    return UNDEFINED


def _digits(key: str) -> int | None:
    return int(key) if key.isdigit() and len(key) < 10 else None


def as_scope(scope: Scope | Mapping[str, Any] | None) -> Scope:
    if scope is None:
        return DictScope({})
    if isinstance(scope, Mapping):
        return DictScope(scope)
    return scope
