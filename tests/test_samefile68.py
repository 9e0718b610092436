"""One file is one entry: a relative path of a call is put in the session's working directory,
a Windows one too, before files are told apart (blind check 67 N1: "Files changed for it" listed
``email-responder.md`` twice, by its absolute ``C:\\Users\\…`` path and by a relative one).
Invented users and projects only."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary, section

WIN = "C:\\Users\\dev\\agents"


def _session(cwd: str, written: str, edited: str) -> Session:
    s = Session()
    s.user("write the email responder command and commit it")
    s.call("Write", {"file_path": written, "content": "# Email responder\nReply politely.\n"}, "ok")
    s.bash("cat > .claude/commands/tonekeeper.md <<'EOF'\n# Tone\nkeep the tone\nEOF", "")
    edit = {"file_path": edited, "old_string": "politely", "new_string": "politely, briefly"}
    s.call("Edit", edit, "The file has been updated.")
    s.bash("sed -i 's/briefly/in short/' .claude/commands/email-responder.md", "")
    s.say("Both commands are written.")
    for rec in s.records:
        rec["cwd"] = cwd
    return s


def _entries(summary: str, name: str) -> tuple[int, str]:
    files = section(summary, 3)
    changed = next(ln for ln in section(summary, 8).splitlines() if "Files changed for it" in ln)
    return sum(name in ln for ln in files.splitlines() if ln.startswith("   - ")), changed


def test_a_relative_and_an_absolute_windows_path_are_one_file(tmp_path: Path) -> None:
    absolute = WIN + "\\.claude\\commands\\email-responder.md"
    summary = cc_summary(_session(WIN, absolute, ".claude/commands/email-responder.md"), tmp_path)
    listed, changed = _entries(summary, "email-responder.md")
    assert listed == 1, section(summary, 3)
    assert changed.count("email-responder.md") == 1, changed
    assert absolute in changed
    assert WIN + "\\.claude\\commands\\tonekeeper.md" in changed  # a bash write: in the cwd too


def test_windows_spellings_of_one_file_are_one_file(tmp_path: Path) -> None:
    written = "c:/users/DEV/agents/.claude/commands/email-responder.md"
    s = _session(WIN, written, ".claude\\commands\\email-responder.md")
    listed, changed = _entries(cc_summary(s, tmp_path), "email-responder.md")
    assert listed == 1
    assert changed.count("email-responder.md") == 1, changed


def test_a_posix_relative_path_is_still_one_file(tmp_path: Path) -> None:
    cwd = "/home/dev/agents"
    s = _session(
        cwd,
        cwd + "/.claude/commands/email-responder.md",
        ".claude/commands/x/../email-responder.md",
    )
    listed, changed = _entries(cc_summary(s, tmp_path), "email-responder.md")
    assert listed == 1
    assert changed.count("email-responder.md") == 1, changed


def test_a_file_of_the_same_name_elsewhere_stays_apart(tmp_path: Path) -> None:
    home = "C:\\Users\\dev\\.claude\\commands\\email-responder.md"  # not under the cwd
    s = _session(WIN, home, home)
    _, changed = _entries(cc_summary(s, tmp_path), "email-responder.md")
    assert changed.count("email-responder.md") == 2, changed
