"""JSON held in strings (tool-call arguments, a record's text): parsed with a depth limit.

:func:`loads_json` is ``json.loads`` that never raises ``RecursionError`` (nesting deeper than
:data:`MAX_JSON_DEPTH` is a ``ValueError``, like invalid JSON) and takes orjson's faster path
when the result is the same; :func:`json_deeper_than` finds where parsed JSON nests too deep.
Re-exported by :mod:`compactor.schema`, where the rest of the core imports them from.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

import orjson

from compactor._json import JsonArray, JsonObject, JsonValue
from compactor._util import lazy_pattern

__all__ = ["MAX_JSON_DEPTH", "json_deeper_than", "loads_json"]


MAX_JSON_DEPTH = 128
"""The deepest JSON the compactor handles (real agent records nest about 10 deep). A transcript
record nested deeper is refused when it is read (exit 2, naming file and line); tool-call
arguments nested deeper count as plain text. Deeper data would reach Python's recursion limit
in ``copy.deepcopy`` and friends, and orjson writes at most 254 levels."""


def json_deeper_than(value: JsonValue, limit: int = MAX_JSON_DEPTH) -> str | None:
    """None when ``value`` (parsed JSON) nests at most ``limit`` containers deep; else the
    top-level key (or ``[index]``) under which it goes deeper. Iterative: any depth is safe."""
    if isinstance(value, dict):
        top: Iterable[tuple[object, JsonValue]] = value.items()
    elif isinstance(value, list):
        top = ((f"[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    if limit < 1:
        return "<record>"
    for key, child in top:
        if isinstance(child, dict | list) and _deeper_than(child, limit - 1):
            return str(key)
    return None


def _deeper_than(value: JsonObject | JsonArray, limit: int) -> bool:
    stack: list[tuple[JsonObject | JsonArray, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, dict | list):
                stack.append((child, depth + 1))
    return False


_NOT_PARSED = object()
_LONG_NUMBER_RE = lazy_pattern(r"\d{19}")
_DIGIT_BYTES = bytes(0x30) + b"\x01" * 10 + bytes(256 - 0x3A)  # 1 at the bytes 0-9
_DIGIT_RUN = b"\x01" * 19


def _has_long_number(text: str) -> bool:
    """Whether :data:`_LONG_NUMBER_RE` finds 19 digits in a row in ``text``: for ASCII text
    (where its digits are 0-9) the digits are marked in C and the run looked for, 13 times
    faster than the pattern, which is tried at every character (a third of the time the
    summarizer spent reading tool-call arguments)."""
    if text.isascii():
        return text.encode("ascii").translate(_DIGIT_BYTES).find(_DIGIT_RUN) >= 0
    return _LONG_NUMBER_RE.search(text) is not None


def loads_json(text: str, parse_constant: Callable[[str], object] | None = None) -> JsonValue:
    """``json.loads(text)`` for JSON held in a string (tool-call arguments): nesting deeper
    than :data:`MAX_JSON_DEPTH` raises ``ValueError`` like invalid JSON does, never a
    ``RecursionError`` (callers already treat a ``ValueError`` as "not JSON: plain text")."""
    value: JsonValue = _NOT_PARSED
    if parse_constant is None and not _has_long_number(text):
        # orjson first (a summarizer parses ~10k tool-call arguments of a big transcript, five
        # times faster): without integers past 64 bits (it makes floats of them) it accepts a
        # subset of what json does (no NaN, no lone surrogates, 1,024 levels at most) and then
        # gives the same value; the rest is json's (a property test compares the two).
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    if value is _NOT_PARSED:
        try:
            value = json.loads(text, parse_constant=parse_constant)
        except RecursionError as err:
            raise ValueError(f"JSON nested more than {MAX_JSON_DEPTH} levels deep") from err
    # Each level needs a bracket: text with few of them cannot be too deep (no walk needed).
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH and json_deeper_than(value):
        raise ValueError(f"JSON nested more than {MAX_JSON_DEPTH} levels deep")
    return value
