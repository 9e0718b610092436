"""A call in flight that kills the agent's own harness (or every process of a name it runs as)
is not to be run again unasked (blind check 69 N1: §7/§9 said "check whether they ran … and run
them again if still needed" of `pkill -f "claude" && sleep 2 && claude mcp list`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cc_session import Session, cc_summary, section


def _session(command: str) -> Session:
    s = Session()
    s.user("the mcp servers do not load, restart them")
    s.say("I'll restart the CLI so it reloads the servers:")
    s.assistant(
        [{"type": "tool_use", "id": "toolu_k", "name": "Bash", "input": {"command": command}}]
    )
    return s


@pytest.mark.parametrize(
    "command",
    [
        'pkill -f "claude" && sleep 2 && claude mcp list',
        "killall node",
        "kill -9 -1",
        "pkill codex",
    ],
)
def test_a_kill_of_the_agents_own_processes_is_not_to_be_run_again(
    command: str, tmp_path: Path
) -> None:
    summary = cc_summary(_session(command), tmp_path)
    pending = " ".join(section(summary, 7).split())
    assert "kills the agent's own processes" in pending, pending
    assert "again only if the user asks for it" in pending
    step = " ".join(section(summary, 9).split())
    assert "do not run it again unless the user asks for it" in step, step
    assert "run them again if still needed" not in step


@pytest.mark.parametrize(
    "command", ['pkill -f "node server.js"', "kill -1 4242", "pkill -f claude-helper"]
)
def test_a_narrower_kill_keeps_the_old_step(command: str, tmp_path: Path) -> None:
    summary = cc_summary(_session(command), tmp_path)
    step = " ".join(section(summary, 9).split())
    assert "run them again if still needed" in step, step
    assert "kills the agent's own processes" not in summary
