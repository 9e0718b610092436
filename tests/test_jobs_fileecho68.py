"""A number after "PID" in the file text an edit echoes is no background job (blind check 68 W5:
an Edit's result, "Here's the result of running `cat -n` on a snippet of the edited file", showed
a log line "Claude Code (PID 8165)"; the summary listed "Background job still running … (id
8165)"). A job's id comes only from a launch result's own shape."""

from __future__ import annotations

from pathlib import Path

from compactor.facts import background_jobs
from compactor.facts.text import Call, Entry, Result

from .cc_session import Session, cc_summary

LOG = "/home/dev/notes/meeting-log.md"
ECHO = (
    f"The file {LOG} has been updated. Here's the result of running `cat -n` on a snippet of "
    "the edited file:\n    12→## Participants\n    13→- **Recorder**: Claude Code (PID 4711)\n"
    "    14→- **Status**: deployment pending\n"
)


def _session(echo: str) -> Session:
    s = Session()
    s.user("Update the meeting log with today's progress.")
    s.call("Read", {"file_path": LOG}, "     1→# Meeting log\n    13→- Recorder: Claude Code")
    s.call("Edit", {"file_path": LOG, "old_string": "75%", "new_string": "90%"}, echo)
    s.say("The meeting log now says 90%.")
    return s


def test_a_pid_in_the_text_an_edit_echoes_is_no_job(tmp_path: Path) -> None:
    summary = cc_summary(_session(ECHO), tmp_path)
    assert "4711" not in summary, summary
    assert "Background job" not in summary


def test_a_write_tool_echo_starts_no_job() -> None:
    edit = Call("c1", "Write", '{"file_path": "a.md", "content": "pid: 4711"}', 0)
    entry = Entry(0, "assistant", "", [edit])
    out = "File written; running `cat -n`: pid: 4711"
    result = Entry(1, "tool", "", results=[Result("c1", "Write", out)])
    assert background_jobs([entry, result]) == []


def test_a_background_launch_still_names_its_job(tmp_path: Path) -> None:
    s = _session(ECHO)
    s.call(
        "Bash",
        {"command": "npm run dev", "run_in_background": True},
        "Command running in background with ID: bash_7",
    )
    summary = cc_summary(s, tmp_path)
    assert "bash_7" in summary, summary
    assert "4711" not in summary
