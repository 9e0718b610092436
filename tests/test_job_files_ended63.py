"""Blind check 63 W2: files under a deleted glob that a later listing showed again were said
"deleted by Bash, then re-created by the background job", although every job started after
the delete had been killed by then and none was about those files: the deleting command
itself (``rm -rf …/log/*; tool run "test"``) and a later foreground run made them again. A job
that ended and is not tied to the file is not named; a running job, or an ended one whose
command names the file, still is."""

from __future__ import annotations

from .cc_session import Session
from .test_models_local_session import section

LOGS = "/home/dev/.local/share/tool/log"


def _notice(key: str) -> str:
    return (
        f"<bash-notification>\n<shell-id>{key}</shell-id>\n<status>failed</status>\n"
        f'<summary>Background command "job {key}" failed with exit code 137.</summary>\n'
        "</bash-notification>"
    )


def _session(job_command: str, ended: bool = True, target: str = f"{LOGS}/*") -> str:
    s = Session()
    s.user("the tool keeps failing, reset its state and try again")
    s.bash(f'rm -rf {target} && tool run "test"', "test ok")
    key = "b9f8e7d"
    s.call(
        "Bash",
        {"command": job_command, "run_in_background": True},
        f"Command running in background with ID: {key}. Output is being written to: "
        f"/tmp/claude/tasks/{key}.output",
    )
    if ended:
        s.call("KillShell", {"shell_id": key}, f'{{"message":"Successfully killed shell: {key}"}}')
        s.user(_notice(key))
    s.bash(f"ls -la {target}", "2026-01-05T021334.log\n2026-01-05T021401.log")
    s.say("The state is reset; the new logs show the same invalid key error.")
    return section(s.summary(), 3)


def test_a_file_made_again_after_every_job_ended_is_not_the_jobs() -> None:
    files = _session("tool auth login 2>&1")
    assert f"{LOGS}/* (deleted by Bash, then re-created later)" in files, files
    assert "background job" not in files


def test_a_running_job_or_one_tied_to_the_file_is_still_named() -> None:
    files = _session("tool auth login 2>&1", ended=False)
    assert f"{LOGS}/* (deleted by Bash, then re-created by the running job)" in files, files
    run_log = "/home/dev/app/run.log"
    files = _session(f"tool serve --log {run_log} 2>&1", target=run_log)
    assert f"{run_log} (deleted by Bash, then re-created by the background job)" in files, files
