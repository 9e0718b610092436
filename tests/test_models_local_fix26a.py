"""Blind check 26's wrong statements (issue 28, rows 1170-1179): a long-finished background job
called "still running" because the header its polls open with was dropped as a banner; relative
paths resolved against the ``cd`` of a call the user rejected."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

# -- 1170: a poll's status header is the harness's, never a banner -------------------------------

_DONE_HEAD = "<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<stdout>\n"


def _progress(n: int) -> str:
    """A long install log (the poll result of ~30,000 characters, its tail clipped)."""
    lines = [f"Progress: resolved {i}, reused 0, downloaded {i // 2}, added 0" for i in range(n)]
    return (
        "\n".join(lines)
        + "\n\n... [301 lines truncated] ...\n</stdout>\n\n<timestamp>t</timestamp>"
    )


def _polled_jobs(head: str) -> str:
    s = SessionBuilder()
    s.user("install the dependencies, build the sdk and run its tests")
    jobs = (("pnpm install", "b1", _progress(500)), ("pnpm build", "b2", "built in 3 s\n</stdout>"))
    jobs += (("pnpm test", "b3", "12 passed\n</stdout>"),)
    for command, key, out in jobs:
        s.call(
            "Bash",
            {"command": command, "run_in_background": True},
            f"Command running in background with ID: {key}",
        )
        s.call("BashOutput", {"bash_id": key}, head + out)
    s.call("BashOutput", {"bash_id": "b1"}, head + jobs[0][2])  # polled again: the same result
    s.say("Dependencies installed, the sdk builds and its tests pass.")
    s.user("now write the deployment notes")
    s.call("Write", {"file_path": "/w/DEPLOY.md", "content": "# Deploy\n"}, "File created")
    text = summarize_transcript(s.messages)
    return section(text, 7) + section(text, 9)


def test_jobs_whose_polls_open_with_a_completed_status_are_not_still_running() -> None:
    """cc-matt: three BashOutput polls of a ``pnpm install`` began with ``<status>completed
    </status> <exit_code>0</exit_code>`` (each ~30,000 characters), yet §7/§9 said "Background
    job still running … do not start it again": the header every poll of the session opened
    with was dropped from all results as a login banner, and with it the status."""
    pending = _polled_jobs(_DONE_HEAD)
    assert "still running" not in pending, pending


def test_a_job_whose_polls_say_running_stays_running() -> None:
    pending = _polled_jobs("<status>running</status>\n\n<stdout>\n")
    assert "Background job still running" in pending, pending
