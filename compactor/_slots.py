"""How the message dataclasses of :mod:`compactor.schema` are stored and copied cheaply.

:func:`shared_empty` makes the one unchangeable empty list or dict every message a reader builds
without parts, tool calls or extra keys may share (:data:`SHARED_EMPTY_LIST`,
:data:`SHARED_EMPTY_CALLS`, :data:`SHARED_EMPTY_DICT`, re-exported by
:mod:`compactor.schema`);
:func:`deepcopy_slots` is their ``__deepcopy__``, attribute by attribute. Apart from the message
types themselves, which only name these.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, cast

from compactor._json import JsonObject

if TYPE_CHECKING:
    from compactor.schema import Part, ToolCall

__all__ = [
    "SHARED_EMPTY_CALLS",
    "SHARED_EMPTY_DICT",
    "SHARED_EMPTY_LIST",
    "deepcopy_slots",
    "shared_empty",
]


def shared_empty(base: type, changers: tuple[str, ...]) -> object:
    """One empty ``base`` (list or dict) that refuses to change: shared by every message a
    reader builds without tool calls, parts or extra keys (a million tiny messages held three
    fresh empty containers each, 176 bytes a message). Equal to ``[]`` / ``{}``; a copy, a deep
    copy or an unpickled one is a plain, new, mutable ``base``."""

    def refuse(self: object, *args: object, **kwargs: object) -> None:
        raise TypeError(
            f"this message's empty {base.__name__} is shared by the messages a reader built: "
            f"assign a new {base.__name__} to the field instead of changing it in place"
        )

    def fresh(self: object, *args: object) -> object:
        return base()

    def reduce(self: object) -> tuple[type, tuple[()]]:
        return base, ()

    names: dict[str, object] = dict.fromkeys(changers, refuse)
    names.update(__slots__=(), __copy__=fresh, __deepcopy__=fresh, __reduce__=reduce)
    return type(f"SharedEmpty{base.__name__.title()}", (base,), names)()


_LIST_CHANGERS = ("append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse")
_DICT_CHANGERS = ("pop", "popitem", "clear", "update", "setdefault", "__ior__")
_ITEM_CHANGERS = ("__setitem__", "__delitem__")
SHARED_EMPTY_LIST = cast(
    "list[Part]", shared_empty(list, (*_LIST_CHANGERS, *_ITEM_CHANGERS, "__iadd__", "__imul__"))
)
"""The shared, unchangeable empty list a reader may put in ``Message.parts`` (and, as
:data:`SHARED_EMPTY_CALLS`, in ``Message.tool_calls``: :func:`shared_empty`); assign a new list
to change the field."""
SHARED_EMPTY_CALLS = cast("list[ToolCall]", SHARED_EMPTY_LIST)
""":data:`SHARED_EMPTY_LIST`, typed for ``Message.tool_calls``."""
SHARED_EMPTY_DICT = cast("JsonObject", shared_empty(dict, (*_DICT_CHANGERS, *_ITEM_CHANGERS)))
"""The shared, unchangeable empty dict a reader may put in ``Message.extra``."""

_ATOMIC: frozenset[type] = frozenset({str, int, float, bool, type(None), bytes})
_STATE_NAMES: dict[type, tuple[str, ...]] = {}


def _state_names(cls: type) -> tuple[str, ...]:
    names = _STATE_NAMES.get(cls)
    if names is None:
        found: list[str] = []
        for klass in cls.__mro__:
            slots = klass.__dict__.get("__slots__", ())
            for name in (slots,) if isinstance(slots, str) else slots:
                if name not in ("__dict__", "__weakref__") and name not in found:
                    found.append(name)
        names = _STATE_NAMES[cls] = tuple(found)
    return names


def deepcopy_slots(self: object, memo: dict[int, object]) -> object:
    """``copy.deepcopy`` for the message dataclasses, attribute by attribute.

    The middleware copies histories at every step (SPEC §8: nothing the caller holds is ever
    changed); the generic ``__reduce_ex__`` route costs about 10 calls per message, this one
    copies only what is not immutable. Subclasses (extra slots or a ``__dict__``) are covered.
    """
    cls = type(self)
    new = object.__new__(cls)
    memo[id(self)] = new
    for name in _state_names(cls):
        try:
            value = getattr(self, name)
        except AttributeError:
            continue
        if type(value) not in _ATOMIC:
            value = copy.deepcopy(value, memo)
        object.__setattr__(new, name, value)
    state = getattr(self, "__dict__", None)
    if state:
        new.__dict__.update(copy.deepcopy(state, memo))
    return new
