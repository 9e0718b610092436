"""A request that only reports a new failure is no verdict on the turn's unrelated decisions
(blind check 52, W5: "if the segment becomes larger, the gradient doesn't work anymore." was
read as rejecting "Per the same squash pattern I've used all session …, I amended it into …":
"Not accepted by the user"). A report that names the decision's object, or words that undo or
turn down ("revert it"), still reach it."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cc_session import Session, cc_summary

SQUASH = (
    "Per the same amend pattern I've used all session (unpushed, single commit), I amended it "
    "into 62c5d6c because the branch is not pushed yet."
)


def _summary(reply: str, tmp_path: Path) -> str:
    s = Session()
    s.user("Add a gradient option to the segment renderer.")
    edit = {
        "file_path": "/home/dev/board/src/color/gradient.go",
        "old_string": "a",
        "new_string": "b",
    }
    s.call("Edit", edit, "ok")
    s.bash("git commit --amend --no-edit", "[main 62c5d6c] gradient")
    s.say(f"The gradient option is in src/color/gradient.go. {SQUASH}")
    s.user(reply)
    s.call("Edit", {**edit, "old_string": "b", "new_string": "c"}, "ok")
    s.say("The gradient now scales with the segment width.")
    return cc_summary(s, tmp_path)


def test_a_new_failure_report_is_no_verdict_on_an_unrelated_decision(tmp_path: Path) -> None:
    summary = _summary(
        "if the segment becomes larger, the gradient doesn't work anymore.", tmp_path
    )
    assert SQUASH in summary
    assert "Not accepted by the user" not in summary
    assert "Reverted at the user's request" not in summary


@pytest.mark.parametrize(
    "reply",
    [
        "the amended commit doesn't work, it lost my change",  # names the decision's object
        "the gradient doesn't work, revert it",  # words that undo: every decision of the turn
    ],
)
def test_a_complaint_that_names_or_undoes_it_still_rejects(reply: str, tmp_path: Path) -> None:
    summary = _summary(reply, tmp_path)
    assert f'Not accepted by the user ("{reply}"): {SQUASH}' in summary, summary
