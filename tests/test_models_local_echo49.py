"""A result that only repeats its call's arguments is no command output (blind check 49, N1).

Claude Code answers an approved ``ExitPlanMode`` with the plan itself ("User has approved your
plan … ## Approved Plan: …"); section 5's "What commands printed" listed the plan's expected
results ("swift build --package-path agent — resolves and builds successfully") as if a build
had printed them, while the real build failed. A result whose shown lines all stand in the
call's own arguments is left out of that list. Sessions are invented, built here.
"""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary
from .test_models_local_session import section

PLAN = (
    "# Plan: split the packages\n\n## Verification\n"
    "1. swift build --package-path agent — resolves and builds successfully\n"
    "2. swift build --package-path control-plane — resolves and builds successfully\n"
)


def _session() -> Session:
    s = Session()
    s.user("Plan how to split the Swift packages, then do it.")
    s.call(
        "ExitPlanMode",
        {"plan": PLAN},
        "User has approved your plan. You can now start coding. Start with updating your todo "
        f"list if applicable\n\nYour plan has been saved to: /home/dev/.claude/plans/p.md\n\n"
        f"## Approved Plan:\n{PLAN}",
    )
    s.call(
        "Bash",
        {"command": "swift build --package-path control-plane 2>&1 | tail -3"},
        "error: unknown package 'SwiftSCIM' in dependencies of target 'ControlPlane'",
        error=True,
    )
    s.call("Bash", {"command": "git log --oneline -1"}, "4f2c1aa Split the packages into libs/")
    return s


def test_a_plan_echo_is_not_listed_as_what_a_command_printed(tmp_path: Path) -> None:
    problems = " ".join(section(cc_summary(_session(), tmp_path), 5).split())
    printed = problems.split("What commands printed:", 1)[1].split("Tool calls (", 1)[0]
    assert "resolves and builds successfully" not in printed, printed
    assert "4f2c1aa Split the packages" in printed, printed  # real output still listed


def test_a_shell_commands_echo_is_still_its_output(tmp_path: Path) -> None:
    """(seen set 30 cc-dealer: ``npx eslint … || echo "Linting completed (warnings may be
    present)"`` printed the fallback line; it is what the run printed, and was dropped.)"""
    s = Session()
    s.user("Lint the two form pages.")
    s.call(
        "Bash",
        {
            "command": "npx eslint pages/forms --quiet"
            ' || echo "Linting completed (warnings may be present)"'
        },
        "Linting completed (warnings may be present)",
    )
    s.say("Lint ran.")
    problems = " ".join(section(cc_summary(s, tmp_path), 5).split())
    assert "Linting completed (warnings may be present)" in problems.split("Tool calls (", 1)[0]
