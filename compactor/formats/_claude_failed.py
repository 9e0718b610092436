"""Claude Code's own compactions that failed (blind check 21, issue 28).

When Claude Code's own summarization call fails (the account's usage limit, an API error, a
prompt too long for the model), it still writes the ``compact_boundary`` and an
``isCompactSummary`` record, whose text, between the usual preamble ("This session is being
continued from a previous conversation …") and closing ("If you need specific details …",
"Please continue the conversation …"), is only the CLI's error: ``You've hit your limit ·
resets 8pm (…)``. Such a record summarizes nothing: taken as the start of the history it hides
the user's last request, which lies before it. :func:`failed_starts` finds them, so the reader
reads on from the previous real compaction (or the start of the file), and a compaction
appended after them carries that request to the client, which resumes from the newest boundary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from compactor._json import JsonObject
from compactor._util import lazy_pattern

from . import _jsonl
from ._claude_texts import content_texts

__all__ = ["failed_starts", "is_failed_summary"]

_PREAMBLE_RE = lazy_pattern(
    r"\A\s*This session is being continued from a previous conversation[^\n]*"
    r"(?:\n[^\n]*(?:summary below|summarized below)[^\n]*)?",
    re.IGNORECASE,
)
"""Claude Code's first line(s) before the summary ("… ran out of context. The summary below
covers the earlier portion of the conversation." / "… The conversation is summarized below:")."""
_CLOSING_RE = lazy_pattern(
    r"\n\s*(?:If you need specific details from before compaction|Please continue the "
    r"conversation from where we left|Continue with the last task)",
    re.IGNORECASE,
)
_ERROR_RE = lazy_pattern(
    r"\A(?:API Error\b|API error:|\{\s*\"type\"\s*:\s*\"error\"|Request timed out\b|"
    r"Prompt is too long\b|Conversation too long\b|Context (?:window|length) exceeded\b|"
    r"Credit balance is too low\b|Invalid API key\b|Error(?: during compaction)?:|"
    r"You['’]ve (?:hit|reached) your [\w -]{0,30}limit\b|(?:Rate limit|Overloaded)(?: error)?\b|"
    r"You['’]re out of (?:extra |free )?(?:usage|credits?|messages|tokens)\b|"
    r"[\w ]{0,40}(?:usage|session|rate|weekly|[\d-]+ ?hour) limit (?:reached|exceeded|hit)\b)",
    re.IGNORECASE,
)
"""How the CLI's error texts begin (``compactor.models.local_harness`` reads the same texts
when the CLI writes them in the assistant's place)."""
_MAX_ERROR = 400
"""An error text is one short paragraph; a summary is longer."""


def _text(rec: JsonObject) -> str:
    body = rec.get("message")
    content = body.get("content") if isinstance(body, dict) else None
    return "\n".join(content_texts(content, text_blocks_only=True))


def is_failed_summary(rec: JsonObject) -> bool:
    """Whether an ``isCompactSummary`` record holds only an error of the CLI, no summary."""
    if rec.get("isCompactSummary") is not True:
        return False
    text = _text(rec)
    head = _PREAMBLE_RE.match(text)
    if head is None:
        return False
    body = text[head.end() :]
    end = _CLOSING_RE.search(body)
    body = (body[: end.start()] if end else body).strip()
    return 0 < len(body) <= _MAX_ERROR and _ERROR_RE.match(body) is not None


def failed_starts(lines: Sequence[_jsonl.Line], starts: Sequence[int]) -> set[int]:
    """Of the lines where a compaction starts the history (``compact_boundary`` lines, or a
    1.0.x summary without parent), those whose summary failed: the boundary's own
    ``isCompactSummary`` record (the first after it, before any other message) or the 1.0.x
    summary itself holds only an error."""
    failed: set[int] = set()
    for i in starts:
        rec = lines[i].obj
        if rec.get("type") == "user":
            if is_failed_summary(rec):
                failed.add(i)
            continue
        for ln in lines[i + 1 : i + 8]:
            if ln.obj.get("isCompactSummary") is True:
                if is_failed_summary(ln.obj):
                    failed.add(i)
                break
            if ln.obj.get("type") in ("user", "assistant"):
                break
    return failed
