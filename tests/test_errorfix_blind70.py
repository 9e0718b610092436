"""Section 4's "Fixed: a later …" (blind check 70 W4, W5): another program's success fixes a
failure only when the failing command did not fail again later, and a ``cmd /c …`` that printed
only cmd.exe's banner never ran its program. Sessions built by shape, invented content."""

from __future__ import annotations

from .cc_session import Session, section

_MISSING = "/bin/bash: line 1: /home/ana/.tool/bin/quill: No such file or directory"


def _quill(s: Session, again: str | None) -> str:
    s.user("install quill and check that it runs")
    s.call("Bash", {"command": "quill --version"}, _MISSING, error=True)
    s.say("The quill on PATH is broken; let me try it through npx.")
    s.call("Bash", {"command": "npx quill --version"}, "4.2.0 (Quill)")
    s.say("npx works. Let me put the local bin first on PATH.")
    s.call("Bash", {"command": "echo 'export PATH=$HOME/.tool/lib:$PATH' >> ~/.bashrc"}, "")
    s.call("Bash", {"command": "source ~/.bashrc && quill --version"}, _MISSING, error=True)
    s.call("Bash", {"command": "which quill"}, "/home/ana/.npm/_npx/3f1c/node_modules/.bin/quill")
    if again is None:
        s.call("Bash", {"command": "ls ~/.tool"}, "bin\nlib")
    else:
        s.call("Bash", {"command": "quill --version"}, again, error=True)
        s.say("Still broken; let me run the copy in the local folder directly.")
        s.call("Bash", {"command": "~/.tool/lib/bin/quill --version"}, "4.2.0 (Quill)")
    s.say("Still a PATH issue; I will look at the shell profile next.")
    return section(s.summary(), 4)


def test_another_programs_success_is_no_fix_when_the_command_fails_again_later() -> None:
    errors = _quill(Session(), _MISSING)
    assert "Fixed: a later `Bash: npx quill --version`" not in errors
    assert "Not fixed: a later `Bash: quill --version` failed too." in errors


def test_another_programs_success_still_fixes_a_failure_that_did_not_recur() -> None:
    errors = _quill(Session(), None)
    assert "Fixed: a later `Bash: npx quill --version` succeeded." in errors


_BANNER = (
    "Microsoft Windows [Version 10.0.26100.4652]\n"
    "(c) Microsoft Corporation. All rights reserved.\n\n"
    "C:\\Users\\ana\\proj>"
)


def _lark(output: str) -> str:
    s = Session()
    s.user("download the lark CLI and check its version")
    s.call(
        "Bash",
        {"command": ".\\lark_cli\\lark.exe --version"},
        "/usr/bin/bash: line 1: .lark_clilark.exe: command not found",
        error=True,
    )
    s.say("Bash cannot run it directly; let me go through cmd.")
    s.call("Bash", {"command": 'cmd /c "lark_cli\\lark.exe --version"'}, output)
    s.say("Done.")
    return section(s.summary(), 4)


def test_a_cmd_run_that_printed_only_the_shell_banner_fixes_nothing() -> None:
    errors = _lark(_BANNER)
    assert "Worked around" not in errors
    assert "(printed only the shell's banner: its program never ran)" in errors


def test_a_cmd_run_that_printed_the_programs_output_fixes_the_failure() -> None:
    errors = _lark("Lark 0.11.1")
    assert 'Worked around by `Bash: cmd /c "lark_cli\\lark.exe --version"` (succeeded).' in errors
