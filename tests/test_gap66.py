"""Blind check 66 gaps (gap66, issue 28): a fix made by changing configuration names the change;
each session is built by shape, with invented content."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

# -- a configuration change between a failure and its fix is named (66 N4) ----------------------


def _config_then_retry(change: str) -> str:
    s = SessionBuilder()
    s.user("commit the ledger export story")
    commit = 'git commit -m "feat: ledger export"'
    s.call(
        "Bash",
        {"command": commit},
        "Exit code 128\nerror: gpg failed to sign the data\nfatal: failed to write commit object",
        error=True,
    )
    s.call("Bash", {"command": change}, "")
    s.call("Bash", {"command": commit}, "[main 1a2b3c4] feat: ledger export\n 3 files changed")
    s.say("Committed.")
    return section(summarize_transcript(s.messages), 4)


def test_a_git_config_change_before_the_fix_is_named_as_a_standing_change() -> None:
    four = _config_then_retry("git config commit.gpgsign false")
    assert "after `git config commit.gpgsign false`" in four, four
    assert "standing configuration change" in four, four


def test_an_export_before_the_fix_is_named_but_not_standing() -> None:
    four = _config_then_retry("export GPG_TTY=$(tty)")
    assert "after `export GPG_TTY=$(tty)`" in four, four
    assert "standing" not in four, four


def test_a_config_read_is_no_change() -> None:
    four = _config_then_retry("git config --get commit.gpgsign")
    assert "Fixed" in four and "after `git config" not in four, four


def test_a_wrapped_config_change_is_named_without_its_shell() -> None:
    four = _config_then_retry("bash -lc 'git config --global commit.gpgsign false'")
    assert "after `git config --global commit.gpgsign false` (a standing" in four, four


# -- a check that passed among failures is kept (66 N2) ------------------------------------------


def _checks(*runs: tuple[str, str, bool]) -> str:
    s = SessionBuilder()
    s.user("is there any hope of fixing this branch?")
    s.call(
        "Bash",
        {"command": "pnpm nx run-many -t typecheck"},
        "Exit code 1\nFailed to start plugin worker.",
        error=True,
    )
    for command, output, failed in runs:
        s.call("Bash", {"command": command}, output, error=failed)
    for n in range(30):  # enough later calls that the check is among the calls omitted
        s.call("Bash", {"command": f"cat .cache/worker-{n}.log"}, f"worker {n}: EPERM")
    return section(summarize_transcript(s.messages), 5)


def test_a_green_type_check_among_failures_is_kept() -> None:
    five = _checks(("pnpm exec tsc --noEmit", "", False))
    assert "`pnpm exec tsc --noEmit` passed (" in five, five
    assert "no output" in five, five


def test_a_check_that_failed_after_it_passed_is_no_pass() -> None:
    five = _checks(
        ("pnpm exec tsc --noEmit", "", False),
        ("pnpm exec tsc --noEmit", "Exit code 2\nsrc/a.ts(3,1): error TS2304: x", True),
    )
    assert "tsc --noEmit` passed" not in five, five


def test_a_piped_check_or_one_counting_errors_is_no_pass() -> None:
    five = _checks(
        ("pytest -q | tail -5", "3 passed", False),
        ("cargo test", "test result: FAILED. 3 passed; 1 failed", False),
    )
    assert "passed (" not in five, five


# -- the per-item values of a change cut in section 3 are kept (66 N3) ---------------------------


def test_the_estimates_of_items_past_the_cut_of_a_change_are_kept() -> None:
    stories = []
    for n, size in enumerate(("Small (≈1h)", "Medium (≈3h)", "Large (≈2d)", "Small (≈2h)"), 21):
        stories += [
            f"**Q-{n:03}** Move the ledger client to the shared runtime, part {n}",
            f"* Difficulty: {size}.",
            f"* DoD: every ledger call of part {n} goes through the shared client.",
            f"* Output: a note in docs/ledger-runtime.md for part {n}.",
            f"* Deps: Q-{n - 1:03}.",
        ]
    s = SessionBuilder()
    s.user("write the migration stories and estimate the difficulty of each")
    s.call("Read", {"file_path": "/w/BACKLOG.md"}, "1\t# Backlog\n2\t---")
    s.call(
        "Edit",
        {"file_path": "/w/BACKLOG.md", "old_string": "---", "new_string": "\n".join(stories)},
        "The file has been updated.",
    )
    s.say("Added Q-021 to Q-024 with their estimates.")
    three = section(summarize_transcript(s.messages), 3)
    assert "Q-024 Difficulty: Small (≈2h)" in three, three
    assert "Q-023 Difficulty: Large (≈2d)" in three, three
