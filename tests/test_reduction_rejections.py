"""Reduction keeps every result that says the user rejected the call, bare or with the user's
words (issue 30; blind check 22: the bare rejections of a Write and two Edits were cleared behind
an error placeholder, so a resuming agent saw the Write's draft as a call's input and could not
tell that it was never written without opening the offload file).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from compactor.reduction.results import carries_user_words, is_rejection
from compactor.runs.run_reduce import INLINE_ENV

from .cc_session import Session
from .fake_server_cli import invoke

BARE = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)
DENIED = (
    "Permission for this call was denied by the user: the command did not run and nothing on "
    "disk changed. Ask the user before trying again; the call's arguments are shown above in "
    "full, so there is no need to repeat them here."
)
LONG = "line of build output that says nothing in particular\n" * 200


@pytest.mark.parametrize(
    "text",
    [
        BARE,
        DENIED,
        "exec command rejected by user",
        "Error: The user doesn't want to take this action right now. STOP what you are doing",
        "User rejected the tool call.",
        "  tool call declined by the user",
    ],
)
def test_a_rejection_is_kept_whole_whatever_the_harness(text: str) -> None:
    assert is_rejection(text) and carries_user_words(text)


@pytest.mark.parametrize(
    "text",
    [
        LONG,
        "the user's config was read: 12 keys",
        "warning: 3 tests skipped\nexec command rejected by user",  # not the result's start
        "exec command rejected by user\n" + "retry log line\n" * 200,  # output that mentions it
        "the user rejected",  # no object: a sentence of output, not the CLI's words
    ],
)
def test_output_that_is_not_a_rejection_is_not_one(text: str) -> None:
    assert not is_rejection(text) and not carries_user_words(text)


def _session() -> Session:
    s = Session()
    s.user("Write the prompt module and package it.")
    s.bash("make build", LONG)
    s.assistant([{"type": "tool_use", "id": "toolu_w", "name": "Write",
                  "input": {"file_path": "/w/prompts.py", "content": "x " * 400}}])  # fmt: skip
    s.user([{"type": "tool_result", "tool_use_id": "toolu_w", "content": BARE,
             "is_error": True}])  # fmt: skip
    s.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
    s.user("no, it connects to the other devices")
    s.bash("make test", LONG)
    s.bash("make package", LONG)
    s.bash("make check", LONG)
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
def test_a_bare_rejection_is_never_cleared(tmp_path: Path, strategy: str) -> None:
    src = tmp_path / "s.jsonl"
    src.write_bytes(b"\n".join(_session().lines()) + b"\n")
    out = tmp_path / "out.jsonl"
    args = ["run", "--strategy", strategy, "--force", "--model", "local", str(src), "-o", str(out)]
    proc = invoke(args)
    assert proc.returncode == 0, proc.stderr
    results = _results(out)
    assert results["toolu_w"] == BARE  # the call did nothing: said where the agent reads it
    assert not (tmp_path / "out.offload" / "clear" / "toolu_w").exists()
    cleared = [k for k, v in results.items() if ".offload" in json.dumps(v)]
    assert cleared, results  # the other old results were cleared: the rule is not "clear nothing"


def _chat(path: Path) -> None:
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "Package the skill."}]
    for n, text in enumerate([LONG, BARE, DENIED, LONG, LONG, LONG]):
        args = json.dumps({"cmd": f"step {n}"})
        call = {"id": f"c{n}", "type": "function", "function": {"name": "run", "arguments": args}}
        msgs.append({"role": "assistant", "content": None, "tool_calls": [call]})
        msgs.append({"role": "tool", "tool_call_id": f"c{n}", "content": text})
    path.write_bytes(b"\n".join(orjson.dumps(m) for m in msgs) + b"\n")


@pytest.mark.parametrize("inline", ["0", "1"])
def test_the_streamed_pass_and_its_writer_process_keep_them_too(
    tmp_path: Path, inline: str
) -> None:
    """An OpenAI-chat log takes the streaming pass; with ``inline`` 0 its writer process names
    the files of the results the clearing will take: it must name none for a rejection."""
    src = tmp_path / "chat.jsonl"
    _chat(src)
    out = tmp_path / "out.jsonl"
    report = tmp_path / "r.json"
    proc = invoke(
        ["run", "--strategy", "reduce", "--force", str(src), "-o", str(out), "--report",
         str(report)],
        env={INLINE_ENV: inline},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(report.read_text("utf-8"))["reduction"]["streamed"] is True
    by_id = {m["tool_call_id"]: m["content"] for m in map(json.loads, out.read_bytes().splitlines())
             if m.get("role") == "tool"}  # fmt: skip
    assert by_id["c1"] == BARE and by_id["c2"] == DENIED
    assert ".offload" in by_id["c0"] and ".offload" in by_id["c3"]
    files = sorted(p.name for p in (tmp_path / "out.offload" / "clear").iterdir())
    assert files == ["c0", "c3", "c4"]
