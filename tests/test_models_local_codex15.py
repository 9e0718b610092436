"""Blind check 15, Codex sessions (issue 28, rows 610-619): a command that failed in one
directory and later succeeded in another is not fixed (the first place is unchanged)."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_NOT_A_REPO = (
    "Exit code: 128\nWall time: 0 seconds\nOutput:\n"
    "fatal: not a git repository (or any of the parent directories): .git\n"
)
_STATUS = "Exit code: 0\nWall time: 0 seconds\nOutput:\n## main...origin/main\n M docs/plan.md\n"


def _status_session(first: dict[str, str], later: dict[str, str]) -> str:
    s = SessionBuilder()
    s.user("commit the docs")
    s.call("shell_command", {"command": "git status -sb", **first}, _NOT_A_REPO, error=True)
    s.call("shell_command", {"command": "git status -sb", **later}, _STATUS)
    s.say("The workspace root is not a git repository; the app below it is. Commit there?")
    return section(summarize_transcript(s.messages), 4)


def test_a_success_in_another_workdir_does_not_fix_a_failure() -> None:
    """kn-commit: ``git status -sb`` failed (exit 128) with ``workdir`` the workspace root and
    succeeded with ``workdir`` a repository below it; section 4 said "Fixed: a later git
    status -sb succeeded"."""
    errors = _status_session({"workdir": "/w/space"}, {"workdir": "/w/space/app"})
    assert "exit code 128" in errors or "not a git repository" in errors, errors
    assert "Fixed: a later" not in errors, errors


def test_a_leading_cd_elsewhere_does_not_fix_it_either() -> None:
    s = SessionBuilder()
    s.user("commit the docs")
    s.call("Bash", {"command": "cd /w/space && git status -sb"}, _NOT_A_REPO, error=True)
    s.call("Bash", {"command": "cd /w/space/app && git status -sb"}, _STATUS)
    s.say("The app is a repository.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Fixed: a later" not in errors, errors


def test_the_same_command_in_the_same_workdir_still_fixes_it() -> None:
    errors = _status_session({"workdir": "/w/space"}, {"workdir": "/w/space/"})
    assert "Fixed: a later" in errors, errors
    errors = _status_session({"workdir": "/w/space"}, {})  # later place unknown: as before
    assert "Fixed: a later" in errors, errors
