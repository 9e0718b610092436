"""Failures and their fixes (fix46a): BENCH46 W1, BENCH45 W3, W4, W5. Sessions are invented, by
shape, inside each test.

* W1: a Codex ``exec_command`` result that starts with the echoed command (``Command: /bin/zsh
  -lc '…'``, longer than 8,000 characters) is judged by its exit code line; the echoed command is
  never "the error line"; an exit-0 call whose output holds ``rg`` hits of old logs and ends with
  an OK marker fixed nothing of an unrelated failure and did not "fail too"; two scripts that
  share only their preamble (``set -euo pipefail``, a comment) are no retry of each other.
* W4: the fix of a failure is looked for past a later attempt that failed too: a corrected
  variant that succeeded fixes both.
* W5: a failure worked around by another interpreter writing the same output file is no
  "Unresolved failure" in section 7.
* W3: a claim about someone's tests is not "contradicted later" by a failing run of other tests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.facts.commands import main_program
from compactor.facts.outcomes import outcome
from compactor.facts.preamble import ends_with_own_marker, is_preamble_step, sets_pipefail
from compactor.facts.text import Call, Result
from compactor.models.local import summarize_transcript
from compactor.models.local_retries import piped_error
from compactor.models.local_sameoutput import output_files, writes_same_output
from compactor.models.local_standin import tied

from .codex_rollout import codex_say, codex_summary, codex_user, rec
from .planted_session import SessionBuilder
from .test_models_local_session import section


def _exec(n: int, cmd: str, out: str, escalated: bool = False) -> list[dict[str, Any]]:
    args: dict[str, Any] = {"cmd": cmd}
    if escalated:
        args["sandbox_permissions"] = "require_escalated"
    call = {
        "type": "function_call",
        "name": "exec_command",
        "call_id": f"c{n}",
        "arguments": json.dumps(args),
    }
    output = {"type": "function_call_output", "call_id": f"c{n}", "output": out}
    return [rec("response_item", call), rec("response_item", output)]


def _echoed(cmd: str, code: int) -> str:
    """Codex Desktop's header: the command first, then the chunk, time and exit lines."""
    return (
        f"Command: /bin/zsh -lc '{cmd}'\nChunk ID: 9f1e\nWall time: 0.2140 seconds\n"
        f"Process exited with code {code}\nOriginal token count: 311\nOutput:\n"
    )


_STEPS = "".join(
    f'  {{"event": "Step{i}", "run": "~/.tool/hooks/step{i}.sh"}},\n' for i in range(200)
)
_HOOKS = (
    "set -euo pipefail\n# 1) Hooks config (documented path)\n"
    f"cat > \"$HOME/.tool/hooks.json\" <<'JSON'\n{_STEPS}JSON\n# 2) Skills folder\n"
    'mkdir -p "$HOME/.tool/Skills"\ncp ~/.tool/skills/registry.yaml ~/.tool/Skills/registry.yaml\n'
    'mv "$HOME/.tool/skills/x" "$HOME/.tool/Skills/x"\necho WROTE_OK'
)
_RENAME = (
    "set -euo pipefail\n# Rename skill folder\n"
    'if [ -d "$HOME/.agents/skills/old-runtime" ]; then mv "$HOME/.agents/skills/old-runtime" '
    '"$HOME/.agents/skills/new-runtime"; fi\n'
    'rg -n "old-runtime" ~/.tool/skills/registry.yaml ~/.tool/logs | head -20 || true\n'
    "echo RENAMED_OK"
)
_MV_ERROR = "mv: rename /Users/u/.tool/skills/x to /Users/u/.tool/Skills/x: Invalid argument\n"
_OLD_LOGS = "".join(
    f"/Users/u/.tool/logs/run{i}.log:{i}: ERROR hook step failed: old-runtime not found\n"
    for i in range(5)
)


def test_a_long_echoed_command_is_never_the_error_line() -> None:
    """BENCH46 W1: past 8,000 characters the echoed command was not taken off, so a failure
    with no ranked error line showed "Command: /bin/zsh -lc 'set -euo pipefail" as its error."""
    assert len(_HOOKS) > 8_000
    call = Call("c1", "exec_command", json.dumps({"cmd": _HOOKS}), 0)
    judged = outcome(Result("c1", "exec_command", _echoed(_HOOKS, 1) + _MV_ERROR), call)
    assert judged.failed, judged
    assert judged.lines and judged.lines[0].startswith("mv: rename"), judged
    ok = Call("c2", "exec_command", json.dumps({"cmd": _RENAME}), 0)
    passed = outcome(Result("c2", "exec_command", _echoed(_RENAME, 0) + _OLD_LOGS + "OK\n"), ok)
    assert not passed.failed, passed


def test_a_shared_preamble_ties_no_two_scripts() -> None:
    """BENCH46 W1: ``set -euo pipefail`` and a ``# …`` comment are no program and no target."""
    assert main_program(_HOOKS) == "cat" and main_program(_RENAME) == "if"
    assert main_program("#!/bin/bash\nset -e\npytest -q") == "pytest"
    assert not tied(_HOOKS, _RENAME, 5)
    assert tied("set -e\n# build\nnpm run build", "set -e\n# build again\nnpm run build", 5)
    assert is_preamble_step(("set", "-euo", "pipefail")) and is_preamble_step(("#", "Rename"))
    assert not is_preamble_step(("set", "x")) and not is_preamble_step(("mv", "a", "b"))
    assert sets_pipefail("set -euo pipefail\nx | y") and not sets_pipefail("echo pipefail")


def test_search_hits_and_a_set_e_script_s_own_ok_marker_are_no_piped_error() -> None:
    """BENCH46 W1: the ``rg -n`` hits of old logs (ERROR lines) in an exit-0 script's output,
    and a ``set -e`` script that printed the OK marker it echoes last, hold no hidden failure;
    a piped test run's FAILED line still does."""
    hits = "/u/.tool/logs/run4.log:4: ERROR hook step failed: old-runtime not found\n"
    search = "mv a b\nrg -n old-runtime ~/.tool/logs | head -20 || true\necho RENAMED_OK"
    assert piped_error(search, hits + "RENAMED_OK\n") == ""
    assert piped_error("set -e\n" + search.replace("rg -n", "cat"), hits + "RENAMED_OK\n") == ""
    assert ends_with_own_marker("set -eu\nx | y\necho 'WROTE_OK'", "…\nWROTE_OK\n")
    assert not ends_with_own_marker("x | y\necho WROTE_OK", "WROTE_OK\n")  # no set -e
    piped = piped_error("pytest -q | tee log", "E   AssertionError: x\nFAILED test_a.py::t\n")
    assert piped == "FAILED test_a.py::t", piped


def test_an_unrelated_success_with_old_log_hits_is_no_failed_retry(tmp_path: Path) -> None:
    """BENCH46 W1 by shape: a hooks script failed (exit 1, its echoed command over 8,000
    characters); a later, unrelated rename script (the same preamble, escalated) exited 0, its
    output the echoed command, ``rg`` hits of old logs with ERROR lines, then RENAMED_OK. The
    summary said of the first "Not fixed: a later … failed too (its output says: …)"."""
    records = [
        codex_user("set up the hooks and rename the skill"),
        *_exec(1, _HOOKS, _echoed(_HOOKS, 1) + _MV_ERROR),
        codex_say("The write mostly succeeded; one step failed."),
        *_exec(2, "ls ~/.tool", _echoed("ls ~/.tool", 0) + "hooks.json\nskills\n"),
        *_exec(3, _RENAME, _echoed(_RENAME, 0) + _OLD_LOGS + "RENAMED_OK\n", escalated=True),
        codex_say("Renamed the skill to new-runtime; all checks passed."),
    ]
    errors = section(codex_summary(records, tmp_path, "s1", "/w"), 4)
    assert "failed too" not in errors, errors
    assert "Command: /bin/zsh" not in errors, errors
    assert "failed (exit code 1): mv: rename" in errors, errors
    assert "Rename skill folder" not in errors, errors  # no tie to the rename at all


def _script(reader: str, paths: str) -> str:
    return (
        "@'\nimport json\nfrom pathlib import Path\n"
        f"{reader}root = Path('labs/compat/results/artifacts')\nout = {{}}\n"
        "for p in sorted(root.glob('*/*.json')):\n    json.loads(read(p))\n"
        f"    out[p.parent.name] = out.get(p.parent.name, 0) + 1\n{paths}print(json.dumps(out))\n"
        "'@ | python -"
    )


def _sh(n: int, cmd: str, out: str) -> list[dict[str, Any]]:
    call = {
        "type": "function_call",
        "name": "shell_command",
        "call_id": f"c{n}",
        "arguments": json.dumps({"command": cmd, "workdir": "C:\\w"}),
    }
    output = {"type": "function_call_output", "call_id": f"c{n}", "output": out}
    return [rec("response_item", call), rec("response_item", output)]


def _exit(code: int) -> str:
    return f"Exit code: {code}\nWall time: 0.4 seconds\nOutput:\n"


_SUMMARY = "Path('labs/compat/results/summary.json').write_text(json.dumps(out))\n"
_REPORT = "Path('labs/compat/results/report.md').write_text(str(out))\n"
_FIRST = _script("read = lambda p: p.read_text(encoding='utf-8')\n", _SUMMARY)
_SECOND = _script(
    "def read(p):\n    return p.read_bytes().decode('utf-8', errors='replace')\n",
    _SUMMARY + _REPORT,
)
_THIRD = _script(
    "def read(p):\n    for enc in ('utf-8-sig', 'utf-8', 'cp1252'):\n        try:\n"
    "            return p.read_text(encoding=enc)\n        except UnicodeDecodeError:\n"
    "            pass\n",
    "(Path('labs/compat/results') / 'summary.json').write_text(json.dumps(out))\n" + _REPORT,
)
_UNICODE = (
    'Traceback (most recent call last):\n  File "<stdin>", line 7, in <module>\nUnicodeDecodeError:'
    " 'utf-8' codec can't decode byte 0xbf in position 2: invalid start byte\n"
)
_BOM = (
    'Traceback (most recent call last):\n  File "<stdin>", line 9, in <module>\n'
    "json.decoder.JSONDecodeError: Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1"
    " (char 0)\n"
)


def test_a_corrected_variant_that_succeeded_fixes_the_failures_before_it(tmp_path: Path) -> None:
    """BENCH45 W4: a script failed, its corrected variant failed too, and the variant after that
    succeeded; the search for the first one's fix stopped at the variant that failed ("Not
    fixed: a later … failed too", and section 7's "Unresolved failure")."""
    records = [
        codex_user("count the collected artifacts of every tool"),
        *_sh(1, _FIRST, _exit(1) + _UNICODE),
        codex_say("Some files have a BOM; reading them more flexibly."),
        *_sh(2, _SECOND, _exit(1) + _BOM),
        codex_say("Trying utf-8-sig first."),
        *_sh(3, _THIRD, _exit(0) + '{"ddgs": 8, "crawlee": 8}\n'),
    ]
    summary = codex_summary(records, tmp_path, "s1", "C:\\w")
    errors = section(summary, 4)
    assert "Not fixed" not in errors and "failed too" not in errors, errors
    assert errors.count("Fixed: a later") == 2, errors
    assert "Unresolved failure" not in section(summary, 7), section(summary, 7)


def test_a_failure_no_later_call_got_past_stays_not_fixed(tmp_path: Path) -> None:
    """The other side of W4: when every later tied attempt failed, the first is "Not fixed"."""
    records = [
        codex_user("count the collected artifacts of every tool"),
        *_sh(1, _FIRST, _exit(1) + _UNICODE),
        *_sh(2, _SECOND, _exit(1) + _BOM),
        *_sh(3, _THIRD, _exit(1) + _BOM),
    ]
    errors = section(codex_summary(records, tmp_path, "s1", "C:\\w"), 4)
    assert "Not fixed: a later" in errors and "Fixed: a later" not in errors, errors


_PS = (
    r"$id = (Get-Content labs\compat\results\success\yt_search.json | ConvertFrom-Json)"
    r".items[0].id; yt-dlp --write-comments --skip-download -o "
    r"labs\compat\results\success\yt_comments.json $id"
)
_PY = (
    "@'\nimport json, subprocess\nfrom pathlib import Path\n"
    "src = Path(r'labs\\compat\\results\\success\\yt_search.json')\n"
    "vid = json.loads(src.read_text(encoding='utf-8-sig'))['items'][0]['id']\n"
    "r = subprocess.run(['yt-dlp', '--write-comments', '--skip-download', '-o', "
    "r'labs\\compat\\results\\success\\yt_comments.json', vid])\nprint('rc', r.returncode)\n"
    "'@ | python -"
)


def test_the_same_output_file_written_another_way_is_a_workaround() -> None:
    assert output_files(_PS) == {"labs/compat/results/success/yt_comments.json"}
    assert writes_same_output(_PS, _PY)
    assert not writes_same_output(_PS, "Get-Content labs\\compat\\results\\success\\yt_search.json")
    assert not writes_same_output("ls labs", _PY)


def test_section_7_lists_no_failure_another_interpreter_worked_around(tmp_path: Path) -> None:
    """BENCH45 W5: PowerShell's ConvertFrom-Json misread a UTF-8 file; the next call, Python,
    ran the same download into the same output file with return code 0. Section 4 said "Next
    call after it: … (succeeded)" and section 7 "Unresolved failure"."""
    records = [
        codex_user("fetch the comments of the first search result video"),
        *_sh(
            1, _PS, _exit(1) + "ConvertFrom-Json : Invalid JSON primitive: .\nAt line:1 char:80\n"
        ),
        *_sh(2, _PY, _exit(0) + "[youtube] NLFBCsni: Downloading comments\nrc 0\n"),
    ]
    summary = codex_summary(records, tmp_path, "s1", "C:\\w")
    assert "Unresolved failure" not in section(summary, 7), section(summary, 7)
    assert "Worked around by" in section(summary, 4), section(summary, 4)


def test_a_claim_about_other_tests_is_not_contradicted_by_a_failing_run_of_ours() -> None:
    """BENCH45 W3: "Stefan's tests pass because they test a codepath that sidesteps both bugs"
    was marked "(contradicted later: … go test … failed …)" by a failing run of this branch's
    own test: overlapping words, not the same subject."""
    s = SessionBuilder()
    s.user("why do the e2e tests of the other PR pass?")
    s.say("In short: Stefan's tests pass because they test a codepath that sidesteps both bugs.")
    s.user("ok, now fix the post-commit hook test")
    run = "go test ./cmd/cli/strategy/... -v -run TestPostCommit_ActiveSession"
    s.call(
        "Bash",
        {"command": run},
        "Exit code 1\n--- FAIL: TestPostCommit_ActiveSession (0.01s)\n"
        "    Error: An error is expected but got nil.\nFAIL",
        error=True,
    )
    summary = summarize_transcript(s.messages)
    assert "Stefan's tests pass" in summary, summary
    assert "contradicted later" not in summary, section(summary, 5)


def test_a_claim_naming_the_failing_test_is_still_contradicted() -> None:
    """The check stays for a claim about the same test, and for one that names no subject."""
    run = "go test ./cmd/cli/strategy/... -v -run TestPostCommit_ActiveSession"
    for claim in ("The TestPostCommit_ActiveSession tests pass now", "All tests pass now"):
        s = SessionBuilder()
        s.user("fix the post-commit hook test")
        s.call("Bash", {"command": run}, "ok  \tgithub.com/x/cli/strategy\t0.02s")
        s.say(f"{claim} because the hook condenses every active session.")
        s.user("now add the empty-session case")
        s.call(
            "Bash",
            {"command": run},
            "Exit code 1\n--- FAIL: TestPostCommit_ActiveSession (0.01s)\nFAIL",
            error=True,
        )
        s.say("The test fails now.")
        summary = summarize_transcript(s.messages)
        assert "contradicted later" in summary, (claim, section(summary, 5))
