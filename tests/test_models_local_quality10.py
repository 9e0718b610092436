"""Blind check 11's wrong statements and noise in the local summary (issue 28, quality pass 10),
each on a session built here by shape: a call the user aborted is never a success; an
announcement the user interrupted is not the answer; ``rg`` exit 1 with no output is "no match";
a call re-issued with escalated permissions says so; long embedded rules are not the request."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.schema import content_type, user_text

from .planted_session import SessionBuilder
from .test_models_local_session import section

_SANDBOX_ERROR = (
    "Process exited with code 1\nOutput:\n** (Mix.Error) failed to open a TCP socket in "
    "Mix.Sync.PubSub.subscribe/1: :eperm (operation not permitted)\n"
)

# -- 1. a call the user aborted, interrupted or cancelled is never a success --------------------


def _aborted_retry(stopped: str) -> SessionBuilder:
    s = SessionBuilder()
    s.user("make the basket update work with forms, then run the checks")
    s.call("exec_command", {"cmd": "make checks"}, _SANDBOX_ERROR, error=False)
    s.say("The sandbox blocks the socket. Running the checks outside the sandbox.")
    s.call(
        "exec_command", {"cmd": "make checks", "sandbox_permissions": "require_escalated"}, stopped
    )
    return s


def test_an_aborted_retry_is_not_a_fix_but_interrupted_by_the_user() -> None:
    for stopped in (
        "aborted by user after 22.9s",
        "[Request interrupted by user for tool use]",
        "Command cancelled by the user",
    ):
        text = summarize_transcript(_aborted_retry(stopped).messages)
        errors, current = section(text, 4), section(text, 8)
        assert "Fixed:" not in errors and "succeeded" not in errors, errors
        assert "was interrupted by the user" in errors and "never completed" in errors, errors
        assert "interrupted by the user, never completed" in current, current
        assert "succeeded" not in current, current
        assert "Interrupted by the user, never completed: `exec_command: make checks" in section(
            text, 7
        ), section(text, 7)


def test_a_log_that_mentions_an_abort_is_output_not_the_call_s_end() -> None:
    s = SessionBuilder()
    s.user("run the job runner tests")
    log = (
        "".join(f"test_{i} ok\n" for i in range(40)) + "job 7 was cancelled by the user (fixture)\n"
    )
    s.call("exec_command", {"cmd": "pytest tests/test_runner.py"}, "Exit code 0\n" + log)
    s.say("All runner tests pass.")
    text = summarize_transcript(s.messages)
    assert "interrupted by the user" not in text.lower(), text


# -- 3. rg / grep exit 1 with no output is "no match"; diff exit 1 is "differences" -------------


def test_rg_exit_one_with_empty_output_is_a_fact_not_an_unresolved_failure() -> None:
    s = SessionBuilder()
    s.user("add a changeset to the Customer schema")
    s.call(
        "exec_command",
        {"cmd": 'rg "Customer\\.changeset|changeset\\(customer" -n lib'},
        "Chunk ID: 1\nProcess exited with code 1\nOriginal token count: 0\nOutput:\n",
    )
    s.call(
        "exec_command",
        {"cmd": "git grep -n 'defmodule Customers.Commands' lib"},
        "Process exited with code 1\nOutput:\n",
    )
    s.call("exec_command", {"cmd": "diff -q a.txt b.txt"}, "Process exited with code 1\nOutput:\n")
    text = summarize_transcript(s.messages)
    assert "Unresolved failure" not in text, section(text, 7)
    assert "failed" not in section(text, 4), section(text, 4)
    current = section(text, 8)
    assert "no match (exit 1, not a failure)" in current, current
    assert "differences found (exit 1, not a failure)" in current, current


def test_rg_exit_one_with_an_error_line_is_still_a_failure() -> None:
    s = SessionBuilder()
    s.user("find the changeset callers")
    s.call(
        "exec_command",
        {"cmd": 'rg "a|b" -n lib'},
        "Process exited with code 2\nOutput:\nrg: lib: No such file or directory (os error 2)\n",
    )
    text = summarize_transcript(s.messages)
    assert "no match" not in section(text, 8), section(text, 8)


# -- 4. a call re-issued with escalated permissions says so, and why ----------------------------


def test_an_escalated_call_in_flight_says_so_and_why() -> None:
    s = SessionBuilder()
    s.user("validate the change with the precommit checks")
    s.call("exec_command", {"cmd": "mix precommit"}, _SANDBOX_ERROR)
    s.say("The sandbox blocks the socket; asking to run it outside the sandbox.")
    why = "Run mix precommit outside the sandbox so Mix can open its local socket?"
    s.call(
        "exec_command",
        {"cmd": "mix precommit", "sandbox_permissions": "require_escalated", "justification": why},
        None,
    )
    text = summarize_transcript(s.messages)
    pending = section(text, 7)
    assert "mix precommit (escalated, outside the sandbox)" in pending, pending
    assert "waits for the user's approval" in pending and why in pending, pending
    assert "Escalated because its run in the sandbox failed:" in pending, pending
    assert ":eperm (operation not permitted)" in pending, pending
    errors = section(text, 4)
    assert ":eperm" in errors, errors  # why it was escalated: the sandboxed run's error
    plain = SessionBuilder()
    plain.user("validate the change")
    plain.call("exec_command", {"cmd": "mix precommit", "with_escalated_permissions": False}, None)
    assert "escalated" not in summarize_transcript(plain.messages)


# -- 2. an announcement the user interrupted is not the answer; one state for 7, 8 and 9 --------


def _announced_then(end: str | None, announcement: str) -> SessionBuilder:
    s = SessionBuilder()
    s.user("继续: apply the new design system to all four landing-page documents")
    s.call(
        "TodoWrite",
        {
            "todos": [
                {"content": "Update Brand.md", "status": "completed", "activeForm": "Updating"},
                {"content": "Update Assets.md", "status": "in_progress", "activeForm": "Updating"},
                {"content": "Update Checklist.md", "status": "pending", "activeForm": "Updating"},
            ]
        },
        "Todos have been modified successfully.",
    )
    s.call("Read", {"file_path": "/repo/docs/Assets.md"}, "1→# Assets v1.3\n")
    s.say(announcement)
    if end is not None:
        s.user(end)
    return s


def test_an_interrupted_announcement_is_not_the_answer() -> None:
    for announcement in (
        "现在更新 Assets.md，应用新的设计系统。",
        "Now updating Assets.md with the new design system.",
        "Let me update Assets.md next.",
    ):
        text = summarize_transcript(
            _announced_then("[Request interrupted by user]", announcement).messages
        )
        pending, current, step = section(text, 7), section(text, 8), section(text, 9)
        for part in (pending, current, step):
            assert "nothing is pending" not in part and "was completed" not in part, part
            assert "The answer to it" not in part, part
        assert "still in progress" in pending and "Update Checklist.md" in pending, pending
        assert "announced a step not done yet" in pending, pending
        assert "interrupted the turn" in current, current
        assert "nothing is running and no call is in flight" in current, current
        assert "Continue the latest request" in step, step


def test_an_answer_followed_by_no_interruption_still_ends_the_turn() -> None:
    s = _announced_then(None, "Assets.md and Checklist.md are updated to the new design system.")
    text = summarize_transcript(s.messages)
    step = section(text, 9)
    assert "Continue the latest request" not in step, step
    # open task-list items: never "nothing is pending" beside them
    assert "nothing is pending" not in step and "task-list items are still open" in step, step


# -- 5a. long rules embedded in the user's first message: printed once, not the request ---------

_RULES = (
    "This web app uses the Phoenix framework.\n\n## Project guidelines\n\n"
    + "".join(
        f"- **Always** use helper_{i}.ex for part {i}; you **must never** call legacy_{i}.ex and "
        f"should avoid raw SQL in module {i}\n"
        for i in range(40)
    )
    + "\n<!-- guidelines-end -->\n"
)
_REQUEST = "Alter lib/shop/basket.ex so that baskets can be updated from one form."


def _codex_rules_session(path: Path) -> Path:
    meta = {
        "id": "0195f0aa-1111-7222-8333-944455556677",
        "cwd": "/home/dev/shop",
        "originator": "codex_cli_rs",
        "cli_version": "0.128.0",
        "source": "cli",
    }
    user = {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_text", "text": _RULES},
            {"type": "input_text", "text": _REQUEST},
        ],
    }
    said = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Now updating lib/shop/basket.ex."}],
    }
    items = [("session_meta", meta), ("response_item", user)]
    for i in range(6):  # some history to compact: long outputs
        call = {"cmd": f"cat lib/shop/part_{i}.ex"}
        items.append(
            (
                "response_item",
                {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": json.dumps(call),
                    "call_id": f"c{i}",
                },
            )
        )
        body = "".join(f"  def f{j}(x), do: x + {j}\n" for j in range(200))
        items.append(
            (
                "response_item",
                {
                    "type": "function_call_output",
                    "call_id": f"c{i}",
                    "output": f"Process exited with code 0\nOutput:\n{body}",
                },
            )
        )
    items.append(("response_item", said))
    path.write_text(
        "".join(
            json.dumps({"timestamp": f"2026-03-02T10:00:{n:02d}.000Z", "type": k, "payload": p})
            + "\n"
            for n, (k, p) in enumerate(items, 1)
        )
    )
    return path


def test_embedded_rules_are_printed_once_and_the_request_quotes_only_its_words(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out.jsonl"
    src = _codex_rules_session(tmp_path / "cx.jsonl")
    result = CliRunner().invoke(
        app, ["run", str(src), "--force", "--model", "local", "-o", str(out), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    t = read_transcript(str(out), out.read_bytes())
    text = next(user_text(m) for m in t.messages if content_type(m) == "summary")
    assert text.count("legacy_17.ex") == 1, text  # the rules once: in the system reminder
    assert text.index("legacy_17.ex") < text.index("<summary>"), text
    request = section(text, 1)
    assert f'"{_REQUEST}"' in request and "helper_3.ex" not in request, request
    assert 'embedded rules ("Project guidelines"' in request, request
    block = text.split("<all_user_messages>")[1].split("</all_user_messages>")[0]
    assert '[the rules "Project guidelines"' in block and _REQUEST in block, block
    assert "helper_3.ex" not in section(text, 3), section(text, 3)  # examples are not "named"


def test_a_pasted_report_is_not_taken_for_rules() -> None:
    s = SessionBuilder()
    report = (
        "## Goal\n\nShip the release.\n\n## Discoveries\n\n"
        + "".join(
            f"- Module {i} builds in {i}.2 s with 0 warnings; tests {i} pass\n" for i in range(80)
        )
        + "\n## Next Steps\n"
    )
    s.user(report + "\ncontinue with the release notes please")
    s.say("Writing the release notes.")
    text = summarize_transcript(s.messages)
    assert "Module 3 builds" in section(text, 1), section(text, 1)
    assert "embedded rules" not in text


# -- 5b, 5e, 5f. names with spaces, a todo list shown in part, one failure printed once ----------


def test_a_file_name_with_spaces_is_whole_or_not_listed_and_lists_say_how_many_more() -> None:
    s = SessionBuilder()
    s.user("fix the notes: Sync with GitHub PRs.md and Things on fire.md need trailing newlines")
    todos = [
        {"content": f"Fix note {i}", "status": "pending", "activeForm": "Fixing"} for i in range(30)
    ]
    s.call("TodoWrite", {"todos": todos}, "Todos have been modified successfully.")
    for _ in range(2):
        s.call("Read", {"file_path": "/vault/plugins/tpl/main.js"},
               "<tool_use_error>File content exceeds maximum allowed tokens</tool_use_error>",
               error=True)  # fmt: skip
    s.call("Edit", {"file_path": "/vault/notes/Sync with GitHub PRs.md", "old_string": "a",
                    "new_string": "b"}, None)  # fmt: skip
    s.call("Edit", {"file_path": "/vault/notes/Things on fire.md", "old_string": "a",
                    "new_string": "b"}, None)  # fmt: skip
    text = summarize_transcript(s.messages)
    files = section(text, 3)
    assert "PRs.md," not in files and ": PRs.md" not in files and " fire.md," not in files, files
    assert not any(ln.rstrip().endswith((" PRs.md", ": fire.md")) for ln in files.splitlines())
    pending = section(text, 7)
    assert "more)" in pending, pending  # 30 open items, not all shown
    assert pending.count("Unresolved failure: `Read(/vault/plugins/tpl/main.js)`") == 1, pending


# -- 5c, 5d, 5g. stack frames are no facts; JSON results as their meaning; "nothing is running" --

_TRACE = (
    "Process exited with code 1\nOutput:\n** (RuntimeError) failed to start Shop.Sync: "
    '{:eperm, [{Shop, :raise, 2, [file: ~c"lib/shop.ex", line: 64]}, '
    '{:gen_server, :init_it, 2, [file: ~c"gen_server.erl", line: 2276]}]}\n'
    "    (shop 1.2.0) lib/shop/sync/worker.ex:36: Shop.Sync.start/0\n"
    "    (stdlib 6.2) proc_lib.erl:333: :proc_lib.init_p_do_apply/3\n"
    'Traceback (most recent call last):\n  File "tools/deploy_helper.py", line 12, in main\n'
    "    at runTask (node_modules/runner/index.js:40:7)\n"
    "Wrote report to out/sync-report-7781.json\n"
)


def test_stack_frames_are_not_what_the_results_established() -> None:
    s = SessionBuilder()
    s.user("run the sync checks")
    s.call("exec_command", {"cmd": "mix sync.check"}, _TRACE)
    s.call("exec_command", {"cmd": "mix sync.check --verbose"}, _TRACE)
    text = summarize_transcript(s.messages)
    current = section(text, 8)
    facts = current.split("What the results of the last rounds established:")[1]
    for frame in ("lib/shop.ex", "gen_server.erl", "proc_lib.erl", "worker.ex",
                  "deploy_helper.py", "index.js"):  # fmt: skip
        assert frame not in facts, facts
    assert "out/sync-report-7781.json" in facts, facts  # what it wrote is a fact


def test_a_json_tool_result_is_shown_as_its_meaning_and_nothing_running_is_said() -> None:
    s = SessionBuilder()
    s.user("build the orchestrator")
    s.call("shell", {"command": ["bash", "-lc", "cargo build -p orchestrator"]},
           '{"output":"","metadata":{"exit_code":0,"duration_seconds":0.7}}')  # fmt: skip
    s.call("shell", {"command": ["bash", "-lc", "cargo test -p orchestrator"]},
           '{"output":"error: 2 tests failed\\n","metadata":{"exit_code":101}}')  # fmt: skip
    text = summarize_transcript(s.messages)
    assert '{"output"' not in text and "metadata" not in text, text
    current = section(text, 8)
    assert "cargo build -p orchestrator` → succeeded, printed nothing" in current, current
    assert "failed (exit 101): error: 2 tests failed" in current, current
    assert "Nothing is running and no call is in flight" in section(text, 7), section(text, 7)


def test_a_retry_the_user_rejected_is_not_a_failure_again_nor_a_fix() -> None:
    s = SessionBuilder()
    s.user("run the migrations")
    refused = "Exit code 1\n** (DBConnection.ConnectionError) connection refused"
    s.call("Bash", {"command": "mix ecto.migrate"}, refused, error=True)
    s.call("Bash", {"command": "mix ecto.migrate"},
           "The user doesn't want to proceed with this tool use. The tool use was rejected.",
           error=True)  # fmt: skip
    errors = section(summarize_transcript(s.messages), 4)
    assert "Not fixed: the user rejected a later `Bash: mix ecto.migrate`" in errors, errors
    assert "failed too" not in errors and "Fixed:" not in errors, errors
