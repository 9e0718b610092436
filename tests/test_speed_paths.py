"""Issue 28 point 7 on path-heavy chats (helper speedpaths): each quick scan that replaced a
pattern run over a whole message says what the pattern says (hypothesis properties over the
characters and words the patterns look at, case-folding letters included)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

_FOLDING = ["İ", "ı", "ſ", "\u212a", "K", "é", "’", "'"]
"""Letters that case-fold to ASCII ones (``İ``, ``ı``, ``ſ``, the Kelvin sign) and others."""


def _texts(words: list[str]) -> st.SearchStrategy[str]:
    """Texts made of ``words`` (each also upper-cased and capitalised), case-folding letters,
    punctuation and white space, and random text."""
    pieces = [*words, *(w.upper() for w in words), *(w.capitalize() for w in words)]
    pieces += [f" {w} " for w in words]
    pieces += [*_FOLDING, " ", "  ", "\n", ". ", "! ", "? ", ",", ":", "-", "x", "s", "k", "i"]
    return st.one_of(
        st.lists(st.sampled_from(pieces), max_size=16).map("".join),
        st.text(alphabet="".join({c for p in pieces for c in p}), max_size=40),
    )


_CHOICE_TEXTS = _texts(
    ["ditch", "drop", "remove", "skip", "exclude", "go with", "pick", "choose", "keep only",
     "prefer", "good", "fine", "best", "go", "with", "keep", "only", "dro", "ſkip", "piсk"]
)  # fmt: skip


@settings(max_examples=1500, deadline=None, database=None, derandomize=True)
@given(_CHOICE_TEXTS)
def test_property_a_request_may_choose_exactly_when_the_choice_pattern_finds_a_word(
    text: str,
) -> None:
    """``judge_proposals`` asks whether a request holds a word every choice holds: looked for
    with ``in`` in the lower-cased request (``finds_any``), not with the case-insensitive
    pattern that took a third of the run on a chat of long requests."""
    from compactor.facts import finds_any
    from compactor.models.local_dialogue import _CHOICE_WORD_RE, _CHOICE_WORDS

    assert finds_any(text, _CHOICE_WORDS, _CHOICE_WORD_RE) == (
        _CHOICE_WORD_RE.search(text) is not None
    )


_RULE_TEXTS = _texts(
    ["must", "never", "don't", "don’t", "dont", "do not", "always", "make sure", "mußt", "do",
     "not", "make", "sure", "alwayſ", "the tests", "we", "mu"]
)  # fmt: skip


@settings(max_examples=1500, deadline=None, database=None, derandomize=True)
@given(_RULE_TEXTS)
def test_property_instructions_after_the_quick_word_scan_are_those_of_every_sentence(
    text: str,
) -> None:
    """``instructions`` looks for its rule words with ``in`` in the lower-cased text before
    running its pattern: the rule sentences are those the pattern finds sentence by sentence."""
    from compactor.facts import instructions, sentence_spans
    from compactor.facts.patterns import _INSTRUCTION_RE, _WORD_RE
    from compactor.facts.text import cut

    expected = [
        (pos, cut(x))
        for pos, x in sentence_spans(text)
        if _INSTRUCTION_RE.search(x) and len(_WORD_RE.findall(x)) >= 3
    ]
    assert list(instructions(text)) == expected


# -- what a summary of a head longer than READ_CHARS reads -----------------------------------------


def test_newest_from_is_the_oldest_entry_of_the_newest_texts_within_the_budget() -> None:
    from compactor.facts import Entry, newest_from

    entries = [
        Entry(0, "user", "a" * 50),
        Entry(1, "assistant", "b" * 30),
        Entry(2, "system", "s" * 500),  # not dialogue: not counted
        Entry(3, "user", "c" * 20),
        Entry(4, "assistant", "d" * 10),
    ]
    assert newest_from(entries, 110) == 0  # 110 characters of dialogue: all read
    assert newest_from(entries, 109) == 1  # the first one would pass the budget
    assert newest_from(entries, 60) == 1
    assert newest_from(entries, 59) == 2  # from the entry after the one that passes it
    assert newest_from(entries, 9) == 5  # not even the last one: none read
    assert newest_from([], 0) == 0


def _long_session(filler_messages: int) -> str:
    """A summary of a session that decided something first, then chatted ``filler_messages``
    times 200,000 characters of plain words, then decided something else."""
    from compactor.models.local import summarize_transcript

    from .planted_session import SessionBuilder

    s = SessionBuilder()
    s.user("Why does the importer crash on the March file?")
    s.say(
        "The root cause is the BOM at the start of march.csv, so the header is misread. "
        "I'll rewrite the importer in Rust."
    )
    s.user("No, don't rewrite it.")
    s.say("Understood: the Python importer stays.")
    words = "plain words of a long chat about the weather and other things " * 3_200
    for _ in range(filler_messages):
        s.user(words[:100_000])
        s.say(words[:100_000])
    s.user("And the totals?")
    s.say("The cause of the wrong totals was the rounding in totals.py, decided to use Decimal.")
    s.user("Thanks. Anything else?")
    s.say("No, that is all for now.")
    return summarize_transcript(s.messages)


def test_a_head_longer_than_read_chars_is_scored_for_decisions_from_its_newest_texts() -> None:
    """Issue 28 point 7: a head whose dialogue holds more than READ_CHARS characters (4 MB,
    about a million tokens: more than a context window holds) has its decisions scored, the
    proposals the user accepted or turned down judged and its identifiers counted in its
    newest READ_CHARS characters only; a shorter head, read whole, keeps its oldest decision
    and the proposal turned down then."""
    from compactor.facts import READ_CHARS

    from .test_models_local_session import section

    within = _long_session(READ_CHARS // 200_000 - 1)
    problem = section(within, 5)
    assert "BOM at the start of march.csv" in problem
    assert "turned down (not decisions; do not act on them):\n     - I'll rewrite" in problem
    # the newest decision: in section 5, or quoted once as the earlier request's answer (section 8)
    assert "rounding in totals.py" in problem + section(within, 8)
    beyond = _long_session(READ_CHARS // 200_000 + 1)
    problem = section(beyond, 5)
    assert "BOM at the start of march.csv" not in problem
    assert "rewrite the importer" not in problem  # nor the proposals the user judged there
    assert "rounding in totals.py" in problem + section(beyond, 8)


_HARNESS_TEXTS = _texts(
    ["API Error", "api error:", "{", '"type"', ":", '"error"', "Request timed out", "limit",
     "usage", "session", "rate", "weekly", "5-hour", "5", "-", "hour", "reached", "exceeded",
     "hit", "You've", "You’re", "out of", "credits", "Overloaded", "server error:", "lımit",
     "lİmit", "_", "\t", "9", "usage limit reached", "5-hour limit reached", " limit reached",
     "Rate Limit exceeded", "rate limit hit", "weekly limit reached"]
)  # fmt: skip


@settings(max_examples=2000, deadline=None, database=None, derandomize=True)
@given(_HARNESS_TEXTS)
def test_property_a_harness_error_is_what_the_whole_pattern_matches(text: str) -> None:
    """``is_harness_error`` tries the pattern's word-led branches, then its ``… limit …``
    branches only when the text's first run of words, digits, dashes and spaces says
    ``limit``: the same verdicts as matching the whole pattern (which took 2 µs on every long
    reply of the paths bench shape)."""
    from compactor.models.local_harness import _HARNESS_ERROR_RE, _error_start

    assert _error_start(text) == (_HARNESS_ERROR_RE.match(text) is not None)


def test_harness_errors_after_white_space_digits_and_dashes_are_still_found() -> None:
    """The ``… limit reached`` branches after a long run of digits and dashes, leading lines,
    a case-folding letter; and texts that only mention a limit after punctuation."""
    from compactor.models.local_harness import _HARNESS_ERROR_RE, is_harness_error

    found = [
        "\n\n  Weekly limit reached ∙ resets 9pm",
        "5" + "-" * 300 + " hour limit reached, try again later" + " x" * 100,
        "Claude usage limit reached|1750000000" + " pad" * 60,
        "session lİmit reached\n" + "." * 300,
        "\t Usage limit exceeded. Please wait.",
    ]
    missed = [
        "Note: the usage limit reached its peak" + " ." * 150,
        "We talked, about the rate limit reached yesterday, and more." * 5,
        "- " + "word " * 60 + "usage limit reached",
    ]
    for text in found:
        assert is_harness_error(text), text
    for text in missed:
        assert not is_harness_error(text), text
    for text in [*found, *missed]:
        assert is_harness_error(text) == (
            len(text) <= 4_000 and _HARNESS_ERROR_RE.match(text) is not None
        )


_PROCEDURE_TEXTS = _texts(
    ["- On success", "- On failure", "1. if", "2) when", "* otherwise", "else", "upon", ":",
     ": respond", ":\trespond", ":  reply", "return", "Output", "print", "REPORT", "answer", "say",
     "write", "stop", "abort", "emit", "respondx", "Rules:\n", "- ", "\n- ", "\n1. ", "in case",
     "\n- On failure (x): REPORT it", "\n2. if bad: Respond with", "\n- when ok:\tSAY done",
     "\n* else: ſtop", "\n- upon \u212aill: emit"]
)  # fmt: skip


@settings(max_examples=2000, deadline=None, database=None, derandomize=True)
@given(_PROCEDURE_TEXTS)
def test_property_a_procedure_head_is_what_the_branch_pattern_finds(text: str) -> None:
    """``_procedure_head`` looks for a branch's end (``: respond``) before it tries the branch
    pattern at every line start (4 % of the paths shape): the same head as running it."""
    from itertools import islice

    from compactor.models.local_typed import _BRANCH_RE, _RULES_AT_RE, _procedure_head

    branches = list(islice(_BRANCH_RE.finditer(text), 2))
    expected: str | None = None
    if len(branches) == 2:
        rules = _RULES_AT_RE.search(text, 0, branches[0].end())
        expected = text[: rules.start()].strip() if rules is not None else ""
    assert _procedure_head(text) == expected


def _overruled_after(between: list[tuple[str, str]]) -> str:
    """The statement of 58 W8 (a database write still needed) in section 5, when the user's
    "no need to write the database" comes after the ``between`` (request, answer) turns."""
    from compactor.models.local import summarize_transcript

    from .test_dialogue58 import _stated, badge_session

    s = badge_session(between)
    stated = _stated(summarize_transcript(s.messages))
    return next(x for x in stated if "still needs a database write" in x)


def test_only_a_request_after_a_turn_with_statements_can_say_they_no_longer_hold() -> None:
    """``judge_overruled`` reads a request's words only when the turn before it holds a scored
    statement (on a long chat only the newest turns do): a "no need to …" after a turn that
    stated nothing labels no statement of an earlier turn, one right after it labels it."""
    assert _overruled_after([]).startswith('- No longer holds (the user: "')
    claim = _overruled_after([("which file holds the badge list?", "badges.js")])
    assert not claim.startswith("- No longer holds"), claim


def _ruled_session(rules: int) -> list[str]:
    """``user_rules`` of a session whose requests state ``rules`` rules (one each), then a call
    the user rejected with a rule as the reason."""
    from compactor.models.local_judges import modelled
    from compactor.models.local_views import user_rules

    from .planted_session import SessionBuilder

    s = SessionBuilder()
    for i in range(rules):
        s.user(f"Please update the parser for case {i}. Never touch legacy{i}.py in this task.")
        s.say(f"Updated the parser for case {i}.")
    s.user("Make the legend break its lines.")
    s.call(
        "Edit",
        {"file_path": "docs/chart.md", "old_string": "a<br>b", "new_string": "a&#10;b"},
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
        "it was a file edit, the new_string was NOT written to the file). To tell you how to "
        "proceed, the user said:\nnever use HTML entities here",
        error=True,
    )
    return user_rules(modelled(s.messages))


def test_the_rules_read_are_the_first_the_largest_limits_show() -> None:
    """``user_rules`` stops reading requests once it has as many rules as section 1 shows at the
    largest limits (a long chat of requests: 9 % of the paths shape); with fewer, the reasons
    for rejected calls follow, as before."""
    from compactor.models.local_limits import Limits

    shown = Limits().items
    assert all(Limits().scaled(f).items <= shown for f in (1.0, 0.7, 0.5, 0.1))
    many = _ruled_session(shown + 8)
    assert many == [f"Never touch legacy{i}.py in this task." for i in range(shown)]
    few = _ruled_session(3)
    assert few == [
        *(f"Never touch legacy{i}.py in this task." for i in range(3)),
        "never use HTML entities here (the user's reason for rejecting a Edit call)",
    ]
