"""Blind checks 65 and 66 (helper fix65a): a piped read's error line is an error line; a file a
still-running job writes is not a finished change; the last findings' links come from an answer
to the current request; a full answer that closes with offers is answered, and every offer is
kept."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .codex_rollout import sections
from .planted_session import SessionBuilder


def _ok(output: str) -> str:
    return f"Process exited with code 0\nOutput:\n{output}"


def _piped_read(listing: str, cmd: str = "find /srv/app/tools -maxdepth 2 -type f | sort") -> str:
    s = SessionBuilder()
    s.user("review the CI workflow and its build scripts")
    s.call("exec_command", {"cmd": "cat .ci/pipeline.yml"}, _ok("steps:\n  - run: ./tools/mk.sh\n"))
    s.call("exec_command", {"cmd": cmd}, _ok(listing))
    s.call("exec_command", {"cmd": "git status --short"}, _ok(" D tools/mk.sh\n?? opt/tools/\n"))
    s.say("The pipeline still calls ./tools/mk.sh, which is gone from the tree.")
    return sections(summarize_transcript(s.messages))["4"]


def test_an_error_line_of_a_piped_read_that_exited_0_is_listed() -> None:
    errors = _piped_read("find: \u2018/srv/app/tools\u2019: No such file or directory\n")
    assert "None in this part" not in errors, errors
    assert "piped error" in errors, errors
    assert "find: \u2018/srv/app/tools\u2019: No such file or directory" in errors, errors
    errors = _piped_read(
        "ls: cannot access 'tools': No such file or directory\n", "ls -la tools | head -20"
    )
    assert "ls: cannot access 'tools'" in errors and "None in this part" not in errors, errors
    errors = _piped_read(
        "grep: /srv/app/.cache/lock: Permission denied\n", "grep -rn mk.sh /srv/app | head"
    )
    assert "grep: /srv/app/.cache/lock: Permission denied" in errors, errors


def test_another_programs_line_in_what_was_read_is_no_piped_error() -> None:
    # a line of another program's, in what was read: content, not this pipeline's diagnostic
    errors = _piped_read("cp: /x: No such file or directory\n", "cat notes.txt | head -5")
    assert "None in this part" in errors, errors


def _unpacking(*, poll: str, claude: bool = False) -> dict[str, str]:
    s = SessionBuilder()
    s.user("unpack the disk image and check its partition table")
    s.call(
        "exec_command", {"cmd": "ls -lh /data/disk.zip"}, _ok("-rw-r--r-- 1 u u 1.3G disk.zip\n")
    )
    command = "rm -f /tmp/disk.raw && unzip -p /data/disk.zip disk.raw | dd of=/tmp/disk.raw bs=16M"
    if claude:
        s.call(
            "Bash",
            {"command": command, "run_in_background": True},
            "Command running in background with ID: bq41x",
        )
        s.call("BashOutput", {"bash_id": "bq41x"}, poll)
    else:
        s.call(
            "exec_command",
            {"cmd": command},
            "Chunk ID: a1\nWall time: 10.0 seconds\nProcess running with session ID 4711\n"
            "Original token count: 3\nOutput:\n1048576 bytes copied\n",
        )
        s.call("write_stdin", {"session_id": 4711, "chars": "", "yield_time_ms": 30000}, poll)
    s.say("The extraction is still running; I will read the partition table once it finishes.")
    return sections(summarize_transcript(s.messages))


def test_a_file_a_still_running_job_writes_is_no_finished_change() -> None:
    running = (
        "Chunk ID: a2\nWall time: 30.0 seconds\nProcess running with session ID 4711\nOutput:\n"
    )
    parts = _unpacking(poll=running)
    assert "/tmp/disk.raw (deleted, then being written by the running job 4711" in parts["3"]
    assert "written by exec_command" not in parts["3"], parts["3"]
    assert "/tmp/disk.raw (being written by the running job 4711, not finished)" in parts["8"]
    parts = _unpacking(poll="<status>running</status>\n<stdout>42+0 records</stdout>", claude=True)
    assert "being written by the running job bq41x" in parts["3"], parts["3"]
    assert "written by Bash" not in parts["3"], parts["3"]


def test_a_file_a_finished_job_wrote_is_a_change() -> None:
    ended = "Chunk ID: a2\nWall time: 3.0 seconds\nProcess exited with code 0\nOutput:\n9 records\n"
    parts = _unpacking(poll=ended)
    assert "being written" not in parts["3"] + parts["8"], parts["3"]
    assert "/tmp/disk.raw (deleted, then written by exec_command" in parts["3"], parts["3"]


_LINKS = (
    "Yes. The wrapper is [README.md](/home/u/dots/strap/README.md), the steps are in "
    "[migration.md](/home/u/dots/docs/migration.md) and [init.sh](/home/u/dots/strap/init.sh:12)."
)


def _linked(*, answered_now: bool) -> str:
    s = SessionBuilder()
    s.user("how does the bootstrap clone work in this repo?")
    s.call("exec_command", {"cmd": "git status --short"}, _ok(" M strap/init.sh\n"))
    s.say(_LINKS)
    s.user("now review the CI workflow and the build scripts")
    s.call("exec_command", {"cmd": "cat .ci/pipeline.yml"}, _ok("steps:\n  - run: ./tools/mk.sh\n"))
    if answered_now:
        s.say(
            "Findings: [pipeline.yml](/home/u/dots/.ci/pipeline.yml:4) calls "
            "[mk.sh](/home/u/dots/tools/mk.sh), moved to [mk.sh](/home/u/dots/opt/tools/mk.sh)."
        )
    return sections(summarize_transcript(s.messages))["3"]


def test_links_of_an_earlier_requests_answer_are_not_the_current_findings() -> None:
    files = _linked(answered_now=False)
    assert "last findings (review)" not in files, files
    line = next(x for x in files.splitlines() if "/home/u/dots/strap/README.md" in x)
    assert 'answer to an earlier request ("how does the bootstrap clone work' in line, line


def test_links_of_the_current_requests_answer_are_its_findings() -> None:
    files = _linked(answered_now=True)
    line = next(x for x in files.splitlines() if "Linked in" in x)
    assert "last findings (review)" in line and "/home/u/dots/tools/mk.sh" in line, line
    assert "strap/README.md" not in line, line


_REPORT = """## Where you are

You are in **Phase 4 (Implementation)** of the planner workflow.

| Epic | Status | Stories |
|---|---|---|
| 1 - Accounts | done | 3/3 |
| 2 - Billing | done | 5/5 |
| 3 - Reports | done | 6/6 |
| 4 - Exports | backlog | 0/4 |

Epics 1 to 3 are complete, every story merged and reviewed. Epic 4 has not started: none of its
stories has a file yet, and the sprint status still lists it as backlog.

## What comes next

- **Required:** `planner-create-story` for Epic 4, story 4-1 (the first export format).
- **Optional:** a retrospective on epics 1-3, or `planner-sprint-status` for an overview.

"""
_OFFERS = (
    "Want me to kick off `planner-create-story` for story 4-1? "
    "Or would you rather do a retrospective on the completed epics first?"
)


def _answered(reply: str) -> dict[str, str]:
    s = SessionBuilder()
    s.user("/planner-help")
    s.call("Read", {"file_path": "/p/status.yaml"}, "epic-1: done\nepic-4: backlog\n")
    s.call("Glob", {"pattern": "docs/**/*.md"}, "/p/docs/prd.md\n/p/docs/architecture.md\n")
    s.say(reply)
    return sections(summarize_transcript(s.messages))


def test_a_full_answer_closing_with_offers_is_answered() -> None:
    parts = _answered(_REPORT + _OFFERS)
    assert "only asked the user questions" not in parts["8"], parts["8"]
    assert "was answered, and the answer ended by offering a next step" in parts["8"]
    assert "None to continue: the answer ended by offering:" in parts["9"], parts["9"]
    assert "wait for the user's choice" in parts["9"], parts["9"]
    # a few words leading to the questions: the reply only asked (blind check 61 W6 stays)
    parts = _answered("Two things to settle first.\n\n" + _OFFERS)
    assert "only asked the user questions" in parts["8"], parts["8"]


def test_every_closing_question_is_kept_in_order() -> None:
    for reply in (_REPORT + _OFFERS, "Renamed the module and its imports. " + _OFFERS):
        parts = _answered(reply)
        for number in ("7", "9"):
            said = parts[number]
            first, second = said.find("Want me to kick off"), said.find("Or would you rather")
            assert 0 <= first < second, said


def test_a_probe_list_without_a_pipe_is_no_piped_error() -> None:
    errors = _piped_read(
        "ls: cannot access '/srv/app/tools': No such file or directory\n--- done ---\n",
        'ls -ld /srv/app/tools 2>&1; echo "--- done ---"',
    )
    assert "piped error" not in errors, errors
