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

__all__ = ["ASKS_ONLY", "OFFERED", "answers_first", "asks_only", "closing_offer"]

ASKS_ONLY = "not done yet: the last reply only asked the user questions before doing it"
_QUESTIONS_LEAST = 2
_END_RE = re.compile(r"[?？][\s*_`)\]]*\Z")
_PARAGRAPH_RE = re.compile(r"\n\s*\n")
_ASKED_RE = re.compile(r"[?？](?=[\s*_`)\]]|\Z)")
"""A question mark that ends a sentence (not the ``?`` of a URL's query)."""
OFFERED = "the answer ended by offering"
"""How sections 7-9 name the closing questions of a full answer: the user's choice."""
_ANSWER_LEAST = 400
"""Characters of prose without a question before the closing questions that make a reply an
answer whose closing questions offer the next step (blind check 66 W1)."""


def answers_first(text: str) -> bool:
    """Whether ``text`` answers before its closing questions: the paragraphs before the last
    ones that ask (the closing offers: "Want me to kick off X? Or would you rather do Y?") hold
    no question and at least :data:`_ANSWER_LEAST` characters (a status report, findings) —
    not a few words leading to questions (blind check 61 W6's "Two things to settle first:")."""
    paragraphs = [p.strip() for p in _PARAGRAPH_RE.split(text.strip()) if p.strip()]
    while paragraphs and _ASKED_RE.search(paragraphs[-1]):
        paragraphs.pop()
    body = "\n\n".join(paragraphs)
    return len(body) >= _ANSWER_LEAST and not _ASKED_RE.search(body)


def asks_only(s: Session) -> bool:
    """Whether the turn ended on a reply that ends with a question and asks two or more, no
    file was changed after the latest request, and that request is not itself a question
    (an answer to a question may close with a follow-up: that one is answered); a reply that
    answers first (:func:`answers_first`) is no such reply: :func:`closing_offer`."""
    return _asks(s) and not answers_first(s.last_text.text if s.last_text else "")


def closing_offer(s: Session) -> bool:
    """Whether the reply :func:`asks_only` would read as only asking answers first and closes
    with questions: offers of the next step, the user's choice (blind check 66 W1)."""
    return bool(s.question) and _asks(s) and answers_first(s.last_text.text if s.last_text else "")


def _asks(s: Session) -> bool:
    last, reply = s.last_request, s.last_text
    if not s.turn_ended or s.ended_by_tool or last is None or reply is None:
        return False
    if reply.index < last.index or not _END_RE.search(reply.text):
        return False
    if _END_RE.search(last.text.rstrip()) or reply.text.count("?") < _QUESTIONS_LEAST:
        return False
    return not any(at > last.index for f in s.files.values() for at in f.changed_at)
