"""Errors the API or the agent CLI wrote in the assistant's place (moved out of
:mod:`compactor.models.local_text` to keep it under the module size limit; blind check 14 adds
the usage-limit notices: ``You're out of extra usage · resets 9pm (UTC)``)."""

from __future__ import annotations

import functools
import re

from compactor.facts import lowers_exactly

__all__ = ["is_harness_error"]

_HARNESS_ERROR_RE = re.compile(
    r"\A\s*(?:API Error\b|API error:|\{\s*\"type\"\s*:\s*\"error\"|Request timed out\b|"
    r"Prompt is too long\b|Credit balance is too low\b|Invalid API key\b|"
    r"[\w ]{0,40}(?:usage|session|rate|weekly|[\d-]+ ?hour) limit reached\b|"
    r"You['’]ve (?:hit|reached) your [\w -]{0,30}limit\b|(?:Rate limit|Overloaded)(?: error)?:|"
    r"You['’]re out of (?:extra |free )?(?:usage|credits?|messages|tokens)\b|"
    r"[\w ]{0,40}(?:usage|rate) limit (?:exceeded|hit)\b|"
    r"(?:stream|upstream|model|server|connection) error:)",
    re.IGNORECASE,
)
"""How an error the API or the agent CLI wrote in the assistant's place begins (Claude Code's
``isApiErrorMessage`` records: ``API Error: 400 {...}``, ``Request timed out``)."""
_NEEDS = (
    "error",
    "{",
    "timed out",
    "too long",
    "credit",
    "api key",
    "limit",
    "overloaded",
    "out of",
)
"""One of these (lower-cased) is in every text :data:`_HARNESS_ERROR_RE` matches."""


def is_harness_error(text: str) -> bool:
    """Whether an assistant message is an error the API or the CLI wrote in the assistant's
    place (short, and shaped like an error report): it answers nothing."""
    if len(text) <= _SHORT:
        return _short_error(text)  # ("Done.", "OK": a chat repeats its short replies)
    return len(text) <= 4_000 and _may_be(text) and _HARNESS_ERROR_RE.match(text) is not None


_SHORT = 200


@functools.lru_cache(maxsize=4096)
def _short_error(text: str) -> bool:
    return _may_be(text) and _HARNESS_ERROR_RE.match(text) is not None


def _may_be(text: str) -> bool:
    """A few substring tests first (exact where lower-casing is what the regex compares)."""
    return not lowers_exactly(text) or any(map(text.lower().__contains__, _NEEDS))
