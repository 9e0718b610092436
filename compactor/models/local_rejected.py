"""Calls the user rejected, stated as rejected (blind check 26, N1).

cc-matt: the assistant wrote "The vercel.json approach isn't working. Here's the fix:" and called
``rm vercel.json && git add -A && git commit``, then ``git push``; the user rejected both and
asked for something else. The summary quoted the lead-in as an earlier request's answer and
among the assistant's decisions, called both calls "Failed", and never said the user rejected
them: "Here's the fix:" invited redoing what the user refused.

By shape, whatever the harness (:func:`compactor.rejections.is_rejection` decides which results
are rejections):

* every rejected call is stated as such in section 5 ("The user rejected: `call` (not run)"),
  and named "rejected by the user, not run" in the list of calls and the walk;
* an assistant message whose only follow-up was calls the user rejected (no other call before
  the next assistant text or user message) is a **proposal the user rejected**: its sentences
  leave the decisions for the turned-down proposals, and when it is the answer section 8
  quotes, its title says so;
* unless a later call of the same tool on the same file succeeded (blind check 30, W4: the user
  rejected a ``Write``'s content, then approved the next ``Write`` of that file): the rejection
  was of that attempt, not of the plan; the call is listed "rejected once, then done";
* or unless the user's very next message only said to go on ("Sorry continue", blind check 69
  W5; :mod:`.local_withdrawn`): the rejection was withdrawn; the call is listed so;
* or unless later successful changes carried the proposal out (blind check 39, W2: the user
  rejected only the ``kill`` after "Let me fix … with stable attention", and the fix was made
  after a later request; :func:`.local_overtaken.carried_out`).
"""

from __future__ import annotations

from compactor.facts import Call, Entry
from compactor.facts.stops import STOPPED, rejection, user_stopped
from compactor.rejections import is_rejection

from .local_dismissed import own_answer
from .local_foundnothing import nothing_found_mark
from .local_lostcalls import LOST_MARK, lost_calls
from .local_overtaken import carried_out, reports_done, route_declined, stops_only
from .local_planmode import changed_plan, judge_plan_changes, plan_change_items
from .local_question import is_question_call
from .local_session import PLAN_TOOLS, ErrorFact, Session, once
from .local_text import call_line, code, quote
from .local_withdrawn import went_on

__all__ = [
    "INTERRUPTED_STEP",
    "REFUSED_ITEM",
    "REJECTED_STEP",
    "failed_count",
    "is_refused",
    "is_stopped",
    "judge_rejected_calls",
    "proposal_note",
    "redone_after",
    "refusal_mark",
    "refused_after",
    "refused_words",
    "rejected_items",
    "rejected_proposal_title",
]

REJECTED_STEP = "Rejected by the user (not run)"
"""How the walk names the calls the user rejected (never "Failed")."""
INTERRUPTED_STEP = "Interrupted by the user (never completed)"
"""How the walk names the calls the user interrupted (never "Failed"; blind check 71 W1)."""
REFUSED_ITEM = "was rejected by the user (it never ran)"
"""How section 4 names a call the user rejected (never "failed")."""
_REFUSED = "The user rejected this call"  # how compactor.facts.stops.rejection says so
_NO_WORDS = "the user refused to let this call run"  # local_state's words for a bare one
_SHOWN = 5  # rejected calls listed in section 5 (the latest)
_LATER = ("a later call on the same file succeeded", "the same call ran later and succeeded")
_WENT_ON = "the user's next message said to go on:"
_CALL = 90  # characters of a rejected call's line
_ERR_CALL = 300  # characters of a failed call's line (local_session's ErrorFact.call)


def failed_count(s: Session) -> str:
    """The analysis line's count of failed calls, the ones the user rejected or interrupted
    apart (neither is a failure; blind checks 26 and 71 W1)."""
    refused = sum(1 for c in s.failed_calls if c in s.refused)
    stopped = len(stopped_calls(s) - s.refused.keys())
    told = f", {stopped} interrupted by the user" if stopped else ""
    told += f", {refused} rejected by the user" if refused else ""
    return f"{max(0, len(s.failed_calls) - refused - stopped)} failed{told}"


def stopped_calls(s: Session) -> set[str]:
    """The failed calls whose result says the user interrupted them while they ran (Claude
    Code's "[Request interrupted by user for tool use]", Codex's "aborted by user"); found once
    (the analysis counts them, and the list of calls asks for each failed call it shows)."""
    return once(s, _stopped_calls)


def _stopped_calls(s: Session) -> set[str]:
    if not s.failed_calls:
        return set()
    return {
        r.call_id
        for e in s.entries
        for r in e.results
        if r.call_id in s.failed_calls and user_stopped(r.text).startswith(STOPPED)
    }


def is_stopped(err: ErrorFact) -> bool:
    """Whether the failed call ``err`` is one the user interrupted (it never completed)."""
    return bool(err.outcome.lines) and err.outcome.lines[0].startswith(STOPPED)


def is_refused(err: ErrorFact) -> bool:
    """Whether the failed call ``err`` is one the user rejected (it never ran)."""
    return bool(err.outcome.lines) and err.outcome.lines[0].startswith(_REFUSED)


def refused_after(err: ErrorFact, width: int) -> str:
    """Section 4's second line for a call the user rejected with no words of their own (the
    CLI's "STOP what you are doing …", kept, or nothing): '' for any other failure."""
    if err.after != "skipped" or not is_refused(err):
        return ""
    if not err.by or err.by == _NO_WORDS:
        return "  Not a failure to fix: the user rejected it; nothing of it ran."
    return f"  Not a failure to fix: nothing of it ran; the CLI's words: {quote(err.by, width)}"


def refused_words(line: str, width: int) -> str:
    """``: the user said "…"`` for a rejection line that carries the user's own words ('' for a
    bare one, or one whose only words are the CLI's "STOP what you are doing …")."""
    said = line.removeprefix(_REFUSED).lstrip(": ")
    if not said or said.startswith("STOP what you are doing") or "the CLI's words" in said:
        return ""
    return f": the user said {quote(said, width)}"


def judge_rejected_calls(s: Session) -> None:
    """Fill :attr:`Session.refused` (call id → its line) and :attr:`Session.refused_at` (the
    assistant messages whose only follow-up was rejected calls), and move those messages'
    sentences from the decisions to the proposals the user turned down. A plan-approval call
    rejected with the user's words asks for a revised plan: no rejection (blind check 28, W3)."""
    judge_plan_changes(s)
    for e in s.entries:
        for r in e.results:
            if r.call_id and r.call_id not in s.plan_changes and is_rejection(r.text):
                s.refused[r.call_id] = ""
    if not s.refused:
        return
    for c in s.calls:
        if c.id in s.refused:
            s.refused[c.id] = call_line(c, _CALL)
    redone = _redone_once(s) | set(_withdrawn(s))
    asked = {c.id for c in s.calls if c.id in s.refused and is_question_call(c)}
    for at in sorted({_lead_in(s, c.index) for c in s.calls if c.id in s.refused} - {-1}):
        e = s.entries[at]
        calls = _follow_up(s, e)
        if asked.intersection(calls):  # a question the user dismissed: no proposal (check 32)
            continue
        if not calls or not all(c in s.refused for c in calls) or all(c in redone for c in calls):
            continue
        if carried_out(s, e.index, e.text):  # later changes did what it proposed (check 39, W2)
            continue
        if reports_done(s, e.index, e.text):  # it reported a change done, proposed none (76 W1)
            continue
        if stops_only(s, [c for c in s.calls if c.id in calls], e.index, e.text):
            continue  # the user stopped a `kill`, not the plan before it (check 39, W2, rule a)
        if route_declined(s, e.index, any(_own_words(s, c) for c in calls)):
            continue  # the user declined the call's way, then went on by another (72 W2)
        s.refused_at[e.index] = [s.refused[c] for c in calls]
    if not s.refused_at:
        return
    s.decisions = [d for d in s.decisions if d[0] not in s.refused_at]
    for index in s.refused_at:
        said = quote(s.entries[index].text, 300)
        s.rejected.append(f"Proposed, then the user rejected its call (not run): {said}")


def _own_words(s: Session, call_id: str) -> bool:
    """Whether the rejection of ``call_id`` carries the user's own words (a reason, an
    instruction), not only the CLI's ("STOP what you are doing …") or none."""
    for e in s.entries:
        for r in e.results:
            if r.call_id == call_id:
                return bool(refused_words(rejection(r.text), 80))
    return False


_PATH_KEYS = ("file_path", "path", "notebook_path")


def _target(args: object) -> str:
    """The file a call writes or edits ('' when it names none)."""
    if not isinstance(args, dict):
        return ""
    return next((v for k in _PATH_KEYS if isinstance(v := args.get(k), str) and v), "")


def _redone_once(s: Session) -> set[str]:
    """:func:`_redone`, worked out once per session (the judge and section 5 both ask): once
    :attr:`Session.refused` is filled it no longer changes."""
    if s.redone is None:
        s.redone = _redone(s)
    return s.redone


def _redone(s: Session) -> set[str]:
    """The rejected calls a later call of the same tool on the same file, or a later run of the
    same shell command, did with success (blind check 68 W7: the user wrote "I pressed NO by
    mistake" and the agent ran the same ``git remote set-url`` again: no standing rejection)."""
    if not s.refused:  # most sessions: nothing was rejected
        return set()
    done: dict[tuple[str, str], int] = {}  # (tool, file or command) → the latest success
    for c in s.calls:
        if c.id in s.answered and c.id not in s.failed_calls and (key := _done_key(c)):
            done[(c.name, key)] = c.index
    return {
        c.id
        for c in s.calls
        if c.id in s.refused and (key := _done_key(c)) and done.get((c.name, key), -1) > c.index
    }


def _withdrawn(s: Session) -> dict[str, str]:
    """The rejected calls the user's next message withdrew (call id → that message; module
    doc), those a later call redid aside."""
    if not s.refused:
        return {}
    redone = _redone_once(s)
    return {
        c.id: said
        for c in s.calls
        if c.id in s.refused and c.id not in redone and (said := went_on(s, c))
    }


def _done_key(c: Call) -> str:
    """What a later call must do again to carry out ``c``: the file it writes, else its shell
    command, whitespace aside ('' when neither)."""
    return _target(c.args) or " ".join((c.command or "").split())


def _ran_later(s: Session, c: Call) -> bool:
    """Whether the rejected ``c`` is a shell command that ran later with success (no file)."""
    return c.id in _redone_once(s) and not _target(c.args)


def redone_after(s: Session, err: ErrorFact, width: int) -> str:
    """Section 4's second line for a rejected shell command the same command later ran with
    success: no standing rejection ('' for any other failure; a file's rejected change redone
    keeps :func:`refused_after`'s line)."""
    if not is_refused(err) or not s.refused:
        return ""
    redone = _redone_once(s)
    withdrawn = _withdrawn(s)
    refused = (c for c in s.calls if (c.id in redone or c.id in withdrawn) and c.index <= err.index)
    call = next((c for c in refused if call_line(c, _ERR_CALL) == err.call), None)
    if call is not None and call.id in withdrawn:  # "Sorry continue" (blind check 69 W5)
        return f"  Not a standing rejection: {_WENT_ON} {quote(withdrawn[call.id], width)}."
    if call is None or not _ran_later(s, call):  # (err.index is its result's entry)
        return ""
    words = err.by if err.by and err.by != _NO_WORDS else ""
    said = (
        ""
        if not words or words.startswith("STOP what")
        else f"; the rejection said {quote(words, width)}"
    )
    return f"  Not a standing rejection: {_LATER[True]}{said}."


def _lead_in(s: Session, index: int) -> int:
    """The index of the assistant message with text that a call made at entry ``index`` follows
    (itself, or the nearest before it with no user message between); -1 when there is none."""
    for e in reversed(s.entries[max(0, index - 40) : index + 1]):
        if e.role == "assistant" and not e.internal and e.text.strip():
            return e.index
        if e.role == "user" and e.text.strip() and not e.results:
            return -1
    return -1


def _follow_up(s: Session, e: Entry) -> list[str]:
    """The ids of the calls ``e`` and the text-less assistant messages after it made, up to the
    next assistant text or user message; a plan tool's update (``TodoWrite``) is no follow-up."""
    ids = [c.id for c in e.calls if c.name not in PLAN_TOOLS]
    for later in s.entries[e.index + 1 : e.index + 40]:
        if later.role == "assistant":
            if later.text.strip():
                break
            ids.extend(c.id for c in later.calls if c.name not in PLAN_TOOLS)
        elif later.role == "user" and later.text.strip() and not later.results:
            break
    return ids


def rejected_items(s: Session, width: int) -> list[str]:
    """Section 5's lines that name the plan revisions the user asked for and the calls the user
    rejected, the latest first ([] if none)."""
    redone = _redone_once(s)
    withdrawn = _withdrawn(s)
    lines = [x for c, x in s.refused.items() if x and c not in redone and c not in withdrawn]
    ran = {c.id for c in s.calls if c.id in redone and _ran_later(s, c)}
    again = [
        f"Rejected once, then done ({_LATER[c in ran]}): {code(x[:width])}"
        if c in redone
        else f"Rejected, then withdrawn ({_WENT_ON} {quote(withdrawn[c], 60)}): {code(x[:width])}"
        for c, x in s.refused.items()
        if x and (c in redone or c in withdrawn)
    ]
    if not lines:
        return [*plan_change_items(s, width), *again[-_SHOWN:]]
    more = f" ({len(lines) - _SHOWN} earlier ones not listed)" if len(lines) > _SHOWN else ""
    asked = {s.refused[c.id]: c for c in s.calls if c.id in s.refused and is_question_call(c)}
    shown = [
        _dismissed(s, x, asked[x], width)
        if x in asked
        else f"  The user rejected: {code(x[:width])} (not run)"
        for x in lines[-_SHOWN:]
    ]
    head = f"Calls the user rejected (they never ran; not to be redone unasked){more}:"
    return [*plan_change_items(s, width), head, *shown, *again[-_SHOWN:]]


def _dismissed(s: Session, line: str, call: Call, width: int) -> str:
    """A dismissed question's line: answered in the user's own words later (blind check 37,
    W3; :mod:`.local_dismissed`), or still open."""
    said = own_answer(s, call)
    if said:
        return (
            f"  The user dismissed the question {code(line[:width])} and answered in their own "
            f"words: «{said}» (no longer open)"
        )
    return f"  The user dismissed the question {code(line[:width])} (no option chosen; still open)"


def refusal_mark(s: Session, call_id: str) -> str:
    """What the list of calls adds to a call the user rejected, interrupted or answered with plan
    changes, to a lost call, and to a search that found nothing."""
    if call_id in s.refused:
        return " (rejected by the user, not run)"
    if call_id in s.failed_calls and call_id in stopped_calls(s):
        return " (interrupted by the user, never completed)"
    if call_id not in s.answered and any(c.id == call_id for c in lost_calls(s)):
        return LOST_MARK  # (blind check 71 N2)
    said = changed_plan(s, call_id, 80)
    if said:
        return f" ({said})"
    name = next((c.name for c in s.calls if c.id == call_id), "")
    return nothing_found_mark(s, call_id, name)  # it explains the next call (72 N6)


def proposal_note(s: Session, e: Entry) -> str:
    """What a quoted assistant message's title adds when it is a proposal the user rejected."""
    if e.index not in s.refused_at:
        return ""
    return " (a proposal the user REJECTED: its call never ran; not an answer, not a decision)"


def rejected_proposal_title(s: Session, e: Entry) -> str:
    """The title of a quoted answer that is a proposal the user rejected ('' when it is not)."""
    calls = s.refused_at.get(e.index)
    if not calls:
        return ""
    named = ", ".join(code(x) for x in calls[:3])
    return (
        f"A proposal the user REJECTED, verbatim (NOT an answer and not a decision: the user "
        f"rejected its call {named}, which never ran)"
    )
