"""An assistant sentence that corrects its own earlier step is no decision (re-judged W3).

SWE-agent's only "decision" in a solved task was "My edit command did not use the proper
indentation, Let's fix that …": a sentence replayed from a demonstration, about an edit that
never happened in the log, picked for its wording ("fix"). What was decided (round to the
nearest int) was in the edit. :func:`is_self_correction` reads a sentence by shape: the
assistant's own step said wrong ("my edit did not …", "my last command failed to …",
"I made a mistake", "oops", "my bad", "I apologize") or redone ("let me try again", "let's
fix that", "let me correct that/my …"). Such a sentence says how the work went, not what was
decided, caused or changed.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["is_self_correction"]

_STEP = (
    r"(?:edit|edits|command|commands|change|changes|attempt|call|patch|replacement|syntax|search)"
)
_SELF_FIX_RE = lazy_pattern(
    # my edit command did not … / my last attempt was wrong ("the last command failed" is a
    # result, often with its cause: not read)
    rf"\bmy\s+(?:(?:previous|last|earlier)\s+)?(?:\w+\s+)?{_STEP}"
    r"\s+(?:did(?:n't| not)|does(?:n't| not)|was(?:n't| not)|failed|has(?:n't| not)|had|"
    r"introduced|caused|broke|is (?:not|wrong|incorrect))"
    r"|\bI (?:made|introduced) (?:a |an |some )?(?:\w+ )?(?:mistake|error|typo)s?\b"
    r"|\b(?:oops|my bad|my mistake|my apologies|I apologi[sz]e)\b"
    r"|\b(?:let me|let's|let us|I'll|I will) "
    r"(?:try (?:that |this |it )?again|redo (?:that|this|it)\b|"
    r"fix (?:that|this|it)(?: (?:and|now|then)\b|\W*$)|correct (?:that|this|my)\b)",
    re.IGNORECASE,
)


def is_self_correction(sentence: str) -> bool:
    """Whether ``sentence`` says the assistant's own earlier step was wrong or redoes it."""
    return _SELF_FIX_RE.search(sentence) is not None
