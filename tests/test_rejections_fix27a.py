"""One owner for "the user rejected this call" (blind check 26, N1; rows 1180-1181).

The summary's facts (``facts.stops``), its job state (``facts.jobstate``) and reduction
(``reduction.results``) each had their own phrase list: Codex's "exec command rejected by user"
was no rejection to the job state, "User rejected the tool call." none to the summary, "The user
doesn't want to take this action right now" none to the summary's facts. Every phrase below goes
through every caller, so they cannot diverge again.
"""

from __future__ import annotations

import json

import pytest

from compactor.facts import outcome
from compactor.facts.jobstate import rejected, stopped
from compactor.facts.stops import STOPPED, rejection, user_stopped
from compactor.facts.text import Call, Result
from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.reduction.results import carries_user_words, is_rejection
from compactor.rejections import is_rejection as owner

from .cc_session import Session as CcSession
from .codex_rollout import STAMP, rec
from .planted_session import SessionBuilder
from .test_models_local_session import section

CC_BARE = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)
REJECTIONS = (
    CC_BARE,
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). To tell you how to proceed, "
    "the user said:\nuse pnpm, not npm",
    "The user doesn't want to proceed with this tool use. The tool use was rejected. The user "
    "provided the following reason for the rejection: keep the old schema",
    "Error: The user doesn't want to take this action right now. STOP what you are doing and "
    "wait for the user to tell you how to proceed.",
    "The tool use was rejected (eg. if it was a file edit, the new_string was NOT written).",
    "exec command rejected by user",
    "patch rejected by user",
    "User rejected the tool call.",
    "  tool call declined by the user",
    "[Rejected by user]",
    "Permission for this call was denied by the user: the command did not run and nothing on "
    "disk changed. Ask the user before trying again; the call's arguments are shown above in "
    "full, so there is no need to repeat them here.",
)
NOT_REJECTIONS = (
    "[Request interrupted by user for tool use]",  # stopped while it ran: interrupted
    "aborted by user after 22.9s",
    "warning: 3 tests skipped\nexec command rejected by user",  # not the result's start
    "exec command rejected by user\n" + "retry log line\n" * 200,  # a log that mentions it
    "the user rejected",  # no object: a sentence of output
    "To github.com:u/app.git\n ! [rejected]        main -> main (fetch first)",
    "mkdir: /srv/app: Permission denied",
    "12 passed in 0.4s",
)


@pytest.mark.parametrize("text", REJECTIONS)
def test_every_caller_takes_every_rejection_for_one(text: str) -> None:
    call = Call("c1", "Bash", '{"command": "rm -rf build"}', 0)
    judged = outcome(Result("c1", "Bash", text), call)
    assert owner(text)
    assert rejection(text).startswith("The user rejected this call")  # the summary's facts
    assert user_stopped(text).startswith("The user rejected this call")
    assert judged.failed and judged.lines[0].startswith("The user rejected this call")
    assert rejected(text) and stopped(text)  # the job state: a background start started nothing
    assert is_rejection(text) and carries_user_words(text)  # reduction keeps it whole


@pytest.mark.parametrize("text", NOT_REJECTIONS)
def test_no_caller_takes_other_results_for_a_rejection(text: str) -> None:
    assert not owner(text)
    assert not rejection(text)
    assert not rejected(text)
    assert not is_rejection(text)
    assert not user_stopped(text).startswith("The user rejected")


INTERRUPTIONS = (
    "[Request interrupted by user for tool use]",
    "aborted by user after 22.9s",
    "Command cancelled by the user",
    "Error: interrupted by user",
)


@pytest.mark.parametrize("text", INTERRUPTIONS)
def test_an_interruption_stays_an_interruption_and_starts_no_job(text: str) -> None:
    """The user stopped a call that had started: "Interrupted by the user" to the summary's
    facts, no rejection to anyone, and (the job state had its own list) no background job: a
    ``run_in_background`` start answered so was "Background job still running"."""
    assert user_stopped(text).startswith(STOPPED)
    assert not owner(text) and not rejected(text) and not is_rejection(text)
    assert stopped(text)
    s = SessionBuilder()
    s.user("start the dev server")
    s.call("Bash", {"command": "pnpm dev", "run_in_background": True}, text, error=True)
    s.user("never mind, write the release notes")
    s.call("Write", {"file_path": "/w/NOTES.md", "content": "# Notes\n"}, "File created")
    s.say("The release notes are in NOTES.md.")
    pending = section(summarize_transcript(s.messages), 7)
    assert "still running" not in pending, pending


@pytest.mark.parametrize("text", NOT_REJECTIONS[2:])
def test_output_that_mentions_a_stop_stops_nothing(text: str) -> None:
    assert not stopped(text)


@pytest.mark.parametrize("text", REJECTIONS)
def test_the_summary_and_its_job_state_say_rejected_for_every_phrase(text: str) -> None:
    """End to end: a background start and a command, both rejected with the same words: no job
    is said to run, and the command is said to be rejected, not run."""
    s = SessionBuilder()
    s.user("start the dev server, then clean the build folder")
    s.call("Bash", {"command": "pnpm dev", "run_in_background": True}, text)
    s.call("Bash", {"command": "rm -rf build"}, text)
    s.user("leave both for now and write the release notes")
    s.call("Write", {"file_path": "/w/NOTES.md", "content": "# Notes\n"}, "File created")
    s.say("The release notes are in NOTES.md.")
    summary = summarize_transcript(s.messages)
    assert "still running" not in section(summary, 7), summary
    assert "`Bash: rm -rf build` was rejected by the user" in section(summary, 4), summary
    assert "The user rejected: `Bash: rm -rf build` (not run)" in section(summary, 5), summary


# -- 1182-1184: a rejected call is said to be rejected, everywhere (blind check 26, N1) ----------

_LEAD_IN = (
    "The build is completing too fast (197ms) - it's not actually building your Next.js app. "
    "The vercel.json approach isn't working. Here's the fix:"
)


def _analysis(text: str) -> str:
    return text.split("<analysis>", 1)[1].split("</analysis>", 1)[0]


def _rejected_session(lead_in: str, *, then: str = "answered") -> SessionBuilder:
    """cc-matt's shape: a config pushed, the user reports the build is wrong, the assistant says
    "Here's the fix:" and calls ``rm … && git commit`` then ``git push``: both rejected."""
    s = SessionBuilder()
    s.user("deploy the frontend to vercel")
    s.call("Write", {"file_path": "/w/vercel.json", "content": '{"buildCommand": "pnpm build"}'},
           "File created successfully at: /w/vercel.json")  # fmt: skip
    pushed = (
        "[main 1a2b3c4] cfg\n 1 file changed\nTo github.com:u/app.git\n   0a1..1a2  main -> main"
    )
    s.call(
        "Bash", {"command": "cd /w && git add vercel.json && git commit -m cfg && git push"}, pushed
    )
    s.say("Pushed. Vercel should pick up the new config.")
    s.user("the build finished in 197ms and the site is a 404")
    rm = "cd /w && rm vercel.json && git add -A && git commit -m 'drop vercel.json'"
    s.call("Bash", {"command": rm}, CC_BARE, text=lead_in, error=True)
    s.call("Bash", {"command": "cd /w && git push"}, CC_BARE, error=True)
    s.user("[Request interrupted by user for tool use]")
    s.user("set the root directory in the vercel dashboard instead, tell me the value")
    if then == "answered":
        s.say("Enter: packages/nextjs as the root directory.")
    else:  # still working: a call in flight
        s.call("Bash", {"command": "ls /w/packages"}, None)
    return s


def test_a_rejected_call_is_said_rejected_not_failed() -> None:
    """The walk said "Failed: `Bash: … rm vercel.json …`", §5 listed it "(failed)" and §4 "failed:
    The user rejected this call: STOP what you are doing …"; no line said the user rejected it."""
    summary = summarize_transcript(_rejected_session(_LEAD_IN).messages)
    walk, errors, solving = _analysis(summary), section(summary, 4), section(summary, 5)
    assert "Rejected by the user (not run): `Bash: cd /w && rm vercel.json" in walk, walk
    assert "Failed:" not in walk, walk
    assert "2 rejected by the user" in walk, walk
    assert "The user rejected: `Bash: cd /w && rm vercel.json && git add -A" in solving, solving
    assert "The user rejected: `Bash: cd /w && git push` (not run)" in solving, solving
    assert "(rejected by the user, not run)" in solving and "(failed)" not in solving, solving
    assert "was rejected by the user (it never ran)" in errors, errors
    assert " failed" not in errors, errors


def test_the_lead_in_to_rejected_calls_is_a_rejected_proposal_not_a_decision() -> None:
    summary = summarize_transcript(_rejected_session(_LEAD_IN).messages)
    solving = section(summary, 5)
    decisions = solving.split("Proposals the user turned down", 1)[0]
    assert "vercel.json approach isn't working" not in decisions, solving
    turned_down = solving.split("Proposals the user turned down", 1)[1]
    assert "Proposed, then the user rejected its call (not run):" in turned_down, solving
    assert "Here's the fix" in turned_down, solving


def test_a_long_lead_in_quoted_in_section_8_is_titled_a_rejected_proposal() -> None:
    """cc-matt §8: "An earlier request's answer, verbatim (…): The build is completing too fast
    … Here's the fix:" — the lead-in to the rejected calls, quoted as an answer."""
    steps = "".join(
        f"\n{n}. Step {n}: move the app's config file number {n} to the root." for n in range(1, 9)
    )
    lead_in = _LEAD_IN + steps  # a long message: the one section 8 quotes verbatim
    assert len(lead_in) >= 500
    summary = summarize_transcript(_rejected_session(lead_in, then="working").messages)
    current = section(summary, 8)
    assert "A proposal the user REJECTED, verbatim (NOT an answer" in current, current
    assert "An earlier request's answer" not in current, current
    assert "`Bash: cd /w && git push` → rejected by the user (it never ran)" in current, current
    assert "→ failed" not in current, current


def test_a_failed_call_still_fails_and_the_users_words_stay_the_correction() -> None:
    """Only rejections change: a call that ran and failed is "Failed"; a rejection with the
    user's words stays their correction (row 930)."""
    said = (
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
        "it was a file edit, the new_string was NOT written to the file). To tell you how to "
        "proceed, the user said:\nuse pnpm, not npm"
    )
    s = SessionBuilder()
    s.user("install the dependencies and build")
    s.call("Bash", {"command": "npm run build"}, "Exit code 1\nError: Cannot find module 'next'")
    s.call("Bash", {"command": "npm install"}, said, error=True)
    summary = summarize_transcript(s.messages)
    walk, errors = _analysis(summary), section(summary, 4)
    assert "Failed: `Bash: npm run build`" in walk, walk
    assert "Rejected by the user (not run): `Bash: npm install`" in walk, walk
    assert 'Rejected by the user, not a failure: "use pnpm, not npm"' in errors, errors
    assert "Not acted on yet: the user rejected `Bash: npm install`" in section(summary, 1)


def test_the_last_message_before_a_rejection_that_stopped_the_work_is_a_rejected_proposal() -> None:
    """The session ends on the rejection (the user's "STOP … wait"): §8 quoted the lead-in as the
    "Last assistant message", "Here's the fix:" unlabelled."""
    s = SessionBuilder()
    s.user("the build finished in 197ms and the site is a 404")
    rm: dict[str, object] = {"command": "cd /w && rm vercel.json && git commit -am drop"}
    s.call("Bash", rm, CC_BARE, text=_LEAD_IN, error=True)
    s.user("[Request interrupted by user for tool use]")
    current = section(summarize_transcript(s.messages), 8)
    assert "Last assistant message (a proposal the user REJECTED: its call never ran;" in current


# -- the same through the two harnesses' own records ---------------------------------------------


def _cc_records() -> bytes:
    """Claude Code writes the lead-in and each tool_use as records of their own, the rejection as
    an error tool_result, then its "[Request interrupted by user for tool use]" notice."""
    s = CcSession()
    s.user("the build finished in 197ms and the site is a 404")
    s.assistant([{"type": "text", "text": _LEAD_IN}])
    for n, command in enumerate(["cd /w && rm vercel.json && git commit -am drop", "git push"]):
        call = {"type": "tool_use", "id": f"toolu_r{n}", "name": "Bash",
                "input": {"command": command}}  # fmt: skip
        s.assistant([call])
        s.user([{"type": "tool_result", "tool_use_id": f"toolu_r{n}", "content": CC_BARE,
                 "is_error": True}])  # fmt: skip
    s.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
    s.user("set the root directory in the vercel dashboard instead")
    s.assistant([{"type": "text", "text": "Enter packages/nextjs as the root directory."}])
    return b"\n".join(s.lines()) + b"\n"


def _codex_rollout() -> bytes:
    """Codex: the lead-in as an assistant message, the command answered "exec command rejected by
    user" (no error flag, no exit code), then the user's next request."""

    def msg(role: str, text: str) -> dict[str, object]:
        kind = "input_text" if role == "user" else "output_text"
        return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}

    args = json.dumps({"command": ["bash", "-lc", "rm vercel.json && git commit -am drop"]})
    call = {"type": "function_call", "name": "shell", "arguments": args, "call_id": "call_r"}
    out = {"type": "function_call_output", "call_id": "call_r",
           "output": "exec command rejected by user"}  # fmt: skip
    meta = {"id": "s-1", "timestamp": STAMP, "cwd": "/w", "originator": "codex_cli_rs"}
    records = [
        {"timestamp": STAMP, "type": "session_meta", "payload": meta},
        rec("response_item", msg("user", "the build finished in 197ms and the site is a 404")),
        rec("response_item", msg("assistant", _LEAD_IN)),
        rec("response_item", call),
        rec("response_item", out),
        rec("response_item", msg("user", "set the root directory in the vercel dashboard instead")),
        rec("response_item", msg("assistant", "Enter packages/nextjs as the root directory.")),
    ]
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


@pytest.mark.parametrize(
    ("name", "raw"), [("cc.jsonl", _cc_records()), ("rollout.jsonl", _codex_rollout())]
)
def test_both_harnesses_records_say_the_call_was_rejected_and_its_lead_in_a_proposal(
    name: str, raw: bytes
) -> None:
    summary = summarize_transcript(read_transcript(name, raw).messages)
    walk, solving = _analysis(summary), section(summary, 5)
    assert "Rejected by the user (not run): `" in walk and "Failed:" not in walk, walk
    assert "The user rejected: `" in solving and "rm vercel.json" in solving, solving
    assert "Proposed, then the user rejected its call (not run):" in solving, solving
    decisions = solving.split("Proposals the user turned down", 1)[0]
    assert "vercel.json approach isn't working" not in decisions, solving


def test_a_plan_update_beside_the_rejected_call_does_not_hide_the_rejected_proposal() -> None:
    """The lead-in updated the to-do list (which ran) and called ``rm …`` (rejected): its only
    real follow-up was rejected, so it is still a proposal the user rejected."""
    s = SessionBuilder()
    s.user("the build finished in 197ms and the site is a 404")
    todos: dict[str, object] = {"todos": [{"content": "drop vercel.json", "status": "in_progress"}]}
    s.call("TodoWrite", todos, "Todos have been modified successfully", text=_LEAD_IN)
    s.call("Bash", {"command": "cd /w && rm vercel.json && git commit -am drop"}, CC_BARE,
           error=True)  # fmt: skip
    s.user("set the root directory in the vercel dashboard instead")
    s.say("Enter packages/nextjs as the root directory.")
    solving = section(summarize_transcript(s.messages), 5)
    assert "Proposed, then the user rejected its call (not run):" in solving, solving
    assert "vercel.json approach" not in solving.split("Proposals the user turned down", 1)[0]
