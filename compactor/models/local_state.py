"""Where the session ended, as the resuming agent must read it (issue 28, point 1).

The sections that tell an agent what to do next (Pending Tasks, Current Work, Next Step) are
written from this state, not from the last thing the assistant said:

* **the last action** — the last assistant message that made calls other than housekeeping
  (``date``, ``pwd``, telemetry, plan updates, an ``ls`` that printed nothing), each call with
  what its result established (failed and why, the lines it printed, or no result yet);
* **running jobs** — the ones the session model saw start (``run_in_background``, Codex
  sessions) and the ones judged by shape (:func:`compactor.facts.background_jobs`: a result
  that names a job/task/shell/process id and nothing later reporting it finished);
* **how it ended** — answered (the words :data:`ANSWERED` say so, so that the fixed closing
  instruction cannot be read as an order to invent work), answered with a question to the user,
  or stopped mid-work.
"""

from __future__ import annotations

import re
from operator import attrgetter

from compactor._util import lazy_pattern
from compactor.facts import (
    STOPPED,
    Call,
    Result,
    clean,
    command_of,
    cut,
    exit_one_meaning,
    is_reading_call,
    one_line,
    outcome,
    programs,
    sentences,
    strip_output_header,
)
from compactor.facts.terminal import NO_TERMINAL, needs_terminal
from compactor.facts.wenton import install_report
from compactor.rejections import is_rejection

from .local_aborted import aborted_line
from .local_again import BLOCKED, CONFIRMED_GONE, DRY_ONLY, EXPECTED_ANSWER, ON_PURPOSE
from .local_banner import Banners
from .local_busy import ENDED_LATER
from .local_decisions import announces_step
from .local_elsewhere import looked_up_as
from .local_established import test_tally
from .local_evalnotice import verdicts_said
from .local_jobs import listed_jobs
from .local_lastlabel import returned_label
from .local_listing import lists_work_folder, work_listing
from .local_madelater import not_found_line
from .local_missing import install_note
from .local_newerror import GOT_PAST, got_past_line
from .local_noise import agent_error_line, is_file_edit, is_usage_footer
from .local_planmode import changed_plan
from .local_rejected import refused_words
from .local_resultfacts import empty_report, result_facts
from .local_results import head_of, tail_matters
from .local_retries import job_started
from .local_session import PLAN_TOOLS, ErrorFact, Session, once
from .local_skipped import NOT_FOUND_RE, REJECTED
from .local_stepdone import went_past
from .local_stops import IN_FLIGHT, stopped_how
from .local_testrerun import DID_NOT_RECUR, did_not_recur_line
from .local_text import call_line, code, is_prompt_line, is_result_line, printed_lines, quote
from .local_turns import continued_request

__all__ = [
    "ANSWERED",
    "IN_FLIGHT",
    "after_line",
    "error_replies",
    "interruption",
    "is_housekeeping",
    "is_housekeeping_path",
    "job_polls",
    "last_action",
    "next_step_notes",
    "round_facts",
]

ANSWERED = "the last request was answered; nothing is pending; wait for the user's next message"
"""Said in so many words when the session ended answered (issue 28, point 1)."""

_HAS_RESULTS = attrgetter("results")
"""An entry's results (an entry without any is skipped by ``filter``, at C speed)."""
_HOUSEKEEPING_PROGRAMS = frozenset(
    "date pwd whoami hostname uname true sleep clear echo printf id tty".split()
)
_DIAGNOSTIC_PROGRAMS = frozenset("which type alias unalias whereis hash command -v".split())
"""Short diagnostics (``type grep``, ``command -v x``): housekeeping only when their result is
empty; "grep is /usr/bin/grep" answers what the assistant said it would check (issue 28)."""
_TELEMETRY_RE = lazy_pattern(r"telemetry|analytics\.jsonl|/\.superstack/", re.IGNORECASE)
_RESULT_CHARS = 200


def error_replies(s: Session, width: int) -> list[str]:
    """A line saying that what followed the latest request were errors the API or the CLI
    wrote, not answers (none when none did)."""
    last = s.last_request
    errors = [e for e in s.harness_errors if last is not None and e.index > last.index]
    if not errors:
        return []
    said = (
        f"The work on it ended with errors the API or the agent CLI wrote ({len(errors)}), not an "
        "answer"
        if s.request_started
        else f"The only replies to it were errors the API or the agent CLI wrote ({len(errors)}), "
        "not answers; the request is unanswered"
    )
    return [f"{said}: {quote(errors[-1].text, width)}"]


def interruption(s: Session) -> str:
    """A sentence saying that the user interrupted the current request's turn, when the
    harness's notice (``<turn_aborted>``, ``[Request interrupted by user]``) follows it."""
    last, notice = s.last_request, s.interrupted
    if s.aborted is not None:  # the user's last message, interrupted at once (blind 38 W1)
        return aborted_line(s)
    if notice is None or (last is not None and notice.index < last.index):
        return ""
    if worked_after(s, notice.index):
        return ""  # the turn went on after the notice: it is not how the session ended (W4)
    head = "The user interrupted the turn (the agent CLI's notice, not a request): the request "
    if s.in_flight or listed_jobs(s):
        return head + "was left unfinished; check the state of what was running before going on"
    return head + "was left unfinished; nothing is running and no call is in flight"


def worked_after(s: Session, index: int) -> bool:
    """Whether the assistant wrote or called anything after entry ``index`` (blind check 28,
    W4: an interrupt of two subagents 80 records before the end, then six answered question
    sets and three plan rounds, was given as how the session ended)."""
    return any(
        e.role == "assistant" and not e.internal and (e.text.strip() or e.calls)
        for e in s.entries[index + 1 :]
    )


def is_housekeeping_path(path: str) -> bool:
    """A file no request is about: telemetry and usage logs an agent's tooling writes."""
    return _TELEMETRY_RE.search(path) is not None


def is_housekeeping(call: Call, result: Result | None) -> bool:
    """A call that does nothing a resuming agent must know about (see the module docstring)."""
    if call.name in PLAN_TOOLS:
        return True
    command = command_of(call)
    if command is None:
        return False
    if _TELEMETRY_RE.search(command) is not None:
        return True
    names = programs(command)
    if names and all(n in _HOUSEKEEPING_PROGRAMS for n in names):
        return True
    if names and all(n in _HOUSEKEEPING_PROGRAMS or n in _DIAGNOSTIC_PROGRAMS for n in names):
        return _says_nothing(result)
    return names == ["ls"] and _says_nothing(result)


def _says_nothing(result: Result | None) -> bool:
    return result is not None and not result.text.strip()


def _results(s: Session) -> dict[str, Result]:
    return {r.call_id: r for e in filter(_HAS_RESULTS, s.entries) for r in e.results if r.call_id}


def _established(call: Call, result: Result | None) -> str:
    """What a call's result established, on one line."""
    if result is None:
        return f"no result in the transcript ({IN_FLIGHT})"
    oc = outcome(result, call)
    if oc.lines and oc.lines[0].startswith(STOPPED):  # never a success (blind check 11)
        return f"interrupted by the user, never completed ({stopped_how(oc.lines[0])})"
    if oc.lines and is_rejection(result.text):  # the user's decision (blind check 26)
        return "rejected by the user (it never ran)" + refused_words(oc.lines[0], _RESULT_CHARS)
    if oc.failed:
        exit_part = f" (exit {oc.exit_code})" if oc.exit_code not in (None, 0) else ""
        if not oc.lines:  # nothing but a banner or nothing at all (a search that found none)
            return f"failed{exit_part} with no output"
        return f"failed{exit_part}: {cut(one_line(oc.lines[0]), _RESULT_CHARS)}"
    if (api_error := agent_error_line(result.text)) is not None:  # not its usage footer
        return f"returned an error: {cut(one_line(api_error), _RESULT_CHARS)}"
    if oc.exit_code == 1 and (meaning := exit_one_meaning(call)):  # an answer (blind check 11)
        return f"{meaning} (exit 1, not a failure)"
    if (installed := install_report(result.text)) is not None:  # pip's conflicts (check 20)
        return f"returned: {installed}"
    if tally := test_tally(result.text[-20_000:]):  # cargo's every section (blind check 27)
        return f"returned: {cut(tally, _RESULT_CHARS)}"
    lines = [
        ln
        for ln in printed_lines(strip_output_header(clean(result.text[-20_000:])))
        if not is_prompt_line(ln) and not is_usage_footer(ln)
    ]
    if not lines:
        return "succeeded, printed nothing"
    command = command_of(call)
    if len(lines) > 2 and not (command is not None and tail_matters(programs(command))):
        head, more = head_of(lines, 2)  # a listing, `git log`: its first lines (HEAD) matter
        return f"returned: {cut(one_line(' | '.join(head)), _RESULT_CHARS)}{more}"
    if verdicts := verdicts_said(lines, _RESULT_CHARS):  # a report's PASS/FAIL (check 20)
        return f"returned: {verdicts}"
    found = [ln for ln in lines if is_result_line(ln)]
    picked = (found or lines)[-2:] if len(lines) > 2 else lines
    return "returned: " + cut(one_line(" | ".join(picked)), _RESULT_CHARS)


_PEEK_PROGRAMS = frozenset({"ls", "cd", "git status", "git branch", "git diff", "git log"})
"""Programs that only look at the state of the work (a listing, ``git status``): after a real
action of the same request they are not where work stopped."""


def _is_idle(call: Call, result: Result | None) -> bool:
    """A plan update or a command of housekeeping programs only (``date``, ``pwd``), or a
    diagnostic that printed nothing: not worth a word even after the last action."""
    command = command_of(call)
    names = programs(command) if command is not None else []
    if names and set(names) <= _HOUSEKEEPING_PROGRAMS | _DIAGNOSTIC_PROGRAMS:
        return set(names) <= _HOUSEKEEPING_PROGRAMS or _says_nothing(result)
    return call.name in PLAN_TOOLS


def _is_peek(call: Call) -> bool:
    command = command_of(call)
    names = programs(command) if command is not None else []
    return bool(names) and all(n in _PEEK_PROGRAMS or n in _HOUSEKEEPING_PROGRAMS for n in names)


def _reports_state(call: Call) -> bool:
    """A read whose output is the state of the work, not a file's lines (``git status``)."""
    command = command_of(call)
    names = programs(command) if command is not None else []
    return bool(names) and all(n == "git status" for n in names)


def _rounds(s: Session, results: dict[str, Result]) -> list[list[Call]]:
    """The rounds of calls that did more than housekeeping, latest first, back to the latest
    user request: the calls of the assistant messages after the last assistant text before
    them (Codex writes each parallel call as its own message)."""
    rounds: list[list[Call]] = []
    if not s.calls:  # every call of an assistant message not internal is there: no round
        return rounds  # (a chat without tools was walked back to its start: 1.1 M in tiny)
    calls: list[Call] = []
    for e in reversed(s.entries):
        if e.internal or e.injected:
            continue
        if e.role == "assistant" and e.calls:
            calls[:0] = [c for c in e.calls if not is_housekeeping(c, results.get(c.id))]
            if e.text.strip() and calls:
                rounds.append(calls)
                calls = []
        elif e.role == "assistant" and e.text.strip() and calls:
            rounds.append(calls)
            calls = []
        elif e.role == "user" and e.text.strip():
            if calls:
                rounds.append(calls)
            if rounds:
                break
            calls = []
    if calls:
        rounds.append(calls)
    return rounds


def _last_round(s: Session, results: dict[str, Result]) -> list[Call]:
    """The calls of the last round that did more than housekeeping. A round of status checks
    only (``git status``, ``ls``) after a real action of the latest request does not hide it:
    the real action's round is the last one then, and the checks that end a round are not
    part of it."""
    rounds = _rounds(s, results)

    def peek(c: Call) -> bool:  # a listing of the work's folder is an action (blind check 16)
        return _is_peek(c) and not lists_work_folder(c, s)

    def ran(r: list[Call]) -> bool:  # a round only in flight is no action (blind check 18)
        return not all(peek(c) for c in r) and any(c.id in results for c in r)

    real = next(filter(ran, rounds), None)
    if real is None:
        return rounds[0] if rounds else []
    end = max(i for i, c in enumerate(real) if not peek(c))
    return real[: end + 1]  # the checks after its last real call are said after it


def _action_result(call: Call, results: dict[str, Result], s: Session) -> str:
    result = results.get(call.id)
    listed = work_listing(call, s, result.text) if result is not None else ""
    return changed_plan(s, call.id) or listed or _established(call, result)


def last_action(s: Session, limit: int) -> list[str]:
    """The last assistant action, one line per call (the last 4 of its round): the call and
    what its result established; then, in parentheses, the housekeeping and status checks that
    ran after it (so that they neither hide it nor go unsaid). Empty when no call did more than
    housekeeping."""
    results = _results(s)
    calls = _last_round(s, results)
    lines = [f"{code(call_line(c, limit))} → {_action_result(c, results, s)}" for c in calls[-4:]]
    if len(calls) > 4:
        lines.insert(0, f"({len(calls) - 4} earlier calls of the same round not shown)")
    if calls:
        after = [
            c for c in s.calls
            if c.index > calls[-1].index and c.id in results and not _is_idle(c, results[c.id])
        ]  # fmt: skip
        shown = "; ".join(
            f"{code(call_line(c, limit // 2))} → {_established(c, results.get(c.id))}"
            for c in after[-2:]
        )
        if shown:
            lines.append(f"(then only housekeeping or status checks ran: {shown})")
    return lines


_TIMED_OUT_RE = lazy_pattern(r"\btimed? ?out\b|\btimeout\b|deadline exceeded", re.IGNORECASE)
_CHECK_FAILED_RE = lazy_pattern(r"✗|✘|❌|\bFAIL(?:ED|URE|S)?\b|\bnot ok\b|\[(?:FAIL|ERROR)\]")
"""A line of a check run that reports a failed check (``Memory check … ✗ FAILED``)."""
_SGR_RE = lazy_pattern(r"\x1b?\[[0-9;]{0,12}m")


def next_step_notes(s: Session, limit: int) -> str:
    """What the next step of an open request adds (issue 28, blind check 9), each a sentence:
    for a short request ("retry", "fail"), the request it continues; the step the assistant
    said it was doing; when the last action timed out in the foreground, that it may still run;
    when it failed, its last failing check line (not its first line, often a banner). Reads
    the entries after the latest request only."""
    last = s.last_request
    if last is None or s.turn_ended:
        return ""
    notes: list[str] = []
    before = continued_request([r.text for r in s.requests[-40:]])  # "2", "お願いします。"
    if before is not None:
        notes.append(
            f"{quote(last.text, limit // 4)} is a short reply: it continues the work on the "
            f"request before it, {quote(before, limit)}"
        )
    said = s.last_text if s.last_text is not None and s.last_text.index > last.index else None
    steps = [x for x in sentences(said.text) if announces_step(x)] if said is not None else []
    if said is not None and steps and went_past(s, said, _results(s), is_housekeeping):
        steps = []  # later rounds did that step: the last action says where it stands (36 W2)
    if steps:
        notes.append(f"The assistant was doing: {quote(steps[-1], limit)}")
    results = {r.call_id: r for e in s.entries[last.index :] for r in e.results if r.call_id}
    calls = _last_round(s, results)
    result = results.get(calls[-1].id) if calls else None
    if calls and result is not None and outcome(result, calls[-1]).failed:
        head = clean(result.text[:300]).strip().split("\n", 1)[0]
        if needs_terminal(result.text):  # not a long job: no terminal (blind check 70 N4)
            notes.append(NO_TERMINAL)
        elif _TIMED_OUT_RE.search(head) is not None:
            notes.append(
                "That last action ran in the foreground and was cut off by the time limit: what "
                "it started may still be running; check it (its log, ps) before running it "
                "again, and run a long job in the background"
            )
        elif checks := [
            ln.strip() for ln in clean(result.text[-20_000:]).splitlines()
            if _CHECK_FAILED_RE.search(ln)
        ]:  # fmt: skip
            line = " ".join(_SGR_RE.sub("", checks[-1]).split())  # colour codes say nothing
            notes.append(f"Its last failing check: {quote(line, limit)}")
    notes.extend(filter(None, [install_note(s, limit)]))  # (blind check 67 N2)
    return "".join(f" {n}." for n in notes)


def after_line(err: ErrorFact, width: int) -> str:
    """What became of a failure, on one line of section 4."""
    by, meant = code(err.by), quote(err.by, width)
    said = next((x for x in err.outcome.lines if NOT_FOUND_RE.search(x)), "")
    found = quote(cut(said, width), width) if said else "not there"
    why = {  # a retry that only started a job, or whose pipe hid its failure (issue 28)
        "fixed": f"  Fixed: a later {by} ran; {err.why}.",
        "failed again": f"  Not fixed: a later {by} failed too ({err.why}).",
        "retry pending": f"  Retried with {by}; {err.why}: whether it fixed this is not known.",
    }
    if err.after == "interrupted":  # an abort is never a success (blind check 11)
        how = stopped_how(err.why)
        if err.by and err.why.startswith(REJECTED):  # the user refused the retry
            return (
                f"  Not fixed: the user rejected a later {by} ({quote(how, width)}); it never ran."
            )
        if err.by:
            return (
                f"  Not fixed: a later {by} was interrupted by the user ({how}); never completed."
            )
        return (
            f"  Interrupted by the user ({how}): never completed and not run again; "
            "not a success, not a failure."
        )
    if err.why and err.after in why:
        return why[err.after]

    return {
        "fixed": f"  Fixed: a later {by} succeeded.",
        "found lost": f"  Not fixed: a later {by} succeeded, but its change was found lost "
        "afterwards (section 3); redo it (section 7).",
        "rejected": f"  Rejected by the user, not a failure: {quote(err.by, width)}",
        "failed again": f"  Not fixed: a later {by} failed too.",
        "retry pending": f"  Retried with {by}; its result is not in the transcript yet.",
        "skipped": f"  Set aside on purpose, not to be fixed: {quote(err.by, width)}",
        BLOCKED: f"  Never ran, nothing to fix{f' ({err.why})' if err.why else ''}.",
        "worked around": f"  Done without it, not to be fixed: {quote(err.by, width)}",
        "not found": not_found_line(err, found, looked_up_as(err)),  # or made later (set 25)
        "meant to fail": f"  Meant to fail (run to confirm a failure), not an error: {meant}",
        "worked around by": f"  Worked around by {by} ({err.why}).",
        "fixed by editing": f"  Fixed by editing {err.why}; then a later {by} succeeded.",
        "user ran": f"  The user ran {by} themselves with `!`{err.why}.",
        "user fixed": f"  The user says they fixed it themselves: {quote(err.by, width)}",
        GOT_PAST: got_past_line(err, width),  # the same command got past it (blind check 37 W1)
        DID_NOT_RECUR: did_not_recur_line(err, width),  # a later test run (BENCH42 W3)
        ENDED_LATER: f"  Not a failure to fix: {err.why}.",
        EXPECTED_ANSWER: f"  Not a failure to fix: {err.why}.",  # (blind check 62 W1, W4)
        DRY_ONLY: f"  Not fixed: a later run of it was only a dry run ({quote(err.why, 80)}).",
        CONFIRMED_GONE: f"  Not a failure to fix: {err.why}.",  # `ls X` after `rm -rf X` (57a)
        ON_PURPOSE: "  Not a crash: the script refused by design; what it refused (above) was "
        "not done, for the reason it gives.",  # (fix57a 4)
    }.get(
        err.after,
        f"  Next call after it: {by} ({err.why})." if err.by else "  Not retried afterwards.",
    )


LAST_ROUNDS = 3
"""Rounds (assistant messages with calls) whose results' facts the summary keeps."""
_FACTS_PER_CALL = 12


def round_facts(s: Session, limit: int) -> list[str]:
    """The facts the results of the last :data:`LAST_ROUNDS` rounds established (issue 28,
    point 3), one line per call that did more than housekeeping, was not a read that succeeded
    and is not one of the last action's calls (they are listed with what they returned):
    ``call → failed: why`` / ``call → ok``, then the ids, paths, amounts it printed."""
    results = _results(s)
    shown = {c.id for c in _last_round(s, results)[-4:]}  # the last action says what they did
    rounds = [
        e
        for e in s.entries
        if e.role == "assistant" and not e.internal
        and any(not is_housekeeping(c, results.get(c.id)) for c in e.calls)
    ]  # fmt: skip
    lines: list[str] = []
    banners = Banners(s)  # a line every call of the program prints is no cause (61 W3)
    for e in rounds[-LAST_ROUNDS:]:
        for call in e.calls:
            result = results.get(call.id)
            if result is None or is_housekeeping(call, result):
                continue
            oc = banners.fix(call, result.text, outcome(result, call))
            if (
                (is_reading_call(call) or is_file_edit(call))
                and not oc.failed
                and not _reports_state(call)
                and not (oc.exit_code == 1 and exit_one_meaning(call))  # (BENCH42 W4)
            ):
                continue  # a file's lines are not facts; that it does not exist, or no match, is
            if (api_error := agent_error_line(result.text)) is not None:  # not its footer's id
                if call.id not in shown:  # (the last action says it)
                    lines.append(f"{code(call_line(call, limit))} → returned an error: {api_error}")
                continue
            if not oc.failed and (installed := install_report(result.text)) is not None:
                lines.append(f"{code(call_line(call, limit))} → ok: {installed}")
                continue  # what it installed and the conflicts pip reported (blind check 20)
            if not oc.failed and (empty := empty_report(result.text)):  # (blind check 70 W1)
                how = f" ({returned_label(s, call, False)})" if call.id in shown else " →"
                lines.append(f"{code(call_line(call, limit))}{how} {empty}")  # no ids: no findings
                continue
            said = call_line(call, 2_000)
            facts = [
                f for f in result_facts(strip_output_header(clean(result.text))) if f not in said
            ]
            facts = facts[:_FACTS_PER_CALL]  # (what the call itself named is no news)
            verb = "its output named" if oc.failed else "printed"  # a failure printed no result
            printed = f"{verb} {', '.join(code(f) for f in facts)}" if facts else ""
            meaning = exit_one_meaning(call) if oc.exit_code == 1 and not oc.failed else ""
            if meaning and call.id not in shown:  # rg exit 1: a fact, not a failure
                lines.append(f"{code(call_line(call, limit))} → {meaning} (exit 1, not a failure)")
                continue
            if call.id in shown or (not facts and not oc.failed):
                # the last action says how it ended; "ok" alone says nothing
                if facts:  # (blind check 25: a failure's usage line was what it "printed")
                    how = returned_label(s, call, oc.failed)  # (blind check 32 N5)
                    lines.append(f"{code(call_line(call, limit))} ({how}) {printed}")
                continue
            state = (
                f"failed: {cut(oc.lines[0], limit)}"
                if oc.failed and oc.lines
                else ("failed" if oc.failed else "ok")
            )
            if oc.lines and oc.lines[0].startswith(STOPPED):  # never a success (blind check 11)
                state = f"interrupted by the user, never completed ({stopped_how(oc.lines[0])})"
            if call.id in s.refused:  # the user's decision, not a failure (blind check 26)
                state = "rejected by the user (it never ran)" + refused_words(oc.lines[0], limit)
            state = changed_plan(s, call.id, limit) or state  # feedback on a plan (blind 28)
            lines.append(
                f"{code(call_line(call, limit))} → {state}{'; ' + printed if facts else ''}"
            )
    return lines[-8:]


def job_polls(s: Session, limit: int) -> dict[str, str]:
    """For each running job, ``; its latest poll returned: "…"``: the last lines the latest
    call that named its id (a poll, a read of its output) printed, or that it failed."""
    latest = once(s, _latest_polls)
    return {k: f"; its latest poll returned: {quote(v, limit)}" for k, v in latest.items()}


def _latest_polls(s: Session) -> dict[str, str]:
    """:func:`job_polls`' lines, unquoted (read once: each render asks)."""
    results = _results(s)
    running = {b.key: b for b in s.running if b.key}
    latest: dict[str, str] = {}
    for call in s.calls:
        result = results.get(call.id)
        if result is None:
            continue
        for key, bg in running.items():
            if call.index > bg.index and key in call.arguments:
                lines = printed_lines(strip_output_header(clean(result.text[-20_000:])))
                last = [ln for ln in lines if not is_prompt_line(ln)][-2:]
                if not last and job_started(result.text):  # "Process running with session ID"
                    last = ["still running, no new output"]  # not "succeeded" (blind check 23)
                latest[key] = " | ".join(last) if last else _established(call, result)
    return latest
