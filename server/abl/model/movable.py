"""Moving a part of the model some rows down without reading it: a copy that fills itself in.

The model's positions are absolute, so an agent below a new line is a new object with every
position one row further (`model.incremental`). Copying the whole agent at once costs what
lowering it again costs, for thousands of agents that nobody reads after a keystroke: their
rules' results and graph edges are taken over without looking inside them. So a moved value is
made empty, holding the value it stands for and how far it moved (`_pending`), and each of its
fields is copied (and moved) the first time one of them is read, one level at a time: its
children are moved copies of the same kind, filled in when read in turn.

Every dataclass of the model derives from `Movable`; a class that does not is taken as having no
positions of its own and is shared as it is (`tests/model/test_movable.py` holds the model to it).
"""

from __future__ import annotations

import dataclasses
import weakref
from typing import TYPE_CHECKING, Any, ClassVar

from abl.syntax.cst import Node
from abl.text import Position, Range, rows_on

# (the value stood for, rows moved, the copies made by this move: id → (original, copy), both
# held weakly, so that a copy made by one move never keeps the copies of earlier moves alive)
_Done = dict[int, tuple[weakref.ref, weakref.ref]]
_Pending = tuple[Any, int, _Done]


class Movable:
    """The base of the model's dataclasses: an instance may be a moved copy not yet filled in."""

    # Unset on a value built the usual way; a `_Pending` on a moved copy until it is read, then
    # None. Reading an unset field of a slotted class falls through to `__getattr__`, so a
    # filled-in value pays nothing on access.
    __slots__ = ("__weakref__", "_pending")

    # Fields set on a moved copy as it is made, for a class whose copies are asked the same few
    # things right away (an agent: its name, file and blocks), so that asking fills nothing in.
    # Naming every field copies the value whole, filled in from the start.
    eager_fields: ClassVar[tuple[str, ...]] = ()
    # Of those, the ones whose value holds no position of its own (nodes, which move themselves,
    # in a list; a tuple of names and ids): the copy takes the very object, not a copy of it.
    # The value must not be changed in place once made.
    shared_fields: ClassVar[tuple[str, ...]] = ()

    if not TYPE_CHECKING:  # hidden from the type checker, which would take any name for a field

        def __getattr__(self, name: str) -> Any:
            if name != "_pending":
                try:
                    pending = object.__getattribute__(self, "_pending")
                except AttributeError:
                    pending = None
                if pending is not None:
                    _fill(self, pending)
                    return getattr(self, name)
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


def moved(value: Any, delta: int) -> Any:
    """`value` with every position `delta` rows further down: what lowering its nodes again
    gives once they moved `delta` rows. Nodes are shared (they moved themselves), and so are
    parsed expressions, whose spans are offsets into their own text."""
    return _move(value, delta, {})


def origin(value: Any) -> tuple[Any, int]:
    """What a moved copy not read yet stands for, and how many rows further on it is; any
    other value stands for itself, 0 rows on. Two values of one origin moved alike: every
    position of the one is the other's, moved by the difference of their rows."""
    try:
        pending = object.__getattribute__(value, "_pending")
    except AttributeError:
        return value, 0
    return (value, 0) if pending is None else (pending[0], pending[1])


def is_filled(value: Movable) -> bool:
    """Whether a moved copy has been read (always true of a value built the usual way)."""
    try:
        return object.__getattribute__(value, "_pending") is None
    except AttributeError:
        return True


def _fill(copy: Movable, pending: _Pending) -> None:
    original, delta, done = pending
    object.__setattr__(copy, "_pending", None)
    put = object.__setattr__
    for name in _fields(type(copy)):
        try:
            object.__getattribute__(copy, name)
            continue  # written since it was made (a mutable class): that value stands
        except AttributeError:
            pass
        item = getattr(original, name)
        kind = type(item)
        if kind in _SHARED:
            put(copy, name, item)
        elif kind is Range:
            put(copy, name, rows_on(item, delta))
        else:
            put(copy, name, _move(item, delta, done))


def _move(value: Any, delta: int, done: _Done) -> Any:
    kind = type(value)
    if kind in _SHARED:
        return value
    if kind is Range:
        return rows_on(value, delta)
    if kind is Position:
        return Position(value.line + delta, value.character)
    if isinstance(value, Movable):
        known = done.get(id(value))
        if known is not None and known[0]() is value:
            made = known[1]()
            if made is not None:
                return made  # one object held in two places stays one object
        copy: Any = object.__new__(kind)
        try:
            pending = object.__getattribute__(value, "_pending")
        except AttributeError:
            pending = None
        if pending is None:
            source, moves = value, delta
        else:
            # A moved copy not read yet moves again: it stands for the same value, further on,
            # so that copies never stack up edit after edit.
            source, moves = pending[0], pending[1] + delta
            done[id(source)] = (weakref.ref(source), weakref.ref(copy))
        eager, shared, whole = _plan(kind)
        put = object.__setattr__
        put(copy, "_pending", None if whole else (source, moves, done))
        done[id(value)] = (weakref.ref(value), weakref.ref(copy))
        for name in shared:
            put(copy, name, getattr(source, name))
        for name in eager:
            item = getattr(source, name)
            put(copy, name, item if type(item) in _SHARED else _move(item, moves, done))
        return copy
    elif kind is list:
        copy = [item if type(item) in _SHARED else _move(item, delta, done) for item in value]
    elif kind is tuple:
        copy = tuple(item if type(item) in _SHARED else _move(item, delta, done) for item in value)
    elif kind is dict:
        copy = {key: item if type(item) in _SHARED else _move(item, delta, done) for key, item in value.items()}
    else:
        _SHARED.add(kind)  # enums, parsed expressions: no positions of their own
        return value
    return copy


def _plan(kind: type) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """The fields a moved copy of `kind` is made with, those of them moved and those shared,
    and whether they are all of its fields: a small value whose every field is asked at once
    (a name) is copied whole, as filling it in later would cost more than copying it now."""
    plan = _PLANS.get(kind)
    if plan is None:
        eager: tuple[str, ...] = getattr(kind, "eager_fields", ())
        shared: tuple[str, ...] = getattr(kind, "shared_fields", ())
        moved = tuple(name for name in eager if name not in shared)
        plan = _PLANS[kind] = (moved, shared, bool(eager) and len(eager) == len(_fields(kind)))
    return plan


def _fields(kind: type) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(spec.name for spec in dataclasses.fields(kind))
    return names


# Types whose values are taken as they are: no positions inside (a node moved itself). Other
# kinds found outside the model (enums, parsed expressions) join on first sight.
_SHARED: set[type] = {str, int, float, bool, type(None), Node}
_FIELDS: dict[type, tuple[str, ...]] = {}
_PLANS: dict[type, tuple[tuple[str, ...], tuple[str, ...], bool]] = {}
