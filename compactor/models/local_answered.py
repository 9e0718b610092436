"""A last reply that answered the user's question and then asked a follow-up (blind check 24).

The user's latest request was a question ("the schema is updated the same way in both,
right?", "…更新しますよね？"); the reply answered it at length and only closed by asking the
user to confirm an approach. That reply did the request: it is answered, and the session waits
for the user's reply to the follow-up, not "asked for input instead of doing the request".

Told by shape only: the request's typed text (without the ``(with X open in the IDE)`` note)
ends with a question mark (``?``/``？``) or a question particle (``か``, ``吗``/``嗎``); it is
not a polite order ("can you …?", "please …?"), which a reply must carry out; and the reply
says much more before its closing ask than the ask itself.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["answers_question"]

_IDE_NOTE_RE = lazy_pattern(r"\s*\(with .+? open in the IDE\)\s*$", re.DOTALL)
_QUESTION_END_RE = lazy_pattern(r"(?:[?？]|か[。！!]?|かな[。]?|[吗嗎呢][。]?)[\s)）\"”'’]*$")
_ORDER_RE = lazy_pattern(
    r"^\s*(?:please\b|(?:can|could|would|will) you\b|請|请|帮我|幫我)", re.IGNORECASE
)
_ANSWER_LEAST = 160
"""Characters the reply must hold before its closing ask (not counting spaces; a CJK character
counts twice, as it says about as much as two Latin ones) to answer."""


def is_question(request: str) -> bool:
    """True when ``request`` (the user's text) is phrased as a question, not as an order."""
    typed = _IDE_NOTE_RE.sub("", request).strip()
    last = typed.rsplit("\n", 1)[-1]
    return bool(_QUESTION_END_RE.search(typed)) and not _ORDER_RE.match(last)


def answers_question(request: str, reply: str, ask: str) -> bool:
    """True when ``reply`` answered the question ``request`` before its closing ``ask`` (a
    line of the reply)."""
    if not is_question(request):
        return False
    at = reply.rfind(ask) if ask else -1
    before = reply[:at] if at >= 0 else reply
    said = sum(2 if c >= "\u2e80" else 1 for c in before if not c.isspace())
    return said >= _ANSWER_LEAST and said >= 2 * len(ask)
