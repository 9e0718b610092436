"""Section 4's "error → fix" pairing and section 7's unfixed failures (fix57b, issue 28; blind
checks 57 and 58). Each session is built by shape, with invented content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.models.local import summarize_transcript

from .codex_rollout import codex_say, codex_summary, codex_user, exec_head, rec
from .planted_session import SessionBuilder
from .test_models_local_session import section

# -- 7. a listing used as an existence check (57 W4) ----------------------------------------------

_NO_MATCH = "Exit code 1\n(eval):1: no matches found: /Users/pat/hangar/launch-*.command"


def test_section_7_lists_no_existence_check_as_unresolved() -> None:
    s = SessionBuilder()
    s.user("stop the hangar launcher and clean up its helper scripts")
    probe = "ls -la ~/hangar/launch-*.command 2>/dev/null"
    s.call("Bash", {"command": probe}, _NO_MATCH, error=True)
    s.say("No launch scripts exist; stopping the process now.")
    s.call("Bash", {"command": "kill 48213"}, "")
    summary = summarize_transcript(s.messages)
    assert "Unresolved failure" not in section(summary, 7), section(summary, 7)
    four = section(summary, 4)
    assert "A fact it established (not a failure to fix)" in four, four


# -- 5. "installed" is about what the user was asked to do (58 W3) --------------------------------


def _installed_after_failures(later_node: str, *, error: bool) -> str:
    s = SessionBuilder()
    s.user("set up the weather widget build on this machine")
    for command in ("node --version; npm --version", 'Write-Output "probe"', "Get-Location"):
        s.call("PowerShell", {"command": command}, "Exit code 1", error=True)
    s.say(
        "Node.js is not installed. Download the LTS installer from nodejs.org, run it, then "
        "reopen the terminal and tell me when node is installed."
    )
    s.user("installed")
    s.call("Bash", {"command": "node --version"}, later_node, error=error)
    s.say("Checked node.")
    return section(summarize_transcript(s.messages), 4)


def test_a_short_done_message_is_tied_only_to_the_failure_it_answers() -> None:
    four = _installed_after_failures("v22.3.0", error=False)
    assert four.count("fixed it themselves") == 1, four  # node's, not Write-Output's
    assert 'Write-Output "probe"` failed' in four
    probe_line = next(x for x in four.splitlines() if "Write-Output" in x)
    assert "themselves" not in probe_line, four


def test_a_done_message_does_not_fix_what_fails_again_later() -> None:
    four = _installed_after_failures("Exit code 127\nbash: node: command not found", error=True)
    assert "fixed it themselves" not in four, four


# -- 6. "the last failures before the limit" are the last ones, and open (57 W1) -----------------

_LIMIT = "You've hit your limit · resets 3am (Europe/Lisbon)"


def _limited(last_fails: bool) -> str:
    s = SessionBuilder()
    s.user("build the portfolio landing page with my photo")
    s.call(
        "AskUserQuestion",
        {"questions": [{"question": "Which stage first?", "options": [{"label": "photos"}]}]},
        "User rejected using . Please acknowledge this and suggest alternative approaches.",
        error=True,
    )
    s.say("Understood, I won't ask again; I'll start with a static photo.")
    s.call("Write", {"file_path": "/w/site/index.html", "content": "<h1>Hi</h1>"}, "File created")
    s.call(
        "WebFetch",
        {"url": "https://pixhost.example/9QwErT"},
        'Host "pixhost.example" is not on the network allowlist (egress-blocked).',
        error=True,
    )
    s.say("I can't reach that host; please paste the direct image link.")
    s.user('<a href="https://i.pixhost.example/9QwErT/me.jpg">me</a>')
    for n in range(8):
        s.call(
            "Edit",
            {"file_path": "/w/site/index.html", "old_string": f"v{n}", "new_string": f"v{n + 1}"},
            "The file has been updated.",
        )
    if last_fails:
        s.call(
            "Bash",
            {"command": "npx netlify deploy --prod"},
            "Exit code 1\nError: Not authorized",
            error=True,
        )
    s.say(_LIMIT)
    return section(summarize_transcript(s.messages), 7)


def test_the_last_failures_before_the_limit_are_near_it_and_open() -> None:
    pending = _limited(last_fails=False)
    assert "stopped at the agent CLI's usage limit" in pending, pending
    assert "The last failures before the limit" not in pending, pending
    pending = _limited(last_fails=True)
    line = next(x for x in pending.splitlines() if "The last failures before the limit" in x)
    assert "netlify deploy" in line and "pixhost" not in line and "rejected" not in line, line


def test_a_rejected_question_and_a_fetch_the_user_supplied_are_not_open_failures() -> None:
    s = SessionBuilder()
    s.user("put my photo on the landing page")
    s.call(
        "AskUserQuestion",
        {"questions": [{"question": "Avatar or photo?"}]},
        "User rejected using . Please acknowledge this.",
        error=True,
    )
    s.say("Understood; a static photo then.")
    s.call(
        "WebFetch",
        {"url": "https://pixhost.example/7Zx"},
        'Host "pixhost.example" is not on the network allowlist.',
        error=True,
    )
    s.say("Please paste the direct link.")
    s.user("https://i.pixhost.example/7Zx/me.jpg")
    s.call(
        "Edit",
        {"file_path": "/w/site/index.html", "old_string": "a", "new_string": "b"},
        "The file has been updated.",
    )
    s.say(_LIMIT)
    pending = section(summarize_transcript(s.messages), 7)
    assert "The last failures before the limit" not in pending, pending


# -- 2. a retry is the same search, not the same tool on the same path (58 W6) -------------------


def _globs(later_pattern: str) -> str:
    s = SessionBuilder()
    s.user("where are my editor settings files?")
    s.call(
        "Glob",
        {"pattern": "**/.editor/prefs*.json", "path": "/home/lin"},
        "Ripgrep search timed out after 20 seconds",
        error=True,
    )
    s.call("Glob", {"pattern": later_pattern, "path": "/home/lin"}, "No files found")
    s.say("Done looking.")
    return section(summarize_transcript(s.messages), 4)


def test_a_narrower_search_of_the_same_path_does_not_fix_a_timed_out_one() -> None:
    four = _globs(".editor/prefs.json")
    assert "Fixed: a later" not in four, four
    assert "Fixed: a later" in _globs("**/.editor/prefs*.json"), _globs("**/.editor/prefs*.json")


# -- 1. a dry run fixes nothing; a cause that comes back is not fixed (58 W7) ---------------------

_MIGRATE = "cd /srv/tally; node scripts/move-rosters.js"
_DENIED = "Exit code 1\nERROR on league 41: Missing Access"


def _migration(*, real: bool, denied_later: bool = False) -> str:
    s = SessionBuilder()
    s.user("migrate leagues 41 and 42 to the new roster channels")
    s.call("Bash", {"command": f"{_MIGRATE} --commit 41 42 2>&1"}, _DENIED, error=True)
    s.say("League 41 failed with Missing Access; let me try a dry run for 41.")
    s.call(
        "Bash",
        {"command": f"{_MIGRATE} --dry-run 41"},
        "mode: DRY-RUN\n[dry-run] would reuse existing channel 771\n[dry-run] would post roster",
    )
    if real:
        s.call(
            "Bash",
            {"command": f"{_MIGRATE} --commit --in-place 41"},
            "reused channel 771, posted roster message 9031, locked it, DB updated",
        )
    if denied_later:
        s.call(
            "Bash",
            {"command": "node scripts/add-members.js 41"},
            "Exit code 1\nDiscordAPIError[50001]: Missing Access (status 403)",
            error=True,
        )
    s.say("Done with league 41.")
    return section(summarize_transcript(s.messages), 4)


def test_a_dry_run_fixes_nothing_the_real_run_does() -> None:
    four = _migration(real=False)
    assert "--dry-run 41` succeeded" not in four, four
    assert "Not fixed: a later run of it was only a dry run" in four, four
    four = _migration(real=True)
    assert (
        "Fixed: a later `Bash: cd /srv/tally; node scripts/move-rosters.js --commit --in-place 41`"
        in four
    ), four


def test_a_fix_whose_permission_cause_comes_back_is_not_fixed() -> None:
    four = _migration(real=True, denied_later=True)
    item = four.split("--commit 41 42 2>&1` failed", 1)[1].split("\n   - ", 1)[0]
    assert "Fixed:" not in item and "the same cause came back: Missing Access" in item, four


# -- 3. the sandbox's refusal is worked around by the same command with more rights (57 W6) -------

_SERVE = "python3 tools/preview_server.py --port 4455"
_REFUSED = (
    'Traceback (most recent call last):\n  File "tools/preview_server.py", line 40, in <module>\n'
    "PermissionError: [Errno 1] Operation not permitted"
)


def _codex_call(n: int, name: str, args: dict[str, Any], out: str) -> list[dict[str, Any]]:
    call = {"type": "function_call", "name": name, "call_id": f"c{n}"}
    call["arguments"] = json.dumps(args)
    output = {"type": "function_call_output", "call_id": f"c{n}", "output": out}
    return [rec("response_item", call), rec("response_item", output)]


def test_a_sandboxed_failure_is_worked_around_by_its_escalated_rerun(tmp_path: Path) -> None:
    patch = "*** Begin Patch\n*** Update File: svc/orchestrator.py\n@@\n-import web\n+import a\n"
    records = [
        codex_user("start the preview server and fix the orchestrator import"),
        *_codex_call(1, "exec_command", {"cmd": _SERVE}, exec_head(None, "", 5521)),
        *_codex_call(2, "write_stdin", {"session_id": 5521, "chars": ""}, exec_head(1, _REFUSED)),
        codex_say("The sandbox blocks binding the port; re-running with escalation."),
        *_codex_call(
            3,
            "exec_command",
            {"cmd": _SERVE, "sandbox_permissions": "require_escalated"},
            exec_head(None, "Preview server running at http://localhost:4455/", 5530),
        ),
        *_codex_call(4, "apply_patch", {"input": patch}, "Success. Updated the following files"),
        codex_say("The server runs and the import is fixed."),
    ]
    four = section(
        codex_summary(records, tmp_path, "0b0e0c0a-0000-4000-8000-000000000057", "/w"), 4
    )
    item = four.split("PermissionError", 1)[1].split("\n   - ", 1)[0]
    assert "Worked around by `exec_command" in item and "(escalated" in item, four
    assert "apply_patch" not in item, four


# -- 4. a failure split into parts, the rest fixed by an edit, is fixed (58 W4) -------------------

_FIRST = "git add .gitignore notes/ -vendor-kit/ README.md 2>&1"
_SPLIT = 'git add .gitignore notes/ README.md 2>&1 && git add -- "-vendor-kit/" 2>&1'


def _split_then_fixed(*, committed: bool) -> str:
    s = SessionBuilder()
    s.user("put the workspace under git and make the first commit")
    s.call("Bash", {"command": _FIRST}, "Exit code 129\nerror: unknown switch `v'", error=True)
    s.say("The dash-named folder is read as a flag; staging the rest first, then that one.")
    s.call(
        "Bash",
        {"command": _SPLIT},
        "Exit code 128\nerror: '-vendor-kit/' does not have a commit checked out\n"
        "fatal: adding files failed",
        error=True,
    )
    s.say("-vendor-kit/ is a nested repository; excluding it in .gitignore.")
    s.call(
        "Edit",
        {
            "file_path": "/w/ws/.gitignore",
            "old_string": "*.log",
            "new_string": "*.log\n-vendor-kit/",
        },
        "The file has been updated.",
    )
    s.call("Bash", {"command": "git add .gitignore 2>&1 && git status --short | wc -l"}, "212")
    if committed:
        s.call(
            "Bash",
            {"command": 'git commit -m "Initial commit" 2>&1'},
            "[master (root-commit) 5e1d2c3] Initial commit\n 212 files changed",
        )
    s.say("Committed.")
    return section(summarize_transcript(s.messages), 4)


def test_a_split_failure_whose_rest_an_edit_fixed_is_not_left_unfixed() -> None:
    four = _split_then_fixed(committed=True)
    item = four.split(f"{_FIRST}` failed", 1)[1].split("\n   - ", 1)[0]
    assert "Not fixed" not in item, four
    assert "Fixed by editing" in item or "Worked around by" in item or "Fixed:" in item, four


def test_a_later_sandbox_refusal_elsewhere_does_not_reopen_a_fixed_read() -> None:
    s = SessionBuilder()
    s.user("read the release checklist and list the repo files")
    denied = "Exit code 1\nsed: /opt/notes/checklist.md: Operation not permitted"
    s.call("Bash", {"command": "sed -n '1,80p' /opt/notes/checklist.md"}, denied, error=True)
    s.call("Bash", {"command": "sed -n '1,80p' /opt/notes/checklist.md"}, "1. tag\n2. publish")
    s.call(
        "Bash",
        {"command": "rg --files /opt/other"},
        "Exit code 2\nrg: /opt/other: Operation not permitted",
        error=True,
    )
    s.say("Read the checklist.")
    four = section(summarize_transcript(s.messages), 4)
    item = four.split("checklist.md` failed", 1)[1].split("\n   - ", 1)[0]
    assert "Fixed: a later" in item and "same cause" not in item, four
