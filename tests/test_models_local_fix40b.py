"""Blind check 40 (helper fix40b): a retry that drops a missing program's pipe stage fixes the
failure; a poll belongs to the session id it names, not to every poll; a patch's ``Update
File`` of a file the user added is an update, not a creation. Every session is built here, by
shape, with invented content."""

from __future__ import annotations

import re

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder


def _sections(text: str) -> dict[str, str]:
    """The summary's numbered sections by number (and the analysis as "0")."""
    parts = re.split(r"(?m)^(\d+)\. [^\n]*:\n", text)
    return {"0": parts[0], **dict(zip(parts[1::2], parts[2::2], strict=True))}


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
        sections = _sections(_health(retry=retry))
        assert "jq: command not found" in sections["4"]
        assert "Unresolved failure" not in sections["7"], sections["7"]


def test_another_command_after_a_missing_pipe_program_does_not_resolve_it() -> None:
    sections = _sections(_health(retry="curl -s http://localhost:7311/other"))
    assert "Unresolved failure" in sections["7"], sections["7"]
