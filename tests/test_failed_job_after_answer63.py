"""Blind check 63 W1: a background server an earlier request started (``… serve --port 3737``)
failed with exit code 137 after the final answer, which told the user "Server running at
http://127.0.0.1:3737". §7 listed the failure as an earlier request's stale report ("the
latest one … stays answered") and §8/§9 said the request was completed, nothing pending,
wait for the user's next message, quoting the answer as if it still held. A failed job the
last answer relies on (it names the job's port or id) is the next thing to handle, whichever
request launched it."""

from __future__ import annotations

from .cc_session import Session
from .test_models_local_session import section

JOB = "b7c8d9e"
FAILED = (
    f"<bash-notification>\n<shell-id>{JOB}</shell-id>\n"
    f"<output-file>/tmp/claude/tasks/{JOB}.output</output-file>\n<status>failed</status>\n"
    '<summary>Background command "Start the dev server" failed with exit code 137.</summary>\n'
    "Read the output file to retrieve the output.\n</bash-notification>"
)


def _session(final: str) -> Session:
    s = Session()
    s.user("The editor plugin cannot reach the server, fix it.")
    s.call(
        "Bash",
        {"command": "devsrv serve --port 4242 2>&1 &", "description": "Start the dev server"},
        f"Command running in background with ID: {JOB}. Output is being written to: "
        f"/tmp/claude/tasks/{JOB}.output",
    )
    s.say("The server is up on port 4242 and the plugin now points at it.")
    s.user("and make a short alias for the editor")
    s.call(
        "Edit",
        {"file_path": "/home/dev/.zshrc", "old_string": "# end", "new_string": "alias e=ed\n# end"},
        "The file has been updated.",
    )
    s.say(final)
    s.user(FAILED)
    return s


def test_a_failed_job_the_answer_relies_on_is_the_next_step() -> None:
    summary = _session(
        "Done!\n- alias e added to ~/.zshrc\n- Server running at http://127.0.0.1:4242"
    ).summary()
    s7, s8, s9 = section(summary, 7), section(summary, 8), section(summary, 9)
    assert "no longer holds" in s7, s7
    assert "stays answered" not in s7
    assert "was completed" not in s8 and "relies on failed after the answer" in s8, s8
    assert "written before that failure" in s8
    assert JOB in s9 and "nothing is pending" not in s9, s9


def test_an_earlier_jobs_failure_the_answer_does_not_name_stays_a_fact() -> None:
    summary = _session("Done: alias e added to ~/.zshrc; open a new terminal.").summary()
    assert "stays answered" in section(summary, 7)
    assert "nothing is pending" in section(summary, 9)
