"""The assistant's own report that an earlier summary's pending list is done (blind check 52,
W6).

Claude Code's own compaction listed four UI fixes as pending; the agent then made them and said
so before any new message of the user's ("All four fixed and verified on both the segment page
and the Studio"). The summary instead matched a later, unrelated user question by its words to
one item ("done since (the user asked for it again: …)") and left the other three pending. The
agent's completion report after the earlier summary, after files were changed and before the
user's next request, is the evidence: section 7 quotes it with the list ("reported done by the
assistant"), and a user's question is never taken for a restatement of an item
(:func:`is_question`). A report that counts ("All four …") must count the list's items.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import cut, one_line

from .local_session import Session

__all__ = ["is_question", "reported_done"]

_NUMBERS = {"two": 2, "both": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_NUMBERS.update({"eight": 8, "nine": 9, "ten": 10})
_REPORT_RE = lazy_pattern(
    r"\b(?:all|both|every one)\b(?:\s+(?:of\s+(?:them|these|those)|(\w+)))?(?:\s+\w+){0,2}?\s+"
    r"(?:are\s+|were\s+|now\s+|have been\s+)?(?:fixed|done|addressed|resolved|implemented|"
    r"completed?|in place)\b|^\W*(?:done|fixed|completed?)\s*[:.!—–-]",
    re.IGNORECASE | re.MULTILINE,
)
"""A report that the listed work is done ("All four fixed and verified", "Done: …")."""
_QUESTION_RE = lazy_pattern(
    r"^\W*(?:why|what|how|where|when|which|who|whose|is|are|does|did)\b",
    re.IGNORECASE,
)


def is_question(text: str) -> bool:
    """Whether a user's message opens with a question word ("why do we have three flavors …?"):
    no restatement of pending work. A request that asks politely ("can you …?") or ends a
    plan with a question ("make a plan: … patch the plugin?") may restate an item."""
    return _QUESTION_RE.match(text.lstrip()) is not None


def reported_done(s: Session, items: int) -> str:
    """The sentence of the assistant's first completion report after the latest earlier summary
    and before the user's next request, after a file was changed ('' when none, or when its
    count is not ``items``)."""
    if not s.prior:
        return ""
    latest = s.prior[-1]
    start = next((e.index for e in reversed(s.entries) if e.text == latest), -1)
    until = next((r.index for r in s.requests if r.index > start), len(s.entries))
    changes = sorted(i for f in s.files.values() for i in f.changed_at if start < i < until)
    if not changes:
        return ""
    for e in s.entries[changes[0] + 1 : until]:
        if e.role != "assistant" or e.internal or not e.text.strip():
            continue
        match = _REPORT_RE.search(e.text)
        if match is None:
            continue
        counted = (match.group(1) or "").casefold()
        if counted in _NUMBERS and _NUMBERS[counted] != items:
            continue
        line = e.text[match.start() :].split("\n", 1)[0]
        return cut(one_line(line), 200)
    return ""
