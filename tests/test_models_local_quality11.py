"""Blind check 12's wrong statements in the local summary (issue 28, quality pass 11), each on a
Claude Code session built here by shape: a background task that a ``<task-notification>``
reports failed after the last answer overrides the answer's "it runs" claim; a kill tool's
"Successfully killed shell" is a success."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .cc_session import Session
from .test_models_local_session import section


def _summary(s: Session, tmp_path: Path) -> str:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


def _call(s: Session, name: str, args: dict[str, Any], output: str) -> None:
    call = f"toolu_{s.n:04d}"
    s.assistant([{"type": "tool_use", "id": call, "name": name, "input": args}])
    s.user([{"type": "tool_result", "tool_use_id": call, "content": output}])


def _out(task: str) -> str:
    return f"/tmp/tasks/{task}.output"


def _started(task: str) -> str:
    return (
        f"Command running in background with ID: {task}. Output is being written to: {_out(task)}"
    )


def _notice(task: str, status: str, summary: str) -> str:
    return (
        f"<task-notification>\n<task-id>{task}</task-id>\n<output-file>/tmp/tasks/{task}.output"
        f"</output-file>\n<status>{status}</status>\n<summary>{summary}</summary>\n"
        f"</task-notification>\nRead the output file to retrieve the result: {_out(task)}"
    )


def _dev_server_session() -> Session:
    s = Session()
    s.user("switch the login to OAuth and restart the dev server")
    s.bash(
        "npm run dev",
        _started("a1b2c3d"),
    )
    _call(
        s,
        "KillShell",
        {"shell_id": "a1b2c3d"},
        '{"message":"Successfully killed shell: a1b2c3d (npm run dev)","shell_id":"a1b2c3d"}',
    )
    s.bash(
        "npm run dev",
        _started("f9e8d7c"),
    )
    s.bash(
        "sleep 3 && cat /tmp/tasks/f9e8d7c.output",
        "VITE v7.3.1 ready in 95 ms\nLocal: http://localhost:5173/",
    )
    s.user(_notice("a1b2c3d", "killed", 'Background command "npm run dev" was killed'))
    s.assistant(
        [
            {
                "type": "text",
                "text": "The notification is for the old dev server. The new server (f9e8d7c) is "
                "running successfully on port 5173. The OAuth login is ready to use at "
                "http://localhost:5173/ once you paste your client id into .env. " * 3,
            }
        ]
    )
    return s


def test_a_task_that_failed_after_the_answer_overrides_its_running_claim(tmp_path: Path) -> None:
    s = _dev_server_session()
    s.user(
        _notice(
            "f9e8d7c", "failed", 'Background command "Start dev server" failed with exit code 137.'
        )
    )
    text = _summary(s, tmp_path)
    pending, current, step = section(text, 7), section(text, 8), section(text, 9)
    assert "nothing is pending" not in pending.lower() and "None:" not in pending, pending
    assert "f9e8d7c failed" in pending and "exit code 137" in pending, pending
    assert "it is not running" in pending, pending
    assert "was completed" not in current, current
    assert "failed after the answer" in current, current
    assert "nothing is pending" not in step.lower(), step
    assert "f9e8d7c" in step and "exit code 137" in step, step


def test_without_a_late_failure_the_answered_session_stays_answered(tmp_path: Path) -> None:
    text = _summary(_dev_server_session(), tmp_path)  # the only notice came before the answer
    assert "still running" in section(text, 7) and "f9e8d7c" in section(text, 7), text
    assert "failed after the answer" not in text, text


def test_a_kill_tool_that_reports_the_kill_succeeded(tmp_path: Path) -> None:
    s = Session()
    s.user("restart the dev server")
    s.bash("npm run dev", _started("a1b2c3d"))
    for name, said in (
        ("KillShell", '{"message":"Successfully killed shell: a1b2c3d (npm run dev)"}'),
        ("KillBash", "Shell a1b2c3d killed"),
    ):
        _call(s, name, {"shell_id": "a1b2c3d"}, said)
    s.assistant([{"type": "text", "text": "The old server is stopped."}])
    text = _summary(s, tmp_path)
    assert "(failed)" not in text and "KillShell(shell_id=a1b2c3d) failed" not in text, text
    assert "KillBash(shell_id=a1b2c3d) failed" not in text, text
    assert "3 tool calls (0 failed)" in text, text


def test_a_kill_tool_that_reports_an_error_still_failed(tmp_path: Path) -> None:
    s = Session()
    s.user("stop the dev server")
    _call(s, "KillShell", {"shell_id": "zzz"}, "Error: No shell found with ID: zzz")
    s.assistant([{"type": "text", "text": "There was no such shell."}])
    assert "1 tool call (1 failed)" in _summary(s, tmp_path)


def test_secret_values_never_reach_the_summary(tmp_path: Path) -> None:
    compose = (
        "services:\n  windows:\n    image: dockurr/windows\n    environment:\n"
        '      USERNAME: "dev"\n      PASSWORD: "Hunter2-Winter!"\n      RAM_SIZE: "16G"\n'
    )
    env = "DB_HOST=db.local\nAPI_KEY=sk_live_Zq81xxPLANTED\nMAX_TOKENS=800\n"
    blob = '{"client_secret": "cs-PLANTED-77", "name": "board"}'
    s = Session()
    s.user("set up the Windows VM compose file, the .env and the OAuth client config")
    _call(s, "Write", {"file_path": "/home/dev/vm/compose.yaml", "content": compose}, "ok")
    _call(s, "Write", {"file_path": "/home/dev/vm/.env", "content": env}, "ok")
    _call(s, "Write", {"file_path": "/home/dev/vm/client.json", "content": blob}, "ok")
    s.assistant([{"type": "text", "text": f"Done. The .env now reads:\n{env}\nand {blob}"}])
    text = _summary(s, tmp_path)
    for secret in ("Hunter2-Winter!", "sk_live_Zq81xxPLANTED", "cs-PLANTED-77"):
        assert secret not in text, text
    assert 'PASSWORD: "***"' in text and "API_KEY=***" in text, text
    assert '"client_secret": "***"' in text, text
    assert 'RAM_SIZE: "16G"' in text and "MAX_TOKENS=800" in text, text  # not secrets: kept


def _earlier_summary() -> str:
    filler = " ".join(
        f"The sync step {i} stores the budget rows in the local cache." for i in range(60)
    )
    pending = " ".join(
        f"- Pending item {i}: wire the spinner into list view {i}." for i in range(30)
    )
    current = " ".join(f"Was editing register component part {i} of the list." for i in range(30))
    heads = ["Primary Request and Intent", "Key Technical Concepts", "Files and Code Sections"]
    body = "".join(f"## {n}. {h}\n{filler}\n\n" for n, h in enumerate(heads, 1))
    return (
        "This session is being continued from a previous conversation that ran out of context. "
        "The conversation is summarized below:\nAnalysis:\n## Initial Request\nmake sync fast\n\n"
        f"Summary:\n{body}## 7. Pending Tasks\n{pending} PENDING-END-MARK.\n\n"
        f"## 8. Current Work\n{current} CURRENT-END-MARK.\n\n## 9. Optional Next Step\nGo on.\n"
    )


def test_an_earlier_summary_s_pending_and_current_work_are_kept_whole(tmp_path: Path) -> None:
    s = Session()
    s.user(_earlier_summary())
    s.records[-1]["isCompactSummary"] = True
    s.user("the budget table spinner never goes away, fix it")
    s.bash("grep -rn isSyncingBackfill app", "app/components/budget-table.ts:12: @alias")
    s.assistant([{"type": "text", "text": "Changed the alias to a getter; try it now."}])
    text = _summary(s, tmp_path)
    pending, current = section(text, 7), section(text, 8)
    assert "PENDING-END-MARK" in pending and "Pending item 0:" in pending, pending
    assert "CURRENT-END-MARK" in current and "register component part 0" in current, current
    assert "more characters" not in pending + current, pending + current
    assert "the last request was answered" in pending, pending  # the later work's state too
    assert "The sync step 0" in section(text, 1), section(text, 1)  # ``## 1. …`` is read


def test_a_password_behind_a_hash_arrow_or_in_a_call_never_reaches_the_summary(
    tmp_path: Path,
) -> None:
    """Blind check 24 (cc-cmmc): a seeder's ``'password' => Hash::make('…')`` reached §3 as
    ``'password' =*** Hash::make('…')``: the masker took the ``>`` of ``=>`` for the value."""
    seeder = (
        "<?php\nUser::create([\n    'name' => 'Admin',\n"
        "    'password' => Hash::make('Adm1n@Seeded2026!'),\n"
        "    'api_token' => 'tok-PLANTED-42',\n    'secret' => bcrypt( \"Sh0rt&Sweet\" ),\n"
        "    'db_password' => env('DB_PASSWORD'),\n]);\n"
    )
    s = Session()
    s.user("seed an admin user")
    _call(
        s,
        "Write",
        {"file_path": "/srv/app/database/seeders/AdminSeeder.php", "content": seeder},
        "ok",
    )
    s.assistant([{"type": "text", "text": f"Seeded. The seeder reads:\n{seeder}"}])
    text = _summary(s, tmp_path)
    for secret in ("Adm1n@Seeded2026!", "tok-PLANTED-42", "Sh0rt&Sweet"):
        assert secret not in text, text
    assert "'password' => Hash::make('***')" in text, text
    assert "'api_token' => '***'" in text, text
    assert "env('DB_PASSWORD')" in text and "'name' => 'Admin'" in text, text  # no secrets: kept
