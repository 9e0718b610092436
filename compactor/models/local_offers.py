"""Offers the user did not take (issue 28, blind check 15): a reply that declines optional
extras ("if you think we're good, let's move on", "no need", "skip that") accepts none of them;
a sentence that asks the user ("Tell me which option you want", "If you want …, I'd do one of
these:") is never a decision; and the options of a question the user did not choose from are
not decided. Cheap: a substring pre-filter before any regex."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Entry, one_line

from .local_closeask import is_choice_ask
from .local_decisions import asks_user, strip_list_mark
from .local_session import Session

__all__ = [
    "asks_to_choose",
    "declines_extras",
    "drop_unchosen_options",
    "is_ask",
    "unchosen_dropped",
]

_DECLINES_RE = lazy_pattern(
    r"\b(?:if you think (?:we['’]?re|were|we are|it['’]?s|its|that['’]?s) "
    r"(?:good|fine|ok(?:ay)?|enough)|no need\b|not (?:needed|necessary)\b|"
    r"skip (?:that|it|this|those|them|the (?:extra|audit|rest))\b|"
    r"that['’]?s enough\b|good enough\b)",
    re.IGNORECASE,
)
_MOVE_ON_RE = lazy_pattern(r"\blet['’]?s move on\b|\blets move on\b|\bmove on\b", re.IGNORECASE)
_OPTIONAL_RE = lazy_pattern(
    r"\bif you(?:['’]d like| would like| want)\b|\boptional(?:ly)?\b", re.IGNORECASE
)
_OPTION_LINE_RE = lazy_pattern(r"^\W{0,6}(?:\d{1,2}[.)]|\(?[a-f]\))\s+\S", re.MULTILINE)
_ASK_HEAD_RE = lazy_pattern(
    r"^\W*(?:tell me|let me know|if you (?:want|would like|['’]d like)\b)", re.I
)


def declines_extras(request: str, offer: str) -> bool:
    """Whether the user's ``request`` declines the optional extras ``offer`` proposed: "if you
    think we're good", "no need", "skip that"; "let's move on" when the offer was optional
    ("If you want …")."""
    head = request[:300]
    if _DECLINES_RE.search(head) is not None:
        return True
    return (
        "move on" in head.lower()
        and _MOVE_ON_RE.search(head) is not None
        and (_OPTIONAL_RE.search(offer) is not None)
    )


def is_ask(sentence: str) -> bool:
    """Whether a sentence asks the user (a question, "Tell me which …", an intro ending in ":"
    before a list of options): never a decision."""
    flat = sentence.rstrip()
    return flat.endswith((":", "?")) or _ASK_HEAD_RE.match(flat) is not None or asks_user(flat)


_PICK_RE = lazy_pattern(
    r"\b(?:which (?:option|one|approach|way)|tell me which|"
    r"how (?:do|would|should) you (?:want|like)"
    r"|how should (?:we|i) proceed|what would you like (?:me )?to do|option)\b",
    re.IGNORECASE,
)


def _options(e: Entry) -> list[str]:
    """The option lines of a message that lists two or more and asks the user to choose
    ("which option", "how do you want to proceed", "what would you like to do")."""
    text = e.text
    if "\n" not in text or ("?" not in text and "tell me" not in text.lower()):
        return []
    if _PICK_RE.search(text[-1_500:]) is None:
        return []  # a numbered list beside a question is no set of options (blind check 15)
    lines = [ln for ln in text.splitlines() if _OPTION_LINE_RE.match(ln)]
    if len(lines) < 2:
        return []
    return [one_line(strip_list_mark(ln)).replace("`", "") for ln in lines]


def drop_unchosen_options(s: Session) -> None:
    """Drop the decisions that are options of a question (two numbered options or more and a
    "?" or "tell me") the assistant asked: an option is decided only when the user chose it,
    which :func:`~.local_dialogue.judge_proposals` adds as its own line."""
    if not s.decisions:
        return
    by_index = {e.index: e for e in s.entries}
    options: dict[int, list[str]] = {}
    for i in {d[0] for d in s.decisions}:
        e = by_index.get(i)
        if e is not None and e.role == "assistant":
            found = _options(e)
            if found:
                options[i] = found
    if not options:
        return

    def unchosen(i: int, text: str) -> bool:
        key = one_line(strip_list_mark(text)).replace("`", "")[:60]
        return len(key) >= 20 and any(key in line for line in options.get(i, ()))

    s.decisions = [d for d in s.decisions if not unchosen(d[0], d[2])]


_CHOOSE_RE = lazy_pattern(
    r"\b(?:how (?:do|would|should) you (?:want|like) (?:me )?to proceed|"
    r"how should (?:we|i) proceed|which (?:option|one|approach)|tell me which|"
    r"please confirm|(?:can|could) you confirm)\b",
    re.IGNORECASE,
)


def asks_to_choose(s: Session) -> bool:
    """Whether the session's last reply asks the user to choose or confirm (two numbered options
    or more, "how do you want to proceed", "which option"): the request is not completed then;
    a closing "anything else?" after the work is."""
    if s.question.count("(2) ") and s.question.count("(1) "):
        return True  # the options the question listed (local_session's listed_questions)
    if ("(A) " in s.question and "(B) " in s.question) or is_choice_ask(s.question):
        return True  # labelled options, "please tell me …", "或選擇 B" (BENCH41 W5)
    lowered = s.question.lower()
    if ("proceed" in lowered or "which" in lowered or "confirm" in lowered) and (
        _CHOOSE_RE.search(s.question) is not None
    ):
        return True
    return False


# -- an option of a menu is decided only by the user's reply (blind check 18) -------------------

_MENU_LINE_RE = lazy_pattern(
    r"^\W{0,6}(?:option\s+)?([A-F]|\d{1,2})(?:\s*[.):,|]|\s+[-–—:])\s*\S", re.IGNORECASE
)
"""An option line: ``A,Skip it,0 min``, ``B) …``, ``2. …``, ``Option C: …``, ``| A | … |``."""
_NAMED_OPTION_RE = lazy_pattern(r"\boption\s+([A-F]|\d{1,2})\b", re.IGNORECASE)
_PICKED_RE = lazy_pattern(
    r"^\W{0,4}(?:(?:let['’]?s |i['’]?ll |we['’]?ll )?(?:go with|take|do|pick|choose)\s+)?"
    r"(?:option\s+)?([A-F]|\d{1,2})(?:\s*$|\s*[-–—:,.)!]\s|\s*[-–—:,.)!]$|"
    r"\s+(?:please|then|it is|is (?:fine|good|best)|sounds|works|let['’]?s|go|for)\b)",
    re.IGNORECASE,
)
"""The user's reply naming an option first: "A - let's run sudo", "option 2", "go with B"."""


def _label(sentence: str) -> str:
    """The option a sentence is (its line's label, or the "Option B" it names); "" if none."""
    found = _MENU_LINE_RE.match(sentence) or _NAMED_OPTION_RE.search(sentence)
    return found.group(1).upper() if found else ""


def unchosen_dropped(offer: str, reply: str, said: list[str]) -> list[str]:
    """``said`` (sentences of the assistant's ``offer``) without those that are options of a
    menu the offer listed (two labelled option lines or more: A/B/C, 1/2/3) other than the one
    the user's ``reply`` chose: an option is decided only by the user's choice."""
    if not said:
        return said
    labels = {m.group(1).upper() for ln in offer.splitlines() if (m := _MENU_LINE_RE.match(ln))}
    if len(labels) < 2:
        return said
    picked = _PICKED_RE.match(reply)
    chosen = picked.group(1).upper() if picked else ""
    return [x for x in said if _label(x) in ("", chosen)]
