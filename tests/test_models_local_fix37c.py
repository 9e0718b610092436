"""Blind check 37 (fix37c): a dismissed question the user then answered in their own words is not
open (W3); an error the user pasted is no constraint of theirs (W4). The task list's rules (W2)
are in ``test_models_local_plan.py``."""

from __future__ import annotations

from typing import Any

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.schema import AgenticMessage, Message

from .cc_session import Session as CcSession
from .test_models_local_fix32a import _BARE, _asked, _summary
from .test_models_local_session import section

_OWN = "it crashes whenever I call new() on a Shape, here is the program"


def _messages(s: CcSession) -> list[Message] | list[AgenticMessage]:
    data = b"\n".join(s.lines()) + b"\n"
    return read_transcript("session.jsonl", data).messages


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


# -- 1712: a pasted error is no constraint of the user's (W4) --------------------------------------

_SPECIFIER = (
    'Uncaught TypeError: Failed to resolve module specifier "charts/core". Relative references'
    ' must start with either "/", "./", or "../".'
)


def _rules_of(*requests: str) -> str:
    s = CcSession()
    for text in requests:
        s.user(text)
        s.assistant([{"type": "text", "text": "Looking at it."}])
    part = section(summarize_transcript(_messages(s)), 1)
    return (
        part.split("Constraints and preferences stated by the user:", 1)[-1]
        if "Constraints" in part
        else ""
    )


def test_a_pasted_browser_error_is_no_constraint() -> None:
    """cx-jenga: "Relative references must start with …", the end of a browser error the user
    pasted into a short message, was listed as his constraint."""
    for paste in (
        _SPECIFIER,
        f"the dashboard is blank, the console says\nindex.html:1 {_SPECIFIER}",
        _SPECIFIER.replace(". Relative", ".\nRelative"),  # the message wrapped
        "the build broke:\nValueError: the port must be a number\n    at load (cfg.js:3:9)",
    ):
        part = _rules_of("Build the dashboard page with the charts.", paste)
        assert "must start with" not in part and "must be a number" not in part, (paste, part)


def test_the_users_own_rules_beside_a_pasted_error_stay() -> None:
    """A guard: the user's words before, after or around the paste are still his rules."""
    part = _rules_of(
        f"the page is blank:\n{_SPECIFIER}\nPlease keep the imports relative, never use a CDN.",
        "When the console says Error: something, you must reload the page first.",
        "Error handling must stay in utils.js.",
    )
    assert "never use a CDN" in part, part
    assert "you must reload the page first" in part, part
    assert "Error handling must stay in utils.js" in part, part
    assert "must start with" not in part, part
