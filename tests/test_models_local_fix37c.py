"""Blind check 37 (fix37c): a dismissed question the user then answered in their own words is not
open (W3); an error the user pasted is no constraint of theirs (W4). The task list's rules (W2)
are in ``test_models_local_plan.py``."""

from __future__ import annotations

from typing import Any

from .test_models_local_fix32a import _BARE, _asked, _summary
from .test_models_local_session import section

_OWN = "it crashes whenever I call new() on a Shape, here is the program"


def test_a_dismissed_question_the_user_answered_in_their_own_words_is_not_open(
    tmp_path: Any,
) -> None:
    """cc-obstruct: the user rejected the AskUserQuestion, then wrote the details himself and
    the agent answered; §5 said "(no option chosen; still open)"."""
    s = _asked(_BARE, notice=True)
    s.user(_OWN)
    s.user("struct Shape { int w; };\nShape* s = Shape::new(3);\nprint(s);")
    s.bash("cc -g shape.c && ./a.out", "Segmentation fault (core dumped)")
    s.assistant([{"type": "text", "text": "The crash comes from print() taking a null Shape."}])
    text = _summary(s, tmp_path)
    part = section(text, 5)
    assert f"answered in their own words: «{_OWN}»" in part, part
    assert "still open" not in part, part
    assert "Wait for the user's answer" not in text, text


def test_a_dismissed_question_nobody_went_on_from_stays_open(tmp_path: Any) -> None:
    """A guard: the user wrote after the dismissal but the agent has not answered yet, or the
    user wrote nothing: the question is still open."""
    s = _asked(_BARE, notice=True)
    s.user(_OWN)
    part = section(_summary(s, tmp_path), 5)
    assert "still open" in part and "own words" not in part, part
    part = section(_summary(_asked(_BARE, notice=True), tmp_path), 5)
    assert "still open" in part and "own words" not in part, part
