"""Hand-kept plain-substring prefilters stay supersets of their patterns (debt32, row 1453).

A module that looks for a few words first (``any(w in low for w in WORDS)``) and runs its regex
only then says "every match holds one of these words"; an alternative added to the regex without
its word is silently never tried. Each pair below is checked by reading the pattern's parse tree:
every way through it must pass a stretch of literal text that holds one of the words."""

from __future__ import annotations

import re
from collections.abc import Iterable
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser as p  # type: ignore[attr-defined]
from typing import Any

import pytest

from compactor.facts import attachments, testruns, wenton
from compactor.models import local_claims, local_dialogue, local_lost, local_menu

_MOST = 512  # literal variants of one stretch worked out at the most


def _strings(items: Iterable[tuple[Any, Any]]) -> set[str] | None:
    """Every literal text ``items`` can match (zero-width items match ''); None when one of them
    matches more than a few literal variants (a class, a repeat)."""
    out = {""}
    for op, av in items:
        one = _item_strings(op, av)
        if one is None:
            return None
        out = {a + b for a in out for b in one}
        if len(out) > _MOST:
            return None
    return out


def _item_strings(op: Any, av: Any) -> set[str] | None:
    if op is c.LITERAL:
        return {chr(av)}
    if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
        return {""}
    if op is c.IN and all(o is c.LITERAL for o, _ in av):
        return {chr(v) for _, v in av}
    if op is c.SUBPATTERN:
        return _strings(av[-1])
    if op is c.BRANCH:
        out: set[str] = set()
        for alt in av[1]:
            strings = _strings(alt)
            if strings is None:
                return None
            out |= strings
        return out
    if op in (c.MAX_REPEAT, c.MIN_REPEAT) and av[1] <= 1:
        inner = _strings(av[2])
        return None if inner is None else inner | ({""} if av[0] == 0 else set())
    return None


def _holds(items: Iterable[tuple[Any, Any]], words: tuple[str, ...], fold: bool) -> bool:
    """Whether every match of ``items`` holds one of ``words``: a stretch of literal items whose
    every variant holds one, or a group every way through which does."""
    stretch: set[str] | None = {""}
    for op, av in items:
        one = _item_strings(op, av)
        if one is not None and stretch is not None:
            stretch = {a + b for a in stretch for b in one}
            stretch = stretch if len(stretch) <= _MOST else None
            continue
        if _variants_hold(stretch, words, fold) or _group_holds(op, av, words, fold):
            return True
        stretch = {""}
    return _variants_hold(stretch, words, fold)


def _variants_hold(stretch: set[str] | None, words: tuple[str, ...], fold: bool) -> bool:
    if not stretch or stretch == {""}:
        return False
    return all(any(w in (s.lower() if fold else s) for w in words) for s in stretch)


def _group_holds(op: Any, av: Any, words: tuple[str, ...], fold: bool) -> bool:
    if op is c.SUBPATTERN:
        return _holds(av[-1], words, fold)
    if op is c.BRANCH:
        return all(_holds(a, words, fold) for a in av[1])
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
        return _holds(av[2], words, fold)
    return False


def every_match_holds(pattern: re.Pattern[str], words: tuple[str, ...], *, fold: bool) -> bool:
    """Whether each match of ``pattern`` holds one of ``words`` (``fold``: compared lower-cased,
    as a prefilter on the lower-cased text sees it)."""
    return _holds(p.parse(pattern.pattern, pattern.flags).data, words, fold)


PAIRS = {
    # (pattern, its prefilter's words, whether the words are looked for in lower-cased text)
    "local_menu cue": (local_menu._CUE_RE, local_menu._CUE_WORDS, True),
    "local_dialogue choices": (local_dialogue._CHOOSES_RE, local_dialogue._CHOICE_WORDS, True),
    "local_lost": (local_lost._LOST_RE, local_lost._LOST_WORDS, True),
    "facts.testruns": (testruns._TEST_RUN_RE, testruns.TEST_RUN_WORDS, True),
    # (its words are looked for in the text as written: a sentence-initial "Prior idea" passes by)
    "local_claims prior idea": (local_claims._PRIOR_IDEA_RE, local_claims._IDEA_WORDS, True),
    "local_claims prior": (
        local_claims._PRIOR_IDEA_RE,
        ("prior ", "earlier ", "previous ", "original "),
        True,
    ),
    "facts.wenton report line": (wenton._REPORT_LINE_RE, wenton._REPORT_WORDS, False),
    "facts.attachments block": (attachments._BLOCK_RE, attachments._HINTS, False),
}


@pytest.mark.parametrize("name", PAIRS)
def test_every_alternative_of_a_prefiltered_pattern_holds_a_prefilter_word(name: str) -> None:
    pattern, words, fold = PAIRS[name]
    assert every_match_holds(pattern, words, fold=fold), name


def test_the_check_catches_an_alternative_without_a_word() -> None:
    """What the check is for: an alternative added to the regex but not to the words."""
    words = local_menu._CUE_WORDS
    assert every_match_holds(re.compile(r"\b(?:choose|pick one)\b", re.I), words, fold=True)
    drifted = re.compile(local_menu._CUE_RE.pattern + r"|\bup to you\b", local_menu._CUE_RE.flags)
    assert not every_match_holds(drifted, words, fold=True)
    assert not every_match_holds(re.compile(r"(?:select|choose) one"), ("choose",), fold=True)
    assert not every_match_holds(re.compile(r"[a-z]+ options?"), ("options",), fold=True)
    assert every_match_holds(re.compile(r"[a-z]+ options?"), ("option",), fold=True)
    assert not every_match_holds(re.compile(r"ERESOLVE"), ("eresolve",), fold=False)
