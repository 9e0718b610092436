"""A message the user typed while Claude Code worked, stored only as a ``queued_command``
attachment, is read as the user's message (RELIABILITY, Claude Code records after blind check
6, row 331).

Claude Code (2.1.178, icq) sends such a prompt to the model as a user message, not a meta one;
the reader took it for injected context, so the summary's requests and "All user messages" and
``compact eval``'s user requests missed it. A queued command of another origin (a task
notification) stays injected context. The records are written back as they were.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactor.formats.registry import read_transcript
from compactor.schema import AgenticMessage

from .cc_session import Session, work_session
from .fake_server_cli import invoke

TYPED = "Is there a Linux build of QTM?"
LISTED = "Should the OSC output option go in here too?"
IDE = "<ide_opened_file>The user opened the file src/osc.h in the IDE.</ide_opened_file>"


def _queued(prompt: Any, **more: Any) -> dict[str, Any]:
    return {
        "type": "queued_command",
        "prompt": prompt,
        "source_uuid": "e12a9b8f-c107-441e-a947-774870066a3d",
        "commandMode": "prompt",
        **more,
    }


def _session(tmp_path: Path) -> tuple[Path, bytes, list[bytes]]:
    s: Session = work_session()
    s.bash("ls src", "board.ts\nosc.h")
    s.attachment(_queued(TYPED))
    s.assistant([{"type": "text", "text": "QTM is Windows-only; the SDK builds on Linux."}])
    s.bash("cat src/osc.h", "#pragma once")
    s.attachment(_queued([{"type": "text", "text": IDE}, {"type": "text", "text": LISTED}]))
    note = "<task-notification>task b1 failed</task-notification>"
    s.attachment(_queued(note, commandMode="task-notification"))
    s.assistant([{"type": "text", "text": "Added the OSC option to src/osc.h."}])
    lines = s.lines()
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"\n".join(lines) + b"\n")
    queued = [x for x in lines if b'"queued_command"' in x]
    assert len(queued) == 3
    return src, src.read_bytes(), queued


def test_a_queued_command_reads_as_the_users_message_and_a_notification_stays_context(
    tmp_path: Path,
) -> None:
    src, raw, _ = _session(tmp_path)
    t = read_transcript(str(src), raw)
    texts = [
        ([b.text for b in m.blocks], bool(m.extra.get("injected")), m.extra.get("attachment"))
        for m in t.messages
        if isinstance(m, AgenticMessage)
        and m.role == "user"
        and m.extra.get("attachment") == "queued_command"
    ]
    assert texts[0] == ([TYPED], False, "queued_command")
    assert texts[1] == ([IDE, LISTED], False, "queued_command")  # the prompt only, no wrapper
    assert texts[2][1] is True and "attachment queued_command" in (texts[2][0][0] or "")


def test_the_summary_lists_a_queued_message_among_the_users_messages(tmp_path: Path) -> None:
    src, raw, _ = _session(tmp_path)
    out = tmp_path / "out.jsonl"
    proc = invoke(["run", "--model", "local", "--force", str(src), "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert src.read_bytes() == raw
    show = invoke(["show", "--raw", str(out)])
    assert show.returncode == 0, show.stderr
    summary = show.stdout.decode()
    assert TYPED in summary and LISTED in summary
    assert "attachment queued_command" not in summary  # the wrapper is not the message


def test_eval_counts_queued_messages_as_user_requests(tmp_path: Path) -> None:
    src, _, _ = _session(tmp_path)
    out = tmp_path / "out.jsonl"
    assert invoke(["run", "--model", "local", "--force", str(src), "-o", str(out)]).returncode == 0
    ev = invoke(["eval", "--json", "--all", str(src), str(out)])
    assert ev.returncode == 0, ev.stderr
    cats = {c["name"]: c for c in json.loads(ev.stdout)["categories"]}
    requests = [i["text"] for c in cats.values() if "request" in c["name"] for i in c["items"]]
    assert any(TYPED in r for r in requests), requests
    assert any(LISTED in r for r in requests), requests


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--model", "local", "--force", "--append"],
        ["run", "--strategy", "reduce", "--force"],
    ],
)
def test_append_and_reduce_keep_the_queued_records_verbatim(
    args: list[str], tmp_path: Path
) -> None:
    src, raw, queued = _session(tmp_path)
    out = tmp_path / "out.jsonl"
    proc = invoke([*args, str(src), "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    written = out.read_bytes().splitlines()
    for rec in queued:
        assert rec in written
    if "--append" in args:
        assert out.read_bytes().startswith(raw)
    check = invoke(["check", str(out)])
    assert check.returncode == 0, check.stderr
