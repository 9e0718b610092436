"""Copilot CLI ``hook.*`` events hold whole copies of a tool's result (blind check 74 N6).

Each ``postToolUse`` hook is logged as a ``hook.start`` whose ``data.input.toolResult`` repeats
the output (``textResultForLlm``, ``sessionLog``), then a ``hook.end``. They name no call id.
Kept in place, they made a summary of 1.2 MB weigh 1.13 MB and kept every result reduce had
cleared, secrets included. The hooks of a call summarized away, or whose result was cleared, now
go with it; the others stay. Sessions invented here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.formats.registry import read_transcript, write_transcript
from compactor.schema import AgenticMessage, Block, Message

from .fake_server_cli import invoke
from .test_formats_cursor_copilot import _Events, _lines

SECRET = "ghp_" + "Q7x" * 12


def _call(s: _Events, cid: str, command: str, out: str, *, hooks: bool = True) -> None:
    args = {"command": command}
    request = {"toolCallId": cid, "name": "powershell", "arguments": args}
    s.add("assistant.message", {"messageId": f"m{cid}", "content": "", "toolRequests": [request]})
    s.add("tool.execution_start", {"toolCallId": cid, "toolName": "powershell", "arguments": args})
    s.add(
        "tool.execution_complete", {"toolCallId": cid, "success": True, "result": {"content": out}}
    )
    if hooks:
        given = {
            "sessionId": "s-76",
            "toolName": "powershell",
            "toolArgs": args,
            "toolResult": {"textResultForLlm": out, "resultType": "success", "sessionLog": out},
        }
        invocation = {"hookInvocationId": f"h{cid}", "hookType": "postToolUse", "input": given}
        s.add("hook.start", invocation)
        s.add("hook.end", {"hookInvocationId": f"h{cid}", "hookType": "postToolUse"})


def session(rounds: int = 12, *, same: bool = False) -> list[dict[str, Any]]:
    """``rounds`` user turns of one shell call each; the first result holds a token."""
    s = _Events()
    s.add("session.start", {"sessionId": "s-76", "version": 1, "producer": "copilot-agent"})
    for i in range(rounds):
        s.add("user.message", {"content": f"Step {i}: list the config of service {i}"})
        command = "Get-Content config.env" if same else f"Get-Content svc{i}.env"
        out = "\n".join(f"svc{i}_key{j} = value {j} of service {i}" for j in range(120))
        _call(s, f"c{i}", command, (f"TOKEN={SECRET}\n" if i == 0 else "") + out)
        s.add("assistant.message", {"messageId": f"a{i}", "content": f"Service {i} is set up."})
    # a hook of a tool the history never called: paired with nothing, it stays
    stray = {"toolName": "report_intent", "toolArgs": {"intent": "x"}, "toolResult": {}}
    s.add("hook.start", {"hookInvocationId": "stray", "hookType": "postToolUse", "input": stray})
    s.add("hook.end", {"hookInvocationId": "stray", "hookType": "postToolUse"})
    return s.events


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _hooked(events: list[dict[str, Any]]) -> set[str]:
    return {e["data"]["hookInvocationId"] for e in events if e["type"].startswith("hook.")}


def _run(tmp_path: Path, events: list[dict[str, Any]], *args: str) -> list[dict[str, Any]]:
    src, out = tmp_path / "events.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(_lines(events))
    run = invoke(["run", str(src), "--model", "local", "--no-cache", "-o", str(out), *args])
    assert run.returncode == 0, run.stderr
    after = _events(out)
    assert [e["parentId"] for e in after[1:]] == [e["id"] for e in after[:-1]]  # one chain
    return after


def test_a_summary_drops_the_hooks_of_the_calls_it_summarized(tmp_path: Path) -> None:
    after = _run(tmp_path, session(), "--threshold", "5k")
    kept = {e["data"]["toolCallId"] for e in after if e["type"] == "tool.execution_complete"}
    assert "c0" not in kept
    assert _hooked(after) == {f"h{c}" for c in kept} | {"stray"}
    assert SECRET not in json.dumps(after)  # the copy in the hook went with the result


def test_reduce_drops_the_hooks_of_the_results_it_cleared(tmp_path: Path) -> None:
    after = _run(tmp_path, session(), "--strategy", "reduce", "--force")
    results = {
        e["data"]["toolCallId"]: e["data"]["result"]["content"]
        for e in after
        if e["type"] == "tool.execution_complete"
    }
    assert len(results) == 12  # every call and result is kept: only their text changes
    cleared = {c for c, text in results.items() if "svc" not in text.split("\n", 1)[0]}
    assert "c0" in cleared and "c11" not in cleared
    assert _hooked(after) == {f"h{c}" for c in results if c not in cleared} | {"stray"}
    assert SECRET not in json.dumps(after)


def test_hooks_pair_with_calls_of_the_same_arguments_in_order() -> None:
    events = session(4, same=True)
    t = read_transcript("events.jsonl", _lines(events))
    messages: list[Message | AgenticMessage] = list(t.messages)
    for n, msg in enumerate(messages):  # clear the second call's result only
        if isinstance(msg, AgenticMessage) and any(
            b.type == "function_tool_result" and b.call_id == "c1" for b in msg.blocks
        ):
            text = Block("text", text="[cleared]")
            block = Block("function_tool_result", call_id="c1", name="powershell", content=[text])
            messages[n] = AgenticMessage(role=msg.role, blocks=[block])
    assert messages != list(t.messages)  # the history really holds the changed result
    written = [json.loads(x) for x in write_transcript(t, messages).splitlines()]
    assert _hooked(written) == {"hc0", "hc2", "hc3", "stray"}


def test_unchanged_history_keeps_every_hook() -> None:
    raw = _lines(session(3))
    t = read_transcript("events.jsonl", raw)
    assert t.format == "copilot"
    assert write_transcript(t, t.messages) == raw
