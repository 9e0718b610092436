"""Blind check 53 (W1): a ``git status`` digest that a later successful ``git commit`` (or
stash, checkout, reset …) followed is the state before that call, never shown as the current
one; without such a call it is shown as it is."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary
from .test_models_local_session import section

_STATUS = "\n".join(f"?? config/agents/role_{i}.toml" for i in range(12))


def _session(*, committed: bool) -> Session:
    s = Session()
    s.user("Commit the new agent configs and push.")
    s.bash("git status --short --untracked-files=all config/agents", _STATUS)
    if committed:
        s.bash(
            "git add config/agents && git commit -m 'Add agent configs'",
            "[windows 4f3e2d1] Add agent configs\n 12 files changed, 240 insertions(+)\n"
            + "\n".join(f" create mode 100644 config/agents/role_{i}.toml" for i in range(12)),
        )
        s.bash("git push", "To github.com:me/dots.git\n   27324bf..4f3e2d1  windows -> windows")
    s.user("and did the agents folder make it into the commit?")
    s.say("Yes: all 12 files under config/agents are in commit 4f3e2d1, pushed to windows.")
    return s


def test_a_git_status_digest_before_a_later_commit_is_dated(tmp_path: Path) -> None:
    printed = section(cc_summary(_session(committed=True), tmp_path), 5)
    status = next(ln for ln in printed.splitlines() if "git status" in ln)
    assert "(before commit 4f3e2d1, which ran later) untracked (not committed): " in status, status
    assert "→ untracked" not in status, status


def test_a_git_status_digest_with_no_later_change_stays_current(tmp_path: Path) -> None:
    printed = section(cc_summary(_session(committed=False), tmp_path), 5)
    status = next(ln for ln in printed.splitlines() if "git status" in ln)
    assert "→ untracked (not committed): config/agents/role_0.toml" in status, status
    assert "(before " not in status, status
