"""The embedded default summarizer: no network, no download, deterministic (SPEC §7).

It reads the summarizer input of SPEC §4 (``[system(instruction), *context, user(instruction)]``),
ignores the two instruction messages and writes the nine-section summary from a model of the
session (:mod:`compactor.models.local_session`): the user's requests (injected context kept
apart), the agent's own task list, background work and calls still in flight, failed commands
and whether a later step fixed them, the files created or edited with their latest key lines,
the assistant's decisions and results, what commands printed, and the final deliverable kept
verbatim. Pending Tasks, Current Work and the Next Step come from that state, so they never name
work the transcript shows as done.

Each section is one function of the session and the limits (:class:`Limits`); the limits shrink
until the summary fits :data:`MAX_SUMMARY_TOKENS` (and 30 % of inputs over 20k tokens), and what
no limit changes is worked out once (:mod:`compactor.models.local_views`). Same input → same
bytes: no clock, no randomness, only insertion-ordered or sorted collections.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from compactor._json import JsonValue
from compactor.counting.tokens import estimate_message, estimate_text
from compactor.facts import Entry, cut, shorten
from compactor.facts.factnoise import only_called
from compactor.schema import AgenticMessage, Message, Usage, make_assistant, message_kind

from . import local_claims as claims
from .base import KEPT_AFTER_SUMMARY, estimated_input
from .local_aborted import nothing_pending
from .local_again import still_open
from .local_analysis import analysis_items
from .local_answers import answer_room
from .local_asksonly import OFFERED, closing_offer
from .local_blocked import blocked_items, blocked_step
from .local_changelog import earlier_changes
from .local_committed import overwrites
from .local_cutturn import announced_item, cut_note
from .local_earlier import encrypted_line
from .local_earlierfacts import earlier_fact_lines
from .local_errors import errors_section
from .local_evalnotice import evaluated_items, evaluated_step
from .local_files import file_item, omitted_files
from .local_focus import ContextView, context_span, focus_block, focus_of, insert_focus
from .local_greencheck import green_check_lines
from .local_home import same_file_key
from .local_irreversible import irreversible_items
from .local_jobs import idle_step, listed_jobs, running_head, shown_jobs, still_running
from .local_lastask import asked_step, earlier_ask_line
from .local_limits import FACTORS, Limits, prior_room
from .local_limits import MIN_VERBATIM as MIN_VERBATIM  # (re-exported: moved there)
from .local_listednames import listed_items
from .local_listfit import fit_listing
from .local_lost import lost_items, lost_step
from .local_madeby import request_files
from .local_mask import collecting, mask_repeats
from .local_notes import working_notes
from .local_owed import owed_items, owed_step
from .local_planmode import awaiting_plan, plan_mode_items, plan_mode_step
from .local_prior import prior_current, prior_pending, prior_step, stale_goal, stale_prior
from .local_prior import prior_excerpt as _prior_excerpt
from .local_recap import recap_items
from .local_rejected import (
    INTERRUPTED_STEP,
    REJECTED_STEP,
    failed_count,
    proposal_note,
    refusal_mark,
    rejected_items,
)
from .local_requests import current_ref, session_request_lines, session_user_lines
from .local_results import said_changed, same_results
from .local_services import call_rows, service_items
from .local_session import Session, once
from .local_since import earlier_outcomes, since_prior_items
from .local_state import (
    ANSWERED,
    error_replies,
    interruption,
    is_housekeeping_path,
    job_polls,
    last_action,
    next_step_notes,
    round_facts,
)
from .local_statusdate import dated_status
from .local_statusquote import status_quote
from .local_stops import IN_FLIGHT, flight_items, guard_overwrite, in_flight_step, stopped_after
from .local_subfiles import shell_made
from .local_subtask import subagent_task_lines
from .local_tail import TAIL, modelled_pair
from .local_tasklist import active_items, open_items, stale_note, task_items
from .local_template import template_quote
from .local_text import (
    bullets,
    call_line,
    code,
    masked,
    plural,
    quote,
    tool_names,
    top,
    verbatim_text,
)
from .local_turns import answers_since, hold_line, hold_step, requests_from_user
from .local_unanswered import continued_step, unanswered_items, unanswered_step
from .local_unasked import unasked_offer
from .local_unborne import unborne_items
from .local_unresolved import unresolved_items
from .local_unshipped import unshipped_items
from .local_untested import untested_items
from .local_usershell import after_items, after_step, asked_item
from .local_views import (
    deliverables,
    head_tail,
    identifiers_used,
    launched_outcomes,
    named_lines,
    prior_concepts,
    prior_paths,
    relaunch_step,
    step_of,
    tools_used,
    user_rules,
    walk_steps,
)

__all__ = [
    "MAX_DELIVERABLE",
    "MAX_SUMMARY_TOKENS",
    "Limits",
    "LocalSummarizer",
    "summarize_transcript",
]

MAX_SUMMARY_TOKENS = 6_000  # upper bound of the summary (also ≤ 30 % of an input over 20k)

MAX_DELIVERABLE = 16_000
"""Most characters of the final deliverable a summary keeps verbatim."""
WHOLE_DELIVERABLE = 2_000

SECTION_TITLES = (
    "Primary Request and Intent",
    "Key Technical Concepts",
    "Files and Code Sections",
    "Errors and fixes",
    "Problem Solving",
    "All user messages",
    "Pending Tasks",
    "Current Work",
    "Optional Next Step",
)


# --------------------------------------------------------------------------------------------------
# Formatting helpers


# --------------------------------------------------------------------------------------------------
# Sections: one function each, (session, limits) → text


_FAILED_HEADS = {
    "failed": "Failed: ",
    "rejected": f"{REJECTED_STEP}: ",
    "stopped": f"{INTERRUPTED_STEP}: ",
}


def _step_line(step: tuple[str, Entry | str | None, list[str]] | Entry, lim: Limits) -> str:
    kind, what, names = step_of(step)
    if isinstance(what, str):
        return what
    if kind == "user" and what is not None:
        return f"User: {quote(what.text, min(lim.item, 160))}"
    if kind in _FAILED_HEADS:  # a rejected or interrupted call: no failure (blind 26, 71 W1)
        failed = [code(cut(n, 60)) for n in names[:4]]
        head = _FAILED_HEADS[kind]
        return head + "; ".join(failed) + (" …" if len(names) > 4 else "")
    said = f"Assistant: {status_quote(what.text, min(lim.item, 120))}" if what is not None else ""
    called = f"called {tool_names(names)}" if names else ""
    return "; ".join(x for x in (said, called) if x) if said else f"Assistant {called}"


def _analysis(s: Session, lim: Limits) -> str:
    """A chronological walk: requests, what the assistant said and called, what failed (only the
    steps shown are quoted)."""
    steps = walk_steps(s)
    head, tail = lim.walk // 3, lim.walk - lim.walk // 3
    if len(steps) > head + tail:
        omitted = f"… ({len(steps) - head - tail} steps omitted)"
        lines = [
            *(_step_line(x, lim) for x in steps[:head]),
            omitted,
            *(_step_line(x, lim) for x in steps[len(steps) - tail :]),
        ]
    else:
        lines = [_step_line(x, lim) for x in steps]
    assistants = sum(1 for e in s.entries if e.role == "assistant")
    title = (
        f"The conversation has {plural(len(s.entries), 'message')}: "
        f"{requests_from_user(s)}, {assistants} from the assistant, "
        f"{plural(len(s.calls), 'tool call')} ({failed_count(s)})."
    ) + (" The messages kept after this summary are not counted." if TAIL in s.earlier else "")
    return "\n".join([title, *(f"{i}. {x}" for i, x in enumerate(lines, 1))])


def _intent(s: Session, lim: Limits) -> str:
    lines: list[str] = subagent_task_lines(s, lim.item)  # a sub-agent's own file (77 N1)
    if s.requests:
        lines += session_request_lines(s, lim.item, lim.items, lim.reply)
        lines += filter(None, [answers_since(s, lim.item)])  # AskUserQuestion (blind check 13)
        rules = user_rules(s)
        if rules:
            lines.append("   Constraints and preferences stated by the user:")
            lines.append(bullets([cut(r, lim.item) for r in rules[: lim.items]]))
    elif s.prior:
        lines.append(earlier_ask_line(s, lim.item * 2))  # or "Continues the work …"
    elif not lines:
        lines.append("   No request from the user in this part of the conversation.")
    prior = _prior_excerpt(s, 1, lim.prior)
    if prior:
        lines.append(f"   From the earlier summary: {prior}")
    lines += filter(None, [encrypted_line(s)])  # (blind check 24)
    if s.context:
        lines.append("   Context injected by the agent CLI (not the user's words):")
        lines.append(bullets(list(dict.fromkeys(s.context))[: lim.items]))
    return "\n".join(lines)


def _concepts(s: Session, lim: Limits) -> str:
    items: list[str] = []
    if tools := tools_used(s):
        shown = tools[: lim.items + 4]
        items.append("Tools used: " + ", ".join(f"{t} ({n}×)" for t, n in shown))
    if skills := s.skills:
        items.append("Skills used: " + ", ".join(code(x) for x in skills))
    if ranked_words := identifiers_used(s)[: lim.items * 2]:
        items.append("Identifiers: " + ", ".join(code(w) for w in ranked_words))
    if earlier := prior_concepts(s, lim.item // 2, lim.items):
        items += ["From the earlier summary (concepts, decisions):", *(f"  {x}" for x in earlier)]
    items += analysis_items(s, lim.item, lim.items)  # (blind checks 43, 44)
    return bullets(items) if items else "   - None recorded."


def _files(s: Session, lim: Limits) -> str:
    items: list[str] = []
    changed = list(s.files.values())
    cap = lim.items + 3
    if len(changed) > cap:
        head = cap // 3
        changed = [*changed[:head], *changed[len(changed) - (cap - head) :]]
    for i, f in enumerate(changed):
        if len(s.files) > cap and i == cap // 3:
            items.append(
                omitted_files(list(s.files.values())[i : len(s.files) - cap + i], lim.items * 4)
            )
        items.extend(file_item(f, lim.item, lim.code_lines))
        items.extend(earlier_changes(s, f, lim.item))  # each change of the request's file (69 N2)
    known = {same_file_key(p) for p in s.files}  # one file in two spellings (67 N1)
    reads = said_changed(s.last_text, [p for p in s.reads if same_file_key(p) not in known], items)
    if reads:
        shown = head_tail(reads, lim.items // 2, lim.items // 2, "more")
        items.append("Read, not changed: " + ", ".join(shown))
    items.extend(listed_items(s, lim.item))  # the folder's files the request is about (68 N1)
    items.extend(named_lines(s, Limits().items, lim.items))  # the most any limits show
    prior = _prior_excerpt(s, 3, lim.prior)
    if prior:
        items.append(f"From the earlier summary: {prior}")
        earlier = [
            p for p in prior_paths(s, set(s.files) | set(s.reads)) if not only_called(s.prior, p)
        ]
        if earlier:
            items.append("Every file the earlier summary names: " + ", ".join(earlier[: lim.items]))
    if not s.files:
        items[:0] = claims.unchanged_files(s, lim.items, lim.item)  # (with shell_made's line)
    return bullets(items if not s.files else [*items, *shell_made(s, lim.items)])


def _problem_solving(s: Session, lim: Limits) -> str:
    items: list[str] = []
    # sentences of an answer quoted whole in section 8 are not repeated here
    skip = {
        e.index
        for e, room in (
            (s.deliverable, lim.deliverable),
            (s.reply if s.turn_ended else None, lim.reply),
        )
        if e is not None and len(e.text.strip()) <= room
    }
    decisions = top(
        [(i, score, shorten(x, lim.item)) for i, score, x in s.decisions if i not in skip],
        lim.items + answer_room(s, lim.items),  # the user's answers add their own room
    )
    if decisions:
        items.append("Decisions, causes and results stated by the assistant:")
        items.extend(f"  {x}" for x in decisions)
    if s.rejected:
        items.append("Proposals the user turned down (not decisions; do not act on them):")
        items.extend(f"  {shorten(x, lim.item)}" for x in s.rejected[-3:])
    items.extend(rejected_items(s, lim.item))
    outputs = [
        (i, score, f"{code(shorten(c, lim.item // 2))}{n} → {fit_listing(o, lim.item)}")
        for i, score, c, o, n in once(s, _printed_once)  # each once (blind check 18)
    ]
    if outputs:
        items.append("What commands printed:")
        items.extend(f"  {x}" for x in top(outputs, max(2, lim.items * 2 // 3)))
    items.extend(green_check_lines(s, lim.item))  # a green check among failures (66 N2)
    if s.calls:
        items.append(f"Tool calls ({len(s.calls)} in total, in order):")
        # the calls that left a service stopped are kept where the list is cut (68 W1)
        for c in call_rows(s, lim.items // 3, lim.items // 2):
            if isinstance(c, int):
                items.append(f"  … ({plural(c, 'call')} omitted)")
            else:
                failed = " (failed)" if c.id in s.failed_calls else ""
                failed = refusal_mark(s, c.id) or failed
                items.append(f"  {call_line(c, lim.item)}{failed}")
    prior = _prior_excerpt(s, 5, lim.prior)
    if prior:
        items.append(f"{stale_prior(s)}: {prior}")
    items.extend(earlier_fact_lines(s, lim.item))  # commits, pushes, checks (58 N4)
    return bullets(items) if items else "   - No problem solving recorded."


def _printed_once(s: Session) -> list[tuple[int, int, str, str, str]]:
    """What commands printed, each result once (read once: each render lists it)."""
    return same_results(dated_status(s))


def _user_messages(s: Session, lim: Limits) -> str:
    users = session_user_lines(s, lim.users_head, lim.users_tail, lim.user_chars)
    lines = "".join(f"    - {u}\n" for u in users)
    return f"<all_user_messages>\n{lines}</all_user_messages>"


def _pending(s: Session, lim: Limits) -> str:
    items = task_items(s, lim.item, lim.items)
    polls = job_polls(s, lim.item)
    for bg in shown_jobs(s):
        said = f"; it returned: {quote(bg.said, lim.item)}" if bg.said else ""
        said += polls.get(bg.key, "")
        key = f" (id {bg.key})" if bg.key and bg.key != bg.command else ""
        items.append(f"{running_head(bg)}: {code(bg.command)}{key}{said}")
    items.extend(flight_items(s, lim.item * 2, lim.items, awaiting_plan(s)))
    items.extend(blocked_items(s, lim.item) + plan_mode_items(s))
    last = s.last_request
    if last is not None and not s.turn_ended:
        state = "still in progress" if s.request_started else "not answered yet"
        ref = current_ref(last.text, lim.item)
        items.append(hold_line(s, ref, lim.item) or f"The latest request is {state}: {ref}")
        items.extend(error_replies(s, lim.item) + unanswered_items(s, lim.item))  # (63 N4)
        unresolved = [e for e in s.errors if e.index > last.index and still_open(e)]
        items.extend(unresolved_items(s, unresolved[-3:], lim.item))  # (blind checks 11, 21)
        for err in [e for e in s.errors if e.index > last.index and e.after == "interrupted"][-2:]:
            if not err.by:  # the user stopped it (an earlier failure it retried says so in 4)
                said = code(cut(err.call, lim.item))
                items.append(f"Interrupted by the user, never completed: {said}")
        if not s.in_flight and not listed_jobs(s) and s.request_started:  # (blind check 11)
            items.append("Nothing is running and no call is in flight: every call returned")
    items.extend(owed_items(s, lim.item))  # failed, never run again, said done (72 N1)
    items.extend(unborne_items(s, lim.item))  # a change claimed, no call made it (73 N2)
    items.extend(prior_pending(s, lim.prior))  # always, by section (issue 28, blind check 12)
    asked = claims.input_items(s, lim.item)
    items.extend([*asked, *after_items(s, lim.item), *lost_items(s, lim.item)])
    if s.turn_ended and (question := s.question or claims.answered_ask(s)) and not asked:
        items.append(asked_item(s, quote(question, lim.item * 2)))  # (blind check 44, W1)
    if s.announced:
        items.append(announced_item(s, lim.item))
    local = unshipped_items(s, lim.item // 2)  # facts, not tasks (rows 2710-2711)
    if not items:
        prior = _prior_excerpt(s, 7, lim.prior) if not s.requests else ""
        if prior:
            return f"   - From the earlier summary: {prior}" + "".join(f"\n   - {x}" for x in local)
        done = f" ({quote(last.text, lim.item // 2)})" if last is not None else ""
        none = nothing_pending(s, done, ANSWERED)  # as sections 8/9 say it (BENCH52 W9)
        return none + "".join(f"\n   - {x}" for x in local)
    return bullets(items + local)


def _current_work(s: Session, lim: Limits) -> str:
    items: list[str] = []
    last = s.last_request
    last_text = s.last_text
    items.extend(prior_current(s, lim.prior, first=True))  # kept whole (blind check 12)
    if last is not None:
        if s.announced:
            state = "is in progress (the assistant announced its next step)"
        elif s.turn_ended:
            state = claims.reply_state(s)
        else:
            state = "is in progress (no answer yet)" if s.request_started else "is not answered yet"
        ref = current_ref(last.text, lim.item)
        items.append(hold_line(s, ref, lim.item) or f"The latest request {state}: {ref}")
        ended = [] if s.turn_ended else error_replies(s, lim.item) + launched_outcomes(s, lim.item)
        ended += unanswered_items(s, lim.item)  # (blind check 63 N4)
        ended += recap_items(s, lim.item)  # Claude Code's own recap (blind check 63 N5)
        items.extend([*filter(None, [interruption(s)]), *ended])
    items.extend(service_items(s, lim.item))  # a stop no call undid (blind check 68 W1)
    items.extend(blocked_items(s, lim.item, brief=True) + evaluated_items(s, lim.item))
    if s.ended_by_tool:
        items.append(f"The work ended with {code(s.ended_by_tool)}.")
        if s.ended_output:
            items.extend(verbatim_text("What it returned, verbatim", s.ended_output, lim.reply))
    items.extend(active_items(s, lim.item))  # (a stale plan's step is no current step: W6)
    since = last.index if last is not None else -1
    changed = request_files(
        [f for f in s.files.values() if f.last_index > since and not is_housekeeping_path(f.path)]
    )
    if changed:
        items.append("Files changed for it: " + ", ".join(changed[: lim.items]))
        items.extend(untested_items(s, since, lim.item))  # no run after the edits (70 N3)
    items.extend(irreversible_items(s, lim.item))  # a reset database, a forced push (67 N2)
    if not s.turn_ended and (s.request_started or stale_goal(s)):
        action = last_action(s, lim.item)
        items.extend(overwrites(s, lim.item))  # a write over a commit (67 N6)
        if any(IN_FLIGHT not in a and not a.startswith("(") for a in action):
            # (only in flight: section 7 lists them)
            items.append("The last action (the last tool calls and what they returned):")
            items.extend(f"  {line}" for line in action)
        facts = round_facts(s, lim.item // 2)
        if facts:
            items.append("What the results of the last rounds established:")
            items.extend(f"  {line}" for line in facts)
    items.extend(working_notes(s, lim))  # mid-work: its reasoning summaries (blind check 48 N1)
    deliverable, reply = s.deliverable, s.reply if s.turn_ended else None
    if last_text is not None and last_text is not deliverable and last_text is not reply:
        said = "Last assistant message" + proposal_note(s, last_text) + cut_note(s, last_text)
        items.append(f"{said}: {quote(last_text.text, lim.item * 2)}")
    if reply is not None and reply is not deliverable:
        items.extend(verbatim_text(claims.reply_title(s), reply.text, lim.reply))
    for title, answer in deliverables(s):
        items.extend(verbatim_text(title, answer.text, lim.deliverable))
    items.extend(since_prior_items(s, lim.item))  # the turns since the earlier summary (60 W3)
    items.extend(earlier_outcomes(s, lim.item))  # an earlier task's end, in words (69 N8)
    items.extend(prior_current(s, lim.prior, first=False))  # after the calls (blind check 18)
    return bullets(items) if items else "   - No work in progress."


_GOAL = "continue the current work (section 8) and the pending tasks (section 7)."


def _next_step(s: Session, lim: Limits) -> str:
    """The step; when the CLI's usage limit stopped the work, to be taken once the limit allows
    (with no request since an earlier summary: its current work and pending tasks)."""
    step = _state_step(s, lim)
    then, step = asked_step(s, step, _GOAL, lim.item, lim.prior)  # (blind check 21)
    return plan_mode_step(s, blocked_step(s, then, lim.item) or step)  # (blind 14, 33)


def _state_step(s: Session, lim: Limits) -> str:
    last = s.last_request
    if last is not None and (held := hold_step(s, current_ref(last.text, lim.item), lim.item)):
        return held  # the user told the agent to stop and wait (blind check 13)
    action = last_action(s, lim.item // 2)
    done = [a for a in action if IN_FLIGHT not in a and not a.startswith("(")]
    stopped = stopped_after(action, done)  # not "the last action" before calls in flight
    stopped += (f" {interruption(s)}." if interruption(s) else "") + relaunch_step(s, lim.item)
    stopped += next_step_notes(s, lim.item)  # what it continues, a cut-off run, a failed check
    stopped += owed_step(s, lim.item) if not s.turn_ended else ""  # a push said done (72 N1)
    running = [b.key or b.command for b in s.running]
    stopped += still_running(running) if running and not s.turn_ended else ""
    flying = s.in_flight
    if flying:
        goal = (
            f", then continue the latest request: {current_ref(last.text, lim.item // 2)}"
            if last
            else stale_goal(s)
        )
        step = in_flight_step(flying, lim.item // 2, lim.items, awaiting_plan(s), unasked_offer(s))
        step = guard_overwrite(step) if overwrites(s, lim.item) else step  # (70 N2)
        return f"   {step}{goal}.{stopped}"
    if not s.turn_ended and last is not None and not s.request_started:
        if went_on := continued_step(s, lim.item):  # "continue" ×N (blind check 69 N5)
            return went_on
        said = template_quote(last.text, lim.item) or quote(last.text, lim.item)
        return f"   Answer the latest request: {said}{unanswered_step(s, lim.item)}"
    if not s.turn_ended and last is not None:
        task = next((t for t in open_items(s) if "progress" in t.status), None)
        task = None if task is None or stale_note(s) else task  # a stale plan's (W6)
        doing = f" (task in progress: {cut(task.subject, lim.item)})" if task else ""
        return (
            f"   Continue the latest request: {current_ref(last.text, lim.item)}{doing}.{stopped}"
        )
    if (asked := evaluated_step(s)) or (asked := claims.input_step(s, lim.item)):
        return asked
    if failed := after_step(s):  # a background task, a `!` command failed after the answer
        return failed  # (before a question the answer asked: blind check 44, W1)
    if s.turn_ended and (question := s.question or claims.answered_ask(s)):
        if closing_offer(s):  # the user's choice of the next step (blind check 66 W1)
            offers = quote(question, lim.item * 2)
            return f"   None to continue: {OFFERED}: {offers}; wait for the user's choice"
        return f"   Wait for the user's answer to: {quote(question, lim.item * 2)}"
    if s.turn_ended and not s.announced and not s.ended_by_tool and (idle := idle_step(s)):
        return idle  # jobs still running, or that may be (blind check 17)
    if s.announced:
        goal = f" (for the latest request: {current_ref(last.text, lim.item // 2)})" if last else ""
        return f"   Do the step the assistant announced last{goal}: {quote(s.announced, lim.item)}"
    if s.ended_by_tool:
        return f"   None: the work was handed in with {code(s.ended_by_tool)}."
    if last is not None and (owed := owed_step(s, lim.item)):  # said done (blind check 72 N1)
        return f"   Not done, though the last reply or the task list says so:{owed}"
    if step := lost_step(s, lim.item):  # lost work, an answer awaiting verification (bc 12)
        return step
    if last is not None and (tasks := open_items(s)):  # not "nothing is pending" (bc 11)
        return (
            f"   None for now: the last reply ended the turn, but {len(tasks)} task-list "
            "items are still open (section 7); resume them only if the user asks. The latest "
            f"request was {quote(last.text, lim.item // 2)}."
        )
    if last is not None:
        return f"   None: {ANSWERED}. The latest request was {quote(last.text, lim.item // 2)}."
    prior = _prior_excerpt(s, 9, lim.prior)
    if prior:
        return prior_step(s, prior, stopped)
    return "   None."


_SECTIONS: tuple[Callable[[Session, Limits], str], ...] = (
    _intent,
    _concepts,
    _files,
    errors_section,
    _problem_solving,
    _user_messages,
    _pending,
    _current_work,
    _next_step,
)


_STATE_SECTIONS = frozenset({4, 7, 8, 9})  # where work stands: from the whole session
_GROWN = frozenset({5, 8})  # the sections that read Limits.deliverable (what 8 quotes, 5 skips)


def render(
    s: Session,
    lim: Limits,
    state: Session | None = None,
    memo: dict[tuple[int, Limits], str] | None = None,
) -> str:
    """The whole ``<analysis>`` + ``<summary>`` text for one set of limits (``state``: the
    session with the kept tail, for :data:`_STATE_SECTIONS`; ``memo``: the parts of earlier
    renders of the session, by number and limits: only the sections :data:`_GROWN` read
    ``deliverable``, so a deliverable grown into the room left renders those again)."""
    pick = dict.fromkeys(_STATE_SECTIONS, state) if state is not None else {}
    memo, same = {} if memo is None else memo, replace(lim, deliverable=0)
    for n, section in enumerate(_SECTIONS, 1):
        if (key := (n, lim if n in _GROWN else same)) not in memo:
            memo[key] = section(pick.get(n, s), lim)
    if (0, same) not in memo:
        memo[0, same] = _analysis(s, lim)
    body = "\n".join(
        f"{n}. {title}:\n{memo[n, lim if n in _GROWN else same]}"
        for n, title in enumerate(SECTION_TITLES, 1)
    )
    return f"<analysis>\n{memo[0, same]}\n</analysis>\n\n<summary>\n{body}\n</summary>"


def summarize_transcript(context: list[Message] | list[AgenticMessage]) -> str:
    """The ``<analysis>`` + ``<summary>`` text for a context (no instruction messages)."""
    return _summary(context, sum(estimate_message(m) for m in context))


def _summary(
    context: Sequence[Message | AgenticMessage],
    input_tokens: int,
    focus: str = "",
    kept: Sequence[Message | AgenticMessage] = (),
) -> str:
    """:func:`summarize_transcript`, the context's estimated size given; the lines that
    mention the ``focus`` terms first, in room taken from the budget (:mod:`.local_focus`);
    where work stands read from the whole session, the ``kept`` tail after the summary too."""
    items: Sequence[Message | AgenticMessage] = context  # only read: no copy of a long history
    session, state = modelled_pair(items, kept)
    cap = int(input_tokens * 0.3) if input_tokens > 20_000 else MAX_SUMMARY_TOKENS
    budget = min(MAX_SUMMARY_TOKENS, cap) + prior_room(session)  # (blind check 53 N5)
    block = focus_block(focus, items, budget) if focus else ""
    with collecting() as found:  # one rule: a value masked anywhere is masked everywhere
        text = _fitted(session, budget - estimate_text(block), state)
        text = masked(insert_focus(text, block, SECTION_TITLES[0]))  # (blind checks 12, 13)
    text = mask_repeats(text, found)  # (blind check 28: §6 printed what §1 masked)
    # CRLF texts (instructions a Windows checkout injected) are plain lines (blind check 15)
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _fitted(session: Session, budget: int, state: Session | None = None) -> str:
    """The session rendered at the largest limits whose text fits ``budget`` tokens; a final
    deliverable of at most :data:`WHOLE_DELIVERABLE` characters is whole at every limit (the
    other sections shrink first: it is the result a resuming agent reports from)."""
    text = ""
    fitted: Limits | None = None
    memo: dict[tuple[int, Limits], str] = {}
    size = max((len(answer.text.strip()) for _, answer in deliverables(session)), default=0)
    for factor in FACTORS:
        lim = Limits().scaled(factor)
        lim = replace(lim, deliverable=size) if MIN_VERBATIM < size <= WHOLE_DELIVERABLE else lim
        text = render(session, lim, state, memo)
        if estimate_text(text) <= budget:
            fitted = lim
            break
    if fitted is None or session.deliverable is None:
        return text
    # The final deliverable takes the room the other sections leave (SPEC §7: kept verbatim).
    size = min(size, MAX_DELIVERABLE)
    while size > fitted.deliverable:
        grown = render(session, replace(fitted, deliverable=size), state, memo)
        if estimate_text(grown) <= budget:
            return grown
        size = int(size * 0.8)
    return text


class LocalSummarizer:
    """The embedded summarizer (``name = "local"``); see the module docstring."""

    name = "local"
    embedded = True
    """A stand-in: reached after the configured models failed (``fallback: local`` or a
    failover chain ending on it), its summary marks the run degraded."""
    readonly_input = True  # ``generate`` only reads the messages (the pipeline need not copy)
    reads_kept_tail = True
    """Its summary depends on ``KEPT_AFTER_SUMMARY`` too (a cache key includes it)."""

    def __repr__(self) -> str:
        return "LocalSummarizer()"

    async def generate(self, messages: list[Any], **options: JsonValue) -> Any:
        """Summarize the context between the instruction messages; deterministic."""
        kind = message_kind(messages)
        start, end = context_span(messages)
        context = ContextView(messages, start, end)  # read only: not a copy of the history
        inner, prompt = estimated_input(messages, context, start, end)  # (INPUT_TOKENS)
        focus = focus_of(messages[-1]) if end < len(messages) else ""
        text = _summary(context, inner, focus, KEPT_AFTER_SUMMARY.get())
        completion = estimate_text(text)
        total = prompt + completion
        usage = Usage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=total)
        msg = make_assistant(kind, text, usage)
        if isinstance(msg, Message):
            msg.finish_reason = "stop"
        return msg
