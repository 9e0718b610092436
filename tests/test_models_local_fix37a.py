"""Blind check 36 (fix37a): with the legacy Codex ``shell`` tool (``["bash", "-lc", SCRIPT]``) a
failed ``git commit`` is fixed by the same commit run again (escalated, outside the sandbox), not
by a later read-only ``rg``/``sed`` of the same file, and a failed ``apply_patch`` by the next
patch, not by a commit (W5); a folder a command created and a later ``rm -rf`` removed is no
longer listed as created, nor are the files read in it (W7); a failure the user says he fixed
himself is not "Not fixed" (W8); a server whose kill-and-restart call failed is said to be down
(check 34's leftover). Every session is built here, by shape, with invented content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .cc_session import Session as CcSession
from .cc_session import cc_summary
from .codex_rollout import codex_say, codex_summary, codex_user, rec
from .test_models_local_session import section

_SESSION = "1a2b3c4d-0000-4000-8000-000000000371"


def _legacy(n: int, script: str, code: int, out: str, escalated: bool = False) -> list[Any]:
    """A legacy ``shell`` call running ``bash -lc SCRIPT`` and its JSON output."""
    args: dict[str, Any] = {"command": ["bash", "-lc", script], "workdir": "/w/kit"}
    if escalated:
        args |= {"with_escalated_permissions": True, "justification": "write .git"}
    call = {"type": "function_call", "name": "shell", "call_id": f"s{n}"}
    call["arguments"] = json.dumps(args)
    body = json.dumps({"output": out, "metadata": {"exit_code": code, "duration_seconds": 0.1}})
    result = {"type": "function_call_output", "call_id": f"s{n}", "output": body}
    return [rec("response_item", call), rec("response_item", result)]


def _command(n: int, command: str, code: int, out: str) -> list[Any]:
    """A ``shell_command`` call (one command string) run in /w/kit and its output."""
    args = json.dumps({"command": command, "workdir": "/w/kit"})
    call = {"type": "function_call", "name": "shell_command", "call_id": f"c{n}"}
    call["arguments"] = args
    text = f"Exit code: {code}\nWall time: 0.2 seconds\nOutput:\n{out}"
    result = {"type": "function_call_output", "call_id": f"c{n}", "output": text}
    return [rec("response_item", call), rec("response_item", result)]


def _item(errors: str, head: str) -> str:
    """The section-4 item of the failure whose line starts with ``head``."""
    at = errors.index(head)
    end = errors.find("\n   - `", at)
    return errors[at : end if end > 0 else len(errors)]


# -- W5: the same program and target, not the same wrapper -------------------------------------

_COMMIT = 'git add web/app.js && git commit -m "fix(map): base path for pages"'
_LOCK = "fatal: Unable to create '/w/kit/.git/index.lock': Permission denied\n"
_READ = "rg -n \"function loadSaved|KEYS.view|view:\" -n web/app.js && sed -n '300,390p' web/app.js"


def test_a_wrapped_commit_is_fixed_by_its_escalated_rerun_not_by_a_read(tmp_path: Path) -> None:
    records = [
        codex_user("Fix the base path and commit it."),
        *_legacy(1, _COMMIT, 128, _LOCK),
        *_legacy(
            2, "sudo chown -R node:node .git && " + _COMMIT, 1, "sudo: a password is required\n"
        ),
        *_legacy(3, _READ, 0, "301: function loadSaved() {\n"),
        *_legacy(4, _COMMIT, 0, "[main 1410184] fix(map): base path for pages\n", escalated=True),
        codex_say("Committed."),
    ]
    errors = section(codex_summary(records, tmp_path, _SESSION, "/w/kit"), 4)
    for head in ("`shell: bash -lc git add", "`shell: bash -lc sudo chown"):
        item = _item(errors, head)
        assert "rg -n" not in item, errors  # a read of the file fixed no commit
        assert "Fixed: a later `shell: bash -lc git add web/app.js" in item, errors
        assert "(escalated, outside the sandbox)` succeeded" in item, errors


def test_a_failed_wrapped_patch_is_fixed_by_the_next_patch_not_a_commit(tmp_path: Path) -> None:
    patch = (
        "apply_patch << 'PATCH'\n*** Begin Patch\n*** Update File: web/app.js\n@@\n"
        "-const lang = 'ja';\n+const lang = 'en';\n*** End Patch\nPATCH"
    )
    push = 'git add web/app.js && git commit -m "feat(lang): header" && git push'
    failed = "error: Failed to find expected lines in web/app.js:\nconst lang = 'ja';\n"
    records = [
        codex_user("Switch the language and commit."),
        *_legacy(1, patch, 1, failed),
        *_legacy(2, push, 0, "[main 4437934] feat(lang): header\n", escalated=True),
        *_legacy(3, patch.replace("const lang = 'ja'", "let lang = 'ja'"), 0, "Success.\n"),
        codex_say("Done."),
    ]
    errors = section(codex_summary(records, tmp_path, _SESSION, "/w/kit"), 4)
    item = _item(errors, "`shell: bash -lc apply_patch")
    assert "git commit" not in item, errors
    assert "Fixed: a later `shell: bash -lc apply_patch" in item and "let lang" in item, errors


# -- W7: a folder made, then removed ------------------------------------------------------------


def _scaffold(remove: str) -> list[Any]:
    return [
        codex_user("Scaffold the app at the repository root."),
        *_command(1, "npx create-next-app@latest trip-app --ts --yes", 0, "Success! Created\n"),
        *_command(2, "cat trip-app/package.json", 0, '{"name": "trip-app"}\n'),
        *_command(3, "cat README.md", 0, "# Kit\n"),
        *_command(4, "rsync -a /w/kit/trip-app/ /w/kit/", 0, ""),
        *_command(5, remove, 0, ""),
        *_command(6, "ls", 0, "app\ncomponents\npackage.json\n"),
        codex_say("The app is at the repository root now."),
    ]


def test_a_created_folder_removed_later_is_not_listed_as_created(tmp_path: Path) -> None:
    for remove in ("rm -rf /w/kit/trip-app", "rm -rf trip-app"):  # absolute or relative
        files = section(codex_summary(_scaffold(remove), tmp_path, _SESSION, "/w/kit"), 3)
        assert "(npx create-next-app)" not in files, files
        assert "trip-app/package.json" not in files, files  # gone with its folder
        assert "Read, not changed: /w/kit/README.md" in files, files  # still there


def test_a_created_folder_not_removed_is_still_listed(tmp_path: Path) -> None:
    files = section(codex_summary(_scaffold("rm -rf /w/kit/tmp"), tmp_path, _SESSION, "/w/kit"), 3)
    assert "`trip-app/` (npx create-next-app)" in files, files
    assert "/w/kit/trip-app/package.json" in files, files


# -- W8: the user says he fixed it -------------------------------------------------------------

_CACHE = "npm error code EACCES\nnpm error Your cache folder contains root-owned files\n"
_INSTALL = "npm install toastly next-themes --legacy-peer-deps"


def _installs(reply: str, then: list[Any]) -> list[Any]:
    return [
        codex_user("Add the toast component."),
        *_command(1, _INSTALL, 1, _CACHE),
        *_command(2, _INSTALL, 1, _CACHE),
        *_command(3, "npx shadcn@latest add toastly", 1, _CACHE),
        codex_say("npm's cache is owned by root: run `sudo chown -R 501:20 ~/.npm`, then install."),
        codex_user(reply),
        *then,
        codex_say("The toaster is in app/layout.tsx now."),
    ]


def test_a_failure_the_user_says_he_fixed_is_not_unfixed(tmp_path: Path) -> None:
    read = _command(4, "cat components/ui/toastly.tsx", 0, "export function Toaster() {}\n")
    for reply in ("ok i already install toastlly. continue", "done, continue"):  # a typo too
        summary = codex_summary(_installs(reply, read), tmp_path, _SESSION, "/w/kit")
        errors = section(summary, 4)
        for head in ("`shell_command: npm install toastly", "`shell_command: npx shadcn"):
            item = _item(errors, head)
            assert "Not fixed" not in item, errors
            assert f'The user says they fixed it themselves: "{reply}"' in item, errors
        assert "Unresolved failure" not in section(summary, 7), summary


def test_a_user_message_that_fixed_nothing_leaves_the_failure_open(tmp_path: Path) -> None:
    again = _command(4, _INSTALL, 1, _CACHE)
    for reply, then in (
        ("I fixed the readme typo, but the install still fails", []),  # not this one
        ("please continue with the next task", []),  # no word of a fix
        ("ok i already installed toastly, continue", again),  # it failed again after
    ):
        errors = section(codex_summary(_installs(reply, then), tmp_path, _SESSION, "/w/kit"), 4)
        install = _item(errors, "`shell_command: npm install toastly")
        assert "The user says they fixed it" not in install, (reply, errors)


# -- check 34's leftover: a kill-and-restart whose restart failed -------------------------------

_START = "cd /home/dev/board && nohup bun run talk-server.ts > logs/talk.log 2>&1 &"
_RESTART = (
    "pkill -f talk-server; sleep 2; cd /home/dev/board/talk && "
    "nohup bun run talk-server.ts > logs/talk.log 2>&1 &"
)


def _restart_session(then: list[tuple[str, str, bool]]) -> CcSession:
    s = CcSession()
    s.user("Start the talk server and test German.")
    started = "Command running in background with ID: bash_7"
    s.call("Bash", {"command": _START, "run_in_background": True}, started)
    s.call("Bash", {"command": "curl -s localhost:8888/health"}, '{"ok":true}')
    s.say("The server runs. Now I restart it with the fix.")
    gone = "Exit code 1\n(eval):1: no such file or directory: logs/talk.log"
    s.call("Bash", {"command": _RESTART}, gone, error=True)
    for command, out, error in then:
        s.call("Bash", {"command": command}, out, error=error)
    return s


def test_a_server_whose_restart_failed_is_said_to_be_down(tmp_path: Path) -> None:
    pending = section(cc_summary(_restart_session([]), tmp_path), 7)
    assert "Background job still running" not in pending, pending
    assert "Probably down: `cd /home/dev/board && nohup bun run talk-server.ts" in pending, pending
    assert 'whose restart failed ("(eval):1: no such file or directory: logs/talk.log")' in pending


def test_a_server_started_again_or_only_killed_is_not_said_down(tmp_path: Path) -> None:
    again = ("cd /home/dev/board && nohup bun run talk-server.ts > /tmp/talk.log 2>&1 &", "", False)
    pending = section(cc_summary(_restart_session([again]), tmp_path), 7)
    assert "Probably down" not in pending, pending
    s = CcSession()
    s.user("Stop the talk server.")
    s.call(
        "Bash", {"command": _START, "run_in_background": True}, "running in background with ID: b1"
    )
    s.call("Bash", {"command": "pkill -f talk-server; false"}, "Exit code 1", error=True)
    assert "Probably down" not in section(cc_summary(s, tmp_path), 7)
