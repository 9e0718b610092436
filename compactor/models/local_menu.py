"""The items of a menu the assistant offered are no decisions (blind check 28, W5: option 5 of
an elicitation menu, "Decision Matrix — define criteria and score name options objectively",
was listed among the decisions, though the user picked option 1).

:func:`menu_items` finds, in one assistant message, each run of two or more list items
(``1.``, ``2)``, ``-``, ``*``, ``a)``) that a choice frames: the line before the run or the
line after it speaks of options, choosing, selecting, picking, preferring or "which one"
("Options:", "Choose a number:", "Which do you prefer?", "You can also choose 6 …"). Those
items are what the user may choose, not what anyone decided; the user's own reply says what
was chosen.

A list item that compares ("instead of", "rather than") with no one deciding in it ("Info
recommending named pins (string) instead of numeric for exhaust.", "Kiri:Moto (web-based;
export templates rather than native configs).": blind check 32 N4) describes an option of the
assistant's overview, whatever frames the list: no decision either (:func:`compared_items`)."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import clean, one_line

__all__ = ["compared_items", "menu_items", "on_menu"]

_CUE_RE = re.compile(
    r"(?im)\b(?:choose|choosing|pick one|prefer|alternatives|menu|would you like|reply with"
    r"|which (?:one|of (?:these|them)|approach|option|would you|do you|should)"
    r"|select (?:one|an? option|a number|from)"
    r"|(?:two|three|four|five|several|some|a few|these|the following|\d) (?:options|choices))\b"
    r"|(?:^[\W_]*|\b(?:your|the|possible|available) )(?:options?|choices)\s*(?:[:(]|are\b)"
)
"""What offers a choice: a bare "select" or "options" (a select component, build options) is
not enough."""
_CUE_WORDS = (
    "choos",
    "pick one",
    "prefer",
    "alternatives",
    "menu",
    "would you like",
    "reply with",
    "which ",
    "select ",
    "option",
    "choice",
)
"""Words one of which every :data:`_CUE_RE` match holds (lower-cased): looked for first, as
plain substrings (the case-insensitive alternation cost 0.39 s over the 7,733 assistant
messages of the 50 MB bench transcript)."""
_ITEM_RE = lazy_pattern(r"^\s*(?:[-*•]|\d{1,2}[.)]|\(?[a-zA-Z]\))\s+(\S.*)$")
_COMPARES_RE = lazy_pattern(r"\b(?:instead of|rather than)\b", re.IGNORECASE)
_DECIDER_RE = lazy_pattern(
    r"\b(?:I|[Ww]e|[Ll]et['’]s)\b|\b(?:decided|decision|chose|opted|going with|went with)\b"
)
"""Someone deciding in the item ("I used X instead of Y", "we went with …")."""


def compared_items(text: str) -> frozenset[str]:
    """The list items of ``text`` (two or more list lines) that compare options ("instead of",
    "rather than") with no one deciding in them: an overview's descriptions of options."""
    lines = [m.group(1) for ln in clean(text).split("\n") if (m := _ITEM_RE.match(ln))]
    if len(lines) < 2:
        return frozenset()
    return frozenset(
        one_line(item).replace("**", "")
        for item in lines
        if _COMPARES_RE.search(item) is not None and _DECIDER_RE.search(item) is None
    )


def menu_items(text: str) -> frozenset[str]:
    """The items (one line each, without their marks) of the menus ``text`` offers."""
    if "\n" not in text and "\r" not in text:  # a menu: two list items or more, one a line
        return frozenset()
    low = text.lower()
    compared = compared_items(text) if "instead of" in low or "rather than" in low else frozenset()
    if not any(w in low for w in _CUE_WORDS):  # the cue itself is looked for next to each run
        return compared  # of items only: one search of the whole text cost 4.3 s on 50 MB
    lines = clean(text).split("\n")
    found: set[str] = set()
    i = 0
    while i < len(lines):
        if _ITEM_RE.match(lines[i]) is None:
            i += 1
            continue
        start, items = i, []
        while i < len(lines) and (not lines[i].strip() or _ITEM_RE.match(lines[i])):
            if match := _ITEM_RE.match(lines[i]):
                items.append(match.group(1))
            i += 1
        before = next((x for x in reversed(lines[:start]) if x.strip()), "")
        after = next((x for x in lines[i:] if x.strip()), "")
        if len(items) >= 2 and (_CUE_RE.search(before) or _CUE_RE.search(after)):
            found.update(one_line(item).replace("**", "") for item in items)
    return frozenset(found) | compared


def on_menu(sentence: str, menu: frozenset[str]) -> bool:
    """Whether a scored sentence is (part of) one of the ``menu`` items."""
    plain = sentence.replace("**", "")
    return any(plain in item for item in menu)
