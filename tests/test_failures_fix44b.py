"""What counts as a failure (fix44b): Codex 0.118's unified-exec sandbox denials, which name
the command (``exec_command failed for `CMD`: CreateProcess { … Denied { output:
ExecToolCallOutput { exit_code: N, … } … }`` and ``… SandboxDenied { message: "…" … }``).
Sessions are invented, by shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

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


def _exec_end(n: int, code: int) -> dict[str, Any]:
    return rec(
        "event_msg",
        {"type": "exec_command_end", "call_id": f"c{n}", "exit_code": code, "status": "completed"},
    )


_DONE = (
    "Chunk ID: 7\nWall time: 0.0000 seconds\nProcess exited with code 0\n"
    "Original token count: 0\nOutput:\n"
)


def test_a_finished_curl_against_a_local_port_is_no_background_job(tmp_path: Path) -> None:
    """BENCH44 W3: ``curl -i -s 'http://127.0.0.1:2999/…?token=…&width=…'`` (an ``&`` inside
    its quoted URL) exited 0 at once; a later curl against the same port (empty output) was
    taken for proof that "Background job still running … answered on port 2999". The listener
    is the user's own server: no job of ours was started."""
    url = "http://127.0.0.1:2999/api/builder/preview?layoutToken=abc&width=640"
    preview = f"curl -i -s '{url}' | sed -n '1,40p'"
    tokens = "curl -i -s 'http://127.0.0.1:2999/api/builder/tokens' -H 'Cookie: session=1'"
    lsof = "node    9559 dev   23u  IPv6 0x1      0t0  TCP *:2999 (LISTEN)\n"
    records = [
        codex_user("the builder preview shows nothing; find out why"),
        *_exec(
            1, "lsof -nP -iTCP:2999 -sTCP:LISTEN", _DONE.replace("Output:\n", "Output:\n" + lsof)
        ),
        *_exec(2, preview, _DONE),
        _exec_end(2, 0),
        *_exec(3, tokens, _DONE),
        _exec_end(3, 0),
        *_exec(4, "sed -n '1,40p' src/app/api/builder/preview/route.ts", _DONE + "export {}\n"),
        codex_say("The preview route returns an empty body because the token is not stored."),
    ]
    summary = codex_summary(records, tmp_path, "s1", "/w")
    assert "Background job" not in summary and "still running" not in summary, summary
    assert "answered on port" not in summary, summary


def test_a_backgrounded_server_is_still_a_job_a_later_answer_shows_alive(tmp_path: Path) -> None:
    """The fix keeps blind check 32 N2: ``nohup … --port 4100 … &`` is a job, and a later curl
    that got an answer on its port shows it alive."""
    start = "nohup python3 -m http.server 4100 > /tmp/srv.log 2>&1 & sleep 1; echo started"
    records = [
        codex_user("serve the docs folder locally"),
        *_exec(1, start, _DONE + "started\n"),
        *_exec(2, "curl -s http://127.0.0.1:4100/ | head -3", _DONE + "<!DOCTYPE HTML>\n<html>\n"),
        codex_say("The docs are served on http://127.0.0.1:4100/."),
    ]
    summary = codex_summary(records, tmp_path, "s1", "/w")
    assert "answered on port 4100" in summary, summary


@pytest.mark.parametrize(
    ("start", "probe_output", "job"),
    [
        # a backgrounded one-shot client: a later answer on its port is the server's
        ("curl -s -o big.zip http://127.0.0.1:4100/big.zip &", "<html>\n", False),
        # a backgrounded server, but the later curl got nothing back: no sign of life
        ("nohup python3 -m http.server 4100 > /tmp/srv.log 2>&1 &", "", False),
        ("nohup python3 -m http.server 4100 > /tmp/srv.log 2>&1 &", "<html>\n", True),
    ],
)
def test_only_a_server_answering_on_its_port_is_shown_alive(
    tmp_path: Path, start: str, probe_output: str, job: bool
) -> None:
    """BENCH44 W3 by shape: a later command against the same port proves nothing about a
    client we backgrounded, and an empty answer proves nothing at all."""
    records = [
        codex_user("serve the docs folder locally"),
        *_exec(1, start, _DONE),
        *_exec(2, "curl -s http://127.0.0.1:4100/", _DONE + probe_output),
        codex_say("Done."),
    ]
    summary = codex_summary(records, tmp_path, "s1", "/w")
    assert ("answered on port 4100" in summary) is job, summary
