"""Blind checks 65 and 66 (helper fix65a): a piped read's error line is an error line; a file a
still-running job writes is not a finished change; the last findings' links come from an answer
to the current request; a full answer that closes with offers is answered, and every offer is
kept."""

from __future__ import annotations

import re

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder


def _sections(text: str) -> dict[str, str]:
    """The summary's numbered sections by number (and the analysis as "0")."""
    parts = re.split(r"(?m)^(\d+)\. [^\n]*:\n", text)
    return {"0": parts[0], **dict(zip(parts[1::2], parts[2::2], strict=True))}


def _ok(output: str) -> str:
    return f"Process exited with code 0\nOutput:\n{output}"


def _piped_read(listing: str, cmd: str = "find /srv/app/tools -maxdepth 2 -type f | sort") -> str:
    s = SessionBuilder()
    s.user("review the CI workflow and its build scripts")
    s.call("exec_command", {"cmd": "cat .ci/pipeline.yml"}, _ok("steps:\n  - run: ./tools/mk.sh\n"))
    s.call("exec_command", {"cmd": cmd}, _ok(listing))
    s.call("exec_command", {"cmd": "git status --short"}, _ok(" D tools/mk.sh\n?? opt/tools/\n"))
    s.say("The pipeline still calls ./tools/mk.sh, which is gone from the tree.")
    return _sections(summarize_transcript(s.messages))["4"]


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
