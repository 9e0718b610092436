"""Reduction never clears or truncates a tool result that carries the user's own words (issue 30:
user texts are never changed; blind check 21, cc-skill: the user's corrections of four rejected
Writes and their answers to ``AskUserQuestion`` went into offload files, and none of those texts
was left in the reduced transcript).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from .cc_session import Session
from .fake_server_cli import invoke

REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). To tell you how to proceed, "
    "the user said:\nBN uses ocap/util: use the right syntax, not the old import path. " * 3
)
ANSWERED = 'User has answered your questions: "Which store?"="Keep the rates in Redis". ' * 4
LONG = "line of build output that says nothing in particular\n" * 200


def _session() -> Session:
    s = Session()
    s.user("Write the skill and package it.")
    s.bash("make build", LONG)
    s.assistant([{"type": "tool_use", "id": "toolu_w", "name": "Write",
                  "input": {"file_path": "/w/skill.md", "content": "x " * 400}}])  # fmt: skip
    s.user([{"type": "tool_result", "tool_use_id": "toolu_w", "content": REJECTED,
             "is_error": True}])  # fmt: skip
    s.assistant([{"type": "tool_use", "id": "toolu_q", "name": "AskUserQuestion",
                  "input": {"questions": [{"question": "Which store?"}]}}])  # fmt: skip
    s.user([{"type": "tool_result", "tool_use_id": "toolu_q", "content": ANSWERED}])
    s.bash("make test", LONG)
    s.bash("make package", LONG)
    return s


def _results(path: Path) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for line in path.read_bytes().splitlines():
        rec = json.loads(line)
        content = (rec.get("message") or {}).get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    found[block["tool_use_id"]] = block["content"]
    return found


@pytest.mark.parametrize("strategy", ["reduce", "hybrid"])
def test_results_carrying_the_users_words_are_never_cleared(tmp_path: Path, strategy: str) -> None:
    src = tmp_path / "s.jsonl"
    src.write_bytes(b"\n".join(_session().lines()) + b"\n")
    out = tmp_path / "out.jsonl"
    args = ["run", "--strategy", strategy, "--force", "--model", "local", str(src), "-o", str(out)]
    proc = invoke(args)
    assert proc.returncode == 0, proc.stderr
    results = _results(out)
    assert results["toolu_w"] == REJECTED  # the user's correction, as it was
    assert results["toolu_q"] == ANSWERED  # the user's answers, as they were
    cleared = [k for k, v in results.items() if ".offload" in json.dumps(v)]
    assert cleared, results  # the other old results were cleared: the rule is not "clear nothing"


def test_the_streamed_pass_keeps_them_too(tmp_path: Path) -> None:
    """An OpenAI-chat log takes the streaming pass: the same rule, tested on the raw line first."""
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "Package the skill."}]
    for n, text in enumerate([LONG, REJECTED, ANSWERED, LONG, LONG, LONG]):
        args = json.dumps({"cmd": f"step {n}"})
        call = {"id": f"c{n}", "type": "function", "function": {"name": "run", "arguments": args}}
        msgs.append({"role": "assistant", "content": None, "tool_calls": [call]})
        msgs.append({"role": "tool", "tool_call_id": f"c{n}", "content": text})
    src = tmp_path / "chat.jsonl"
    src.write_bytes(b"\n".join(orjson.dumps(m) for m in msgs) + b"\n")
    out = tmp_path / "out.jsonl"
    report = tmp_path / "r.json"
    proc = invoke(["run", "--strategy", "reduce", "--force", str(src), "-o", str(out),
                   "--report", str(report)])  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(report.read_text("utf-8"))["reduction"]["streamed"] is True
    by_id = {m["tool_call_id"]: m["content"] for m in map(json.loads, out.read_bytes().splitlines())
             if m.get("role") == "tool"}  # fmt: skip
    assert by_id["c1"] == REJECTED and by_id["c2"] == ANSWERED
    assert ".offload" in by_id["c0"] and ".offload" in by_id["c3"]
