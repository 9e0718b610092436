"""BENCH49, held-out sessions judged by shape: W1 a Claude Code Bash call whose visible result
was the stub "ok" while its record's structured result held "error: could not write index" was
"succeeded" and the fix of the earlier failures; W2 a filtered test run that ran no test was the
fix of failing tests; W5 a failed patch of a file a later PowerShell script rewrote (through a
``$path`` variable) was "Not fixed". Every session is built here, by shape, with invented
content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactor.facts.testruns import ran_no_tests

from .cc_session import Session, cc_summary
from .codex_rollout import codex_say, codex_summary, codex_user, rec
from .test_models_local_session import section


def _item(errors: str, head: str) -> str:
    """The section-4 item of the failure whose line holds ``head``."""
    at = errors.index(head)
    end = errors.find("\n   - `", at)
    return errors[at : end if end > 0 else len(errors)]


# -- W2: a test run that ran no test fixes no failing test -------------------------------------

_FAILED_TESTS = (
    "running 12 tests\ntest config::tests::loads_keys ... FAILED\n"
    "test config::tests::defaults ... FAILED\n\nfailures:\n\n---- config::tests::loads_keys ----\n"
    "panicked at src/config.rs:88:9: WIDGET_KEY is set but WIDGET_SECRET is missing\n\n"
    "test result: FAILED. 10 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out\n"
    "error: test failed, to rerun pass `--lib`\nExit code 101"
)
_NO_TESTS = (
    "    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.31s\n"
    "     Running unittests src/lib.rs (target/debug/deps/widgets-1a2b)\n\nrunning 0 tests\n\n"
    "test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 12 filtered out\n"
    "     Running unittests src/main.rs (target/debug/deps/widgets-3c4d)\n\nrunning 0 tests\n\n"
    "test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 3 filtered out\n"
)
_SOME_TESTS = _NO_TESTS.replace("running 0 tests", "running 12 tests", 1).replace(
    "ok. 0 passed; 0 failed; 0 ignored; 0 measured; 12 filtered out", "ok. 12 passed; 0 failed", 1
)


@pytest.mark.parametrize(
    ("later", "fixed"), [(_NO_TESTS, False), (_SOME_TESTS, True)], ids=["none-ran", "some-ran"]
)
def test_a_test_run_that_ran_no_test_does_not_fix_failing_tests(
    tmp_path: Path, later: str, fixed: bool
) -> None:
    s = Session()
    s.user("Add the order book model and keep the tests green.")
    s.call("Bash", {"command": "cargo clippy 2>&1 && cargo test 2>&1"}, _FAILED_TESTS, True)
    s.say("Two config tests fail. Let me run the model tests.")
    s.call("Bash", {"command": "cargo test models::book 2>&1"}, later)
    s.say("Done with the model.")
    errors = section(cc_summary(s, tmp_path), 4)
    item = _item(errors, "cargo clippy 2>&1 && cargo test 2>&1")
    if fixed:  # the same selection ran and passed: the control
        assert "Fixed" in item or "Worked around" in item, errors
    else:
        assert "Fixed" not in item and "Worked around" not in item, errors


# -- W5: a failed patch of a file a later shell script rewrote ---------------------------------

_SESSION = "1a2b3c4d-0000-4000-8000-000000000491"
_SPEC = "specs\\004-shelf-list\\spec.md"


def _patch(n: int) -> list[Any]:
    body = f"*** Begin Patch\n*** Update File: {_SPEC}\n@@\n- Q: Are shelves optional?\n+ A: yes\n"
    call = {"type": "custom_tool_call", "name": "apply_patch", "call_id": f"p{n}"}
    call["input"] = body + "*** End Patch"
    out = f"apply_patch verification failed: Failed to find expected lines in C:\\w\\app\\{_SPEC}"
    result = {"type": "custom_tool_call_output", "call_id": f"p{n}", "output": out}
    return [rec("response_item", call), rec("response_item", result)]


def _command(n: int, command: str) -> list[Any]:
    call = {"type": "function_call", "name": "shell_command", "call_id": f"c{n}"}
    call["arguments"] = json.dumps({"command": command, "workdir": "C:\\w\\app"})
    text = "Exit code: 0\nWall time: 0.4 seconds\nOutput:\n"
    result = {"type": "function_call_output", "call_id": f"c{n}", "output": text}
    return [rec("response_item", call), rec("response_item", result)]


_REWRITES = [
    f"$path = '{_SPEC}'\n$lines = Get-Content $path\n$out = $lines -replace 'Q: Are', 'A: Are'\n"
    "$out | Set-Content $path",
    f"Get-Content {_SPEC} | ForEach-Object {{ $_ }} | Set-Content -Path {_SPEC}.tmp; "
    f"Move-Item -Force {_SPEC}.tmp {_SPEC}; Set-Content -LiteralPath {_SPEC} -Value $x",
    f"python -c \"open(r'{_SPEC}','w').write('A: yes')\"",
    "sed -i 's/Q: Are/A: Are/' specs/004-shelf-list/spec.md",
]


@pytest.mark.parametrize("rewrite", _REWRITES, ids=["variable", "literal", "python", "sed"])
def test_a_failed_patch_is_fixed_by_a_shell_rewrite_of_the_same_file(
    tmp_path: Path, rewrite: str
) -> None:
    records = [
        codex_user("Record the clarification answers in the spec."),
        *_patch(1),
        *_patch(2),
        *_command(3, rewrite),
        codex_say("Clarifications recorded in the spec."),
        codex_user("thanks"),
    ]
    errors = section(codex_summary(records, tmp_path, _SESSION, "C:\\w\\app"), 4)
    assert "Not fixed" not in errors, errors
    assert "Fixed" in errors, errors


def test_a_shell_read_of_the_patched_file_fixes_nothing(tmp_path: Path) -> None:
    records = [
        codex_user("Record the clarification answers in the spec."),
        *_patch(1),
        *_patch(2),
        *_command(3, f"$path = '{_SPEC}'\nGet-Content $path | Select-Object -First 40"),
        codex_say("Here is the spec."),
        codex_user("thanks"),
    ]
    errors = section(codex_summary(records, tmp_path, _SESSION, "C:\\w\\app"), 4)
    assert "Fixed" not in errors, errors


# -- W1: a stub result whose recorded output says the command failed ---------------------------

_INDEX = "error: could not write index"


def _stub(s: Session, command: str, stdout: str, stderr: str = "") -> None:
    """A Bash call whose visible result is the stub "ok"; its record's ``toolUseResult`` holds
    what the command printed."""
    key = f"toolu_{s.n:04d}"
    s.assistant([{"type": "tool_use", "id": key, "name": "Bash", "input": {"command": command}}])
    s.user([{"type": "tool_result", "tool_use_id": key, "content": "ok", "is_error": False}])
    s.records[-1]["toolUseResult"] = {
        "stdout": stdout,
        "stderr": stderr,
        "interrupted": False,
        "isImage": False,
    }


def _stashes(tmp_path: Path, retry: str, stdout: str, stderr: str = "") -> str:
    s = Session()
    s.user("Stash my changes and start a branch off main for the libs.")
    for command in ("git stash", "git stash -u"):
        s.call("Bash", {"command": command}, f"Exit code 1\n{_INDEX}", True)
    s.say("The index cannot be written. Let me trace it.")
    _stub(s, retry, stdout, stderr)
    s.say("Moving on.")
    return section(cc_summary(s, tmp_path), 4)


@pytest.mark.parametrize(
    ("retry", "stdout", "stderr"),
    [
        ("GIT_TRACE=1 git stash 2>&1 | tail -10", f"trace: built-in: git stash\n{_INDEX}", ""),
        ("git stash 2>&1", _INDEX, ""),
        ("git stash --include-untracked", "", f"{_INDEX}\nfatal: unable to stash"),
    ],
    ids=["piped", "merged", "stderr"],
)
def test_a_stub_result_whose_recorded_output_failed_fixes_nothing(
    tmp_path: Path, retry: str, stdout: str, stderr: str
) -> None:
    errors = _stashes(tmp_path, retry, stdout, stderr)
    item = _item(errors, "`Bash: git stash`")
    assert "Fixed" not in item and "Worked around" not in item, errors
    assert "(succeeded)" not in item, errors


def test_a_stub_result_whose_recorded_output_is_clean_still_fixes(tmp_path: Path) -> None:
    errors = _stashes(
        tmp_path, "git stash", "Saved working directory and index state WIP on main: 1a2b3c4"
    )
    item = _item(errors, "`Bash: git stash`")
    assert "Fixed" in item or "Worked around" in item, errors


_CONFIG = "/home/dev/app/src/config.py"


@pytest.mark.parametrize(
    ("command", "fixed"),
    [
        (f"sed -i 's/timeout = 5/timeout = 30/' {_CONFIG}", True),
        (f"python3 -c \"p='{_CONFIG}'; s=open(p).read(); open(p,'w').write(s)\"", True),
        (f"f={_CONFIG}; sed 's/5/30/' $f > $f.tmp && cat $f.tmp > $f", True),
        (f"sed -n '1,20p' {_CONFIG}", False),
        (f"grep -n timeout {_CONFIG} > /tmp/timeouts.txt", False),
    ],
    ids=["sed-i", "python-open", "variable", "read", "other-file"],
)
def test_a_failed_edit_is_fixed_by_a_shell_write_of_the_same_file(
    tmp_path: Path, command: str, fixed: bool
) -> None:
    s = Session()
    s.user("Raise the timeout in config.py to 30.")
    s.call("Read", {"file_path": _CONFIG}, "     1\ttimeout = 5\n")
    edit = {"file_path": _CONFIG, "old_string": "timeout=5", "new_string": "timeout=30"}
    missing = "<tool_use_error>String to replace not found in file.\nString: timeout=5"
    s.call("Edit", edit, missing + "</tool_use_error>", True)
    s.call("Bash", {"command": command}, "")
    s.say("Done.")
    item = _item(section(cc_summary(s, tmp_path), 4), f"`Edit({_CONFIG})`")
    assert ("Fixed" in item) is fixed, item


@pytest.mark.parametrize(
    ("text", "none"),
    [
        (_NO_TESTS, True),
        ("============ no tests ran in 0.01s ============", True),
        ("collected 0 items\n\n==== no tests ran ====", True),
        (
            "No tests found, exiting with code 1\nRun with `--passWithNoTests` to exit with code 0",
            True,
        ),
        ("Ran 0 tests in 0.000s\n\nOK", True),
        ("?   \tgithub.com/acme/widgets\t[no test files]", True),
        (_SOME_TESTS, False),
        ("collected 12 items\n\ntests/test_a.py ....\n==== 12 passed in 0.4s ====", False),
        (
            "ok  \tgithub.com/acme/widgets\t0.012s\n?   \tgithub.com/acme/cmd\t[no test files]",
            False,
        ),
        ("Build succeeded.", False),
    ],
)
def test_ran_no_tests_by_shape(text: str, none: bool) -> None:
    assert ran_no_tests(text) is none
