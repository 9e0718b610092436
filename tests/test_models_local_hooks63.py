"""Blind check 63 N4 (helper gap63): Claude Code's ``attachment`` records of a hook that failed
(``hook_non_blocking_error``: "Cannot find module '/…/hooks/posttooluse.mjs'") reach section 4,
each failing hook once with its count; a hook that succeeded adds nothing. Every session is built
here, by shape, with invented content."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary
from .codex_rollout import sections

_HOOKS = "/opt/node/lib/node_modules/ctx-keeper/hooks"


def _section(text: str, n: str) -> str:
    return sections(text, after="<summary>")[n]


def _hook_error(s: Session, event: str, tool: str, script: str) -> None:
    stderr = (
        "Failed with non-blocking status code: node:internal/modules/cjs/loader:1215\n"
        "  throw err;\n  ^\n\n"
        f"Error: Cannot find module '{_HOOKS}/{script}'\n"
        "    at Module._resolveFilename (node:internal/modules/cjs/loader:1212:15)\n"
    )
    s.attachment(
        {
            "type": "hook_non_blocking_error",
            "hookName": f"{event}:{tool}" if tool else event,
            "toolUseID": "toolu_x",
            "hookEvent": event,
            "stderr": stderr,
            "stdout": "",
            "exitCode": 1,
            "command": f"node {_HOOKS}/{script}",
            "durationMs": 30,
        }
    )


def test_a_hook_failing_on_every_call_is_listed_once_with_its_count(tmp_path: Path) -> None:
    s = Session()
    s.user("tidy the orchard config files")
    for name in ("a", "b", "c"):
        s.call("Read", {"file_path": f"/srv/orchard/{name}.toml"}, f"{name} = 1")
        _hook_error(s, "PostToolUse", "Read", "posttooluse.mjs")
    s.attachment({"type": "hook_success", "hookName": "SessionStart", "content": "ok"})
    s.say("The three files are tidy.")
    errors = _section(cc_summary(s, tmp_path), "4")
    lines = [x for x in errors.split("\n   - ") if "Hook " in x]
    assert len(lines) == 1, errors
    assert "Hook PostToolUse failed 3 times" in lines[0], errors
    assert "Cannot find module" in lines[0] and "posttooluse.mjs" in lines[0], errors
    assert "SessionStart" not in errors, errors


def test_no_hook_failure_no_hook_line(tmp_path: Path) -> None:
    s = Session()
    s.user("tidy the orchard config files")
    s.call("Read", {"file_path": "/srv/orchard/a.toml"}, "a = 1")
    s.attachment({"type": "hook_success", "hookName": "PostToolUse:Read", "content": "ok"})
    s.say("Tidy.")
    assert "Hook " not in _section(cc_summary(s, tmp_path), "4")
