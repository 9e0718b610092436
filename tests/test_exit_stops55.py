"""Jobs the CLI stopped when the user ended the session are no failure (blind check 55, W1).

A wait loop run in the background (``until grep -q done …; do sleep 5; done``) only waited for a
process the agent had killed itself; the user typed ``/exit`` after the last answer and the CLI
stopped the loop: a ``<task-notification>`` with ``<status>killed</status>`` ("was stopped").
The summary read it as a failure of work started for the request ("tell the user of the failure
first"). A job stopped by the session's own end is not a failure; a job that failed on its own
after the answer still is. Sessions are invented, built here.
"""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary
from .test_models_local_session import section

LOOP = "bq81zk2fd"
EXIT = (
    "<command-name>/exit</command-name>\n            <command-message>exit</command-message>\n"
    "            <command-args></command-args>"
)


def _notice(status: str, summary: str) -> str:
    return (
        f"<task-notification>\n<task-id>{LOOP}</task-id>\n<output-file>/tmp/claude/tasks/"
        f"{LOOP}.output</output-file>\n<status>{status}</status>\n<summary>{summary}</summary>\n"
        "</task-notification>\nRead the output file to retrieve the result."
    )


KILLED = _notice("killed", 'Background command "Wait for the benchmark to finish" was stopped')
FAILED = _notice(
    "failed", 'Background command "Wait for the benchmark to finish" failed with exit code 1'
)


def _waited(notice: str, exit_first: bool) -> Session:
    s = Session()
    s.user("Time the segmentation on the GPU, then tell me how to proceed with the scope.")
    s.call(
        "Bash",
        {
            "command": "until grep -q 'eval done' /tmp/run.log; do sleep 5; done",
            "description": "Wait for the benchmark to finish",
            "run_in_background": True,
        },
        f"Command running in background with ID: {LOOP}. Output is being written to: "
        f"/tmp/claude/tasks/{LOOP}.output",
    )
    s.call("Bash", {"command": "kill -9 17327"}, "")
    s.say("The GPU run took 41 s per tile. Standing by — let me know how you want to proceed.")
    if exit_first:
        s.user(EXIT)
    s.user(notice)
    return s


def test_a_job_the_exit_stopped_is_no_failure(tmp_path: Path) -> None:
    for exit_first in (True, False):  # the notice queued at the exit may come before its record
        s = _waited(KILLED, exit_first)
        if not exit_first:
            s.user(EXIT)
        text = cc_summary(s, tmp_path)
        assert "reported failed" not in section(text, 4), section(text, 4)
        pending = section(text, 7)
        assert "failed" not in pending and "tell the user of the failure" not in pending, pending
        assert "A background task failed" not in section(text, 9), section(text, 9)


def test_a_job_that_failed_on_its_own_before_the_exit_still_failed(tmp_path: Path) -> None:
    text = cc_summary(_waited(FAILED, True), tmp_path)
    assert f"{LOOP} failed" in section(text, 4), section(text, 4)


def test_a_killed_job_without_an_exit_is_still_reported(tmp_path: Path) -> None:
    text = cc_summary(_waited(KILLED, False), tmp_path)
    assert f"{LOOP} killed" in section(text, 4), section(text, 4)


def test_a_job_the_exit_stopped_is_named_as_not_running(tmp_path: Path) -> None:
    """No failure, but not running either: a resuming agent that needs it (a dev server) must
    start it again (seen set 44, cc-mysite: row 2630 had dropped the job from the summary)."""
    text = cc_summary(_waited(KILLED, True), tmp_path)
    errors = section(text, 4)
    assert "/exit stopped after the last answer" in errors, errors
    assert f"background task {LOOP} killed" in errors, errors
    assert "reported failed" not in errors, errors
