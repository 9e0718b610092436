"""The error words two readers share (debt32, row 1451): ``facts.outcomes._ERROR_HINTS`` (the
cheap test before the error patterns) and ``facts.killreport._OTHER_ERROR_WORDS`` (what makes a
"killed" line more than a kill report) were two hand-kept copies; one tuple now serves both."""

from __future__ import annotations

from compactor.facts import killreport, outcomes
from compactor.facts.killreport import ERROR_WORDS


def test_both_lists_extend_the_one_shared_tuple() -> None:
    hints, other = outcomes._ERROR_HINTS, killreport._OTHER_ERROR_WORDS
    assert hints[: len(ERROR_WORDS)] == ERROR_WORDS
    assert other[: len(ERROR_WORDS)] == ERROR_WORDS
    assert len(set(ERROR_WORDS)) == len(ERROR_WORDS)


def test_the_documented_differences_stay() -> None:
    hints = set(outcomes._ERROR_HINTS) - set(ERROR_WORDS)
    other = set(killreport._OTHER_ERROR_WORDS) - set(ERROR_WORDS)
    assert hints == {"err!", "o such file", "not recognized", "annot find", "illed"}
    assert other == {"o such", "annot"}
    # the kill report's words are wider than the hints' ("no such process", "cannot …")
    assert all(any(w in h for h in hints) for w in other)
    # "killed" is the kill report's own word: never more than a kill
    assert not any(w in "killed" for w in killreport._OTHER_ERROR_WORDS)
