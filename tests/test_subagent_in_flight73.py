"""A call in flight that hands work to another agent may still be running: §7/§9 say so and do
not tell the resuming agent to start it again (blind check 73 N6: two ``mcp__pal__clink`` calls
delegating Phases 7 and 8 were in flight; their sub-agents ran on for half an hour, and §9 said
"check whether they ran … and run them again if still needed")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .cc_session import Session, cc_summary, section

CLINK = {
    "cli_name": "claude",
    "role": "planner",
    "prompt": "You are tasked with implementing Phase 7: Event Replay System in js/services.",
}


def _session(name: str, args: dict[str, Any]) -> Session:
    s = Session()
    s.user("delegate phase 7 to a sub-agent and keep going")
    s.say("I'll hand Phase 7 to a sub-agent:")
    s.assistant([{"type": "tool_use", "id": "toolu_d", "name": name, "input": args}])
    return s


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("mcp__pal__clink", CLINK),
        ("Task", {"description": "Phase 7", "prompt": CLINK["prompt"], "subagent_type": "coder"}),
        ("mcp__agents__run", {"agent": "gemini", "prompt": CLINK["prompt"]}),
    ],
)
def test_a_delegation_in_flight_may_still_run_and_is_not_started_again(
    name: str, args: dict[str, Any], tmp_path: Path
) -> None:
    summary = cc_summary(_session(name, args), tmp_path)
    pending = " ".join(section(summary, 7).split())
    assert "hands the work to another agent, which may still be running" in pending, pending
    assert "start it again only if the user asks for it" in pending
    step = " ".join(section(summary, 9).split())
    assert "its own transcript" in step, step
    assert "do not run it again unless the user asks for it" in step
    assert "run them again if still needed" not in step


def test_another_mcp_call_in_flight_keeps_the_old_step(tmp_path: Path) -> None:
    args = {"query": "event replay", "prompt": "find the docs"}  # a prompt, but no agent named
    summary = cc_summary(_session("mcp__docs__search", args), tmp_path)
    step = " ".join(section(summary, 9).split())
    assert "run them again if still needed" in step, step
    assert "another agent" not in summary
