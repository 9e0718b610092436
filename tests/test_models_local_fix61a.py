"""Blind check 61 (fix61a): a daemon a program says it started inside a foreground call is not
an agent job (W1); a piped call whose output ends in an error line failed (W2); the failure
excerpt skips a banner every call of the program prints (W3); ``git clone`` inside an
``echo "…"`` argument clones nothing (W4)."""

from __future__ import annotations

from typing import Any

import pytest

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .cc_session import Session as CcSession
from .test_models_local_session import section


def _summary(s: CcSession, tmp_path: Any) -> str:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


def test_a_pid_a_program_printed_in_a_foreground_call_is_not_a_job(tmp_path: Any) -> None:
    s = CcSession()
    s.user("Get the sync daemon running again.")
    s.bash(
        'echo "=== START ===" && quillsync agent start --verbose --detach',
        "=== START ===\n[quillsync] loading plugins\n[OK] Agent started in background (PID: 48213)",
    )
    s.bash("quillsync agent status", "AGENT STATUS:\n  Status: STOPPED\n  Uptime: -")
    s.assistant([{"type": "text", "text": "The agent is not staying up; looking at its log."}])
    text = _summary(s, tmp_path)
    pending, step = section(text, 7), section(text, 9)
    assert "48213" not in pending and "do not start it again" not in pending, pending
    assert "still running" not in step, step


def test_a_piped_call_whose_output_ends_in_an_error_line_failed(tmp_path: Any) -> None:
    s = CcSession()
    s.user("Back up the notes store.")
    s.bash(
        'echo "=== dump with the right flags ===" && \\\n'
        "quillsync notes dump --help 2>&1 | head -12 || \\\n"
        'echo "trying yaml..." && \\\n'
        "quillsync notes dump --format yaml --out notes-backup.yaml 2>&1 | head -5",
        "=== dump with the right flags ===\n"
        "[quillsync] plugin cache missing: /home/dev/.quill/plugins/index.db\n"
        "quillsync notes\nNotes commands\n\nSUBCOMMANDS:\n  init   Create the store\n"
        "  list   List notes (ls)\n"
        "[quillsync] plugin cache missing: /home/dev/.quill/plugins/index.db\n"
        "[INFO] Dumping notes to notes-backup.yaml...\n"
        "[ERROR] Dump error: handler not registered: notes_dump",
    )
    s.assistant([{"type": "text", "text": "Looking at the dump handler."}])
    text = _summary(s, tmp_path)
    assert "handler not registered" in text, text
    assert "→ ok" not in text, text


_BANNER = "[Plugin Shim] Manifest index not found: /home/dev/.quill/plugins/manifest.json"


def test_a_failure_is_told_by_its_error_lines_not_by_a_banner(tmp_path: Any) -> None:
    s = CcSession()
    s.user("Export the notes and commit the backup.")
    s.bash("quillsync notes list --limit 2", f"{_BANNER}\nnote-1 groceries\nnote-2 ideas")
    s.call(
        "Bash",
        {"command": 'echo "step 2: export" && quillsync notes export > notes.bak && ls notes.bak'},
        f"Exit code 1\nstep 2: export\n{_BANNER}\n"
        "[ERROR] Required option missing: --dest\n"
        "[ERROR] Invalid value for --kind: text. Must be one of: json, csv",
        error=True,
    )
    s.assistant([{"type": "text", "text": "The export needs other flags."}])
    text = _summary(s, tmp_path)
    failed = [line for line in text.splitlines() if "quillsync notes export" in line]
    told = [line for line in failed if "failed" in line and ":" in line.split("failed", 1)[1]]
    assert told and all("Manifest index not found" not in line for line in told), failed
    assert any("[ERROR] " in line for line in told), told


@pytest.mark.parametrize(
    "command",
    [
        'echo "=== on another PC ===" && echo "1. cd ~; git clone https://git.example.org/ana/'
        'widget-kit.git" "2. run setup" && git ls-files | sort',
        "cat << 'EOF'\nON ANOTHER PC\n  git clone https://git.example.org/ana/widget-kit.git\n"
        "  cd widget-kit && ./setup.sh\nEOF",
        "printf '%s\\n' 'then: git clone https://git.example.org/ana/widget-kit.git | tee log'",
    ],
)
def test_git_clone_as_text_of_echo_or_a_heredoc_creates_no_folder(
    command: str, tmp_path: Any
) -> None:
    s = CcSession()
    s.user("Show how the setup is restored on another PC.")
    s.bash(command, "ON ANOTHER PC\n  git clone https://git.example.org/ana/widget-kit.git")
    s.assistant([{"type": "text", "text": "That is the whole restore."}])
    text = _summary(s, tmp_path)
    assert "widget-kit/" not in section(text, 3), section(text, 3)


def test_a_real_git_clone_still_creates_its_folder(tmp_path: Any) -> None:
    s = CcSession()
    s.user("Fetch the kit.")
    s.bash(
        'echo "cloning; wait" && git clone https://git.example.org/ana/widget-kit.git',
        "Cloning into 'widget-kit'...",
    )
    s.assistant([{"type": "text", "text": "Cloned."}])
    assert "widget-kit/" in section(_summary(s, tmp_path), 3)
