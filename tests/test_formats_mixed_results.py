"""Blind check 20 (G1, W3/W4): a chat log whose assistant turns carry OpenAI ``tool_calls``
while each result comes back as an Anthropic ``tool_result`` block in a user message.

The results must answer their calls (no call "in flight", the written files known), be
counted by ``check`` and be cleared by a reduction, which writes them back in their own shape
and leaves every other record byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.formats.registry import file_tool_pairs, read_transcript
from compactor.schema import content_type, user_text

BIG = "\n".join(f"{n:6}\tline {n} of the module, with some text to read" for n in range(400))


def _call(cid: str, name: str, args: dict[str, object]) -> dict[str, object]:
    fn = {"name": name, "arguments": json.dumps(args)}
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": cid, "type": "function", "function": fn}],
    }


def _result(cid: str, content: object, *, error: bool = False) -> dict[str, object]:
    block: dict[str, object] = {"tool_use_id": cid, "type": "tool_result", "content": content}
    if error:
        block["is_error"] = True
    return {"role": "user", "content": [block]}


def _session(path: Path) -> Path:
    records: list[dict[str, object]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Add a greeting module under /repo/src and test it."},
    ]
    for n in range(6):
        records += [
            {"role": "assistant", "content": f"Reading part {n} of the code."},
            _call(f"toolu_read{n}", "Read", {"file_path": f"/repo/src/part{n}.py"}),
            _result(f"toolu_read{n}", BIG),
        ]
    records += [
        _call("toolu_write", "Write", {"file_path": "/repo/src/greet.py", "content": "X = 1\n"}),
        _result("toolu_write", "File created successfully at: /repo/src/greet.py"),
        _call("toolu_cd", "Bash", {"command": "cd build/out && make test"}),
        _result(
            "toolu_cd", "/bin/bash: line 1: cd: build/out: No such file or directory", error=True
        ),
        _call("toolu_test", "Bash", {"command": "make test"}),
        _result("toolu_test", [{"type": "text", "text": "4 passed in 0.2s"}]),
        {"role": "assistant", "content": "Done: greet.py is written and the tests pass."},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_tool_result_blocks_answer_the_tool_calls_and_are_counted(tmp_path: Path) -> None:
    src = _session(tmp_path / "mixed.jsonl")
    t = read_transcript(str(src), src.read_bytes())
    assert t.format == "openai"
    assert file_tool_pairs(t) == (9, 9)
    result = CliRunner().invoke(app, ["check", "--json", str(src)])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert (record["file_tool_calls"], record["file_tool_results"]) == (9, 9)
    # six results of ~20 KB each: counted (they were ~0 tokens when read as empty user turns)
    assert record["tokens"] > 6 * len(BIG) // 5


def test_summary_of_mixed_results_has_no_call_in_flight_and_knows_the_file(tmp_path: Path) -> None:
    src = _session(tmp_path / "mixed.jsonl")
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(
        app,
        ["run", str(src), "--force", "--model", "local", "--no-cache", "-o", str(out), "--quiet"],
    )
    assert result.exit_code == 0, result.output
    t = read_transcript(str(out), out.read_bytes())
    text = next(user_text(m) for m in t.messages if content_type(m) == "summary")
    assert "in flight" not in text
    assert "No file was created" not in text
    assert "/repo/src/greet.py (created by Write)" in text
    assert "cd: build/out: No such file or directory" in text  # the flagged failure


def test_reduce_clears_mixed_results_in_their_own_shape(tmp_path: Path) -> None:
    src = _session(tmp_path / "mixed.jsonl")
    out = tmp_path / "out.jsonl"
    args = ["run", str(src), "--strategy", "reduce", "--force", "--no-cache", "-o", str(out)]
    result = CliRunner().invoke(app, [*args, "--quiet"])
    assert result.exit_code == 0, result.output
    before = src.read_bytes().splitlines()
    after = out.read_bytes().splitlines()
    assert len(after) == len(before)
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert changed, "nothing was cleared"
    for old, new in changed:
        old_rec, new_rec = json.loads(old), json.loads(new)
        assert old_rec["role"] == new_rec["role"] == "user"
        (old_block,) = old_rec["content"]
        (new_block,) = new_rec["content"]
        assert list(new_block) == list(old_block)  # the block's own keys, in their order
        assert new_block["tool_use_id"] == old_block["tool_use_id"]
        assert isinstance(new_block["content"], str)  # a string stays a string
        assert len(new_block["content"]) < len(old_block["content"]) // 10
    # every call still has its result, read back from the reduced file
    t = read_transcript(str(out), out.read_bytes())
    assert file_tool_pairs(t) == (9, 9)
    source = read_transcript(str(src), src.read_bytes())
    assert [getattr(m, "tool_call_id", None) for m in t.messages] == [
        getattr(m, "tool_call_id", None) for m in source.messages
    ]
