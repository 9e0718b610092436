"""Blind check 9's noise in the local summary (issue 28 point 6, noise8), each kind on a session
built here by shape: banners and ANSI colour codes taken for failures, Claude Code's injected
``<system-reminder>`` taken for a result, local-command markup among the user's messages, a
warning taken for a failure, "Errors and fixes" links between unrelated calls."""

from __future__ import annotations

import pytest

from compactor.models.local import summarize_transcript
from compactor.pipeline.finalize import select_user_messages
from compactor.schema import AgenticMessage, Block

from .planted_session import SessionBuilder
from .test_models_local_session import section

_ESC = "\x1b"
_RULE = f"{_ESC}[0;36m{_ESC}[1m" + "═" * 60 + f"{_ESC}[0m"
_BANNER = (
    f"{_RULE}\n{_ESC}[0;36m{_ESC}[1mAcme Shell Bridge v3 - Activation{_ESC}[0m\n{_RULE}\n\n"
    f"{_ESC}[1;33mChecking capabilities...{_ESC}[0m\n  {_ESC}[0;32m✓{_ESC}[0m Layer: Active\n"
    f"  {_ESC}[1;33m○{_ESC}[0m Turbo mode: {_ESC}[1;33mNot found{_ESC}[0m\n{_RULE}\n"
)


def test_a_banner_and_ansi_codes_are_never_the_failure_text() -> None:
    """sw-dns / sw-banner: every Bash output starts with the same coloured banner; a failed
    test run's only informative line is its last ("Memory check for pool... ✗ FAILED")."""
    s = SessionBuilder()
    s.user("validate the fixed build script")
    s.call("Bash", {"command": "ls /srv/build"}, _BANNER + "build.sh\nlib\n")
    s.call("Bash", {"command": "git status --short"}, _BANNER + " M build.sh\n")
    s.call("Bash", {"command": "grep -c pool build.sh"}, _BANNER + "14\n")
    report = (
        f"{_ESC}[0;36m========================{_ESC}[0m\n"
        f"{_ESC}[0;36mTesting: Script syntax valid... {_ESC}[0m{_ESC}[0;32m✓ PASSED{_ESC}[0m\n"
        f"{_ESC}[0;36mTesting: Memory check for pool... {_ESC}[0m{_ESC}[0;31m✗ FAILED{_ESC}[0m"
    )
    s.call("Bash", {"command": "./validate-build.sh"}, _BANNER + report, error=True)
    s.call(
        "Bash",
        {"command": "sudo SIMPLE=1 ./build.sh"},
        f"{_ESC}[0;36m[INFO]{_ESC}[0m Dynamic memory ENABLED\n"
        "/srv/build/lib/mem.sh: line 3: SCRIPT_DIR: readonly variable\n\n" + _BANNER,
        error=True,
    )
    s.call("Bash", {"command": "grep -n Activation tools/bridge.py"}, _BANNER, error=True)
    text = summarize_transcript(s.messages)
    errors = section(text, 4)
    assert "validate-build.sh` failed: Testing: Memory check for pool... ✗ FAILED" in errors, text
    assert "═" not in errors and "[0;36m" not in text and _ESC not in text, text
    assert "build.sh` failed: /srv/build/lib/mem.sh: line 3: SCRIPT_DIR: readonly" in errors
    assert "Acme Shell Bridge" not in errors and "Turbo mode" not in errors, errors
    assert "bridge.py` → failed with no output" in section(text, 8), section(text, 8)


def test_an_injected_system_reminder_is_not_a_result() -> None:
    """sw-dns prefix: "Read(core_system.sh) → returned: Whenever you read a file, you should
    consider whether it looks malicious…" (Claude Code's reminder inside the result)."""
    s = SessionBuilder()
    s.user("why does core_system.sh fail at line 23?")
    body = "    22→elif [[ -f x ]]; then\n    23→fi\n"
    reminder = (
        "\n<system-reminder>\nWhenever you read a file, you should consider whether it looks "
        "malicious. If it does, you MUST refuse to improve or augment the code.\n"
        "</system-reminder>\n"
    )
    s.call("Read", {"file_path": "/srv/modules/core_system.sh"}, body + reminder)
    s.user(
        "and check the log too<system-reminder>The TodoWrite tool hasn't been used recently."
        "</system-reminder>"
    )
    s.call("Bash", {"command": "tail -2 /var/log/build.log"}, "step 4 ok" + reminder)
    text = summarize_transcript(s.messages)
    assert "Whenever you read a file" not in text and "TodoWrite tool" not in text, text
    assert "step 4 ok" in text and "and check the log too" in text, text


@pytest.mark.anyio
async def test_local_command_markup_is_not_listed_raw_among_user_messages() -> None:
    """tcu / ocak: ``<command-name>/exit</command-name> <command-message>…`` was listed raw;
    a command with arguments is a request and stays."""

    def user(text: str) -> AgenticMessage:
        return AgenticMessage("user", [Block("user_input_text", text)])

    markup = (
        "<command-name>/{0}</command-name>\n            <command-message>{0}</command-message>\n"
        "            <command-args>{1}</command-args>"
    )
    history = [
        user("port the parser to rust"),
        user(markup.format("effort", "")),
        user(markup.format("compact", "keep the parser notes")),
        user(markup.format("exit", "")),
    ]
    kept, dropped = await select_user_messages(history, 10_000, None, 1_500)
    assert kept == [
        "port the parser to rust",
        "/effort (a CLI command)",
        "/compact keep the parser notes",
        "/exit (a CLI command)",
    ]
    assert not dropped


def test_a_warning_is_not_a_failure() -> None:
    """sw-build: "apt-get install … failed: dpkg-preconfigure: unable to re-open stdin" (no
    is_error; the next ``which arch-chroot`` found what it installed)."""
    s = SessionBuilder()
    s.user("install arch-install-scripts and retry the build")
    s.call(
        "Bash",
        {"command": "sudo apt-get install -y arch-install-scripts"},
        "Reading package lists...\ndpkg-preconfigure: unable to re-open stdin: No such file or "
        "directory\nwarning: a config file was kept\nSetting up arch-install-scripts (29-1) ...",
    )
    s.call("Bash", {"command": "which arch-chroot"}, "/usr/bin/arch-chroot")
    s.say("arch-chroot is installed.")
    text = summarize_transcript(s.messages)
    assert "re-open stdin" not in section(text, 4), section(text, 4)
    assert "0 failed" in text or "failed" not in section(text, 4), section(text, 4)


def test_errors_are_linked_only_to_the_same_tool_on_the_same_target() -> None:
    """sw-dns: "Task(ProjectOrchestrator…) failed: Priority: CRITICAL — Fixed: a later
    Task(…PATCHER…)"; a ``du`` of the chroot "Not fixed: a later sudo bash -c '…resolv.conf'
    failed too"."""
    s = SessionBuilder()
    s.user("debug the modules, then fix DNS in the chroot")
    s.call(
        "Task",
        {"subagent_type": "Orchestrator", "description": "Execute parallel debugging",
         "prompt": "Debug the modules"},
        "Agent: ALPHA\nPriority: CRITICAL\nModules: core.sh\n",
        error=True,
    )  # fmt: skip
    s.call(
        "Task",
        {"subagent_type": "Orchestrator", "description": "Execute patcher deployment",
         "prompt": "Patch the modules"},
        "All modules patched.",
    )  # fmt: skip
    s.call(
        "Bash",
        {"command": "du -sh /mnt/build/chroot && ps aux | grep nspawn | grep -v grep"},
        "1.1G\t/mnt/build/chroot",
        error=True,
    )
    s.call(
        "Bash",
        {"command": "sudo bash -c 'cp /etc/resolv.conf /mnt/build/chroot/etc/resolv.conf'"},
        "cp: cannot create regular file: Read-only file system",
        error=True,
    )
    s.call(
        "Bash",
        {"command": "git add notes.md && git commit -m wip notes.md"},
        "fatal: unable to auto-detect email",
        error=True,
    )
    s.call("Bash", {"command": "git commit -m wip notes.md"}, "[main 1a2b3c4] wip")
    text = summarize_transcript(s.messages)
    errors = section(text, 4)
    assert "Priority: CRITICAL" not in errors, errors
    assert "Fixed: a later Task" not in errors, errors
    du = errors[errors.index("du -sh") :]
    du = du[: du.index("\n   - ") if "\n   - " in du else len(du)]
    assert "Not fixed: a later" not in du and "resolv.conf" not in du, du
    assert "Fixed: a later `Bash: git commit -m wip notes.md` succeeded" in errors, errors
