"""What one tool round is (SPEC §10, RELIABILITY.md Decisions): one assistant turn's calls with
their results, however its harness writes them (Codex: each parallel call its own
``function_call`` item; openai chat: one message carrying them all), and a round whose calls are
still in flight (no result yet) does not count toward the retention suffix: the latest COMPLETED
results stay. On written files through the real command line, general path and streaming pass."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from compactor import reduction
from compactor.formats.registry import read_transcript
from compactor.reduction import ReductionConfig, find_results, round_starts
from compactor.reduction.results import result_text, retention_cutoff
from compactor.schema import AgentState

from .fake_server_cli import invoke
from .test_reduction_stream import _both

REPO = Path(__file__).resolve().parents[1]
SHARED_CODEX = REPO.parent / "shared" / "transcripts" / "codex"
OUT = "output of "  # every result's text starts so, then its call id


def _item(payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": "2026-03-02T10:00:00.000Z", "type": "response_item",
                       "payload": payload})  # fmt: skip


def _codex_call(cid: str) -> str:
    args = json.dumps({"cmd": f"cat {cid}.py"})
    return _item({"type": "function_call", "name": "exec_command", "arguments": args,
                  "call_id": cid})  # fmt: skip


def _codex_output(cid: str) -> str:
    return _item(
        {"type": "function_call_output", "call_id": cid, "output": OUT + cid + " z" * 3000}
    )


def _codex_text(role: str, text: str) -> str:
    kind = "input_text" if role == "user" else "output_text"
    return _item({"type": "message", "role": role, "content": [{"type": kind, "text": text}]})


def codex_rollout(path: Path) -> None:
    """A Codex rollout: one call (a), two parallel calls (b1, b2: two items, then their two
    outputs), two more parallel calls (c1, c2), then a call (d) still in flight."""
    meta = {"timestamp": "2026-03-02T10:00:00.000Z", "type": "session_meta",
            "payload": {"id": "0195f0aa-1111-7222-8333-944455556666", "cwd": "/w",
                        "originator": "codex_cli_rs", "cli_version": "0.128.0"}}  # fmt: skip
    lines = [json.dumps(meta), _codex_text("user", "fix the tests")]
    lines += [_codex_call("a"), _codex_output("a")]
    lines += [_codex_text("assistant", "reading both"), _codex_call("b1"), _codex_call("b2")]
    lines += [_codex_output("b1"), _codex_output("b2")]
    lines += [_codex_call("c1"), _codex_call("c2"), _codex_output("c1"), _codex_output("c2")]
    lines += [_codex_call("d")]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _chat_call(cid: str) -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": "sh", "arguments": "{}"}}


def chat_records(*, split: bool) -> list[dict[str, Any]]:
    """The same session in openai chat: a, then b1+b2 and c1+c2 in one message each (``split``:
    one message per call, as the Codex reader makes them), then d in flight."""
    recs: list[dict[str, Any]] = [{"role": "system", "content": "sys"},
                                  {"role": "user", "content": "fix the tests"}]  # fmt: skip
    for group in (["a"], ["b1", "b2"], ["c1", "c2"]):
        if split:
            for cid in group:
                recs.append({"role": "assistant", "content": "", "tool_calls": [_chat_call(cid)]})
        else:
            calls = [_chat_call(cid) for cid in group]
            recs.append({"role": "assistant", "content": "", "tool_calls": calls})
        for cid in group:
            recs.append({"role": "tool", "tool_call_id": cid, "content": OUT + cid + " z" * 3000})
    recs.append({"role": "assistant", "content": "", "tool_calls": [_chat_call("d")]})
    return recs


def _write_chat(path: Path, recs: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")


def kept_and_cleared(raw: bytes, name: str = "t.jsonl") -> tuple[list[str], list[str]]:
    """(call ids whose result is whole, call ids whose result was replaced)."""
    messages = read_transcript(name, raw).messages
    kept: list[str] = []
    cleared: list[str] = []
    for ref in find_results(messages):
        text, _ = result_text(messages[ref.index], ref)
        (kept if text.startswith(OUT + ref.call_id) else cleared).append(ref.call_id)
    return kept, cleared


def _reduce(raw: bytes, name: str, keep: int) -> tuple[list[str], list[str], int]:
    messages = read_transcript(name, raw).messages
    red = reduction.new(ReductionConfig(force=True, clear_retention_suffix_limit=keep))
    outcome = asyncio.run(red.reduce(AgentState(messages=list(messages))))
    kept: list[str] = []
    cleared: list[str] = []
    for ref in find_results(outcome.messages):
        text, _ = result_text(outcome.messages[ref.index], ref)
        (kept if text.startswith(OUT + ref.call_id) else cleared).append(ref.call_id)
    return kept, cleared, outcome.retained_from


@pytest.mark.parametrize("shape", ["codex", "chat, one message per turn", "chat, split"])
def test_parallel_calls_are_one_round_and_an_in_flight_call_keeps_the_last_results(
    tmp_path: Path, shape: str
) -> None:
    src = tmp_path / "t.jsonl"
    if shape == "codex":
        codex_rollout(src)
    else:
        _write_chat(src, chat_records(split=shape.endswith("split")))
    raw = src.read_bytes()
    messages = read_transcript("t.jsonl", raw).messages
    calls = [i for i in range(len(messages)) if getattr(messages[i], "tool_calls", None)]
    starts = round_starts(messages)
    assert len(starts) == 4  # a, b, c, d: however many messages the calls took
    assert starts[-1] == calls[-1]  # d, in flight
    # the retained round is c (the latest with results), not d
    assert retention_cutoff(messages, 1) == starts[2]
    assert _reduce(raw, "t.jsonl", 1) == (["c1", "c2"], ["a", "b1", "b2"], starts[2])
    assert _reduce(raw, "t.jsonl", 2)[:2] == (["b1", "b2", "c1", "c2"], ["a"])
    assert _reduce(raw, "t.jsonl", 3)[:2] == (["a", "b1", "b2", "c1", "c2"], [])
    assert _reduce(raw, "t.jsonl", 0)[:2] == ([], ["a", "b1", "b2", "c1", "c2"])
    proc = invoke(["run", str(src), "--strategy", "reduce", "--force", "-o", "o.jsonl"],
                  env={"XDG_DATA_HOME": str(tmp_path / "data")}, cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert src.read_bytes() == raw
    assert kept_and_cleared((tmp_path / "o.jsonl").read_bytes()) == (
        ["c1", "c2"],
        ["a", "b1", "b2"],
    )


def test_a_user_message_ends_a_round_and_an_answered_round_after_it_is_retained() -> None:
    """Calls split by a user message are two rounds; a result ends the run of calls too."""
    recs = chat_records(split=True)
    recs.insert(-1, {"role": "user", "content": "and then?"})
    recs.insert(-1, {"role": "assistant", "content": "", "tool_calls": [_chat_call("e")]})
    recs.insert(-1, {"role": "tool", "tool_call_id": "e", "content": OUT + "e"})
    raw = "".join(json.dumps(r) + "\n" for r in recs).encode()
    assert _reduce(raw, "t.jsonl", 1)[:2] == (["e"], ["a", "b1", "b2", "c1", "c2"])


@pytest.mark.parametrize("split", [False, True], ids=["one message", "split"])
@pytest.mark.parametrize("keep", [1, 2])
def test_the_streaming_pass_counts_rounds_the_same_way(
    tmp_path: Path, split: bool, keep: int
) -> None:
    src = tmp_path / "s.jsonl"
    _write_chat(src, chat_records(split=split))
    config = {"reduction": {"clear_retention_suffix_limit": keep}}
    streamed, seen = _both(tmp_path, src, ["--force"], config)
    assert streamed is True and seen["exit"] == 0, seen["stderr"]
    want = (["c1", "c2"], ["a", "b1", "b2"]) if keep == 1 else (["b1", "b2", "c1", "c2"], ["a"])
    assert kept_and_cleared(seen["output"]) == want


@pytest.mark.skipif(not SHARED_CODEX.is_dir(), reason="the shared sessions are not beside")
def test_a_real_codex_session_with_calls_in_flight_keeps_its_last_answered_round(
    tmp_path: Path,
) -> None:
    """Real rollouts that stop with parallel calls in flight: ``--force`` keeps the results of
    the last answered parallel batch whole and clears every earlier one."""
    checked = 0
    for path in sorted(SHARED_CODEX.glob("*.jsonl")):
        src = tmp_path / path.name
        shutil.copy(path, src)
        raw = src.read_bytes()
        messages = read_transcript(path.name, raw).messages
        refs = find_results(messages)
        last_call = max(i for i, m in enumerate(messages) if getattr(m, "tool_calls", None))
        if refs[-1].index > last_call:
            continue  # not one that stops with a call in flight
        # the last answered batch: the results after the last run of calls before them
        tail = [r.call_id for r in refs if r.index > max(
            i for i, m in enumerate(messages[: refs[-1].index]) if getattr(m, "tool_calls", None)
        )]  # fmt: skip
        assert len(tail) >= 2, path.name  # a parallel batch
        out = tmp_path / ("o-" + path.name)
        proc = invoke(["run", str(src), "--strategy", "reduce", "--force", "-o", str(out)],
                      env={"XDG_DATA_HOME": str(tmp_path / "data")}, cwd=tmp_path)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert src.read_bytes() == raw
        after = read_transcript(out.name, out.read_bytes()).messages
        original = {r.call_id: result_text(messages[r.index], r)[0] for r in refs}
        whole = [
            r.call_id
            for r in find_results(after)
            if result_text(after[r.index], r)[0] == original[r.call_id]
        ]
        # the last answered batch whole; before it only results shorter than a placeholder
        # stay (clearing them would lengthen the history), every other one is replaced
        assert whole[-len(tail) :] == tail, path.name
        placeholders = [
            result_text(after[r.index], r)[0] for r in find_results(after) if r.call_id not in whole
        ]
        assert placeholders, path.name
        longest = max(len(p) for p in placeholders)
        assert all(len(original[c]) <= longest for c in whole[: -len(tail)]), path.name
        assert len(find_results(after)) == len(refs)  # none lost
        checked += 1
    assert checked >= 1
