"""What counts as a failure (fix44b): Codex 0.118's unified-exec sandbox denials, which name
the command (``exec_command failed for `CMD`: CreateProcess { … Denied { output:
ExecToolCallOutput { exit_code: N, … } … }`` and ``… SandboxDenied { message: "…" … }``).
Sessions are invented, by shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.facts.outcomes import outcome
from compactor.facts.text import Call, Result
from compactor.facts.toolerror import sandbox_denied, tool_error

from .codex_rollout import codex_say, codex_summary, codex_user, rec


def _stream(text: str) -> str:
    return f'StreamOutput {{ text: \\"{text}\\", truncated_after_lines: None }}'


def _create_process_denied(cmd: str, code: int, stderr: str) -> str:
    return (
        f'exec_command failed for `{cmd}`: CreateProcess {{ message: "Codex(Sandbox(Denied {{ '
        f"output: ExecToolCallOutput {{ exit_code: {code}, stdout: {_stream('')}, "
        f"stderr: {_stream(stderr)}, aggregated_output: {_stream(stderr)}, "
        'duration: 0ns, timed_out: false } }))" }'
    )


_PS = _create_process_denied(
    "ps aux", 127, "sandbox-exec: execvp() of 'ps' failed: Operation not permitted\\\\n"
)
_TSX = (
    "exec_command failed for `npx tsx scripts/probe.ts`: SandboxDenied { message: "
    '"npm error code EPERM\\nnpm error syscall mkdir", output: ExecToolCallOutput { exit_code: 1, '
    'stdout: StreamOutput { text: "", truncated_after_lines: None }, stderr: StreamOutput { '
    'text: "", truncated_after_lines: None } } }'
)
_BARE = (
    "exec_command failed for `curl -v http://127.0.0.1:4100/api/items`: SandboxDenied { "
    'message: "connect: Operation not permitted" }'
)


def test_named_command_denials_are_tool_errors_with_their_code_and_error_line() -> None:
    """BENCH44 (format gap): the ``failed for `CMD`:`` form, the nested exit code, and the
    ``SandboxDenied`` message as the error line."""
    for text in (_PS, _TSX, _BARE):
        assert tool_error(text), text
    ps = sandbox_denied(_PS)
    assert ps is not None and ps.exit_code == 127, ps
    assert ps.output.startswith("sandbox-exec: execvp() of 'ps' failed"), ps
    tsx = sandbox_denied(_TSX)
    assert tsx is not None and tsx.exit_code == 1 and tsx.output.startswith("npm error code EPERM")
    bare = sandbox_denied(_BARE)
    assert bare is not None and bare.exit_code is None, bare
    assert bare.output == "connect: Operation not permitted", bare
    judged = outcome(Result("c1", "exec_command", _BARE), Call("c1", "exec_command", "{}", 0))
    assert judged.failed and "connect: Operation not permitted" in judged.lines[0], judged
    assert not tool_error("the build failed for `make all`: see the log\n")


def _exec(n: int, cmd: str, out: str) -> list[dict[str, Any]]:
    args = json.dumps({"cmd": cmd})
    call = {"type": "function_call", "name": "exec_command", "call_id": f"c{n}", "arguments": args}
    output = {"type": "function_call_output", "call_id": f"c{n}", "output": out}
    return [rec("response_item", call), rec("response_item", output)]


def test_three_sandbox_denials_are_counted_and_listed_as_failures(tmp_path: Path) -> None:
    """BENCH44: "104 tool calls (2 failed)" dropped three denials (``ps``, ``curl -v``,
    ``npx tsx``); each is a failure and its error line is shown."""
    ok = "Chunk ID: 1\nWall time: 0.0100 seconds\nProcess exited with code 0\nOutput:\nok\n"
    records = [
        codex_user("check why the preview route returns nothing"),
        *_exec(1, "ls src", ok),
        *_exec(2, "ps aux", _PS),
        *_exec(3, "curl -v http://127.0.0.1:4100/api/items", _BARE),
        *_exec(4, "npx tsx scripts/probe.ts", _TSX),
        codex_say("The sandbox blocks process listing, network and npx here."),
    ]
    summary = codex_summary(records, tmp_path, "s1", "/w")
    assert "4 tool calls (3 failed)" in summary, summary
    assert "connect: Operation not permitted" in summary, summary
    assert "npm error code EPERM" in summary, summary
