"""An answer that says the work is not done yet (blind check 54, W3).

The request was "run the 1000-prompt eval, then draw the plot"; the agent launched the run in
the background and its last reply said so: "the plot is not done yet: the run will take hours;
once it finishes I will draw the plot" (or "아직 plot은 완료되지 않았습니다",
"まだ終わっていません", "还没有完成"). A final message after the last call is an answer, not a
completion: section 8 says "answered: the work is still in progress (the answer says so)", and
the running job stays in sections 7 and 9.

Kept tight: the reply must say in so many words that the work is not done, still runs, or will be
finished later (:data:`_NOT_DONE_RE`); "the server is still running on port 3000" (a service left
up for the user) is no such statement.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import clean

from .local_session import Session

__all__ = ["PROGRESS", "progress_state", "says_not_done"]

PROGRESS = "answered: the work is still in progress (the answer says so)"
"""How section 8 says such an answer ended the request."""

_NOT_DONE_RE = lazy_pattern(
    r"\bnot (?:done|finished|complete(?:d)?|ready) yet\b|"
    r"\bnot yet (?:done|finished|complete(?:d)?)\b|"
    r"\b(?:has|have)(?: not|n['’]t) (?:yet )?(?:finished|completed)\b|"
    r"\b(?:is|are) still (?:running|in progress|training|going)\b|"
    r"\b(?:is|are|still) in progress\b|"
    r"\bwill take (?:several |a few |many |some )?(?:hours|days)\b|"
    r"\bonce (?:it|they|the [\w\- ]{1,30}) (?:finish(?:es)?|complete[sd]?|(?:is|are) done),? "
    r"I(?:['’]ll| will)\b|"
    r"아직[^\n.]{0,40}?(?:완료되지 않|끝나지 않|안 ?끝났|진행 ?중)|"
    r"まだ[^\n。]{0,30}?(?:完了して(?:い)?ません|終わって(?:い)?ません|実行中|進行中)|"
    r"(?:还没|尚未)[^\n。]{0,20}?(?:完成|结束|跑完)|仍在运行",
    re.IGNORECASE,
)
"""A reply saying the work is not done yet, still running, or to be finished later."""
_SERVICE_RE = lazy_pattern(r"\b(?:server|localhost|port|dev server|service)\b", re.IGNORECASE)


def says_not_done(text: str) -> bool:
    """Whether ``text`` says the work is not done yet (:data:`_NOT_DONE_RE`), outside a sentence
    about a service left up."""
    for found in _NOT_DONE_RE.finditer(text):
        start = max(text.rfind(".", 0, found.start()), text.rfind("\n", 0, found.start())) + 1
        end = text.find(".", found.end())
        if _SERVICE_RE.search(text[start : end if end >= 0 else len(text)]) is None:
            return True
    return False


def progress_state(s: Session) -> str:
    """Section 8's "was …" when the last reply (no call after it) says the work is not done;
    '' otherwise."""
    last = s.last_request
    if not s.turn_ended or last is None:
        return ""
    reply = next((e for e in reversed(s.entries) if e.role == "assistant" and e.text.strip()), None)
    if reply is None or reply.index < last.index or reply.calls:
        return ""
    return f"was {PROGRESS}" if says_not_done(clean(reply.text)) else ""
