"""Blind check 18 (issue 28): an earlier summary's state is the state at its boundary, never
the current one once calls ran after it; and noise a resuming agent does not need."""

from __future__ import annotations

from pathlib import Path

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .cc_session import Session
from .test_models_local_session import section

_OWN_SUMMARY = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The conversation is summarized below:\nAnalysis:\nThe user wants the service deployed.\n\n"
    "Summary:\n## 1. Primary Request and Intent\nDeploy the queue service and push to main.\n\n"
    "## 5. Problem Solving\n**Ongoing:** - Service still not running - needs the route fix "
    "before it comes up\n\n"
    "## 7. Pending Tasks\n- Find the bad route registration\n- Push to main\n\n"
    "## 8. Current Work\nImmediately before this summary request, was investigating why the "
    "queue service keeps crash-looping with RouteError; handlers/extra.py was the next file to "
    "investigate.\n\n"
    "## 9. Optional Next Step\nRead handlers/extra.py to find the bad route registration.\n"
)


def _after_boundary(tmp_path: Path, request: str = "") -> str:
    """The own summary, then (optionally a user request and) calls that found and fixed the
    cause, a restart whose log says the service started, and a health check in flight."""
    s = Session()
    s.user(_OWN_SUMMARY)
    s.records[-1]["isCompactSummary"] = True
    if request:
        s.user(request)
    s.assistant([{"type": "text", "text": "Let me read the file the search found."}])
    s.bash("cat handlers/extra.py", "from app import routes\nroutes.add('queue.v2.jobs')\n")
    s.bash("ls app/", "server.py\nroutes.py\n")
    s.assistant([{"type": "text", "text": "The module server_v2 does not exist; point at server."}])
    s.bash("sed -i 's/server_v2/server/' compose.yml", "")
    s.bash("docker compose up -d queue", "Container queue Started")
    s.bash(
        "sleep 5 && docker logs queue --tail=5",
        "INFO:     Started server process [1]\nINFO:     Application startup complete.\n"
        'INFO:     127.0.0.1:40000 - "GET /health HTTP/1.1" 200 OK',
    )
    s.assistant(
        [
            {"type": "text", "text": "Service is up. Let me check the health endpoint:"},
            {
                "type": "tool_use",
                "id": "toolu_last",
                "name": "Bash",
                "input": {"command": "curl -s http://127.0.0.1:8080/health"},
            },
        ]
    )
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


def test_the_earlier_summary_s_current_work_is_its_state_before_the_calls_after_it(
    tmp_path: Path,
) -> None:
    """forge-cc: with no user request after Claude Code's own compaction, section 8 quoted the
    earlier summary's "was investigating why the container continues to crash-loop … the next
    file to investigate" as the current work, and section 5 its "Container still not running",
    while the calls after the boundary had found and fixed the cause and the log said the
    service started: the old state is the state before those calls, and sections 8 and 9 come
    from the calls."""
    text = _after_boundary(tmp_path)
    current, step = section(text, 8), section(text, 9)
    assert "From the earlier summary: " not in current, current
    assert "The earlier summary's state (before the 6 tool calls after it" in current, current
    assert current.index("Application startup complete") < current.index("crash-looping"), current
    assert "From the earlier summary: " not in step, step
    assert "from where the calls after the earlier summary left it" in step, step
    solving = section(text, 5)
    assert "From the earlier summary (its state before the 6 tool calls after it): " in (solving), (
        solving
    )
    assert "still not running" in solving, solving  # kept, but labelled
    # with a user request after the boundary: the other path keeps its own caveat
    asked = _after_boundary(tmp_path, "the service still crashes, please fix it")
    current = section(asked, 8)
    assert "Current work in the earlier summary (before the later work described here)" in current
    assert "From the earlier summary: " not in current, current
    assert "Application startup complete" in current, current
    assert "From the earlier summary (its state before the 6 tool calls after it): " in (
        section(asked, 5)
    )
