"""Blind check 43 (helper fix43a): a failed write to a closed stdin, a job the agent stopped and
ran again, a worded plan rejection with no later plan, a reinstalled CLI that worked again in a
sub-agent, and an own summary's renames done by a later edit. Every session is built here, by
shape, with invented content."""

from __future__ import annotations

import re
from pathlib import Path

from .cc_session import Session as CcSession
from .codex_rollout import Rollout, codex_say, codex_summary, codex_user, exec_head, rec, sections

_CWD = "/work/kite"
_LOOP = (
    'for i in 1 2 3; do echo "RUN:$i"; WORKERS=1 pnpm exec playwright test '
    "e2e/sync-merge.spec.ts e2e/replay-once.spec.ts || break; done"
)
_AGAIN = "WORKERS=1 pnpm exec playwright test e2e/sync-merge.spec.ts e2e/replay-once.spec.ts"
_CLOSED = (
    "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to "
    "keep stdin open"
)


def _stopped_loop(tmp_path: Path, rerun: bool = True, stop: bool = True) -> dict[str, str]:
    r = Rollout(_CWD)
    r.records.append(codex_user("make the sync specs pass reliably"))
    r.exec(_LOOP, exec_head(None, "RUN:1\n", 74101, chunk="9f"))
    r.stdin(
        74101,
        "",
        exec_head(
            None,
            "  1) e2e/sync-merge.spec.ts:12 › merges offline edits\n"
            "    Error: expect(locator).toContainText(expected) failed\n  1 failed\n",
            74101,
            chunk="9f",
        ),
        tokens=12000,
    )
    if stop:
        r.records.append(codex_say("The first run failed; I'm stopping the repeated loop there."))
        r.stdin(74101, "\u0003", _CLOSED, tokens=4000)
    patch = "*** Begin Patch\n*** Update File: e2e/sync-merge.spec.ts\n-a\n+b\n*** End Patch\n"
    r.n += 1
    call = {"type": "custom_tool_call", "name": "apply_patch", "call_id": f"call_{r.n}"}
    r.records += [
        rec("response_item", {**call, "input": patch}),
        rec(
            "response_item",
            {
                "type": "custom_tool_call_output",
                "call_id": f"call_{r.n}",
                "output": "Success. Updated the following files:\nM e2e/sync-merge.spec.ts\n",
            },
        ),
    ]
    if rerun:
        r.exec(_AGAIN, exec_head(None, "Running 2 tests\n", 49180, chunk="9f"))
        r.stdin(49180, "", exec_head(0, "  2 passed (31.2s)\n", 49180, chunk="9f"), tokens=12000)
    r.exec("git status --short", exec_head(0, " M e2e/sync-merge.spec.ts\n", chunk="9f"))
    r.records.append(
        codex_say("The sync specs pass now; the merge spec waited on a stale locator.")
    )
    text = codex_summary(r.records, tmp_path, "0c1d2e3f-0000-4000-8000-000000000043", _CWD)
    return sections(text)


# W2: a poll tool's "write_stdin failed: …" is a failed call, never the fix of an earlier failure


def test_a_write_to_a_closed_stdin_is_a_failed_call_not_a_fix(tmp_path: Path) -> None:
    parts = _stopped_loop(tmp_path)
    errors = parts["4"]
    assert "Fixed: a later `write_stdin" not in errors, errors
    assert "a later `write_stdin" not in errors, errors  # a Ctrl-C is no retry of the poll
    assert "Unresolved failure" not in parts["7"], parts["7"]  # the job was stopped, then rerun
    assert "write_stdin failed: stdin is closed" in errors, errors


def test_a_tool_failed_prefix_is_a_failure() -> None:
    from compactor.facts import Call, Result
    from compactor.facts.outcomes import outcome

    call = Call("c1", "write_stdin", '{"session_id": 5, "chars": ""}', 0)
    assert outcome(Result("c1", "write_stdin", _CLOSED), call).failed
    other = Call("c2", "exec_command", '{"cmd": "pytest"}', 0)
    ok = "Process exited with code 0\nOutput:\ncollected 3 items\n3 passed"
    assert not outcome(Result("c2", "exec_command", ok), other).failed


# W1: a job the agent stopped, whose command ran again in a session seen exiting, is not running


def test_a_job_stopped_and_run_again_is_not_still_running(tmp_path: Path) -> None:
    parts = _stopped_loop(tmp_path)
    text = parts["7"] + parts["9"]
    assert "do not start it again" not in text and "do not start them again" not in text, text
    assert "74101" in parts["7"], parts["7"]
    assert "stopped/abandoned by the agent" in parts["7"], parts["7"]
    assert "session 49180" in parts["7"], parts["7"]


def test_a_job_run_again_without_a_stop_is_not_still_running(tmp_path: Path) -> None:
    parts = _stopped_loop(tmp_path, stop=False)
    text = parts["7"] + parts["9"]
    assert "do not start it again" not in text and "do not start them again" not in text, text
    assert "session 49180" in parts["7"], parts["7"]


def test_a_job_the_agent_sent_ctrl_c_is_not_still_running(tmp_path: Path) -> None:
    parts = _stopped_loop(tmp_path, rerun=False)
    text = parts["7"] + parts["9"]
    assert "do not start it again" not in text and "do not start them again" not in text, text
    assert "stopped/abandoned by the agent" in parts["7"], parts["7"]
    assert "stdin is closed" in parts["7"], parts["7"]


def test_a_job_with_no_later_evidence_stays_running(tmp_path: Path) -> None:
    parts = _stopped_loop(tmp_path, rerun=False, stop=False)
    assert "do not start it again" in parts["7"], parts["7"]


# W3: "the plan was revised and presented again" only when a later plan-approval call exists


def test_a_worded_plan_rejection_with_no_later_plan_is_not_presented_again(tmp_path: Path) -> None:
    from .test_models_local_fix28d import _SAID, _result, _summary, _tool
    from .test_models_local_session import section

    s = CcSession()
    s.user("Plan an autosave for the order form; ask me what you need.")
    plan = {"plan": "# Autosave\n1. save drafts\n2. restore them"}
    s.assistant([_tool("toolu_p1", "ExitPlanMode", plan)])
    _result(s, "toolu_p1", _SAID + "What will the restore prompt look like?", True)
    s.say("Good question! Let me propose some options.")
    ask = {"questions": [{"question": "Which restore prompt?", "header": "UI", "options": []}]}
    s.assistant([_tool("toolu_q1", "AskUserQuestion", ask)])
    problems = section(_summary(s, tmp_path), 5)
    assert "the user asked to change the plan" in problems, problems
    assert "presented again" not in problems, problems
    assert "no revised plan was presented" in problems, problems
    s.assistant([_tool("toolu_p2", "ExitPlanMode", plan)])
    again = section(_summary(s, tmp_path), 5)
    assert "the plan was revised and presented again" in again, again


# W4: an installed CLI's ImportError is fixed by a reinstall and a later working run (sub-agent)

_BROKEN_CLI = (
    'Traceback (most recent call last):\n  File "/home/dev/.local/bin/tagcli", line 4\n'
    "ImportError: cannot import name 'TagModel' from 'tagkit' "
    "(/home/dev/.local/share/uv/tools/tagcli-cli/lib/python3.12/site-packages/tagkit/__init__.py)"
)


def _reinstalled(in_task: bool) -> CcSession:
    from .test_models_local_fix28d import _result, _tool

    s = CcSession()
    s.user("Add a JSON output mode to the tagcli command.")
    s.call("Bash", {"command": 'echo "Hi there" | tagcli -l glad,sad -o json'}, _BROKEN_CLI, True)
    s.user("CLI is broken. please reinstall and test")
    s.bash("uv tool uninstall tagcli-cli", "Uninstalled 1 executable: tagcli")
    s.bash("uv tool install .", "Installed 1 executable: tagcli")
    if in_task:
        prompt = "Test every model through the installed tagcli and report which work."
        s.assistant([_tool("toolu_t1", "Task", {"description": "Test models", "prompt": prompt})])
        main = s.parent
        s.parent = None
        s.user(prompt)
        s.bash('echo "Hi" | tagcli -l glad,sad', "glad => 0.9990\nsad => 0.0010")
        for r in s.records[-3:]:
            r["isSidechain"] = True
        s.parent = main
        report = (
            'Model test summary:\n- The installed tagcli works: `echo "Hi" | tagcli -l glad,sad` '
            "printed glad => 0.9990\n- 10 of 13 models work through the CLI; 3 failed to download."
        )
        _result(s, "toolu_t1", report)
    else:
        s.bash('echo "Hi" | tagcli -l glad,sad -o json', '{"glad": 0.999, "sad": 0.001}')
    s.say("The CLI is reinstalled and works again.")
    return s


def test_a_reinstalled_cli_that_worked_in_a_sub_agent_is_fixed(tmp_path: Path) -> None:
    from .test_models_local_fix28d import _summary
    from .test_models_local_session import section

    for in_task in (True, False):
        errors = section(_summary(_reinstalled(in_task), tmp_path), 4)
        assert "ImportError" in errors, errors
        assert "Fixed: a later" in errors and "reinstalled first" in errors, (in_task, errors)


# W5: an own summary's "Rename A to B" items are done by the later edit (and todo), not a request

_RENAME_SUMMARY = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The conversation is summarized below:\nAnalysis:\nThe user asked for clearer names.\n\n"
    "Summary:\n1. Primary Request and Intent:\n   Clearer splitter names in shared/text.py.\n\n"
    "7. Pending Tasks:\n"
    "   - Rename cut_words_simple to cut_words_regex\n"
    "   - Rename cut_words_advanced to cut_words_model\n\n"
    "8. Current Work:\n   About to rename the two splitters.\n\n"
    "9. Optional Next Step:\n   Rename them in shared/text.py.\n"
)


def _renames(edit: bool) -> CcSession:
    s = CcSession()
    s.user("Give the splitters clearer names.")
    s.say("Working on it.")
    s.compacted(_RENAME_SUMMARY)
    path = "/home/dev/kit/shared/text.py"
    if edit:
        edits = [
            {
                "old_string": "def cut_words_simple(text):",
                "new_string": "def cut_words_regex(text):",
            },
            {
                "old_string": "def cut_words_advanced(text):",
                "new_string": "def cut_words_model(text):",
            },
        ]
        s.call("MultiEdit", {"file_path": path, "edits": edits}, f"Applied 2 edits to {path}")
    todos = [
        {
            "content": "Rename cut_words_simple → cut_words_regex in shared/text.py",
            "status": "completed",
        },
        {"content": "Rename cut_words_advanced to cut_words_model", "status": "completed"},
    ]
    if not edit:
        s.call("TodoWrite", {"todos": todos}, "Todos have been modified successfully.")
    s.say("Both splitters are renamed in shared/text.py.")
    s.user("Okay let's refactor cut_words_model to allow different models")
    change = {
        "file_path": path,
        "old_string": "def cut_words_model(text):",
        "new_string": "def cut_words_model(text, model='small'):",
    }
    s.call("Edit", change, f"The file {path} has been updated.")
    s.say("cut_words_model now takes a model name.")
    return s


def test_own_summary_renames_are_done_by_the_later_edit_or_todo(tmp_path: Path) -> None:
    from .test_models_local_fix28d import _summary
    from .test_models_local_session import section

    for edit in (True, False):
        pending = section(_summary(_renames(edit), tmp_path), 7)
        done = pending.split("Of those, done by the calls after the earlier summary", 1)[-1]
        for item in (
            "cut_words_simple to cut_words_regex",
            "cut_words_advanced to cut_words_model",
        ):
            assert re.search(
                rf"{item}\"? (?:done since \((?:a later edit|`TodoWrite`)|marked completed since)",
                done,
            ), (
                edit,
                pending,
            )
        assert "the user asked for it again" not in done, pending
