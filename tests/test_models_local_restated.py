"""Blind check 23 W6 (cx-qz, issue 28, rows 1060-1079): a later run whose output repeats the
error did not fix it, and a polled process that is still running and printed nothing new did not
"succeed". The sessions are built here as Codex writes ``exec_command`` / ``write_stdin``
results (``Chunk ID``, ``Wall time``, ``Process exited with code N`` or ``Process running with
session ID N``, ``Output:``)."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

PY = "/home/u/.local/share/uv/tools/jobcli/bin/python"


def _out(code: int | None, text: str, session: int = 0) -> str:
    state = f"Process exited with code {code}" if code is not None else ""
    state = state or f"Process running with session ID {session}"
    return f"Chunk ID: 1a2b3c\nWall time: 0.4 seconds\n{state}\nOutput:\n{text}"


def _pip_session(later: str) -> str:
    s = SessionBuilder()
    s.user("make jobcli able to open a websocket")
    failed = _out(1, f"{PY}: No module named pip\n")
    s.call("exec_command", {"cmd": f"{PY} -m pip install websocket-client"}, failed)
    probe = (
        f"{PY} - <<'PY'\nimport sys\ntry:\n    import pip\n    print('pip ok')\n"
        "except Exception as e:\n    print('pip missing', e)\nPY"
    )
    s.call("exec_command", {"cmd": probe}, _out(0, later))
    s.say("Checked the tool's Python.")
    return section(summarize_transcript(s.messages), 4)


def test_a_later_run_that_prints_the_error_again_fixed_nothing() -> None:
    """cx-qz: "Fixed: a later exec_command: …python - <<'PY' import sys … succeeded" after it
    printed "pip missing No module named 'pip'"."""
    errors = _pip_session(f"{PY}\npip missing No module named 'pip'\n")
    assert "Fixed: a later" not in errors, errors
    assert "Not fixed: a later" in errors and "No module named 'pip'" in errors, errors


def test_a_later_run_that_does_not_repeat_it_still_fixes_it() -> None:
    errors = _pip_session(f"{PY}\npip ok\n")
    assert "Fixed: a later" in errors, errors


def test_a_poll_of_a_running_process_with_no_new_output_did_not_succeed() -> None:
    """cx-qz: sessions 45370/41297 still running; each latest poll ("Process running with
    session ID 45370", empty output) read "succeeded, printed nothing"."""
    s = SessionBuilder()
    s.user("replay the failed job on the dev box")
    start = _out(None, "", session=45370)
    s.call("exec_command", {"cmd": "bash script/replay_job.sh ubpb_c4"}, start)
    poll = {"session_id": 45370, "chars": "", "yield_time_ms": 10000}
    s.call("write_stdin", poll, _out(None, "", session=45370))
    s.say("Still searching.")
    pending = section(summarize_transcript(s.messages), 7)
    line = next(ln for ln in pending.splitlines() if "45370" in ln)
    assert 'its latest poll returned: "still running, no new output"' in line, pending
    assert "succeeded" not in line, pending
