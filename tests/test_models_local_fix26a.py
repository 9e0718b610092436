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
    jobs = [("pnpm install", "b1", _progress(500)), ("pnpm build", "b2", "built in 3 s\n</stdout>")]
    jobs.append(("pnpm test", "b3", "12 passed\n</stdout>"))
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


# -- 1171: a relative name is the file the agent last named by an absolute path ----------------

_REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing."
)


def _moved_project(rejected_write: bool) -> str:
    s = SessionBuilder()
    s.user("add a deploy config to the project")
    s.call("Write", {"file_path": "/w/proj/deploy.json", "content": '{"out": "proj/dist"}\n'},
           "File created successfully at: /w/proj/deploy.json")  # fmt: skip
    s.say("Added /w/proj/deploy.json.")
    s.user("move the project to the repository root and fix the deploy config")
    s.call("Bash", {"command": "mv proj/* . && rm -rf proj"}, "")
    s.call("Write", {"file_path": "/w/deploy.json", "content": '{"out": "dist"}\n'},
           "<tool_use_error>File has not been read yet. Read it first before writing to it."
           "</tool_use_error>", error=True)  # fmt: skip
    if rejected_write:  # never ran: names no path
        s.call("Write", {"file_path": "/w/proj/deploy.json", "content": "{}\n"}, _REJECTED,
               error=True)  # fmt: skip
    s.call("Bash", {"command": 'cat > deploy.json << \'EOF\'\n{"out": "dist"}\nEOF'}, "")
    s.say("The deploy config now points at dist.")
    return section(summarize_transcript(s.messages), 3)


def test_a_relative_write_is_the_file_the_agent_last_named_not_an_older_one() -> None:
    """cc-matt §3: ``cat > vercel.json << 'EOF'`` (run in the home folder, right after a failed
    ``Write(/home/u/vercel.json)``) was listed as the third change of
    ``/home/u/project/vercel.json``, a folder the agent had just moved away and deleted."""
    for rejected_write in (False, True):
        files = _moved_project(rejected_write)
        assert "/w/deploy.json" in files, files
        at = files.find("/w/deploy.json")
        assert '"out": "dist"' in files[at:], files
        old = files[files.find("/w/proj/deploy.json") :] if "/w/proj/deploy.json" in files else ""
        assert "written by Bash" not in old.split("\n   - ")[0], files


# -- 1172: a failed Write that a later write of the same file made ------------------------------


def test_a_failed_write_that_a_later_heredoc_made_is_no_unresolved_failure() -> None:
    """cc-matt §7: "Unresolved failure: Write(/home/u/vercel.json)" ("File has not been read
    yet"), although two calls later ``cat > vercel.json << 'EOF'`` wrote the same file."""
    s = SessionBuilder()
    s.user("write the deploy config")
    s.call("Write", {"file_path": "/w/deploy.json", "content": '{"out": "dist"}\n'},
           "<tool_use_error>File has not been read yet. Read it first before writing to it."
           "</tool_use_error>", error=True)  # fmt: skip
    s.call("Bash", {"command": 'cat > /w/deploy.json << \'EOF\'\n{"out": "dist"}\nEOF'}, "")
    s.call("Bash", {"command": "git add -A && git commit -m deploy"}, "[main 1a2b3c4] deploy")
    text = summarize_transcript(s.messages)  # (mid-work: no answer yet)
    assert "Unresolved failure" not in section(text, 7), section(text, 7)
    assert "Fixed" in section(text, 4), section(text, 4)


def test_a_failed_write_of_a_file_nothing_wrote_later_stays_unresolved() -> None:
    s = SessionBuilder()
    s.user("write the deploy config")
    s.call("Write", {"file_path": "/w/deploy.json", "content": '{"out": "dist"}\n'},
           "<tool_use_error>File has not been read yet. Read it first before writing to it."
           "</tool_use_error>", error=True)  # fmt: skip
    s.call("Bash", {"command": "cat > /w/other.json << 'EOF'\n{}\nEOF"}, "")
    s.call("Bash", {"command": "git add -A && git commit -m deploy"}, "[main 1a2b3c4] deploy")
    text = summarize_transcript(s.messages)
    assert "Unresolved failure" in section(text, 7), section(text, 7)
