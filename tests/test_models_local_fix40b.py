"""Blind check 40 (helper fix40b): a retry that drops a missing program's pipe stage fixes the
failure; a poll belongs to the session id it names, not to every poll; a patch's ``Update
File`` of a file the user added is an update, not a creation. Every session is built here, by
shape, with invented content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.facts import Call
from compactor.models.local import summarize_transcript
from compactor.models.local_retries import retries, signature

from .codex_rollout import codex_say, codex_summary, codex_user, rec, sections
from .planted_session import SessionBuilder

_ROOT = "/home/dev/Abacus"


# W3: `curl … | jq .` failed only because jq is missing; the same curl without `| jq` worked


def _health(*, retry: str) -> str:
    s = SessionBuilder()
    s.user("start the api server and check that it is healthy")
    s.call("Bash", {"command": "npm run dev &", "run_in_background": True}, "started")
    s.call(
        "Bash",
        {"command": "sleep 2 && curl -s http://localhost:7311/status | jq ."},
        "Exit code 127\n/bin/bash: line 1: jq: command not found",
        error=True,
    )
    s.call("Bash", {"command": retry}, '{"state":"up","uptime":2}')  # the turn goes on
    return summarize_transcript(s.messages)


def test_a_retry_without_the_missing_programs_pipe_stage_resolves_the_failure() -> None:
    for retry in (
        "curl -s http://localhost:7311/status",
        "sleep 2 && curl -s http://localhost:7311/status",
    ):
        parts = sections(_health(retry=retry))
        assert "jq: command not found" in parts["4"]
        assert "Unresolved failure" not in parts["7"], parts["7"]


def test_another_command_after_a_missing_pipe_program_does_not_resolve_it() -> None:
    parts = sections(_health(retry="curl -s http://localhost:7311/other"))
    assert "Unresolved failure" in parts["7"], parts["7"]


# W5 and W6: Codex polls name their session; an Update File of a file the user added


class _Rollout:
    """Records of a Codex rollout: exec_command, write_stdin and apply_patch calls."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = [rec("turn_context", {"cwd": _ROOT})]
        self.n = 0

    def _pair(self, call: dict[str, Any], out: dict[str, Any]) -> None:
        self.n += 1
        key = f"call_{self.n}"
        call["call_id"] = out["call_id"] = key
        self.records += [rec("response_item", call), rec("response_item", out)]

    def exec(self, cmd: str, output: str) -> None:
        call = {"type": "function_call", "name": "exec_command"}
        call["arguments"] = json.dumps({"cmd": cmd, "workdir": _ROOT})
        self._pair(call, {"type": "function_call_output", "output": output})

    def stdin(self, session: int, output: str) -> None:
        call = {"type": "function_call", "name": "write_stdin"}
        call["arguments"] = json.dumps({"session_id": session, "chars": "", "yield_time_ms": 1000})
        self._pair(call, {"type": "function_call_output", "output": output})

    def patch(self, body: str, output: str) -> None:
        call = {"type": "custom_tool_call", "name": "apply_patch", "input": body}
        self._pair(call, {"type": "custom_tool_call_output", "output": output})


def _out(code: int, output: str) -> str:
    return f"Chunk ID: 9f1e\nWall time: 0.2 seconds\nProcess exited with code {code}\n" + output


def _running(session: int) -> str:
    return f"Chunk ID: 3c4d\nWall time: 10 seconds\nProcess running with session ID {session}\n"


def _rollout() -> _Rollout:
    r = _Rollout()
    r.records.append(codex_user("generate the api docs for the calculator"))
    r.exec("docgen metadata docgen.json", _running(52210))
    r.stdin(
        52210,
        _out(255, "Unhandled exception. System.TimeoutException: The operation has timed out."),
    )
    r.records.append(codex_say("The doc generator timed out."))
    r.records.append(codex_user("agent-notes.md ist jetzt vorhanden, bitte ergänzen"))
    r.exec("ls -la agent-notes.md", _out(2, "ls: agent-notes.md: No such file or directory"))
    r.exec("find . -name agent-notes.md", _out(0, "./.github/agent-notes.md\n"))
    r.exec("cat .github/agent-notes.md", _out(0, "# Notes for agents\n- build with make\n"))
    r.patch(
        "*** Begin Patch\n*** Update File: .github/agent-notes.md\n@@\n # Notes for agents\n"
        "+- run the unit tests before a commit\n*** End Patch\n",
        "Success. Updated the following files:\nM .github/agent-notes.md\n",
    )
    r.records.append(codex_say("Notes extended."))
    r.records.append(codex_user("now build the test project"))
    r.exec("dotnet build tests/Abacus.Tests/Abacus.Tests.csproj", _running(48820))
    r.stdin(48820, _running(48820))
    return r


def test_a_poll_of_another_session_is_no_retry_of_a_failed_poll(tmp_path: Path) -> None:
    text = codex_summary(
        _rollout().records, tmp_path, "0b1c2d3e-0000-4000-8000-000000000040", _ROOT
    )
    errors = sections(text)["4"]
    assert "TimeoutException" in errors
    assert "session_id=48820" not in errors and "job 48820" not in errors, errors


def test_a_poll_is_a_retry_only_of_a_poll_of_the_same_session() -> None:
    def poll(session: int, i: int) -> Call:
        return Call(f"c{i}", "write_stdin", json.dumps({"session_id": session, "chars": ""}), i)

    assert retries(signature(poll(52210, 1)), signature(poll(52210, 2)))
    assert not retries(signature(poll(52210, 1)), signature(poll(48820, 2)))


def test_an_update_of_a_file_the_user_added_is_no_creation(tmp_path: Path) -> None:
    text = codex_summary(
        _rollout().records, tmp_path, "0b1c2d3e-0000-4000-8000-000000000041", _ROOT
    )
    parts = sections(text)
    assert "No such file or directory" in parts["4"]
    assert "created `" not in parts["4"] and "exists now" not in parts["4"], parts["4"]
    line = next(x for x in parts["3"].splitlines() if "agent-notes.md" in x)
    assert "created" not in line, line
