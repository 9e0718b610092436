"""Blind check 35 (fix35a), legacy Codex ``shell`` calls on Windows and filtered re-runs:

* W2: a file a PowerShell write (``Set-Content``, ``Out-File``, ``[IO.File]::WriteAllText``,
  ``> file``) rewrote after a read showed it (``Get-Content X`` in ``powershell.exe -Command``),
  or in a read-modify-write (``(Get-Content X) -replace … | Set-Content X``), existed: it is
  overwritten or edited, never "created";
* W3: the command of ``["powershell.exe", …, "-Command", SCRIPT]`` / ``["cmd", "/c", SCRIPT]`` is
  the script: an unrelated later call (``Get-Date``) fixes no failed ``Get-ChildItem``;
* W4: a later run piped into a filter that could hide the tool's errors (``| grep NAME || echo
  ok``) fixes no failure; a run whose ``|| echo`` hid tsc's errors is a failure.

Every session is built here, by shape, with invented content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.facts.filteredrun import hides_errors
from compactor.facts.maskedexit import hidden_failure
from compactor.facts.samecommand import core_command, unwrapped

from .cc_session import Session, cc_summary
from .codex_rollout import codex_say, codex_summary, codex_user, rec

_WRAPPERS = {
    "ps": ["powershell.exe", "-NoLogo", "-NoProfile", "-Command"],
    "pwsh": ["pwsh", "-NoProfile", "-c"],
    "cmd": ["cmd", "/c"],
    "bash": ["bash", "-lc"],
}


def _shell(i: int, script: str, code: int, out: str, wrap: str = "ps") -> list[dict[str, Any]]:
    """A legacy Codex ``shell`` call with an argv ``command`` and its result."""
    args = {"command": [*_WRAPPERS[wrap], script], "workdir": "C:/w/orchard"}
    call = {"type": "function_call", "name": "shell", "call_id": f"c{i}"}
    call["arguments"] = json.dumps(args)
    body = json.dumps({"output": out, "metadata": {"exit_code": code, "duration_seconds": 0.5}})
    result = {"type": "function_call_output", "call_id": f"c{i}", "output": body}
    return [rec("response_item", call), rec("response_item", result)]


def _section(text: str, head: str, until: str) -> str:
    return text.split(head, 1)[1].split(until, 1)[0]


def test_a_powershell_rewrite_of_a_file_read_before_is_no_creation(tmp_path: Path) -> None:
    records = [codex_user("Bump the charter to v2.1 and sync the plan template.")]
    records += _shell(0, "Get-Content -Raw 'docs/charter.md'", 0, "# Charter\nVersion: 2.0\n")
    records += _shell(1, "Get-Content docs/notes.md", 0, "old notes\n", "pwsh")
    records += _shell(2, "type docs\\old.txt", 0, "old text\n", "cmd")
    records += _shell(
        3, "@'\n# Charter\nVersion: 2.1\n'@ | Set-Content -Path 'docs/charter.md'", 0, ""
    )
    records += _shell(
        4,
        "(Get-Content 'templates/plan.md') -replace 'Charter v2.0', 'Charter v2.1' "
        "| Set-Content 'templates/plan.md'",
        0,
        "",
    )
    records += _shell(5, "[IO.File]::WriteAllText('docs/notes.md', 'new notes')", 0, "", "pwsh")
    records += _shell(6, "echo new> docs\\old.txt", 0, "", "cmd")
    records += _shell(7, "Out-File -FilePath docs/fresh.md -InputObject 'hi'", 0, "")
    records.append(codex_say("The charter is at v2.1 and the plan template names it."))
    text = codex_summary(records, tmp_path, "s35a", "C:/w/orchard")
    files = _section(text, "3. Files and Code Sections:", "4. Errors")
    assert "docs/charter.md (overwritten by shell" in files, files
    assert "templates/plan.md (edited by shell" in files, files
    assert "docs/notes.md (overwritten by shell" in files, files
    assert "docs/fresh.md (created by shell" in files, files  # never read: it is new


def test_an_unrelated_later_powershell_call_fixes_no_failure(tmp_path: Path) -> None:
    records = [codex_user("List the command templates and print the status.")]
    records += _shell(
        0,
        "Get-ChildItem '.kit/templates/commands'",
        1,
        "Get-ChildItem : Cannot find path 'C:\\w\\orchard\\.kit\\templates\\commands' because "
        "it does not exist.",
    )
    records += _shell(1, "Get-Date -Format 'yyyy-MM-dd'", 0, "2026-01-05")
    records += _shell(
        2,
        "python -c \"print('\\u2705 done')\"",
        1,
        "UnicodeEncodeError: 'charmap' codec can't encode character '\\u2705' in position 0",
    )
    records += _shell(
        3,
        "(Get-Content 'templates/plan.md') -replace 'v1', 'v2' | Set-Content 'templates/plan.md'",
        0,
        "",
    )
    records += _shell(
        4, "python tools/check.py", 1, "ValueError: the quota table has no header row"
    )
    records += _shell(5, "Copy-Item tools/check.py backup/check.py", 0, "")
    records += _shell(6, "dir build", 1, "File Not Found", "cmd")
    records += _shell(7, "echo ready", 0, "ready", "cmd")
    records.append(codex_say("The templates folder is missing; the status prints."))
    text = codex_summary(records, tmp_path, "s35b", "C:/w/orchard")
    errors = _section(text, "4. Errors and fixes:", "5. Problem")
    assert "Fixed:" not in errors, errors
    assert "UnicodeEncodeError" in errors, errors


def test_the_script_of_a_windows_wrapper_is_the_command() -> None:
    assert unwrapped("powershell.exe -NoLogo -NoProfile -Command Get-Date -Format x") == (
        "Get-Date -Format x"
    )
    assert unwrapped("pwsh -ExecutionPolicy Bypass -c 'ls src'") == "ls src"
    assert unwrapped('cmd.exe /d /s /c "npm test"') == "npm test"
    assert core_command("cmd /c cd web && npm test") == "npm test"
    assert unwrapped("powershell -File build.ps1") == "powershell -File build.ps1"
    assert unwrapped("git commit -m x") == "git commit -m x"


_TSC = (
    "src/cli.ts(877,31): error TS2339: Property 'rate' does not exist on type 'Quote'.\n"
    "src/cli.ts(880,5): error TS2345: Argument of type 'string' is not assignable."
)


def test_a_filtered_rerun_is_no_fix_and_an_echo_hides_no_tsc_error(tmp_path: Path) -> None:
    records = [codex_user("Add the quote pipeline.")]
    records += _shell(0, "npx tsc --noEmit 2>&1 | head -50", 2, _TSC, "bash")
    records += _shell(
        1,
        'npx tsc --noEmit 2>&1 | grep -E "(quote|pipeline)" || echo "No pipeline errors"',
        0,
        "No pipeline errors",
        "bash",
    )
    records += _shell(2, "npx tsc --noEmit || echo done", 0, _TSC + "\ndone", "bash")
    records.append(codex_say("The pipeline compiles; the tsc errors are pre-existing."))
    text = codex_summary(records, tmp_path, "s35c", "/w/quotes")
    errors = _section(text, "4. Errors and fixes:", "5. Problem")
    assert "Fixed:" not in errors, errors
    assert "|| echo done` failed: src/cli.ts(877,31): error TS2339" in errors, errors


def test_a_claude_code_rerun_through_a_grep_is_no_fix_nor_a_workaround(tmp_path: Path) -> None:
    s = Session()
    s.user("Add the quote pipeline.")
    s.call("Bash", {"command": "npx tsc --noEmit 2>&1 | head -50"}, _TSC)
    s.call(
        "Bash",
        {"command": 'npx tsc --noEmit 2>&1 | grep -E "(quote|pipeline)" || echo "No errors"'},
        "No errors",
    )
    s.say("The pipeline compiles; the tsc errors are pre-existing.")
    errors = _section(cc_summary(s, tmp_path), "4. Errors and fixes:", "5. Problem")
    assert "error TS2339" in errors, errors
    assert "Fixed:" not in errors and "Worked around" not in errors, errors


def test_which_filters_could_hide_errors() -> None:
    assert hides_errors('tsc --noEmit | grep -E "(quote|pipe)" || echo ok')
    assert hides_errors("npm run lint 2>&1 | grep -v error")
    assert hides_errors("pytest 2>&1 | Select-String 'passed'")
    assert not hides_errors('tsc --noEmit 2>&1 | grep -E "error|warning"')
    assert not hides_errors("pytest -q 2>&1 | tail -5")
    assert not hides_errors("tsc --noEmit | grep -c error")
    assert not hides_errors("curl -s https://example.test/v | grep -oE 'mp4|m3u8'")
    assert not hides_errors("npm run lint 2>&1 | grep -v DeprecationNotice || true")
    assert hidden_failure("npx eslint . || echo done", "✖ 3 problems (3 errors, 0 warnings)")
    assert hidden_failure("npx tsc --noEmit || echo done", "No errors found\ndone") == ""
