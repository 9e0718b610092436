"""A call in flight that starts a step the assistant only offered (issue 28, blind check 58 N2).

The assistant closed a turn with an offer ("I can add `.claude/projects/` to the
`.gitignore` — want me to do that?"); the user's next message asked something else; in that
turn the assistant started the offered step anyway (``git rm -r --cached .claude/projects/``)
and the session was saved with the call in flight. Section 9's usual "check whether they ran
… and run them again if still needed" invited finishing a step the user never approved. Now,
when a call in flight (or the assistant's words just before it) names what the unanswered
offer named (a path, or two of its words), sections 7 and 9 say that the step awaits the
user's answer to that question.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call, command_of, sentences

from .local_session import Session

__all__ = ["unasked_offer"]

_OFFER_RE = lazy_pattern(
    r"\b(?:want me to|would you like me to|should i|shall i|do you want me to|"
    r"i can\b.{0,200}\?|let me know if you(?:'d| would)? (?:like|want))",
    re.IGNORECASE | re.DOTALL,
)
_YES_RE = lazy_pattern(
    r"\A\W*(?:y(?:es|eah|ep|up)?|ok(?:ay)?|sure|please do|do it|go ahead|sounds good|agreed|"
    r"yes please|do that)\b",
    re.IGNORECASE,
)
_PATH_RE = lazy_pattern(r"[\w~.-]*[/.][\w./-]*\w")
_WORD_RE = lazy_pattern(r"[A-Za-z]{5,}")
_COMMON = frozenset(
    "about after again before being could doing every first their there these those thing "
    "think which while would should really still where files future later other since "
    "right check maybe might want like just also then that this with from have will your".split()
)


def _paths(text: str) -> set[str]:
    found = {p.strip("./").rstrip("/") for p in _PATH_RE.findall(text)}
    return {p for p in found if len(p) >= 4 and ("/" in p or "." in p)}


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD_RE.findall(text)} - _COMMON


def _offer(text: str) -> str:
    """The closing offer of an assistant text ("" when it closes with none)."""
    parts = [x for x in sentences(text.strip()[-1_500:]) if x.strip()]
    last = parts[-1].strip() if parts else ""
    return last if last.endswith("?") and _OFFER_RE.search(last) else ""


def _names(call: Call, said: str, offer: str) -> bool:
    """Whether the call (or the words before it) names what the offer named."""
    mine = f"{command_of(call) or ''} {' '.join(str(v) for v in call.args.values())[:2_000]}"
    if _paths(offer) & _paths(f"{mine} {said}"):
        return True
    return len(_words(offer) & _words(f"{mine} {said}")) >= 2


def unasked_offer(s: Session) -> str:
    """The assistant's offer the user never answered whose step a call in flight started ("" when
    none): the last assistant text before the current request closed with an offer, the request
    does not accept it, and a call in flight after it names what the offer named."""
    last = s.last_request
    if not s.in_flight or last is None or _YES_RE.match(last.text):
        return ""
    before = next(
        (e for e in reversed(s.entries[: last.index]) if e.role == "assistant" and e.text.strip()),
        None,
    )
    offer = _offer(before.text) if before is not None else ""
    if not offer:
        return ""
    said = " ".join(
        e.text for e in s.entries[last.index + 1 :] if e.role == "assistant" and e.text.strip()
    )[-3_000:]
    return offer if any(_names(c, said, offer) for c in s.in_flight) else ""
