"""Issue 28 after blind check 17, continued (last17b): a job's plain end notice, the latest
answer to a request, the text an unquoted heredoc wrote."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

# -- 1. a job a plain-form notification reports ended is not running ---------------------------


def test_a_job_a_plain_notification_reports_completed_is_not_running() -> None:
    s = SessionBuilder()
    s.user("run the suite in the background and bump the version")
    s.call(
        "Bash",
        {"command": "pytest -q tests/"},
        "Command running in background with ID: bq41d. Output goes to /tmp/bq41d.log",
    )
    s.call("Bash", {"command": "sed -i 's/2.4.0/2.4.1/' pyproject.toml"}, "")
    s.user("<task-notification> bq41d completed (exit code 0)")
    summary = summarize_transcript(s.messages)
    assert "still running" not in summary, summary
    assert "Nothing is running" in section(summary, 7), section(summary, 7)
