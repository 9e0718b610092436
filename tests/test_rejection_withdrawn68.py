"""A call the user rejected and the same command run again later with success is no standing
rejection (blind check 68 W7: the user wrote "I pressed NO by mistake" in their own language,
the agent ran the same ``git remote set-url`` again and pushed; the summary still listed the
call as "rejected by the user (it never ran) – not to be redone unasked"). Invented remote."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cc_session import Session, cc_summary, section

SET_URL = "git remote set-url origin https://git.example.com/fake-org/site.git"
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)


def _session(after_rejection: str, again: str) -> Session:
    s = Session()
    s.user("push the docs to the new remote")
    s.call("Bash", {"command": "git push -u origin main"}, "fatal: could not read Username", True)
    s.call("Bash", {"command": SET_URL}, REJECTED, True)
    s.user("[Request interrupted by user for tool use]")
    s.user(after_rejection)
    s.bash(again, "")
    s.bash("git push -u origin main", " * [new branch]      main -> main")
    s.say("Pushed the docs to the new remote.")
    return s


@pytest.mark.parametrize(
    "said", ["間違えてNOを押してしまいました", "sorry, I pressed no by mistake"]
)
def test_a_rejection_the_same_call_then_did_is_not_standing(said: str, tmp_path: Path) -> None:
    summary = cc_summary(_session(said, SET_URL), tmp_path)
    solving = " ".join(section(summary, 5).split())
    assert "Calls the user rejected" not in solving, solving
    assert "Rejected once, then done (the same call ran later and succeeded)" in solving
    errors = " ".join(section(summary, 4).split())
    assert "Not a standing rejection: the same call ran later and succeeded." in errors, errors


def test_a_rejection_followed_by_another_command_still_stands(tmp_path: Path) -> None:
    other = "git remote add backup https://git.example.com/fake-org/site.git"
    summary = cc_summary(_session("use a second remote instead", other), tmp_path)
    solving = " ".join(section(summary, 5).split())
    assert "Calls the user rejected (they never ran; not to be redone unasked)" in solving
    assert "Not a standing rejection" not in summary
