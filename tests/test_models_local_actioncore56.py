"""A failure is fixed only by a later call of the same action core, never by a later call of the
same tool name (blind check 56 W1, W2, W4; :mod:`compactor.models.local_actioncore`).

Codex code mode runs every command as an ``exec`` cell of JavaScript (``tools.shell_command``,
``tools.update_plan``): a failed export was "Fixed" by a plan update. A browser tool's
``computer(action=screenshot)`` timed out and was "Fixed" by ``computer(action=left_click)``.
The sessions are invented here, by shape.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .codex_rollout import codex_say, codex_user, rec

EXPORT = (
    'const r = await tools.shell_command({command:".\\\\.venv\\\\Scripts\\\\toolkit.cmd '
    'export-desktop-all --skills-mode skip", workdir:"C:\\\\Users\\\\k\\\\toolkit"}); text(r);'
)
AGAIN = (
    'const r = await tools.shell_command({command:".\\\\.venv\\\\Scripts\\\\toolkit.cmd '
    'export-desktop-all --skills-mode skip"}); text(r);'
)
PLAN = (
    'await tools.update_plan({explanation:"Snapshot verified; the repository guard holds. Next: '
    'set up the toolkit.", plan:[{step:"export",status:"in_progress"}]});'
)
CHECKS = (
    "const [a,b] = await Promise.all([tools.shell_command({command:"
    '".\\\\.venv\\\\Scripts\\\\toolkit.cmd repair-desktop --dry-run"}), tools.shell_command('
    '{command:".\\\\.venv\\\\Scripts\\\\toolkit.cmd validate-bundles --verbose"})]); text(a);'
)


def _cell(i: int, code: str, output: str) -> list[dict[str, Any]]:
    call = {"type": "custom_tool_call", "name": "exec", "call_id": f"c{i}", "input": code}
    result = {"type": "custom_tool_call_output", "call_id": f"c{i}", "output": output}
    return [rec("response_item", call), rec("response_item", result)]


def _codex(tmp_path: Path, *later: str) -> str:
    ok = "Exit code: 0\nWall time: 1 seconds\nOutput:\ndone: 33 sessions"
    records = [
        rec("session_meta", {"id": "s56", "cwd": "C:\\w"}),
        codex_user("Export all desktop sessions with the toolkit."),
        *_cell(0, EXPORT, "Exit code: 1\nWall time: 3 seconds\nOutput:\nerror: 9 of 33 invalid"),
    ]
    for i, code in enumerate(later, 1):
        records += _cell(i, code, "Plan updated" if code is PLAN else ok)
    records.append(codex_say("That is where it stands."))
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


def _fixed_lines(summary: str) -> list[str]:
    return [ln for ln in summary.splitlines() if "Fixed: a later" in ln]


def test_a_plan_update_or_another_command_in_a_later_cell_fixes_nothing(tmp_path: Path) -> None:
    summary = _codex(tmp_path, PLAN, CHECKS)
    assert "export-desktop-all --skills-mode skip" in summary
    assert _fixed_lines(summary) == [], _fixed_lines(summary)


def test_a_later_cell_running_the_same_command_fixes_it(tmp_path: Path) -> None:
    fixed = _fixed_lines(_codex(tmp_path, PLAN, AGAIN))
    assert len(fixed) == 1 and "export-desktop-all" in fixed[0] and "update_plan" not in fixed[0]


def _browser(tmp_path: Path, last_action: dict[str, str]) -> str:
    def call(i: int, args: dict[str, str]) -> dict[str, Any]:
        fn = {"name": "mcp__browser__computer", "arguments": json.dumps(args)}
        return {
            "role": "assistant",
            "tool_calls": [{"id": f"c{i}", "type": "function", "function": fn}],
        }

    def res(i: int, text: str) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": f"c{i}", "content": text}

    shot = {"tabId": "seed", "action": "screenshot"}
    messages = [
        {"role": "user", "content": "Check that the journal page renders."},
        call(1, shot),
        res(1, "Error: computer timed out after 30s"),
        call(2, shot),
        res(2, "Error: computer timed out after 30s"),
        call(3, {"tabId": "seed", **last_action}),
        res(3, "Done."),
        {"role": "assistant", "content": "The journal page shows 3 entries."},
    ]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(messages))
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


def test_a_click_does_not_fix_a_screenshot_that_timed_out(tmp_path: Path) -> None:
    summary = _browser(tmp_path, {"action": "left_click", "ref": "ref_4"})
    assert "action=screenshot" in summary
    assert _fixed_lines(summary) == [], _fixed_lines(summary)


def test_a_later_screenshot_that_worked_fixes_it(tmp_path: Path) -> None:
    fixed = _fixed_lines(_browser(tmp_path, {"action": "screenshot"}))
    assert len(fixed) == 1 and "action=screenshot" in fixed[0]
