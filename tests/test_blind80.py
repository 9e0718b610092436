"""Blind check 80: a write whose whole result is a failure sentence (no error flag) wrote
nothing, and a later ``cat > F <<EOF`` of the file fixed it (W1); a call the user interrupted is
fixed only by a later run of the same search, not by a count of every file (W2)."""

from __future__ import annotations

from .cc_session import Session, section

_POLICY = "/Users/kb/.claude/.policy.json"
_BODY = '{\n  "version": "1.0",\n  "default_policy": "work"\n}\n'


def _write_then_heredoc(heredoc: bool) -> str:
    s = Session()
    s.user("Create the security policy file.")
    s.call(
        "mcp__acp__Write",
        {"file_path": _POLICY, "content": _BODY},
        "Writing file failed: Internal error",
    )
    if heredoc:
        s.call(
            "mcp__acp__Bash",
            {"command": f"cat > ~/.claude/.policy.json << 'EOF'\n{_BODY}EOF\necho done"},
            "done",
        )
    s.say("Policy created.")
    return s.summary()


def test_a_write_that_returned_a_failure_sentence_failed() -> None:
    """W1 (kb_acp): ``mcp__acp__Write`` returned "Writing file failed: Internal error" without
    the error flag; §3 said the file was "created by mcp__acp__Write" and §8 listed it twice
    (full path and ``~/`` form)."""
    text = _write_then_heredoc(heredoc=True)
    assert "created by mcp__acp__Write" not in section(text, 3)
    errors = section(text, 4)
    assert "failed: Writing file failed: Internal error" in errors
    assert "Fixed: a later `mcp__acp__Bash: cat > ~/.claude/.policy.json" in errors
    assert "Unresolved failure" not in text
    current = section(text, 8)
    assert current.count(".policy.json") == 1, current


def test_a_failed_write_nothing_redid_stays_open() -> None:
    text = _write_then_heredoc(heredoc=False)
    assert "created by mcp__acp__Write" not in section(text, 3)
    assert "Writing file failed: Internal error" in section(text, 4)
    assert "Fixed" not in section(text, 4)


def test_a_written_file_s_content_is_no_failure() -> None:
    """A write whose result is a longer text (a listing, the file) is judged as before."""
    s = Session()
    s.user("Create notes.md.")
    s.call(
        "mcp__acp__Write",
        {"file_path": "/home/dev/board/notes.md", "content": "# Notes\n"},
        "File created successfully at: /home/dev/board/notes.md",
    )
    text = s.summary()
    assert "created by mcp__acp__Write" in section(text, 3)
    assert "failed" not in section(text, 4)


_SCAN = 'find ~/.claude/projects -name "*.env*" -o -name "*secret*" 2>/dev/null | head -20'


def _interrupted_then(later: str) -> str:
    s = Session()
    s.user("Check the projects folder for sensitive files.")
    s.call("mcp__acp__Bash", {"command": _SCAN}, "Interrupted by user", error=True)
    s.user("[Request interrupted by user for tool use]")
    s.user("Go on with the plan.")
    s.call("mcp__acp__Bash", {"command": later}, "46")
    s.say("Done.")
    return s.summary()


def test_a_count_of_every_file_is_no_rerun_of_an_interrupted_search() -> None:
    """W2 (kb_acp): the interrupted ``find … -name "*.env*" -o -name "*secret*"`` read "Fixed:
    a later … find ~/.claude/projects -maxdepth 2 -type f | wc -l succeeded"."""
    errors = section(_interrupted_then("find ~/.claude/projects -maxdepth 2 -type f | wc -l"), 4)
    assert "Fixed" not in errors
    assert "never completed and not run again" in errors


def test_the_same_search_run_again_fixes_the_interruption() -> None:
    later = 'find ~/.claude/projects -name "*.env*" -o -name "*secret*" 2>/dev/null'
    errors = section(_interrupted_then(later), 4)
    assert "not run again" not in errors
    assert "Fixed" in errors or "Interrupted" not in errors


def test_one_file_under_two_spellings_is_listed_once() -> None:
    """W1's §8: ``/Users/kb/.claude/.policy.json`` and ``~/.claude/.policy.json`` are one file;
    two users' homes stay two files."""
    s = Session()
    s.user("Create the security policy file.")
    s.call("Write", {"file_path": _POLICY, "content": _BODY}, "File created successfully")
    s.call("Bash", {"command": f"cat > ~/.claude/.policy.json << 'EOF'\n{_BODY}EOF"}, "")
    s.call("Bash", {"command": "cp ~/.claude/.policy.json /home/other/.claude/.policy.json"}, "")
    current = section(s.summary(), 8)
    assert "/Users/kb/.claude/.policy.json, ~/.claude/.policy.json" not in current
    assert "~/.claude/.policy.json, /Users/kb/.claude/.policy.json" not in current


def test_same_file() -> None:
    from compactor.models.local_writefix import same_file, shell_writes

    assert same_file("~/.claude/f", "/Users/kb/.claude/f")
    assert same_file("$HOME/.claude/f", "/home/kb/.claude/f")
    assert not same_file("/home/a/.claude/f", "/home/b/.claude/f")
    assert not same_file("~/f", "/opt/f")
    assert shell_writes("cat > ~/a.json << 'EOF'\nx > /tmp/no\nEOF") == {"~/a.json"}
    assert shell_writes("echo x | tee -a log.txt >/dev/null") == {"log.txt"}
