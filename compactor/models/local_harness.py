"""Errors the API or the agent CLI wrote in the assistant's place (moved out of
:mod:`compactor.models.local_text` to keep it under the module size limit; blind check 14 adds
the usage-limit notices: ``You're out of extra usage · resets 9pm (UTC)``)."""

from __future__ import annotations

import functools
import re

from compactor._util import lazy_pattern
from compactor.facts import lowers_exactly

__all__ = ["is_harness_error"]

_STARTS = (
    r"API Error\b|API error:|\{\s*\"type\"\s*:\s*\"error\"|Request timed out\b|"
    r"Prompt is too long\b|Credit balance is too low\b|Invalid API key\b|"
    r"You['’]ve (?:hit|reached) your [\w -]{0,30}limit\b|(?:Rate limit|Overloaded)(?: error)?:|"
    r"You['’]re out of (?:extra |free )?(?:usage|credits?|messages|tokens)\b|"
    r"(?:stream|upstream|model|server|connection) error:"
)
_LIMITS = (
    r"[\w ]{0,40}(?:usage|session|rate|weekly|[\d-]+ ?hour) limit reached\b|"
    r"[\w ]{0,40}(?:usage|rate) limit (?:exceeded|hit)\b"
)
_HARNESS_ERROR_RE = lazy_pattern(rf"\A\s*(?:{_STARTS}|{_LIMITS})", re.IGNORECASE)
"""How an error the API or the agent CLI wrote in the assistant's place begins (Claude Code's
``isApiErrorMessage`` records: ``API Error: 400 {...}``, ``Request timed out``)."""
_STARTS_RE = re.compile(rf"\A\s*(?:{_STARTS})", re.IGNORECASE)
"""Its branches that start with a word: each fails at its first character."""
_LIMITS_RE = lazy_pattern(rf"\A\s*(?:{_LIMITS})", re.IGNORECASE)
"""Its branches after up to 40 ``[\\w ]`` characters, tried at each of them: a chat's every
long reply took 2 µs (a third of the embedded summarizer's reading of the paths bench shape)."""
_OUT_OF_RUN_RE = lazy_pattern(r"[^\w \-]")
"""What ends the run of characters every match of :data:`_LIMITS_RE` stays in after its
leading white space (its words, digits, dashes and spaces)."""


def is_harness_error(text: str) -> bool:
    """Whether an assistant message is an error the API or the CLI wrote in the assistant's
    place (short, and shaped like an error report): it answers nothing."""
    if len(text) <= _SHORT:
        return _short_error(text)  # ("Done.", "OK": a chat repeats its short replies)
    return len(text) <= 4_000 and _error_start(text)


_SHORT = 200


@functools.lru_cache(maxsize=4096)
def _short_error(text: str) -> bool:
    return _error_start(text) or (
        "API Error: " in text and _INNER_API_ERROR_RE.search(text) is not None
    )


_INNER_API_ERROR_RE = lazy_pattern(r"(?:\A|[·•|:;.!\-–—]\s*)API Error: (?:\d{3}\b|[A-Z])")
"""``API Error:`` after a short lead the CLI wrote before it (``Please run /login · API
Error: 401 …``, blind check 63 W3), in a short text: a hint where the record's own markers
(``formats.cli_errors``) are not there."""


def _error_start(text: str) -> bool:
    """``_HARNESS_ERROR_RE.match(text) is not None``: the branches that start with a word
    first; the others only when the run of ``[\\w -]`` after the leading white space holds
    ``limit`` (each of their matches lies in that run and says it; exact where lower-casing
    is what the regex compares, :func:`~compactor.facts.lowers_exactly`)."""
    if _STARTS_RE.match(text) is not None:
        return True
    if lowers_exactly(text):
        start = len(text) - len(text.lstrip())  # what \s* takes (the same characters)
        stop = _OUT_OF_RUN_RE.search(text, start)
        if "limit" not in text[start : len(text) if stop is None else stop.start()].lower():
            return False
    return _LIMITS_RE.match(text) is not None
