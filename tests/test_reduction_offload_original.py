"""Issue 30, blind check 8: an offload file holds exactly the original result as the input
record holds it. A text result is its text, byte for byte; a result that is a list of parts
(an image with its base64 data, a Claude Code ``tool_reference`` block, several texts) is the
original JSON of that list, never compact's internal blocks (``user_input_image``, a data: URL,
``user_input_text "[tool_reference]..."``). One synthetic session per format, through the real
``compact run --strategy reduce``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .test_reduction_cli import compact

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5E"
    "rkJggg=="
)
PAD = "p" * 3_000
TEXT = "plain text result é\n" + "t" * 3_000

Content = Any
Maker = Callable[[list[tuple[str, Content]]], list[dict[str, Any]]]


def _anthropic_records(results: list[tuple[str, Content]]) -> list[dict[str, Any]]:
    recs: list[dict[str, Any]] = [{"role": "user", "content": "look at the screen"}]
    for cid, content in results:
        recs.append(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": cid, "name": "Read", "input": {"n": cid}}],
            }
        )
        recs.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": cid, "content": content}],
            }
        )
    recs.append({"role": "assistant", "content": "done"})
    return recs


def _claude_code_records(results: list[tuple[str, Content]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    parent: str | None = None
    for i, rec in enumerate(_anthropic_records(results)):
        uuid = f"00000000-0000-4000-8000-{i:012d}"
        kind = rec["role"]
        message: dict[str, Any] = {"role": kind, "content": rec["content"]}
        if kind == "assistant":
            message = {"id": f"msg_{i}", "type": "message", "model": "claude-sonnet-4-5", **message}
        out.append(
            {
                "parentUuid": parent,
                "isSidechain": False,
                "userType": "external",
                "cwd": "/repo",
                "sessionId": "5f0c7d2e-9a41-4c55-8f0e-3b1d6a2c7e90",
                "version": "2.1.100",
                "type": kind,
                "message": message,
                "uuid": uuid,
                "timestamp": f"2026-01-12T10:00:{i:02d}.000Z",
            }
        )
        parent = uuid
    return out


def _openai_records(
    results: list[tuple[str, Content]], parts_key: str | None = None
) -> list[dict[str, Any]]:
    recs: list[dict[str, Any]] = [{"role": "user", "content": "look at the screen"}]
    for cid, content in results:
        call = {"id": cid, "type": "function", "function": {"name": "read", "arguments": "{}"}}
        recs.append({"role": "assistant", "content": "", "tool_calls": [call]})
        if parts_key is not None and isinstance(content, list):
            recs.append({"role": "tool", "tool_call_id": cid, "content": "", parts_key: content})
        else:
            recs.append({"role": "tool", "tool_call_id": cid, "content": content})
    recs.append({"role": "assistant", "content": "done"})
    return recs


def _eino_records(results: list[tuple[str, Content]]) -> list[dict[str, Any]]:
    return _openai_records(results, "user_input_multi_content")


def _part(kind: str, text: str) -> dict[str, Any]:
    return {"type": kind, "text": text}


def _codex_records(results: list[tuple[str, Content]]) -> list[dict[str, Any]]:
    def item(n: int, payload: dict[str, Any]) -> dict[str, Any]:
        stamp = f"2026-03-02T10:00:{n:02d}.000Z"
        return {"timestamp": stamp, "type": "response_item", "payload": payload}

    meta = {
        "id": "0195f0aa-1111-7222-8333-944455556666",
        "timestamp": "2026-03-02T10:00:00.000Z",
        "cwd": "/repo",
        "originator": "codex_cli_rs",
        "cli_version": "0.128.0",
        "source": "cli",
        "model_provider": "openai",
    }
    recs: list[dict[str, Any]] = [
        {"timestamp": "2026-03-02T10:00:00.000Z", "type": "session_meta", "payload": meta},
        item(1, {"type": "message", "role": "user", "content": [_part("input_text", "look")]}),
    ]
    for i, (cid, content) in enumerate(results):
        call = {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": cid}
        recs.append(item(2 + 2 * i, call))
        output = {"type": "function_call_output", "call_id": cid, "output": content}
        recs.append(item(3 + 2 * i, output))
    done = {"type": "message", "role": "assistant", "content": [_part("output_text", "done")]}
    recs.append(item(40, done))
    return recs


def _anthropic_results() -> list[tuple[str, Content]]:
    image = [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "text", "text": "a screenshot " + PAD},
    ]
    parts = [
        {"type": "tool_reference", "tool_name": "mcp__browser__click"},
        {"type": "text", "text": "loaded tools " + PAD, "cache_control": {"type": "ephemeral"}},
    ]
    return [("toolu_img", image), ("toolu_parts", parts), ("toolu_text", TEXT), ("toolu_last", "x")]


def _openai_results() -> list[tuple[str, Content]]:
    image = [
        {
            "type": "image_url",
            "image_url": {"url": f"data:image/png;base64,{PNG}", "detail": "high"},
        },
        {"type": "text", "text": "a screenshot " + PAD},
    ]
    parts = [{"type": "text", "text": "first"}, {"type": "text", "text": "second " + PAD}]
    return [("call_img", image), ("call_parts", parts), ("call_text", TEXT), ("call_last", "x")]


def _eino_results() -> list[tuple[str, Content]]:
    image = [
        {"type": "image_url", "image": {"url": f"data:image/png;base64,{PNG}"}},
        {"type": "text", "text": "a screenshot " + PAD},
    ]
    parts = [{"type": "text", "text": "first"}, {"type": "text", "text": "second " + PAD}]
    return [("call_img", image), ("call_parts", parts), ("call_text", TEXT), ("call_last", "x")]


def _codex_results() -> list[tuple[str, Content]]:
    image = [
        {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"},
        {"type": "input_text", "text": "a screenshot " + PAD},
    ]
    parts = [{"type": "input_text", "text": "first"}, {"type": "input_text", "text": "2 " + PAD}]
    return [("call_img", image), ("call_parts", parts), ("call_text", TEXT), ("call_last", "x")]


CASES: dict[str, tuple[Maker, Callable[[], list[tuple[str, Content]]]]] = {
    "anthropic": (_anthropic_records, _anthropic_results),
    "claude-code": (_claude_code_records, _anthropic_results),
    "openai": (_openai_records, _openai_results),
    "eino": (_eino_records, _eino_results),
    "codex": (_codex_records, _codex_results),
}


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_offload_file_holds_the_original_result_of_every_format(tmp_path: Path, fmt: str) -> None:
    make, results = CASES[fmt]
    expected = results()
    src = tmp_path / "s.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in make(expected)), encoding="utf-8")
    before = src.read_bytes()
    proc = compact(
        tmp_path, "run", "s.jsonl", "--format", fmt, "--strategy", "reduce", "--force",
        "--offload-dir", "off",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert src.read_bytes() == before
    folder = tmp_path / "off" / "clear"
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted(cid for cid, _ in expected[:-1])  # the retained round stays
    for cid, content in expected[:-1]:
        data = (folder / cid).read_bytes().decode("utf-8")
        if isinstance(content, str):
            assert data == content  # a text result: its text, byte for byte
            continue
        assert json.loads(data) == content, (fmt, cid, data[:200])  # the original value
        assert data.encode() in before  # as the record wrote it: byte for byte
        assert "user_input" not in data and "[tool_reference]" not in data
    out = (tmp_path / "s.compact.jsonl").read_text(encoding="utf-8")
    for cid, _ in expected[:-1]:
        assert str(folder / cid) in out  # each placeholder names its file
    assert PNG not in out  # the image went to the file, not kept in the output


def test_original_json_keeps_the_style_of_its_record_else_compact(tmp_path: Path) -> None:
    """A compact record (JSON.stringify, as Claude Code writes) gives a compact file, byte for
    byte the record's own ``content`` (the first test: Python's spaced style)."""
    expected = _anthropic_results()
    src = tmp_path / "s.jsonl"
    lines = [json.dumps(r, separators=(",", ":")) for r in _anthropic_records(expected)]
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--force", "--offload-dir", "off",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = (tmp_path / "off" / "clear" / "toolu_img").read_bytes()
    assert data == json.dumps(expected[0][1], separators=(",", ":")).encode()
    assert data in src.read_bytes()
