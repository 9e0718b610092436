"""A long command in flight is shown with "…", how many of its steps are cut, and its last
step (blind check 56 W3; :mod:`compactor.models.local_clip`). The session is invented here."""

from __future__ import annotations

import json
from pathlib import Path

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.models.local_clip import clip_command

from .codex_rollout import codex_say, codex_user, rec

ROOT = "C:\\Users\\k\\toolkit\\codex_bundles\\LAPTOP-2GMBRRQA\\archive\\2026-12-batch-0007"
COMMAND = (
    f"$desktopRoot='{ROOT}\\sessions\\desktop'; if(Test-Path -LiteralPath $desktopRoot)"
    "{$resolved=(Resolve-Path -LiteralPath $desktopRoot).Path; if($resolved -like "
    "'C:\\Users\\k\\toolkit\\codex_bundles\\*'){Get-ChildItem -LiteralPath $resolved -Directory"
    " | Remove-Item -Recurse -Force}}; .\\.venv\\Scripts\\toolkit.cmd export-desktop-all"
    " --skills-mode skip"
)
LAST = ".\\.venv\\Scripts\\toolkit.cmd export-desktop-all --skills-mode skip"


def test_a_shortened_command_says_so_and_keeps_its_last_step() -> None:
    assert clip_command("ls -la", 40) == "ls -la"
    clipped = clip_command(COMMAND, 120)
    assert " … (3 of 4 steps not shown whole) … " in clipped, clipped
    assert clipped.endswith(LAST) and clipped.startswith("$desktopRoot=")
    one = clip_command("x" * 300, 90)
    assert " … " in one and len(one) <= 100


def test_the_call_in_flight_is_never_shown_as_its_first_step_alone(tmp_path: Path) -> None:
    code = "const r = await tools.shell_command({" + json.dumps({"command": COMMAND})[1:-1] + "});"
    cell = {"type": "custom_tool_call", "name": "exec", "call_id": "c1", "input": code}
    records = [
        rec("session_meta", {"id": "s56", "cwd": "C:\\w"}),
        codex_user("Clean the partial batch and export the 33 sessions again."),
        codex_say("I will clean the partial batch, then export again."),
        rec("response_item", cell),
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    summary = summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)
    step = next(ln for ln in summary.splitlines() if "These calls were in flight" in ln)
    assert "Remove-Item" not in step or "export-desktop-all" in step  # never the deletion alone
    assert " … " in step and "export-desktop-all --skills-mode skip" in step, step
