"""What counts as a failure (fix41a): Codex 0.98's bare ``exec_command failed: CreateProcess``
results, an exit-0 call whose output reports an error, ``grep`` exit 1 with no output, a "No such
file" of a relative path found later under another folder, and a test run whose error did not
recur in a later run that failed for other reasons. Sessions are invented, by shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactor.facts.outcomes import outcome
from compactor.facts.text import Call, Result
from compactor.facts.toolerror import sandbox_denied
from compactor.models.local import summarize_transcript

from .codex_rollout import codex_say, codex_summary, codex_user, rec
from .planted_session import SessionBuilder
from .test_models_local_session import section

_DENIED = (
    'exec_command failed: CreateProcess { message: "Codex(Sandbox(Denied { output: '
    'ExecToolCallOutput { exit_code: 128, stdout: StreamOutput { text: \\"\\", '
    'truncated_after_lines: None }, stderr: StreamOutput { text: \\"fatal: cannot lock ref '
    "'refs/heads/feat-9': Unable to create '/w/.git/refs/heads/feat-9.lock': Operation not "
    'permitted\\\\n\\", truncated_after_lines: None }, aggregated_output: StreamOutput { text: '
    '\\"fatal: cannot lock ref\\", truncated_after_lines: None }, duration: 0ns, timed_out: '
    'false } }))" }'
)
_REJECTED = 'exec_command failed: CreateProcess { message: "Rejected(\\"rejected by user\\")" }'


def _exec(n: int, cmd: str, out: str, **extra: Any) -> list[dict[str, Any]]:
    args = json.dumps({"cmd": cmd, **extra})
    call = {"type": "function_call", "name": "exec_command", "call_id": f"c{n}", "arguments": args}
    output = {"type": "function_call_output", "call_id": f"c{n}", "output": out}
    return [rec("response_item", call), rec("response_item", output)]


def test_codex_bare_sandbox_denial_is_a_failure_with_its_exit_code_and_stderr() -> None:
    """BENCH41 W1: no "Process exited with code N" header; the code and stderr sit in the
    ``Denied { … }`` text."""
    judged = outcome(Result("c1", "exec_command", _DENIED), Call("c1", "exec_command", "{}", 0))
    assert judged.failed and judged.exit_code == 128
    assert "fatal: cannot lock ref 'refs/heads/feat-9'" in judged.lines[0], judged
    denied = sandbox_denied(_DENIED)
    assert denied is not None and denied.output.startswith("fatal: cannot lock ref"), denied


def test_codex_bare_rejection_is_the_user_rejecting_the_call(tmp_path: Path) -> None:
    """BENCH41 W1: the sandboxed call failed, its escalated retry was rejected by the user;
    the analysis line counts both, section 4 says why and that the user refused."""
    records = [
        codex_user("make a branch feat-9"),
        *_exec(1, "git checkout -b feat-9", _DENIED),
        *_exec(2, "git checkout -b feat-9", _REJECTED, sandbox_permissions="require_escalated"),
        *_exec(3, "git status", "Process exited with code 0\nOutput:\nOn branch main\n"),
        codex_say("The branch could not be created."),
    ]
    summary = codex_summary(records, tmp_path, "s1", "/w")
    assert "3 tool calls (1 failed, 1 rejected by the user)" in summary, summary
    assert "failed (exit code 128): fatal: cannot lock ref" in summary, summary
    assert "was rejected by the user (it never ran)" in summary, summary


def test_grep_exit_one_with_no_output_is_no_match_not_a_failure() -> None:
    """BENCH42 W4: Claude Code flags ``grep -r`` exit 1 ("Exit code 1", nothing else) as an
    error; it found nothing, which is a finding: no failure, never "Unresolved failure"."""
    s = SessionBuilder()
    s.user("are storeContent or updateContent used in the frontend? then remove them")
    grep = 'grep -r "storeContent\\|updateContent" /w/app/resources --include="*.tsx"'
    s.call("Bash", {"command": grep}, "Exit code 1", error=True)
    s.say("Nothing found; let me check the routes.")
    s.call("Bash", {"command": "php artisan route:list --name=content"}, "POST content.store")
    s.say("Now I remove the route.")
    edit: dict[str, object] = {
        "file_path": "/w/app/routes/web.php",
        "old_string": "Route::post();",
        "new_string": "",
    }
    s.call("Edit", edit, "The file /w/app/routes/web.php has been updated.")
    summary = summarize_transcript(s.messages)
    assert "3 tool calls (0 failed)" in summary, summary
    assert "Unresolved failure" not in summary and "failed (exit code 1)" not in summary, summary
    assert f"`Bash: {grep}` → no match (exit 1, not a failure)" in summary, summary


def test_grep_exit_two_or_an_error_message_stays_a_failure() -> None:
    call = Call("c1", "Bash", json.dumps({"command": "grep -r x /w/missing"}), 0)
    missing = "Exit code 2\ngrep: /w/missing: No such file or directory"
    assert outcome(Result("c1", "Bash", missing, True), call).failed
    assert outcome(Result("c1", "Bash", "Exit code 1\ngrep: bad regex", True), call).failed


def _shell(n: int, command: str, out: str) -> list[dict[str, Any]]:
    args = json.dumps({"command": command})
    call = {"type": "function_call", "name": "shell_command", "call_id": f"c{n}", "arguments": args}
    output = {"type": "function_call_output", "call_id": f"c{n}", "output": out}
    return [rec("response_item", call), rec("response_item", output)]


_EXIT0 = "Exit code: 0\nWall time: 1 seconds\nOutput:\n"


def test_exit_zero_whose_catch_block_printed_an_error_is_no_success_and_no_fix(
    tmp_path: Path,
) -> None:
    """BENCH41 W2/W4: a try/catch printed "ERR: … (405) Method Not Allowed." and "… not
    reachable: … (401) …" and exited 0: neither "(succeeded)" nor the fix of the failure."""
    post = "try { Invoke-RestMethod -Method Post http://h:5678/run } catch { 'ERR: ' + $_ }"
    probe = "try { Invoke-RestMethod http://h:5678/api } catch { 'API not reachable: ' + $_ }"
    said = "ERR: The server returned an error: (405) Method Not Allowed.\n"
    unreachable = "API not reachable: The server returned an error: (401) Unauthorized.\n"
    records = [
        codex_user("run the email test and tell me if the mail went out"),
        *_shell(1, "pwsh -File scripts/email_test.ps1", "Exit code: 1\nOutput:\nRequest: Error\n"),
        *_shell(2, f"pwsh -Command {post}", _EXIT0 + said),
        *_shell(3, f"pwsh -Command {probe}", _EXIT0 + unreachable),
        codex_say("The API key is wrong; please give me the right key."),
    ]
    summary = codex_summary(records, tmp_path, "s2", "/w")
    assert "3 tool calls (3 failed)" in summary, summary
    assert "(succeeded)" not in summary and "Fixed" not in summary, summary
    assert "exit 0, but its output reports an error: ERR: The server returned" in summary
    assert "exit 0, but its output reports an error: API not reachable" in summary


@pytest.mark.parametrize(
    ("command", "out"),
    [
        ("npm run build", "Build finished\n0 errors, 2 warnings"),
        ("node scripts/check.js", "errors: []\ndone"),
        ("python manage.py check", "Error: retrying once\nOK"),
        ("python -m pytest -q", "....\n12 passed, 0 failed in 0.4s"),
        ("git commit -m 'error handling for the API client'", "[main 1a2b3c4] error handling"),
        ("grep -rn 'error:' src", "src/a.ts:3: error: 'x' is never used\nsrc/b.ts:9: error: y"),
        ("rg -n 'ERROR' logs/app.log", "ERROR: disk full\nERROR: disk full again"),
        ("cargo build", "warning: unreachable code\n --> src/main.rs:3:5\nFinished dev target(s)"),
    ],
)
def test_exit_zero_outputs_that_only_mention_errors_stay_successes(command: str, out: str) -> None:
    call = Call("c1", "shell_command", json.dumps({"command": command}), 0)
    assert not outcome(Result("c1", "shell_command", _EXIT0 + out), call).failed


def _test_session(last_run: str) -> SessionBuilder:
    s = SessionBuilder()
    s.user("make the relationship tests pass")
    one = "php artisan test tests/Unit/RelationsTest.php"
    s.call(
        "Bash", {"command": f"{one} --verbose"}, 'Exit code 2\n  INFO  Unknown option "--verbose".'
    )
    s.say("Without the option.")
    unique = (
        "Exit code 1\n   FAIL  Tests\\Unit\\RelationsTest\n  ⨯ it keeps versions unique\n"
        "  FAILED  Tests\\Unit\\RelationsTest > it keeps versions unique   "
        "UniqueConstraintViolationException\n  Tests:    1 failed, 12 passed (37 assertions)\n"
    )
    s.call("Bash", {"command": one}, unique, error=True)
    s.say("The factory reuses the version number; fixing it.")
    edit: dict[str, object] = {
        "file_path": "/w/database/factories/V.php",
        "old_string": "1",
        "new_string": "2",
    }
    s.call("Edit", edit, "The file /w/database/factories/V.php has been updated.")
    s.call("Bash", {"command": f"{one} tests/Feature/AuthTest.php"}, last_run, error=True)
    s.say("Checked.")
    return s


def test_a_test_error_a_later_run_of_the_runner_did_not_show_did_not_recur() -> None:
    """BENCH42 W3: the option error and the constraint violation are gone; a later run of the
    same runner (more files, no option) failed for other tests: not "failed too"."""
    other = (
        "Exit code 1\n   PASS  Tests\\Unit\\RelationsTest\n   FAIL  Tests\\Feature\\AuthTest\n"
        "  FAILED  Tests\\Feature\\AuthTest > it forbids guests   AuthorizationException\n"
        "  Tests:    8 failed, 66 passed (201 assertions)\n"
    )
    errors = section(summarize_transcript(_test_session(other).messages), 4)
    assert errors.count("That error did not recur: the later") == 2, errors
    assert "failed for other reasons" in errors and "failed too" not in errors, errors


def test_a_test_error_the_later_run_shows_again_is_not_fixed() -> None:
    again = (
        "Exit code 1\n  FAILED  Tests\\Unit\\RelationsTest > it keeps versions unique   "
        "UniqueConstraintViolationException\n  Tests:    2 failed, 70 passed (201 assertions)\n"
    )
    errors = section(summarize_transcript(_test_session(again).messages), 4)
    assert errors.count("That error did not recur") == 1, errors  # only --verbose's
    assert "failed too" in errors, errors


def _legacy_shell(n: int, cmd: str, code: int, out: str) -> list[dict[str, Any]]:
    args = json.dumps({"command": ["bash", "-lc", cmd]})
    call = {"type": "function_call", "name": "shell", "call_id": f"c{n}", "arguments": args}
    meta = {"exit_code": code, "duration_seconds": 0.1}
    body = json.dumps({"output": out, "metadata": meta})
    output = {"type": "function_call_output", "call_id": f"c{n}", "output": body}
    return [rec("response_item", call), rec("response_item", output)]


def test_a_relative_path_found_later_under_another_folder_is_no_established_absence(
    tmp_path: Path,
) -> None:
    """BENCH42 W5: ``grep … src/pages/X.tsx`` from the repository root: "No such file"; the
    next call greps ``frontend/src/pages/X.tsx``. Not "a fact it established"."""
    missing = "grep: src/pages/Detail/DetailPage.tsx: No such file or directory\n"
    records = [
        codex_user("make the page title an h2"),
        *_legacy_shell(1, 'grep -n "<h1" src/pages/Detail/DetailPage.tsx', 2, missing),
        *_legacy_shell(
            2, 'grep -n "<h1" frontend/src/pages/Detail/DetailPage.tsx', 0, "12: <h1>\n"
        ),
        codex_say("The page has one h1 heading."),
    ]
    errors = section(codex_summary(records, tmp_path, "s4", "/home/u/proj"), 4)
    assert "A fact it established" not in errors, errors
    assert "Not found from the working folder at the time" in errors, errors
    assert "found it at `frontend/src/pages/Detail/DetailPage.tsx`" in errors, errors


def test_a_bare_file_name_found_in_another_folder_stays_a_fact(tmp_path: Path) -> None:
    """A bare name (``README.md``) found under ``docs/`` may be another file: still a fact."""
    missing = "cat: README.md: No such file or directory\n"
    records = [
        codex_user("read the readme"),
        *_legacy_shell(1, "cat README.md", 1, missing),
        *_legacy_shell(2, "cat docs/README.md", 0, "# Docs\n"),
        codex_say("There is no README at the root."),
    ]
    errors = section(codex_summary(records, tmp_path, "s5", "/home/u/proj"), 4)
    assert "A fact it established" in errors, errors


@pytest.mark.parametrize("shown", ["Error", "Exit code 1"])
def test_a_bare_error_of_a_search_with_no_output_is_no_match(shown: str) -> None:
    """BENCH42 W4 as Claude Code 1.0 writes it: a ``grep`` that exits 1 with no output is a
    result of just ``Error`` (``is_error``, no exit code); a search that found nothing."""
    call = Call("c1", "Bash", json.dumps({"command": 'grep -r "a\\|b" /w/src'}), 0)
    assert not outcome(Result("c1", "Bash", shown, True), call).failed
    other = Call("c2", "Bash", json.dumps({"command": "npm run build"}), 0)
    assert outcome(Result("c2", "Bash", shown, True), other).failed
