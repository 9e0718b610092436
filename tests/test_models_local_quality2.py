"""Blind check 3's wrong statements in the local summary (issue 28, quality pass 2): an error
the API wrote is not an answer, an old call without a result is not in flight, earlier
summaries inside user messages are shown once and bounded, a re-run that succeeded resolves a
failure, and the next step names every open question."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.facts.durable import EARLIER_SUMMARY, earlier_summary_view, is_earlier_summary
from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.models.local_state import ANSWERED, IN_FLIGHT
from compactor.schema import CONTENT_TYPE_KEY, AgenticMessage, Block, content_type, user_text

from .planted_session import SessionBuilder
from .test_models_local_session import section


def test_an_api_error_after_the_request_is_no_answer_and_the_request_is_unanswered() -> None:
    """solsmile-claude: the user's last two requests were each followed only by the CLI's
    ``API Error: 400 …`` message; the summary called the request completed and quoted the
    error as "the answer"."""
    s = SessionBuilder()
    s.user("Build the contracts.")
    s.call("Bash", {"command": "npx hardhat compile"}, "Compiled 3 Solidity files successfully")
    s.say("Everything is built: the contracts compile and 69 tests pass. " * 3)
    s.user("Deploy the contract to the testnet now.")
    s.say('API Error: 400 {"type":"error","error":{"type":"invalid_request_error"}}')
    text = summarize_transcript(s.messages)
    pending = section(text, 7)
    assert "The latest request is not answered yet" in pending
    assert "errors the API or the agent CLI wrote (1), not answers" in pending
    work = section(text, 8)
    assert "was completed" not in work
    assert "The answer to it" not in work
    assert ANSWERED not in text
    assert "Answer the latest request" in section(text, 9)
    assert "Deploy the contract to the testnet now." in section(text, 9)


def test_a_call_without_result_followed_by_later_rounds_is_not_in_flight() -> None:
    """solsmile-claude: a build call left without a result ~100 messages before the end (the
    same build ran again three times later and succeeded) was "in flight when the session was
    saved" and the next step said to re-run it first."""
    s = SessionBuilder()
    s.user("Build the frontend and commit.")
    s.call("Bash", {"command": "npx next build"}, None)  # never answered: abandoned
    s.say("The build is taking long; running it again with output.")
    s.call("Bash", {"command": "npx next build 2>&1"}, "Compiled successfully")
    s.call("Bash", {"command": "git commit -am 'frontend'"}, "[master 1a2b3c4] frontend")
    s.say("The frontend builds and is committed.")
    text = summarize_transcript(s.messages)
    assert IN_FLIGHT not in text
    assert "run them again" not in section(text, 9)
    assert f"None: {ANSWERED}." in section(text, 9)


def test_the_last_rounds_call_without_result_is_still_in_flight() -> None:
    """The rule's other side: parallel calls of the final round, one answered and one not, and
    no later round: the unanswered one is in flight."""
    s = SessionBuilder()
    s.user("Export the session and read the package file.")
    s.call("shell_command", {"command": "bash export-session.sh ."}, None)
    s.call("shell_command", {"command": "cat package.json"}, '{"name": "app"}')
    text = summarize_transcript(s.messages)
    assert f"{IN_FLIGHT} (1;" in section(text, 7)
    assert "bash export-session.sh ." in section(text, 9)


# -- earlier summaries inside user messages --------------------------------------------------------

_STALE_STEP = "Write the WorkflowService next, then the controllers."
_CLOSER = (
    "Continue the conversation from where it left off without asking the user any further "
    "questions. Resume directly — do not acknowledge the summary."
)


def _earlier_summary(n: int) -> str:
    return (
        "This session is being continued from a previous conversation that ran out of context. "
        "The summary below covers the earlier portion of the conversation.\n\nSummary:\n"
        "1. Primary Request and Intent:\n"
        f"   The user wants the bus platform built (part {n}).\n"
        "2. Key Technical Concepts:\n"
        f"   - Lombok instead of Java records (decided in part {n})\n"
        "   - JWT authentication with BCrypt passwords\n"
        "3. Files and Code Sections:\n"
        "   - backend/src/main/java/com/bus/AuthService.java (created)\n"
        "7. Pending Tasks:\n"
        "   - Write WorkflowService\n"
        "8. Current Work:\n"
        "   Writing the DTO package files.\n"
        "9. Optional Next Step:\n"
        f"   {_STALE_STEP}\n\n{_CLOSER}"
    )


def _openai_session(path: Path) -> Path:
    messages = [
        {"role": "user", "content": "Build the bus platform backend."},
        {"role": "assistant", "content": "Starting with the auth module."},
        {"role": "user", "content": _earlier_summary(1)},
        {"role": "assistant", "content": "Writing the services."},
        {"role": "user", "content": _earlier_summary(2)},
        {"role": "assistant", "content": "The services are written."},
        {"role": "user", "content": "Now check the repo against the docs."},
        {"role": "assistant", "content": "The repo matches the docs: every artifact is present."},
    ]
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    return path


def test_an_earlier_summary_in_a_user_message_is_shown_once_bounded_without_its_stale_state(
    tmp_path: Path,
) -> None:
    """task393-openai: two Claude Code summaries inside user messages were repeated whole under
    "All user messages", each with its own Pending Tasks / Current Work / Next Step and its
    "continue … without asking" closer, before the real sections. Now the latest is shown once,
    as its facts (requests, decisions, files), bounded; the older one is not repeated."""
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(
        app,
        ["run", str(_openai_session(tmp_path / "s.jsonl")), "--force", "--model", "local",
         "-o", str(out), "--quiet"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    t = read_transcript(str(out), out.read_bytes())
    text = next(user_text(m) for m in t.messages if content_type(m) == "summary")
    block = text.split("<all_user_messages>")[1].split("</all_user_messages>")[0]
    assert block.count(EARLIER_SUMMARY) == 1
    assert "Lombok instead of Java records (decided in part 2)" in block
    assert "AuthService.java" in block
    assert "part 1" not in block
    assert "continued from a previous conversation" not in block
    for stale in ("Pending Tasks", "Current Work", "Next Step", _STALE_STEP, "without asking"):
        assert stale not in block, stale
    assert "Build the bus platform backend." in block
    assert "Now check the repo against the docs." in block
    assert _STALE_STEP not in text
    assert f"None: {ANSWERED}." in section(text, 9)


def test_an_earlier_summary_is_known_by_its_sections_whatever_its_opening() -> None:
    """Judged by shape: numbered sections of a summary with a state section, any opening."""
    text = "Context from before:\n\n1. Primary Request and Intent:\n  x\n8. Current Work:\n  y\n"
    assert is_earlier_summary(text)
    assert not is_earlier_summary("1. Primary Request and Intent is what I need you to write.")
    view = earlier_summary_view(_earlier_summary(3), 400)
    assert len(view) <= 400 and view.startswith(EARLIER_SUMMARY)
    assert "Lombok" in view and "Writing the DTO" not in view and "Resume directly" not in view


def test_the_decisions_of_an_earlier_summary_are_kept_within_the_bound() -> None:
    """pv-claude: four decisions lived only in section 2 of Claude Code's own earlier summary,
    which the new summary cut short; its items are now kept, each on one line."""
    s = SessionBuilder()
    s.messages.append(
        AgenticMessage(
            "user",
            [Block("user_input_text", _earlier_summary(4))],
            extra={CONTENT_TYPE_KEY: "summary"},
        )
    )
    s.user("Why does the follow-up POST fail?")
    s.say("The backend is down: nothing listens on port 8080.")
    text = summarize_transcript(s.messages)
    concepts = section(text, 2)
    assert "Lombok instead of Java records (decided in part 4)" in concepts
    assert "JWT authentication with BCrypt passwords" in concepts


# -- failures and their fixes ----------------------------------------------------------------------


def test_a_re_run_that_succeeded_resolves_the_failure_and_a_count_in_its_output_is_no_failure() -> (
    None
):
    """subly-claude: the first run of a script failed with a TypeError, the second (after an
    edit) succeeded and printed the on-chain count ``failed txs: 2``. The summary said "failed 2
    times … not retried", showing the count lines and losing the TypeError."""
    s = SessionBuilder()
    s.user("Count the deposits of both vaults.")
    s.call(
        "Bash",
        {"command": "node /tmp/count.mjs 2>&1"},
        "Exit code 1\ntotal signatures: 205\nTypeError: r is not iterable\n    at processVault",
        error=True,
    )
    s.call("Edit", {"file_path": "/tmp/count.mjs", "old_string": "a", "new_string": "b"}, "ok")
    s.call(
        "Bash",
        {"command": "node /tmp/count.mjs 2>&1"},
        "deposit ixs:        129\nfailed txs:         2\n\ndeposit ixs:        49\n"
        "failed txs:         0\ndeposit calls: 178",
    )
    s.say("178 deposit calls in total.")
    text = summarize_transcript(s.messages)
    errors = section(text, 4)
    assert "TypeError: r is not iterable" in errors
    assert "failed 2 times" not in errors and "Not retried" not in errors
    # the edit of the script between the two runs is named as the fix (blind check 59 W3)
    assert (
        "Fixed by editing /tmp/count.mjs; then a later `Bash: node /tmp/count.mjs 2>&1` " in errors
    )
    assert "failed txs" not in errors


def test_a_fix_is_the_later_success_of_the_same_step_not_another_command_of_the_runner() -> None:
    """solsmile-claude: ``npx hardhat compile`` failed and was "fixed by" a later
    ``npx hardhat --version``; a failed ``npx next build`` by ``npx hardhat test``. The runner's
    subcommand tells its steps apart; the fix is the later success of the same step."""
    s = SessionBuilder()
    s.user("Set up the contracts and the frontend.")
    s.call(
        "Bash",
        {"command": "cd contracts && npx hardhat compile 2>&1"},
        "Error HHE22: Hardhat only supports ESM projects.\nexit code 1",
        error=True,
    )
    s.call("Bash", {"command": "npx hardhat --version 2>&1"}, "3.1.12")
    s.call(
        "Bash",
        {"command": "npx next build 2>&1"},
        "Type error: Property 'x' does not exist\nexit code 1",
        error=True,
    )
    s.call("Bash", {"command": "npx hardhat test 2>&1"}, "69 passing")
    s.call("Bash", {"command": "npx hardhat compile 2>&1"}, "Compiled 3 Solidity files")
    s.say("The contracts compile and the tests pass; the frontend build still fails.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Fixed: a later `Bash: npx hardhat compile 2>&1` succeeded." in errors
    assert "npx hardhat --version" not in errors
    assert "a later `Bash: npx hardhat test" not in errors  # never its fix nor its workaround
    assert "Worked around" not in errors  # (retry12: only said neutrally, as the next call)
    assert "Next call after it: `Bash: npx hardhat test 2>&1` (succeeded)." in errors


# -- constraints and questions ---------------------------------------------------------------------


def test_a_line_of_a_pasted_error_is_not_a_constraint_of_the_user() -> None:
    """pv-claude: a browser's error page pasted by the user (``Failed to fetch.`` … ``URL scheme
    must be "http" or "https" for CORS request.``) gave a "constraint stated by the user"."""
    page = "\n".join(
        ["Explain this error from swagger:", "Request URL", "http://localhost:8080/cases/1",
         "Server response", "Code    Details", "Undocumented", "Failed to fetch.",
         "Possible Reasons:", "", "CORS", "Network Failure",
         'URL scheme must be "http" or "https" for CORS request.', "Responses"]
    )  # fmt: skip
    s = SessionBuilder()
    s.user(page)
    s.say("The backend is not running, so the browser cannot reach it.")
    s.user("Fix it, and you must not change the public API.")
    s.say("Restarted the backend; the API is unchanged.")
    rules = section(summarize_transcript(s.messages), 1).split("stated by the user:")[1]
    assert "URL scheme" not in rules
    assert "you must not change the public API" in rules


def test_the_next_step_names_every_question_the_final_message_listed() -> None:
    """subly-codex: the final message asked "What do you want `init` to produce?" and listed
    three open questions (stack, shape, git/licence); the next step named only the last."""
    s = SessionBuilder()
    s.user("init")
    s.say(
        "The repo is empty.\n\nWhat do you want `init` to produce?\n\n"
        "1. Stack: Python (uv + pytest) / Node+TS / Minimal\n"
        "2. Shape: library / CLI / notebook\n"
        "3. Git: create an initial commit + choose a license (MIT / Apache-2.0)?"
    )
    step = section(summarize_transcript(s.messages), 9)
    assert "Wait for the user's answer to" in step
    for asked in ("What do you want `init` to produce?", "Stack: Python", "Shape: library",
                  "Git: create an initial commit"):  # fmt: skip
        assert asked in step, asked


def test_a_users_own_heading_that_looks_like_a_log_level_keeps_the_rules_under_it() -> None:
    """The other side (heldout codex-raveera): ``CRITICAL:`` is the user's heading, and "The
    app must NEVER crash because of image loading." under it is the user's own rule."""
    lines = ["Fix image loading across the project.", "", "CRITICAL:",
             "External images can fail (timeout, DNS error, blocked domains).",
             "The app must NEVER crash because of image loading.", "", "PROBLEM:",
             "Next.js Image fetches external images and fails:", "- timeout", "- slow domains",
             "", "TASK:", "1. Replace unsafe images."]  # fmt: skip
    s = SessionBuilder()
    s.user("\n".join(lines))
    s.say("Replaced every unsafe image with a guarded one.")
    rules = section(summarize_transcript(s.messages), 1).split("stated by the user:")[1]
    assert "The app must NEVER crash because of image loading." in rules


def test_an_earlier_summary_without_numbered_sections_is_quoted_not_lost() -> None:
    """Codex's compaction summary has no numbered sections: recognised by its opening, it is no
    longer a request, and its text is still quoted (capped) as the earlier summary."""
    s = SessionBuilder()
    s.user(
        "Another language model started to solve this problem and produced a summary of its "
        "thinking process. Here is the summary: the parser now reads tabs; tests in "
        "tests/test_tabs.py pass; the CLI flag --tabs is still to be added."
    )
    s.user("Add the --tabs flag.")
    s.say("Added the --tabs flag to the CLI.")
    text = summarize_transcript(s.messages)
    intent = section(text, 1)
    assert "From the earlier summary:" in intent and "tests/test_tabs.py pass" in intent
    assert "Later requests" not in intent


def test_an_api_error_after_some_work_ends_the_work_and_is_not_the_answer() -> None:
    """The same rule after some work: the request is still in progress, the error is named as
    what ended the work, and the last action (not the error) is where work stopped."""
    s = SessionBuilder()
    s.user("Deploy the contract to the testnet.")
    s.call("Bash", {"command": "npx hardhat compile"}, "Compiled 3 Solidity files successfully")
    s.say("API Error: 529 Overloaded")
    text = summarize_transcript(s.messages)
    pending = section(text, 7)
    assert "The latest request is still in progress" in pending
    assert "ended with errors the API or the agent CLI wrote (1), not an answer" in pending
    step = section(text, 9)
    assert "Continue the latest request" in step and "npx hardhat compile" in step
    assert "API Error" not in step
