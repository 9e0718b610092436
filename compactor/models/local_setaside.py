"""The words that set a failed call aside (``Set aside on purpose, not to be fixed: "…"``) are
the assistant's or the user's own decision, never (blind check 31):

* a sentence that only describes what code does ("The grouping loop only skips handsets with
  empty manufacturer/model.": the description of a bug the user then chose to fix, W2);
* the text of a command template injected into the user's message ("If the user explicitly
  states they are skipping clarification …, you may proceed": the template's rule, W7): only
  the words the user typed there (:func:`typed_words`) can decide;
* a Markdown heading ("## Question 1: Fallback averaging hierarchy": a topic, W7) is no
  sentence saying the work was done without the failed call (:func:`around_words`)."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import sentences

from .local_offers import unchosen_dropped
from .local_session import ErrorFact, Session
from .local_typed import typed_words

__all__ = ["around_words", "next_typed", "set_aside_words"]

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


def set_aside_words(err: ErrorFact, typed: str, skips: re.Pattern[str]) -> list[str]:
    """The sentences of the assistant's next words and of the user's next ``typed`` words that
    set ``err`` aside (``skips`` matches them), the assistant's first."""
    told = [x for x in sentences(err.next_text) if _decides(x, skips)]
    told = unchosen_dropped(err.next_text, typed, told)  # (blind check 18)
    return told + [x for x in sentences(typed) if _decides(x, skips)]


def around_words(err: ErrorFact, typed: str, around: re.Pattern[str]) -> list[str]:
    """The sentences of the assistant's next words saying it did without ``err`` (``around``
    matches them; headings name a topic, not a way round), less unchosen menu options."""
    said = [
        x for x in sentences(err.next_text) if around.search(x) and not x.startswith("#")
    ]  # fmt: skip
    return unchosen_dropped(err.next_text, typed, said)
