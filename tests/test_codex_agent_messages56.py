"""Codex Desktop multi-agent records are read, not refused (blind check 56 F1).

Codex Desktop 0.144.2 writes top-level ``inter_agent_communication_metadata`` records
(bookkeeping) and ``agent_message`` response items (a sub-agent's report to the root agent: a
plain header and an encrypted block). compact refused every such session (exit 2, "unknown codex
record type"). Now the bookkeeping is kept verbatim and never a message; an ``agent_message`` is
injected context (author → recipient, its plain header; the encrypted part counted, never
quoted), kept as it was by every strategy. The rollout is invented here, by shape.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactor.counting.tokens import estimate_message
from compactor.formats.registry import read_transcript, write_transcript
from compactor.schema import Message

from .codex_rollout import STAMP, codex_say, codex_user, read_rounds, rec
from .fake_server_cli import invoke, run_local

SECRET_BLOB = "gAAAAB" + "Zq9x" * 600
BOOKKEEPING = rec("inter_agent_communication_metadata", {"trigger_turn": False})
HEADER = "Message Type: MESSAGE\nTask name: install_apk\nSender: /root/install_apk"
AGENT_MESSAGE = {
    "type": "agent_message",
    "author": "/root/install_apk",
    "recipient": "/root",
    "content": [
        {"type": "input_text", "text": HEADER},
        {"type": "encrypted_content", "encrypted_content": SECRET_BLOB},
    ],
}


def rollout() -> bytes:
    meta = {"id": "5e6f7a8b-0000-4000-8000-000000000056", "timestamp": STAMP, "cwd": "/w/app"}
    spawn = {"type": "function_call", "name": "spawn_agent", "call_id": "call_sp"}
    spawn["arguments"] = json.dumps({"task_name": "install_apk", "message": "Install the APK."})
    records: list[dict[str, Any]] = [
        rec("session_meta", meta),
        rec("turn_context", {"cwd": "/w/app", "model": "gpt-5.5"}),
        codex_user("Build the app and install it on the phone."),
        rec("response_item", spawn),
        rec(
            "response_item", {"type": "function_call_output", "call_id": "call_sp", "output": "ok"}
        ),
        BOOKKEEPING,
        rec("response_item", AGENT_MESSAGE),
        *read_rounds(5, "build.log", "as read in this round"),
        BOOKKEEPING,
        codex_say("The APK is installed; the build log shows no warnings."),
    ]
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def _records(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw.split(b"\n") if line.strip()]


def test_read_as_injected_context_counted_never_quoted(tmp_path: Path) -> None:
    src = tmp_path / "rollout.jsonl"
    src.write_bytes(rollout())
    t = read_transcript(str(src), src.read_bytes())
    read = [m for m in t.messages if isinstance(m, Message)]
    found = [m for m in read if "agent_message" in (m.content or "")]
    assert len(found) == 1 and found[0].role == "user" and found[0].extra.get("injected")
    text = found[0].content or ""
    assert "/root/install_apk" in text and "/root" in text and "Task name: install_apk" in text
    assert SECRET_BLOB[:40] not in text and "2,406 characters" in text
    assert estimate_message(found[0]) >= len(SECRET_BLOB) // 4  # the encrypted part counts
    assert not any("trigger_turn" in (m.content or "") for m in read)
    # unchanged: written back byte for byte
    assert write_transcript(t, t.messages, mode="shrink") == src.read_bytes()


def test_check_and_summary_read_it(tmp_path: Path) -> None:
    src = tmp_path / "rollout.jsonl"
    src.write_bytes(rollout())
    proc = invoke(["check", str(src)], env={"NO_COLOR": "1"}, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    out = run_local(tmp_path, src, "--force")
    assert b"APK is installed" in out
    assert SECRET_BLOB.encode() not in b"".join(
        json.dumps(r["payload"].get("message", "")).encode()
        for r in _records(out)
        if r["type"] == "compacted"
    )
    assert json.dumps(BOOKKEEPING).encode() in out  # kept verbatim


@pytest.mark.parametrize(
    "args",
    [
        ("--strategy", "reduce", "--force"),
        ("--strategy", "reduce", "--force", "--append"),
        ("--strategy", "hybrid", "--force"),
    ],
    ids=["reduce", "reduce-append", "hybrid"],
)
def test_reduce_hybrid_append_keep_both_verbatim(tmp_path: Path, args: tuple[str, ...]) -> None:
    src = tmp_path / "rollout.jsonl"
    raw = rollout()
    src.write_bytes(raw)
    out = run_local(tmp_path, src, *args)
    if "--append" in args:
        assert out.startswith(raw)
    records = _records(out[len(raw) :] if "--append" in args else out)
    history = [r for r in records if r["type"] == "compacted"][-1]["payload"]["replacement_history"]
    assert history.count(AGENT_MESSAGE) == 1  # the item as it was
    outputs = [i["output"] for i in history if i["type"] == "function_call_output"]
    assert sum("saved to:" in o for o in outputs) >= 3  # really reduced
    if "--append" not in args:
        assert records.count(BOOKKEEPING) == 2  # both bookkeeping records, verbatim


def _with(tmp_path: Path, *extra: dict[str, Any]) -> Path:
    src = tmp_path / "new.jsonl"
    lines = rollout().split(b"\n")
    src.write_bytes(b"\n".join([lines[0], *(json.dumps(r).encode() for r in extra), *lines[1:]]))
    return src


NEW_RECORD = rec("thread_state_v9", {"flags": ["x"]})
NEW_ITEM = rec("response_item", {"type": "agent_handoff_v9", "to": "/root/b", "note": "go"})


def test_a_type_compact_does_not_know_is_kept_verbatim_with_a_warning(tmp_path: Path) -> None:
    """A record or item type of a newer Codex: kept and named (type, line, count), not refused
    (RELIABILITY, Decisions: blind check 56 F1 reverses "reads no record it does not know")."""
    src = _with(tmp_path, NEW_RECORD, NEW_RECORD, NEW_ITEM)
    proc = invoke(["check", str(src)], env={"NO_COLOR": "1"}, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    err = proc.stderr.decode()
    assert f"{src}:2: unknown codex record type 'thread_state_v9' (2 records, the first" in err
    assert f"{src}:4: unknown codex record type 'response_item/agent_handoff_v9'" in err
    t = read_transcript(str(src), src.read_bytes())
    assert write_transcript(t, t.messages, mode="shrink") == src.read_bytes()
    for args in (("--force",), ("--strategy", "reduce", "--force")):
        out = run_local(tmp_path, src, *args)
        assert out.count(json.dumps(NEW_RECORD).encode()) == 2, args
    history = [r for r in _records(out) if r["type"] == "compacted"][-1]["payload"]
    assert history["replacement_history"].count(NEW_ITEM["payload"]) == 1  # where it was
    raw = src.read_bytes()
    assert run_local(tmp_path, src, "--strategy", "reduce", "--force", "--append").startswith(raw)


def test_still_refused_a_record_with_a_message_key_or_items_outnumbering_messages(
    tmp_path: Path,
) -> None:
    src = _with(tmp_path, {"timestamp": STAMP, "type": "chat_v9", "role": "user", "content": "x"})
    proc = invoke(["check", str(src)], env={"NO_COLOR": "1"}, cwd=tmp_path)
    assert proc.returncode == 2 and b"not codex" in proc.stderr
    renamed = tmp_path / "renamed.jsonl"
    renamed.write_bytes(
        rollout()
        .replace(b'"function_call"', b'"function_call_v9"')
        .replace(b'"function_call_output"', b'"function_call_output_v9"')
        .replace(b'"message"', b'"message_v9"')
    )
    proc = invoke(["check", str(renamed)], env={"NO_COLOR": "1"}, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr.decode()
    assert b"more than the" in proc.stderr
