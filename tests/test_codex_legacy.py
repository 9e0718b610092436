"""Legacy Codex rollouts (before ``session_meta``, about August 2025; blind check 11, jay-legacy):
a first line ``{"id", "timestamp", "instructions", "git"}``, then bare Responses API items and
``{"record_type": "state"}`` lines. ``compact`` took them for an OpenAI chat and refused them
(exit 2, ``field 'role': must be a string``); it now reads them as Codex, and ``run`` writes
them back in their own shape. ``--append`` is refused: today's Codex client cannot resume one.

Every file here is synthetic, built by :func:`legacy_rollout`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactor.formats.registry import detect_format, read_transcript
from compactor.schema import Message, content_type

from .fake_server_cli import invoke

META = {
    "id": "0f1e2d3c-4b5a-4968-8776-655443322110",
    "timestamp": "2025-08-20T10:00:00.000Z",
    "instructions": None,
    "git": {"commit_hash": "0" * 40, "branch": "main", "repository_url": "git@example.com:a/b"},
}
STATE = {"record_type": "state"}
ENV = "<environment_context>\nCurrent working directory: /work/game\n</environment_context>"
ASK = "Build a small pygame game \u2028 with a score line\u0085 and tests."
"""The request: U+2028 and U+0085 inside a JSON string must not split a line."""


def _text(role: str, text: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "id": None, "role": role, "content": [{"type": part, "text": text}]}


def _round(n: int) -> list[dict[str, Any]]:
    """A reasoning item, a shell call and its long output (longer than a placeholder)."""
    out = f"file_{n}.py\n" + "".join(f"line {i} of the listing for round {n}\n" for i in range(40))
    return [
        {"type": "reasoning", "id": f"rs_{n}", "summary": [], "encrypted_content": f"gAAA{n}"},
        {
            "type": "function_call",
            "id": None,
            "name": "shell",
            "arguments": json.dumps({"command": ["bash", "-lc", f"cat file_{n}.py"]}),
            "call_id": f"call_{n}",
        },
        {"type": "function_call_output", "call_id": f"call_{n}", "output": out},
    ]


def legacy_rollout(rounds: int = 5) -> bytes:
    """A legacy rollout: metadata, the environment context, the request, ``rounds`` tool rounds
    (a state line after each item, as Codex wrote them), the answer."""
    records: list[dict[str, Any]] = [META, STATE, _text("user", ENV), STATE, _text("user", ASK)]
    for n in range(rounds):
        for item in _round(n):
            records += [item, STATE]
    records.append(_text("assistant", "The game runs: `python game.py`; 3 tests pass."))
    return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in records)


def _lines(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw.split(b"\n") if line.strip()]


@pytest.fixture
def legacy(tmp_path: Path) -> Path:
    src = tmp_path / "rollout-legacy.jsonl"
    src.write_bytes(legacy_rollout())
    return src


def _run(tmp: Path, *args: str) -> tuple[int, str]:
    proc = invoke(
        ["run", *args], env={"XDG_DATA_HOME": str(tmp / "data"), "NO_COLOR": "1"}, cwd=tmp
    )
    return proc.returncode, proc.stderr.decode()


def test_legacy_rollout_is_read_as_codex(legacy: Path) -> None:
    raw = legacy.read_bytes()
    assert detect_format(str(legacy), raw) == "codex"
    t = read_transcript(str(legacy), raw)
    messages = [m for m in t.messages if isinstance(m, Message)]
    assert len(messages) == len(t.messages) == 1 + 1 + 5 * 2 + 1
    assert messages[0].extra.get("injected") and messages[1].content == ASK
    assert [m.tool_calls[0].id for m in messages if m.tool_calls] == [f"call_{n}" for n in range(5)]
    assert not t.meta.unknown  # metadata and state lines are the format's own, not "unknown"
    proc = invoke(["check", str(legacy)])
    assert proc.returncode == 0 and b"codex, 13 messages" in proc.stdout, proc.stdout


def test_legacy_rollout_summary_is_written_in_the_legacy_shape(
    tmp_path: Path, legacy: Path
) -> None:
    out = tmp_path / "out.jsonl"
    code, err = _run(tmp_path, str(legacy), "--model", "local", "--force", "-o", str(out))
    assert code == 0, err
    raw = out.read_bytes()
    assert raw.split(b"\n")[0] == legacy.read_bytes().split(b"\n")[0]  # the metadata line
    records = _lines(raw)[1:]
    assert records and all("payload" not in r and r["type"] != "compacted" for r in records)
    again = read_transcript(str(out), raw)
    assert again.format == "codex"
    assert [content_type(m) for m in again.messages][:1] == ["summary"]
    assert "Build a small pygame game" in again.messages[0].content  # type: ignore[union-attr]
    proc = invoke(["eval", str(legacy), str(out)])
    assert proc.returncode == 0 and b"score" in proc.stdout, proc.stderr


def test_legacy_rollout_reduce_keeps_the_legacy_shape_and_every_call(
    tmp_path: Path, legacy: Path
) -> None:
    out = tmp_path / "out.jsonl"
    code, err = _run(tmp_path, str(legacy), "--strategy", "reduce", "--force", "-o", str(out))
    assert code == 0, err
    raw, before = out.read_bytes(), legacy.read_bytes()
    lines = raw.split(b"\n")
    assert lines[0] == before.split(b"\n")[0]
    kept = _lines(raw)[1:]
    assert all("payload" not in r for r in kept)
    originals = {r["call_id"]: r["output"] for r in _lines(before) if "output" in r}
    outputs = {r["call_id"]: r["output"] for r in kept if r["type"] == "function_call_output"}
    assert set(outputs) == set(originals)
    cleared = [c for c, o in outputs.items() if o != originals[c]]
    assert cleared and "call_4" not in cleared  # the retained round stays whole
    for call_id in cleared:
        file = tmp_path / "out.offload" / "clear" / call_id
        assert str(file.resolve()) in outputs[call_id]
        assert file.read_text("utf-8") == originals[call_id]
    # every other line is the input's own, byte for byte (the U+2028/U+0085 request and the
    # environment context included: no client writes a new one into a legacy file)
    input_lines = set(before.split(b"\n"))
    changed = [line for line in lines if line and line not in input_lines]
    assert len(changed) == len(cleared)
    assert all(json.loads(line)["call_id"] in cleared for line in changed)
    assert ASK.encode() in raw and json.dumps(ENV, ensure_ascii=False)[1:-1].encode() in raw
    assert read_transcript(str(out), raw).format == "codex"


def test_legacy_rollout_append_is_refused_before_the_run(tmp_path: Path, legacy: Path) -> None:
    before = legacy.read_bytes()
    for args in (["--model", "local"], ["--strategy", "reduce"]):
        code, err = _run(tmp_path, str(legacy), *args, "--force", "--append")
        assert code == 2, err
        assert err.startswith(f"compact: {legacy}: --append cannot continue a legacy Codex")
        assert "session_meta" in err and err.count("\n") == 1
        assert legacy.read_bytes() == before
    assert not (tmp_path / "rollout-legacy.offload").exists()


def test_legacy_rollout_with_an_unknown_item_names_its_line(tmp_path: Path) -> None:
    src = tmp_path / "odd.jsonl"
    odd = {"type": "local_shell_call_v9", "call_id": "x"}
    src.write_bytes(legacy_rollout(1) + json.dumps(odd).encode() + b"\n")
    proc = invoke(["check", str(src)])
    assert proc.returncode == 2
    line = len(legacy_rollout(1).split(b"\n"))
    assert f"{src}:{line}: field 'type': unknown codex item 'local_shell_call_v9'" in (
        proc.stderr.decode()
    )


def test_a_chat_file_with_an_id_header_is_not_a_legacy_rollout(tmp_path: Path) -> None:
    """The legacy shape needs bare Responses items after the metadata line: chat messages
    after it are not one (the file is refused as before, not read as Codex)."""
    src = tmp_path / "chat.jsonl"
    chat = [META, {"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]
    src.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in chat))
    assert detect_format(str(src), src.read_bytes()) != "codex"


def test_a_legacy_local_shell_call_is_a_call_whose_output_reduce_clears(tmp_path: Path) -> None:
    """``local_shell_call`` (2025 models' built-in shell: ``action`` holds the command, a
    ``function_call_output`` answers it) is a tool call named ``local_shell``; a reduction
    clears its old output and keeps the call's line byte for byte."""
    call = {
        "type": "local_shell_call",
        "id": "lsh_1",
        "call_id": "call_ls",
        "status": "completed",
        "action": {"type": "exec", "command": ["ls", "-R"], "timeout_ms": 10_000},
    }
    listing = "".join(f"src/module_{i}.py\n" for i in range(60))
    output = {"type": "function_call_output", "call_id": "call_ls", "output": listing}
    head, rest = legacy_rollout(3).split(
        json.dumps(_text("user", ASK), ensure_ascii=False).encode()
    )
    lines = [json.dumps(call).encode(), json.dumps(output).encode()]
    ask = json.dumps(_text("user", ASK), ensure_ascii=False).encode()
    src = tmp_path / "ls.jsonl"
    src.write_bytes(head + ask + b"\n" + b"\n".join(lines) + rest)
    t = read_transcript(str(src), src.read_bytes())
    calls = [m.tool_calls[0] for m in t.messages if isinstance(m, Message) and m.tool_calls]
    assert (calls[0].id, calls[0].name, json.loads(calls[0].arguments)["command"]) == (
        "call_ls",
        "local_shell",
        ["ls", "-R"],
    )
    out = tmp_path / "out.jsonl"
    code, err = _run(tmp_path, str(src), "--strategy", "reduce", "--force", "-o", str(out))
    assert code == 0, err
    raw = out.read_bytes()
    assert lines[0] in raw.split(b"\n")
    cleared = tmp_path / "out.offload" / "clear" / "call_ls"
    assert cleared.read_text("utf-8") == listing and listing.encode() not in raw
