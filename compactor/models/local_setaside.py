"""The words that set a failed call aside (``Set aside on purpose, not to be fixed: "…"``) are
the assistant's or the user's own decision, never (blind check 31):

* a sentence that only describes what code does ("The grouping loop only skips handsets with
  empty manufacturer/model.": the description of a bug the user then chose to fix, W2);
* the text of a command template injected into the user's message ("If the user explicitly
  states they are skipping clarification …, you may proceed": the template's rule, W7): only
  the words the user typed there (:func:`typed_words`) can decide;
* a Markdown heading ("## Question 1: Fallback averaging hierarchy": a topic, W7) is no
  sentence saying the work was done without the failed call (:func:`around_words`);
* a sentence of an offer to fix ("… shall I fix both?") the user took ("both", "yes", "1 and
  2", "fix them"): the user decided to fix what it describes (blind check 32), and a later edit
  that succeeded fixed it (:func:`chosen_fix`)."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import one_line, sentences

from .local_asidenames import about_failure, right_after, unquoted
from .local_noise import is_file_edit
from .local_offers import unchosen_dropped
from .local_session import ErrorFact, Session
from .local_text import call_line
from .local_typed import typed_words

__all__ = ["around_words", "chosen_fix", "next_typed", "set_aside_words"]

_FIX_OFFER_RE = lazy_pattern(
    r"\b(?:(?:shall|should|can|may) (?:i|we)|(?:do )?you want me to|would you like me to|"
    r"want me to)\s+(?:\w+\s+){0,2}?(?:fix|address|patch|correct|repair|apply|implement|"
    r"handle|tackle)\b",
    re.IGNORECASE,
)
"""An offer to fix what the message described ("shall I fix both?", "want me to patch it?")."""
_TAKES_RE = lazy_pattern(
    r"^\W*(?:(?:yes|yep|yeah|sure|ok(?:ay)?|please|go ahead|do it|both|all(?: of them)?|"
    r"fix (?:them|both|all|it|those)|\d{1,2}|[a-f])\b[\s,.!&+]*)+"
    r"(?:(?:and|then|fix|please|too)\b[\s,.!&+]*|\d{1,2}\b[\s,.!&+]*|[a-f]\b[\s,.!&+]*)*$",
    re.IGNORECASE,
)
"""A reply that takes an offer: "both", "yes", "all", "1 and 2", "fix them", "yes please"."""
_TAKES_CHARS = 60
"""A reply this long or longer says more than a pick (it may set something aside itself)."""


def takes_fix(offer: str, typed: str) -> bool:
    """Whether the user's ``typed`` reply takes the offer to fix that ``offer`` closes with (the
    item it describes is to be fixed, never set aside: blind check 32)."""
    reply = typed.strip()
    if not reply or len(reply) >= _TAKES_CHARS or "?" not in offer:
        return False
    return _FIX_OFFER_RE.search(offer[-600:]) is not None and _TAKES_RE.match(reply) is not None


def chosen_fix(s: Session, err: ErrorFact, typed: str) -> bool:
    """Mark ``err`` ``fixed`` when the user took the assistant's offer to fix what its next
    words described and a file edit after the reply succeeded ("Fixed: a later `Edit(…)` ran;
    the user chose to fix it ("both")"); whether it did."""
    if not takes_fix(err.next_text, typed):
        return False
    replied = next(
        (e.index for e in s.entries[err.index + 1 :] if e.role == "user" and not e.injected
         and not e.internal and e.text.strip()),
        -1,
    )  # fmt: skip
    edit = next(
        (c for c in s.calls if c.index > replied >= 0 and is_file_edit(c)
         and c.id not in s.failed_calls),
        None,
    )  # fmt: skip
    if edit is None:
        return False
    err.after, err.by = "fixed", call_line(edit, 160)
    err.why = f'the user chose to fix it ("{one_line(typed)}")'
    return True


_DESCRIBES_RE = lazy_pattern(r"\bskips\b", re.IGNORECASE)
""""X skips Y": what code does (a loop, a check), not a decision to skip anything."""


def _decides(sentence: str, skips: re.Pattern[str]) -> bool:
    """``sentence`` holds a skip word other than a description of code ("only skips")."""
    return any(not _DESCRIBES_RE.fullmatch(m.group(0)) for m in skips.finditer(sentence))


def next_typed(s: Session, err: ErrorFact) -> str:
    """The words the user typed in their next message after ``err`` ("" when none came)."""
    user = next(
        (e for e in s.entries[err.index + 1 :] if e.role == "user" and not e.injected
         and not e.internal and e.text.strip()),
        None,
    )  # fmt: skip
    return typed_words(user.text) if user is not None else ""


def set_aside_words(s: Session, err: ErrorFact, typed: str, skips: re.Pattern[str]) -> list[str]:
    """The sentences of the assistant's next words and of the user's next ``typed`` words that
    set ``err`` aside (``skips`` matches them outside quotes; each names the failed call or
    came right after it: :mod:`.local_asidenames`), the assistant's first."""
    near = right_after(s, err, "assistant")
    told = [
        x for x in sentences(err.next_text)
        if _decides(unquoted(x), skips) and about_failure(err, x, near)
    ]  # fmt: skip
    if told and takes_fix(err.next_text, typed):  # the user chose to fix it (blind check 32)
        told = []
    told = unchosen_dropped(err.next_text, typed, told)  # (blind check 18)
    near = bool(typed) and (  # a short reply to words about the failure ("no, skip it")
        right_after(s, err, "user")
        or (len(typed) < _TAKES_CHARS and about_failure(err, err.next_text, False))
    )
    return told + [
        x for x in sentences(typed)
        if _decides(unquoted(x), skips) and about_failure(err, x, near)
    ]  # fmt: skip


def around_words(err: ErrorFact, typed: str, around: re.Pattern[str]) -> list[str]:
    """The sentences of the assistant's next words saying it did without ``err`` (``around``
    matches them; headings name a topic, not a way round), less unchosen menu options."""
    said = [
        x for x in sentences(err.next_text) if around.search(x) and not x.startswith("#")
    ]  # fmt: skip
    return unchosen_dropped(err.next_text, typed, said)
