"""One masking rule for the whole embedded summary (blind check 28: the summary of a session
masked the user's GitHub token in §1 but printed it verbatim in §6, and printed a login
password the user typed while §7 masked the same password in a curl's arguments).

:func:`masked` masks a text with the summary's maskers (``secrets.shapes.mask_key_shapes``
for key shapes, ``_util.mask_secret_values`` for ``name = value`` credentials); inside
:func:`collecting` every value they mask, in any part of any render, is kept, and
:func:`mask_repeats` then masks each of those values wherever else the finished summary holds
it, whatever its context there (a password the user wrote as prose, a token split from its
credential word by a line break), and a long value's fragment where a cut ended it
(``ghp_Ab3dEf… (387 more characters)``). The placeholder is ``***`` for every value.

Only the summary text is masked: messages kept verbatim after the summary are not."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from compactor._util import SECRET_VALUE_PREFILTER, lazy_pattern, mask_secret_values

if TYPE_CHECKING:
    from compactor.secrets.secret_scan import FastScan

__all__ = ["collecting", "mask_repeats", "masked", "masked_whole"]

MASK = "***"
_FOUND: ContextVar[set[str] | None] = ContextVar("summary_secret_values", default=None)
_WORD = lazy_pattern(r"(?![\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff])[\w\-]")
"""A character of a word; a CJK, kana or hangul one is not: CJK prose glues words to a value
(``密码<value>也是对的``, blind check 67 S3: a password masked elsewhere was printed there)."""
_FRAGMENT = 8
"""A fragment of a value of at least 16 characters that starts the value and is this long
or longer, ended by a cut (not by another word character), is that value."""


def masked(text: str) -> str:
    """``text`` with credential values (``_util.mask_secret_values``) and key-shaped secrets
    (``secrets.shapes``: ``AIza…``, ``ghp_…``, JWTs; blind check 13) shown as ``***``; the
    values masked are collected when :func:`collecting` is active."""
    from compactor.secrets.shapes import mask_key_shapes  # here: importing it costs 15 ms

    found = _FOUND.get()
    text = mask_key_shapes(text, found)  # shapes first
    if len(text) >= _SCAN_FROM and not _value_scan().may_match(text):
        return text  # a long summary: no credential word before a separator (Rust scan)
    return mask_secret_values(text, found)


_SCAN_FROM = 32_768
"""From this length a text is first searched for :data:`_util.SECRET_VALUE_PREFILTER` (the
scan's first use imports pydantic-core: some 25 ms)."""


@functools.cache
def _value_scan() -> FastScan:
    from compactor.secrets.secret_scan import FastScan

    return FastScan([SECRET_VALUE_PREFILTER])


@contextmanager
def collecting() -> Iterator[set[str]]:
    """The values :func:`masked` masks while the block runs (one summary's renders)."""
    found: set[str] = set()
    token = _FOUND.set(found)
    try:
        yield found
    finally:
        _FOUND.reset(token)


def _distinct(value: str) -> bool:
    """A value distinctive enough to mask where else it occurs (not a plain word)."""
    return len(value) >= 6 and (any(not ch.isalpha() for ch in value) or len(value) >= 12)


def _spans(text: str, value: str) -> Iterator[tuple[int, int]]:
    """Where ``text`` holds ``value`` whole, or (a long value) a fragment of its start of at
    least :data:`_FRAGMENT` characters that a cut ended; never inside a longer word, nor a
    plain word that only starts the value (:func:`_plain_word`)."""
    lead = value if len(value) < 2 * _FRAGMENT else value[:_FRAGMENT]
    start = text.find(lead)
    while start >= 0:
        end = start + len(lead)
        while end < len(text) and end - start < len(value) and text[end] == value[end - start]:
            end += 1
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (_WORD.match(before) and _WORD.match(value[0])) and not (
            _WORD.match(after) and (end - start < len(value) or _WORD.match(value[-1]))
        ):
            if end - start == len(value) or not _plain_word(text, start, end):
                yield start, end
        start = text.find(lead, end)


def _plain_word(text: str, start: int, end: int) -> bool:
    """Whether the fragment ``text[start:end]`` of a longer value is only a word that starts
    it (letters, not ended by a cut: ``Gardenly`` of a password ``Gardenly2024!…``, the
    project's own name; blind check 68 N4), not the value's cut start (``Gardenly20…``)."""
    if not text[start:end].isalpha():
        return False
    rest = text[end : end + 3]
    return not (rest.startswith("…") or rest == "..." or end == len(text))


def mask_repeats(text: str, values: set[str]) -> str:
    """``text`` with every distinctive value in ``values`` masked wherever it occurs (see the
    module doc); the longest values first, so that one containing another goes whole."""
    values = values | _base64_pieces(values)
    for value in sorted(filter(_distinct, values), key=lambda v: (-len(v), v)):  # (one order)
        if value[: min(len(value), _FRAGMENT)] not in text:
            continue
        parts, last = [], 0
        for start, end in _spans(text, value):
            parts += [text[last:start], MASK]
            last = end
        text = "".join(parts) + text[last:] if parts else text
    return _mask_runs(text, values)


_RUN = 16
"""A run of this many characters of a token-like masked value, anywhere in the summary, is that
value (blind check 68 S1: a password masked in ``PASSWORD '***'`` was pasted again by the user as
25 of its 32 hex characters, and that run was printed)."""
_MIXED = 6
"""The distinct characters a run needs: ``a00000000000000a`` is no secret's part, whatever
value it also occurs in."""
_TOKEN_LIKE = lazy_pattern(r"[A-Za-z0-9+/=_\-]{16,}")
"""A hex/base64-like value (no ``:``, ``@``, ``.``, space: not a URL, address or sentence)."""


def _mask_runs(text: str, values: set[str]) -> str:
    """``text`` with each run of at least :data:`_RUN` characters of a token-like value in
    ``values`` (with a digit and a letter) masked, unless the run holds fewer than
    :data:`_MIXED` distinct characters. Any such run holds the 8 characters of the
    value at a multiple of 8 (a seed); each seed found is grown both ways as far as the text
    follows the value."""
    spans: list[tuple[int, int]] = []
    for value in values:
        if len(value) < _RUN or not _TOKEN_LIKE.fullmatch(value):
            continue
        if not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
            continue
        for j in range(0, len(value) - _FRAGMENT + 1, _FRAGMENT):
            seed = value[j : j + _FRAGMENT]
            at = text.find(seed)
            while at >= 0:
                left, right = 0, _FRAGMENT
                while j - left > 0 and at - left > 0 and text[at - left - 1] == value[j - left - 1]:
                    left += 1
                while (
                    j + right < len(value)
                    and at + right < len(text)
                    and text[at + right] == value[j + right]
                ):
                    right += 1
                if left + right >= _RUN and len(set(text[at - left : at + right])) >= _MIXED:
                    spans.append((at - left, at + right))
                at = text.find(seed, at + 1)
    if not spans:
        return text
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, last = [], 0
    for start, end in merged:
        out += [text[last:start], MASK]
        last = end
    return "".join(out) + text[last:]


def _base64_pieces(values: set[str]) -> set[str]:
    """The parts between ``+``, ``/`` and ``=`` of a masked base64 value that are long and not
    a plain lowercase word: a render that splits words there (the identifiers of §2) printed
    the rest of a ``JWT_SECRET`` after its first ``+`` (blind check 67, S2)."""
    pieces: set[str] = set()
    for value in values:
        if "+" in value or "/" in value or "=" in value:
            for piece in _B64_SPLIT.split(value):
                if len(piece) >= _FRAGMENT and not (piece.isalpha() and piece.islower()):
                    pieces.add(piece)
    return pieces


_B64_SPLIT = lazy_pattern(r"[+/=]+")


def masked_whole(text: str) -> str:
    """A finished text masked as one summary is: :func:`masked`, then every value it masked
    wherever else the text holds it (:func:`mask_repeats`)."""
    with collecting() as found:
        text = masked(text)
    return mask_repeats(text, found)
