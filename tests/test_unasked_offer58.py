"""Blind check 58 (N2): a call in flight that starts a step the assistant only offered ("want
me to do that?", never answered) awaits the user's answer; sections 7 and 9 never say only
"run them again if still needed"."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary
from .test_models_local_session import section


def _session(reply: str) -> Session:
    s = Session()
    s.user("Commit the generated report.")
    s.bash("git add report.md && git commit -m 'Add report'", "[main 5e6f7a8] Add report")
    s.say(
        "Committed 5e6f7a8. The build cache keeps showing up in git status; I can add "
        "`build/cache/` to the `.gitignore` and untrack it — want me to do that?"
    )
    s.user(reply)
    s.say("Running the linter. Also untracking the build cache so it stops showing up:")
    tool = {"type": "tool_use", "id": "toolu_flying", "name": "Bash"}
    s.assistant([{**tool, "input": {"command": "git rm -r --cached build/cache/"}}])
    return s


def test_an_offered_step_started_unasked_awaits_the_users_answer(tmp_path: Path) -> None:
    text = cc_summary(_session("Run the linter on src/ please."), tmp_path)
    nine = " ".join(section(text, 9).split())
    assert "a question the user never answered" in nine, nine
    assert "do not run them again or finish that step until the user answers" in nine, nine
    assert "run them again if still needed" not in nine, nine
    seven = " ".join(section(text, 7).split())
    assert "that step awaits the user's answer" in seven, seven
    assert "run them again if still needed" not in seven, seven


def test_an_offer_the_user_accepted_is_checked_and_run_again_as_usual(tmp_path: Path) -> None:
    nine = " ".join(section(cc_summary(_session("yes, do that"), tmp_path), 9).split())
    assert "never answered" not in nine, nine
    assert "run them again if still needed" in nine, nine
