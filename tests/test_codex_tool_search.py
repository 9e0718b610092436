"""Codex's client-side tool search is read and kept whole (issue 28, blind check 23 F1).

Codex Desktop 0.142.5 writes ``tool_search_call`` (``arguments``: the query) and its
``tool_search_output`` (``tools``: the schemas of the tools it loaded, which the model calls
later) as response items (``ResponseItem::ToolSearchCall`` / ``ToolSearchOutput`` in
``codex-rs/protocol/src/models.rs``). compact refused every such rollout with exit 2 ("unknown
codex response item 'tool_search_call'"). They are now items that travel, verbatim, with the next
message (as ``reasoning`` does): every strategy reads the file, a reduced ``replacement_history``
and ``--append`` keep the pair byte for byte where it was, and their size counts. An
``image_generation_call`` (the newest ``ResponseItem`` has it too) is read the same way. The
rollout is built here (:func:`rollout`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactor.counting.tokens import estimate_message
from compactor.formats.registry import read_transcript

from .codex_rollout import STAMP, read_rounds, rec
from .fake_server_cli import invoke, run_local

_SCHEMA = {
    "type": "function",
    "name": "job_logs",
    "description": "Fetch the logs of a cluster job by name. " * 40,
    "parameters": {"type": "object", "properties": {"job": {"type": "string"}}},
}
SEARCH_CALL = {
    "type": "tool_search_call",
    "id": "tsc_0001",
    "call_id": "call_search_1",
    "status": "completed",
    "execution": "client",
    "arguments": {"query": "cluster job logs failure", "limit": 8},
}
SEARCH_OUTPUT = {
    "type": "tool_search_output",
    "call_id": "call_search_1",
    "status": "completed",
    "execution": "client",
    "tools": [{"type": "namespace", "name": "cluster", "tools": [_SCHEMA]}],
}
IMAGE = {"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": "iVBO"}


def _message(role: str, text: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    return rec(
        "response_item",
        {"type": "message", "role": role, "content": [{"type": part, "text": text}]},
    )


def rollout(rounds: int = 5, image: bool = False) -> bytes:
    """A Codex Desktop rollout: a request, a commentary, the tool search pair, ``rounds`` shell
    rounds with long outputs (a token count after each) and an answer."""
    meta = {"id": "1a2b3c4d-0000-4000-8000-000000000023", "timestamp": STAMP, "cwd": "/work/q"}
    records = [
        rec("session_meta", meta),
        rec("turn_context", {"cwd": "/work/q", "model": "gpt-5.5"}),
        _message("user", "Why did the nightly training job fail?"),
        _message("assistant", "Let me look for a tool that reads job logs."),
        rec("response_item", SEARCH_CALL),
        rec("response_item", SEARCH_OUTPUT),
    ]
    if image:
        records.append(rec("response_item", IMAGE))
    records += read_rounds(rounds, "job.log", "as read in this round")
    records.append(_message("assistant", "The job ran out of GPU memory at step 1200."))
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def _replacement(raw: bytes) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in raw.split(b"\n") if line.strip()]
    compacted = [r for r in records if r["type"] == "compacted"]
    assert compacted, "no compacted record"
    history: list[dict[str, Any]] = compacted[-1]["payload"]["replacement_history"]
    return history


@pytest.mark.parametrize(
    "args",
    [
        ("--strategy", "reduce", "--force"),
        ("--strategy", "reduce", "--force", "--append"),
        ("--strategy", "hybrid", "--force"),  # under its trigger: it only reduces
    ],
    ids=["reduce", "reduce-append", "hybrid"],
)
def test_reduced_history_keeps_the_tool_search_pair(tmp_path: Path, args: tuple[str, ...]) -> None:
    src = tmp_path / "rollout.jsonl"
    raw = rollout()
    src.write_bytes(raw)
    out = run_local(tmp_path, src, *args)
    if "--append" in args:
        assert out.startswith(raw)  # the file byte for byte, then the compaction
    history = _replacement(out)
    kinds = [i["type"] for i in history]
    where = kinds.index("tool_search_call")
    # once each, byte for byte, where Codex had them: after the commentary, before the first call
    assert history[where : where + 3] == [SEARCH_CALL, SEARCH_OUTPUT, history[where + 2]]
    assert kinds.count("tool_search_call") == kinds.count("tool_search_output") == 1
    assert history[where - 1]["role"] == "assistant" and kinds[where + 2] == "function_call"
    outputs = [i["output"] for i in history if i["type"] == "function_call_output"]
    assert len(outputs) == 5 and sum("saved to:" in o for o in outputs) == 4  # really reduced


def test_every_strategy_and_command_reads_it(tmp_path: Path) -> None:
    src = tmp_path / "rollout.jsonl"
    src.write_bytes(rollout(image=True))
    summary = run_local(tmp_path, src, "--force")  # the default: summarize
    assert b"GPU memory" in summary
    kept = [json.loads(line) for line in summary.splitlines() if b'"tool_search_' in line]
    items = [r["payload"] for r in kept if r["type"] == "response_item"]
    items += [i for i in _replacement(summary) if i["type"].startswith("tool_search_")]
    assert items in ([], [SEARCH_CALL, SEARCH_OUTPUT])  # summarized, or kept whole
    (tmp_path / "summary.jsonl").write_bytes(summary)
    for command in (["check", str(src)], ["show", str(tmp_path / "summary.jsonl")]):
        proc = invoke(command, env={"NO_COLOR": "1"}, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr.decode()
        assert b"unknown codex response item" not in proc.stderr


def test_the_loaded_schemas_count(tmp_path: Path) -> None:
    """The ``tools`` of the output are model-visible: the estimate counts them (on the message
    they travel with), so ``check`` and the clearing estimate see the real size."""
    with_pair = tmp_path / "with.jsonl"
    with_pair.write_bytes(rollout())
    lines = rollout().split(b"\n")
    without = tmp_path / "without.jsonl"
    without.write_bytes(b"\n".join(ln for ln in lines if b'"tool_search_' not in ln))
    grown = sum(
        map(estimate_message, read_transcript(str(with_pair), with_pair.read_bytes()).messages)
    ) - sum(map(estimate_message, read_transcript(str(without), without.read_bytes()).messages))
    size = len(json.dumps(SEARCH_CALL)) + len(json.dumps(SEARCH_OUTPUT))
    assert size // 4 - 20 <= grown <= size // 4 + 20


def test_an_unknown_item_is_kept_and_named_in_a_warning(tmp_path: Path) -> None:
    """Blind check 56 F1 reversed the refusal (RELIABILITY, Decisions): an item of a type
    compact does not know travels verbatim with the next message, one warning names it."""
    src = tmp_path / "rollout.jsonl"
    src.write_bytes(rollout().replace(b'"tool_search_output"', b'"tool_frobnicate_output"'))
    out = run_local(tmp_path, src, "--strategy", "reduce", "--force")
    kinds = [i["type"] for i in _replacement(out)]
    assert kinds.count("tool_frobnicate_output") == 1
    proc = invoke(["check", str(src)], env={"NO_COLOR": "1"}, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"unknown codex record type 'response_item/tool_frobnicate_output'" in proc.stderr
