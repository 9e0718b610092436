"""A last reply whose substance is questions to the user, asked before any change for the
latest request: that request is waiting for the user's answers, not completed (blind check 61
W6: an environment check found the tools missing, the reply asked three questions and wrote
nothing, yet sections 7 and 8 said "the last request was answered; nothing is pending" and
"The latest request was completed")."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .local_session import Session

__all__ = ["ASKS_ONLY", "asks_only"]

ASKS_ONLY = "not done yet: the last reply only asked the user questions before doing it"
_QUESTIONS_LEAST = 2
_END_RE = re.compile(r"[?？][\s*_`)\]]*\Z")


def asks_only(s: Session) -> bool:
    """Whether the turn ended on a reply that ends with a question and asks two or more, no
    file was changed after the latest request, and that request is not itself a question
    (an answer to a question may close with a follow-up: that one is answered)."""
    last, reply = s.last_request, s.last_text
    if not s.turn_ended or s.ended_by_tool or last is None or reply is None:
        return False
    if reply.index < last.index or not _END_RE.search(reply.text):
        return False
    if _END_RE.search(last.text.rstrip()) or reply.text.count("?") < _QUESTIONS_LEAST:
        return False
    return not any(at > last.index for f in s.files.values() for at in f.changed_at)
