"""Failures that are none, and fixes found by shape (blind check 51, W3-W7).

Claude-Code-shaped sessions written to ``tmp_path``, each of the shape a blind check found
misread:

* W3: ``rm -rf X && ls X`` (or ``ls X || echo gone``): the "No such file or directory" is the
  command's own check that ``X`` is gone, no failure; a later step's failure on it still is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.facts import Call, Result, outcome
from compactor.facts.absence import expected_absence
from compactor.facts.samecommand import core_command

from .cc_session import Session, cc_summary
from .test_models_local_session import section

TESTS_PASS = (
    "[test] cargo test --workspace\n"
    "test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n"
    "[test] vitest run\n Test Files  3 passed (3)\n      Tests  41 passed (41)\n"
)


def _one_call(tmp_path: Path, command: str, output: str) -> str:
    s = Session()
    s.user("Make sure the tests pass from a clean tree, without the built frontend.")
    s.bash(command, output)
    s.say("All local checks pass without the frontend build.")
    return cc_summary(s, tmp_path)


# -- W3: an expected absence -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "output"),
    [
        (
            "rm -rf build/ && ls build; echo cleaned",
            "ls: cannot access 'build': No such file or directory\ncleaned",
        ),
        (
            "rm -rf apps/web/dist && ls apps/web/dist 2>&1 | head -3; mise run test 2>&1 | tail",
            "ls: apps/web/dist: No such file or directory\n" + TESTS_PASS,
        ),
        (
            "git rm -rq old/ && stat old; make check",
            "stat: cannot stat 'old': No such file or directory\nok",
        ),
    ],
)
def test_a_check_that_a_removed_path_is_gone_is_no_failure(
    tmp_path: Path, command: str, output: str
) -> None:
    text = _one_call(tmp_path, command, output)
    assert "failed" not in section(text, 4), section(text, 4)
    assert "No such file" not in section(text, 4) + section(text, 7), section(text, 4)
    assert "Unresolved failure" not in section(text, 7), section(text, 7)


def test_a_later_step_failing_on_the_removed_path_still_failed(tmp_path: Path) -> None:
    command = "rm -rf build && cp -r build/assets public/; echo copied"
    text = _one_call(tmp_path, command, "cp: build/assets: No such file or directory\ncopied")
    assert "No such file or directory" in section(text, 4), section(text, 4)
    assert not expected_absence(command, "cp: build/assets: No such file or directory")
    assert not expected_absence("rm -rf build && ls dist", "ls: dist: No such file or directory")


def test_the_outcome_of_an_expected_absence_is_a_success() -> None:
    call = Call("c1", "Bash", '{"command": "rm -rf build/ && ls build; echo cleaned"}', 0)
    said = Result("c1", "Bash", "ls: cannot access 'build': No such file or directory\ncleaned")
    assert not outcome(said, call).failed


# -- W4: a wrapper prefix dropped on the retry --------------------------------------------------

ACT = "act -j rust-lint --container-architecture linux/amd64 -W .github/workflows/ci.yml | tail"
NOTICE = (
    "<task-notification>\n<task-id>b43ol38ob</task-id>\n<status>completed</status>\n"
    '<summary>Background command "act" completed (exit code 0)</summary>\n</task-notification>'
)


def _wrapped_then_plain(tmp_path: Path, wrapper: str, later: str = ACT) -> str:
    s = Session()
    s.user("Run the CI lint job locally with act and fix what fails.")
    missing = f"Exit code 127\n(eval):1: command not found: {wrapper.split()[0]}"
    s.call("Bash", {"command": f"{wrapper} {ACT}"}, missing, error=True)
    gtk = "Exit code 1\n| error: failed to run custom build command for `gtk-sys v0.18.0`"
    s.call("Bash", {"command": later}, gtk, error=True)
    s.call(
        "Edit",
        {"file_path": ".github/workflows/ci.yml", "old_string": "- run: cargo clippy",
         "new_string": "- run: sudo apt-get install -y libgtk-3-dev && cargo clippy"},
        "The file .github/workflows/ci.yml has been updated successfully.",
    )  # fmt: skip
    started = "Command running in background with ID: b43ol38ob. Output is being written to: x"
    s.call("Bash", {"command": later, "run_in_background": True}, started)
    s.user(NOTICE)
    s.bash("git status --short", " M .github/workflows/ci.yml")
    return cc_summary(s, tmp_path)


@pytest.mark.parametrize(
    "wrapper", ["timeout 540", "gtimeout -k 5 540", "nice -n 10", "stdbuf -oL", "time"]
)
def test_a_missing_wrapper_is_fixed_by_the_command_run_without_it(
    tmp_path: Path, wrapper: str
) -> None:
    text = _wrapped_then_plain(tmp_path, wrapper)
    errors, pending = section(text, 4), section(text, 7)
    assert "Unresolved failure" not in pending, pending
    first = errors.split(f"`Bash: {wrapper} act", 1)[1].split("\n   - ", 1)[0]
    assert "Fixed: a later `Bash: act -j rust-lint" in first, errors


def test_the_same_wrapper_around_another_job_is_no_fix(tmp_path: Path) -> None:
    other = ACT.replace("rust-lint", "rust-test")
    text = _wrapped_then_plain(tmp_path, "timeout 540", later=other)
    assert "Unresolved failure: `Bash: timeout 540 act -j rust-lint" in section(text, 7)


def test_one_normaliser_takes_the_wrappers_off() -> None:
    assert core_command("timeout 540 act -j x") == "act -j x"
    assert core_command("gtimeout --signal=KILL 10s pytest -q") == "pytest -q"
    assert core_command("nice -n 10 stdbuf -oL make check") == "make check"
    assert core_command("sudo -E env -i CI=1 apt-get install -y jq") == "apt-get install -y jq"
    assert core_command("timeout --help") == "timeout --help"  # the wrapper run by itself


# -- W5: a call the harness refused -------------------------------------------------------------

REFUSAL = (
    "<tool_use_error>Blocked: sleep 60 followed by: tail -40 /tmp/claude/tasks/b43ol38ob.output. "
    "To wait for a condition, use Monitor with an until-loop (e.g. `until grep -q done file; do "
    "sleep 2; done`). To wait for a command you started, use run_in_background: true."
    "</tool_use_error>"
)


@pytest.mark.parametrize("used", [True, False])
def test_a_call_the_harness_blocked_is_no_unresolved_failure(tmp_path: Path, used: bool) -> None:
    s = Session()
    s.user("Run the CI lint job locally and tell me when it passes.")
    started = "Command running in background with ID: b43ol38ob. Output is being written to: x"
    s.call("Bash", {"command": "act -j rust-lint", "run_in_background": True}, started)
    s.call(
        "Bash", {"command": "sleep 60 && tail -40 /tmp/claude/tasks/b43ol38ob.output"}, REFUSAL,
        error=True,
    )  # fmt: skip
    if used:
        s.call(
            "Monitor",
            {"command": "until grep -q 'Job succeeded' /tmp/claude/tasks/b43ol38ob.output; do "
             "sleep 5; done", "description": "act lint"},
            "Monitor started (task m9x2k1p0q, timeout 300000ms). You will be notified on each "
            "event.",
        )  # fmt: skip
        s.user(NOTICE.replace("b43ol38ob", "m9x2k1p0q"))
    s.user(NOTICE)
    s.bash("tail -3 /tmp/claude/tasks/b43ol38ob.output", "[CI/rust-lint] Job succeeded")
    text = cc_summary(s, tmp_path)
    errors, pending = section(text, 4), section(text, 7)
    assert "Unresolved failure" not in pending, pending
    assert "sleep 60" not in pending, pending
    assert "was blocked by the harness (it never ran)" in errors, errors
    assert "Never ran, nothing to fix" in errors, errors
    assert ("the agent used Monitor next" in errors) is used, errors


# -- W6/W7: a push that succeeded, and claims a failure of another push does not contradict -----

PUSHED = (
    "[main 0f8d765] docs: fix ref\nTo https://github.com/acme/scout.git\n"
    "   f89edc7..0f8d765  main -> main"
)
HOOK_SIDE_PUSH = (
    "[main 4b43b09] docs: remove notes.md reference\n 1 file changed, 1 deletion(-)\n"
    "[hookr] Syncing checkpoints...\n"
    "error: RPC failed; curl 56 LibreSSL SSL_read: SSL_ERROR_SYSCALL, errno 54\n"
    "fatal: the remote end hung up unexpectedly\n"
    "[hookr] Warning: failed to push hookr/checkpoints/v1 after sync: exit status 128\n"
    "To https://github.com/acme/scout.git\n   18683fb..4b43b09  main -> main"
)
REJECTED_PUSH = (
    "To https://github.com/acme/scout.git\n ! [rejected]        {ref} -> {ref} (fetch first)\n"
    "error: failed to push some refs to 'https://github.com/acme/scout.git'"
)


def _pushes(tmp_path: Path, claim: str, later: str, output: str, *, error: bool) -> str:
    s = Session()
    s.user("Commit the README fix and push it.")
    s.bash("git commit -am 'docs: fix ref' && git push origin main", PUSHED)
    s.say(claim)
    s.user("Drop the notes.md reference too, and push.")
    s.call("Bash", {"command": later}, output, error=error)
    s.say("Done.")
    return cc_summary(s, tmp_path)


def test_a_push_whose_output_has_gits_success_line_succeeded(tmp_path: Path) -> None:
    later = "git add docs/README.md && git commit -m 'docs: drop ref' && git push origin main"
    text = _pushes(tmp_path, "Pushed 0f8d765.", later, HOOK_SIDE_PUSH, error=False)
    errors, done = section(text, 4), section(text, 5)
    assert "No call failed" in errors and "(failed)" not in done, errors
    assert "contradicted later" not in done, done


def test_a_ref_rejected_after_another_was_pushed_still_failed() -> None:
    call = Call("c1", "Bash", '{"command": "git push origin main dev"}', 0)
    text = "To x\n   a1b2c3d..e4f5a6b  main -> main\n" + REJECTED_PUSH.format(ref="dev")
    assert outcome(Result("c1", "Bash", text), call).failed


@pytest.mark.parametrize(
    ("claim", "ref", "contradicted"),
    [
        ("Pushed 0f8d765.", "feature/rename", False),  # another commit, another branch
        ("Pushed to GitHub.", "feature/rename", False),  # the claim's push was main's
        ("Pushed to GitHub.", "main", True),  # the same branch's push failed later
    ],
)
def test_only_a_failed_push_of_the_same_thing_contradicts_a_pushed_claim(
    tmp_path: Path, claim: str, ref: str, contradicted: bool
) -> None:
    output = REJECTED_PUSH.format(ref=ref)
    text = _pushes(tmp_path, claim, f"git push origin {ref}", output, error=True)
    line = next(x for x in section(text, 5).splitlines() if claim in x)
    assert ("contradicted later" in line) is contradicted, line
