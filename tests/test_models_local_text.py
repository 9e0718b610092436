"""compactor.models.local_decisions (moved out of local_text): which assistant sentences state a
decision or ask the user."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from compactor.facts import clean, lowers_exactly, sentences
from compactor.models import local_decisions
from compactor.models.local_decisions import decision_score, may_state_decision, strip_list_mark

from .conftest import examples

_KEYWORDS = st.sampled_from(
    ["Done: ", "Fixed - ", "found it: ", "Result: ", "cause: ", "Decision — ", "We decided ",
     "going with ", "went with ", "chose ", "opted ", "instead of ", "rather than ",
     "the root cause ", "caused by ", "turns out ", "found that ", "the bug is ", "the issue was ",
     "the problem is ", "the fix was ", "fixed by ", "changed ", "switched ", "moved ", "set ",
     "reduced ", "replaced ", "bumped ", "from `a` to `b`", "from 3 to 5", "I ", "we ", "I've ",
     "we have ", "just ", "updated ", "re-enabled ", "verified ", "wrote ", "all 12 tests passed",
     "3 failed", "1 test passes", "coverage ", "deployed ", "pushed ", "tagged ", "because ",
     "due to ", "works now", "succeeded ", "failing ", "was not ", "weren't ", "didn't ",
     "now returns ", "now handles ", "ſet ", "fıxed ", "opted"]
)  # fmt: skip
_FILLERS = st.sampled_from(
    ["Let me ", "I'll ", "next, ", "- ", "2. ", "3) ", "• ", "the ", "config ", "value of the ",
     "x", "1", ". ", "! ", "? ", "\n", ": ", "`", "\u212a", "İ", "é", "\x00", "\r"]
)  # fmt: skip
_TEXTS = st.lists(st.one_of(_KEYWORDS, _FILLERS, _FILLERS, _FILLERS), min_size=1, max_size=14)
"""Assistant text: every keyword of every weight (mostly one or two in a text, so each is
tested alone), list marks, sentence ends, and the characters that case-insensitive matching
treats specially."""


def _score_of_every_pattern(sentence: str) -> int:
    """decision_score without its keyword test (the patterns decide alone)."""
    try:
        local_decisions.may_state_decision = lambda text, low="": True
        return decision_score(sentence)
    finally:
        local_decisions.may_state_decision = may_state_decision


# 500, derandomized, in make test too (at 300 a test that forgot the `now` words passed): every
# keyword alone is also checked by the test after this one
@settings(max_examples=500, deadline=None, database=None, derandomize=True)
@given(_TEXTS.map("".join))
def test_property_the_keyword_test_changes_no_score(text: str) -> None:
    """A text without a decision keyword has no sentence that scores; a sentence scores what the
    patterns alone give it."""
    scores = [_score_of_every_pattern(strip_list_mark(s)) for s in sentences(text)]
    if not may_state_decision(clean(text)):
        assert not any(scores)
    assert [decision_score(strip_list_mark(s)) for s in sentences(text)] == scores


@settings(max_examples=examples(2000), deadline=None, database=None, derandomize=True)
@given(_TEXTS.map("".join))
def test_property_the_lower_cased_search_finds_what_the_any_case_one_does(text: str) -> None:
    """perf68: a sentence that lower-cases exactly is searched lower-cased by the pattern with
    its one capital (``I``) made small: it finds a keyword where the any-case pattern does."""
    for sentence in [text, *sentences(text), "I updated the parser.", "I've confirmed x is ok"]:
        if lowers_exactly(sentence):
            low = local_decisions._ANY_DECISION_LOW_RE.search(sentence.lower()) is not None
            assert low == (local_decisions._ANY_DECISION_RE.search(sentence) is not None)


@settings(max_examples=examples(2000), deadline=None, database=None, derandomize=True)
@given(_TEXTS.map("".join))
def test_property_scored_sentences_are_every_sentence_scored(text: str) -> None:
    """scored_sentences skips the sentences that hold none of the text's keywords (issue 28
    point 7): what it finds is what scoring every sentence finds, in order."""
    from compactor.models.local_decisions import scored_sentences

    every = [(decision_score(strip_list_mark(s)), strip_list_mark(s)) for s in sentences(text)]
    expected = (
        [(score, s) for score, s in every if score] if may_state_decision(clean(text)) else []
    )
    assert scored_sentences(text) == expected


_ALL_KEYWORDS = [
    *"done fixed found result cause decision decided chose opted changed switched moved".split(),
    *"bumped increased decreased raised lowered updated renamed set reduced replaced".split(),
    *"added removed created implemented refactored rewrote deleted reverted pinned".split(),
    *"disabled enabled re-enabled installed configured made confirmed verified traced".split(),
    *"wrote passed fails coverage deployed pushed committed merged tagged released".split(),
    *"published succeeded because failing".split(),
    *("found it", "decide to", "going with", "went with", "instead of", "rather than"),
    *("root cause", "the cause", "caused by", "turns out", "found that", "the bug is"),
    *("the issue was", "the problem is", "the fix is", "fixed by", "due to", "works now"),
    *("was not", "were not", "is not", "are not", "did not", "wasn't", "weren't", "isn't"),
    *("aren't", "didn't", "now returns", "now passes", "now works", "now fails", "now prints"),
    *("now raises", "now rejects", "now uses", "now handles", "12 tests passed", "3 failed"),
]


def test_every_keyword_alone_is_seen_by_the_keyword_test() -> None:
    """Each keyword of the patterns, alone in a sentence, passes the keyword test whenever the
    sentence scores (so no keyword is missing from the list)."""
    templates = ("{k}: the value of the config", "{k} - the value of the config",
                 "I {k} the value of the config", "we {k} the limit from 3 to 5",
                 "The value of the config {k}")  # fmt: skip
    for keyword in _ALL_KEYWORDS:
        for template in templates:
            for word in (keyword, keyword.capitalize(), keyword.upper()):
                sentence = template.format(k=word)
                if _score_of_every_pattern(sentence):
                    assert may_state_decision(sentence), sentence
                assert decision_score(sentence) == _score_of_every_pattern(sentence)
