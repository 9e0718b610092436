"""Blind check 20 (cc-lostedit): a quoted user message cut inside its code block left an odd
number of fences, and ``compact show`` rendered the rest of the summary (§6-§9) as code.
A cut closes the fence its head leaves open and reopens the one its tail starts inside."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.facts.fences import cut_middle, open_fence
from compactor.formats.registry import read_transcript
from compactor.schema import content_type, user_text

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.MULTILINE)

PLAN = (
    "Implement the following plan:\n\n# Plan\n\nWrite this file:\n\n```markdown\n# Project\n\n"
    + "".join(f"| row {n} | value {n} with some words |\n" for n in range(120))
    + "```\n\n## Check\n- open the file in the IDE\n"
)


def _cc(n: int, rtype: str, content: object) -> str:
    rec: dict[str, object] = {
        "parentUuid": None if n == 1 else f"00000000-0000-4000-8000-{n - 1:012d}",
        "isSidechain": False,
        "userType": "external",
        "cwd": "/repo",
        "sessionId": "s1",
        "version": "2.1.100",
        "type": rtype,
        "uuid": f"00000000-0000-4000-8000-{n:012d}",
        "timestamp": f"2026-01-12T10:00:{n:02d}.000Z",
        "message": {"role": rtype, "content": content},
    }
    if rtype == "assistant":
        rec["message"] = {
            "role": rtype,
            "content": content,
            "id": f"msg_{n}",
            "type": "message",
            "model": "claude-sonnet-4-5",
        }
    return json.dumps(rec)


def _session(path: Path) -> Path:
    args = {"file_path": "/repo/NOTES.md", "content": "# Project\n"}
    call = {"type": "tool_use", "id": "toolu_1", "name": "Write", "input": args}
    result = {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "File created successfully",
    }
    records = [
        _cc(1, "user", PLAN),
        _cc(2, "assistant", [call]),
        _cc(3, "user", [result]),
        _cc(4, "assistant", [{"type": "text", "text": "Written."}]),
        _cc(5, "user", "The file did not change, write it again."),
        _cc(6, "assistant", [{"type": "text", "text": "Rewritten /repo/NOTES.md."}]),
    ]
    path.write_text("".join(r + "\n" for r in records), encoding="utf-8")
    return path


def test_a_quoted_user_message_cut_inside_a_code_block_leaves_no_fence_open(tmp_path: Path) -> None:
    src = _session(tmp_path / "s.jsonl")
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(
        app,
        ["run", str(src), "--force", "--model", "local", "--no-cache", "-o", str(out), "--quiet"],
    )
    assert result.exit_code == 0, result.output
    t = read_transcript(str(out), out.read_bytes())
    text = next(user_text(m) for m in t.messages if content_type(m) == "summary")
    assert "characters truncated" in text  # the plan was cut
    cut = text.index("characters truncated")
    assert open_fence(text[:cut]) is None  # the cut is not inside a code block
    assert open_fence(text) is None
    assert "The file did not change" in text


def test_cut_middle_closes_then_reopens_the_block_it_cuts() -> None:
    text = "intro\n```\n" + "code line\n" * 50 + "```\nafter\n"
    cut = cut_middle(text, 30, "…cut…")
    head, tail = cut.split("…cut…")
    assert open_fence(head) is None
    assert _FENCE.match(tail.lstrip("\n"))  # the tail starts inside the block: reopened
    assert open_fence(cut) is None
    assert cut.endswith("```\nafter\n")
    plain = "a" * 200
    assert cut_middle(plain, 10, "…") == "a" * 10 + "…" + "a" * 10
