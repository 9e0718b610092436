"""A plan-approval call the user rejected WITH words is a request to revise the plan, not a
refusal (blind check 28, W3).

cc-mkplan: in plan mode the assistant presented its plan with Claude Code's ``ExitPlanMode``
four times; the user rejected the first three, each time with praise and refinements ("The
implementation plan you've outlined is excellent … add …"), and the assistant folded them into
the plan file and presented it again; the session ended on the 4th call, waiting for approval.
The summary called each plan "a proposal the user turned down — do not act on it" and each
call "not to be redone unasked", and told the resuming agent to check whether the 4th "ran".

By shape: a plan-approval call (``ExitPlanMode``, ``exit_plan_mode``) whose rejection carries
the user's words is no failure and no rejected call: it is said as "the user asked to change the
plan: <their words>" (section 5, the list of calls, the last action), the words stay among the
user's constraints, and a plan-approval call left without a result is "the revised plan (#N)
awaits the user's approval" (sections 7 and 9), not a call to check and run again. A bare
rejection (no words of the user's, or only the CLI's) stays a rejection
(:mod:`compactor.models.local_rejected`).

Blind check 33 (format gap): cc-hsim32 ended in plan mode (Claude Code 2.1.x ``permission-mode``
records ``plan``, a ``plan_mode`` attachment naming the plan file), the plan written and the
approval call not yet made; the summary never said the session was in plan mode, so a resuming
agent could edit files before the user approved. :func:`plan_mode` reads the session's last
permission mode (:data:`~compactor.models.local_earlier.MODE`) or, without one, its latest
plan-mode attachment; a plan-approval call approved after that attachment, or a later
``plan_mode_exit`` / other mode, ends it. :func:`plan_mode_items` (section 7) and
:func:`plan_mode_step` (section 9) say so, with the plan file.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call
from compactor.facts.stops import rejection

from .local_earlier import MODE
from .local_session import Session
from .local_text import call_line, code, quote

__all__ = [
    "CHANGE_PLAN",
    "awaiting_plan",
    "changed_plan",
    "declined_plan",
    "is_plan_approval",
    "judge_plan_changes",
    "plan_change_items",
    "plan_mode",
    "plan_mode_items",
    "plan_mode_step",
    "plan_rules",
]

CHANGE_PLAN = "the user asked to change the plan"
_PLAN_APPROVAL_RE = lazy_pattern(r"\Aexit_?plan_?mode\Z", re.IGNORECASE)
_REFUSED = "The user rejected this call"  # how compactor.facts.stops.rejection starts
_NOT_WORDS = ("STOP what you are doing", "the user chose to clarify")  # the CLI's own words
_SHOWN = 3  # plan changes quoted in section 5 (the latest)


def is_plan_approval(name: str) -> bool:
    """Whether a call named ``name`` asks the user to approve a plan (Claude Code's plan mode)."""
    return _PLAN_APPROVAL_RE.match(name) is not None


def _words(text: str) -> str:
    """The user's own words of a rejection result ('' for a bare one or the CLI's words)."""
    said = rejection(text).removeprefix(_REFUSED).lstrip(": ").strip()
    return "" if said.startswith(_NOT_WORDS) else said


def judge_plan_changes(s: Session) -> None:
    """Fill :attr:`Session.plan_changes` (plan-approval call id → the user's words) and take
    those calls out of the failures and the rejected calls: the user asked for a revision."""
    plans = {c.id: c for c in s.calls if is_plan_approval(c.name)}
    if not plans:
        return
    for e in s.entries:
        for r in e.results:
            if r.call_id in plans and (said := _words(r.text)):
                s.plan_changes[r.call_id] = said
    if not s.plan_changes:
        return
    lines = {call_line(plans[i], 300) for i in s.plan_changes}
    s.errors = [
        err
        for err in s.errors
        if not (err.call in lines and err.outcome.lines[:1] and _words_of(err.outcome.lines[0]))
    ]
    s.failed_calls -= s.plan_changes.keys()
    for i in s.plan_changes:
        s.refused.pop(i, None)


def _words_of(line: str) -> bool:
    """Whether an outcome line is a rejection that carries the user's words."""
    said = line.removeprefix(_REFUSED).lstrip(": ")
    return line.startswith(_REFUSED) and bool(said) and not said.startswith(_NOT_WORDS)


def changed_plan(s: Session, call_id: str, width: int = 300) -> str:
    """How a plan-approval call the user answered with changes ended ('' for any other call)."""
    said = s.plan_changes.get(call_id)
    if not said:
        return ""
    return f"not approved: {CHANGE_PLAN}: {quote(said, width)}"


def plan_rules(s: Session) -> list[str]:
    """The user's words on the plan, as section 1's constraints (each labelled)."""
    return [f"{said} ({CHANGE_PLAN})" for said in s.plan_changes.values()]


def _number(s: Session, call: Call) -> int:
    """The ordinal of the plan-approval call ``call`` among the session's plan-approval calls."""
    return sum(1 for c in s.calls if is_plan_approval(c.name) and c.index <= call.index)


def awaiting_plan(s: Session) -> str:
    """``the revised plan (#4) awaits the user's approval`` when a plan-approval call is in
    flight (the session ended on it); '' otherwise."""
    flying = [c for c in s.in_flight if is_plan_approval(c.name)]
    if not flying:
        return ""
    number = _number(s, flying[-1])
    revised = "revised plan" if s.plan_changes else "plan"
    return f"the {revised} (#{number}) awaits the user's approval"


def plan_change_items(s: Session, width: int) -> list[str]:
    """Section 5's lines for the plan revisions the user asked for ([] if none)."""
    if not s.plan_changes:
        return []
    numbers = {c.id: _number(s, c) for c in s.calls if c.id in s.plan_changes}
    last = max((c.index for c in s.calls if c.id in numbers), default=-1)
    again = any(is_plan_approval(c.name) and c.index > last for c in s.calls)
    head = (
        f"Plan revisions the user asked for ({len(numbers)}; rejecting a plan-approval call with "
        "words is feedback on the plan, not a refusal: "
        + (
            "the plan was revised and presented again)"
            if again  # no later plan: none was presented yet (blind check 43 W3)
            else "no revised plan was presented after the last one yet)"
        )
    )
    said = [
        f"  Plan #{numbers[i]} {code(call_line(c, 60))}: {CHANGE_PLAN}: "
        f"{quote(s.plan_changes[i], width)}"
        for c in s.calls
        if (i := c.id) in numbers
    ]
    waiting = awaiting_plan(s)
    return [f"{head}:", *said[-_SHOWN:], *([f"  Now {waiting}"] if waiting else [])]


PLAN_MODE = (
    "The session is in plan mode: present the plan with ExitPlanMode for the user's approval "
    "before editing any file"
)
_ATTACHMENT_RE = lazy_pattern(r"\A(?:<system-reminder>\s*)?attachment (plan_mode\w*)")
_PLAN_FILE_RE = lazy_pattern(r"^planFilePath: *(\S[^\n]*)$", re.MULTILINE)


def plan_mode(s: Session) -> tuple[bool, str]:
    """(whether the session is in plan mode at its end, the plan file its latest plan-mode
    attachment names or ''), worked out once per session (each render asks)."""
    if (known := s.earlier.get(_KNOWN)) is None:
        on, path = _plan_mode(s)
        known = s.earlier[_KNOWN] = ("1" if on else "0") + path
    return known[:1] == "1", known[1:]


_KNOWN = "plan mode"  # key of Session.earlier: "1" or "0", then the plan file


def _plan_mode(s: Session) -> tuple[bool, str]:
    mode, path, at, last = s.earlier.get(MODE, ""), "", -1, ""
    if mode and mode != "plan":
        return False, ""
    for e in reversed(s.entries):
        if e.role == "user" and e.injected and (m := _ATTACHMENT_RE.match(e.text)):
            at, last = e.index, m.group(1)
            found = _PLAN_FILE_RE.search(e.text)
            path = found.group(1).strip() if found else ""
            break
    path = path or _written_plan(s)  # (no attachment after the compaction: the plan written)
    if not mode and last not in ("plan_mode", "plan_mode_reentry"):
        return False, path
    approved = any(
        is_plan_approval(c.name)
        and c.index > at
        and c.id in s.answered
        and c.id not in s.failed_calls
        and c.id not in s.plan_changes
        and c.id not in s.refused
        for c in s.calls
    )
    return not approved, path


_PLANS_DIR = "/.claude/plans/"  # where Claude Code keeps plan files


def _written_plan(s: Session) -> str:
    """The plan file the latest call wrote into Claude Code's plans folder ('' when none)."""
    for c in reversed(s.calls):
        path = c.args.get("file_path") if _PLANS_DIR in c.arguments else None
        if isinstance(path, str) and _PLANS_DIR in path:
            return path
    return ""


def declined_plan(s: Session) -> str:
    """``plan #2 (its ExitPlanMode call`` when the user rejected the session's last
    plan-approval call bare (no words: a refusal, not a revision), none is in flight and the
    session ended answered; '' otherwise (blind check 76 W2)."""
    plans = [c for c in s.calls if is_plan_approval(c.name)]
    if not plans or not s.turn_ended or s.in_flight or plans[-1].id not in s.refused:
        return ""
    return f"plan #{len(plans)} (its {plans[-1].name} call"


def _said(s: Session) -> str:
    on, path = plan_mode(s)
    if not on:
        return ""
    if declined := declined_plan(s):
        return (
            f"The session is in plan mode, but the user rejected {declined}"
            + (f"; the plan file: {code(path)}" if path else "")
            + ") and the last request was answered: do not present the plan again unasked; "
            "wait for the user"
        )
    where = f" (the plan file: {code(path)})" if path else ""
    return PLAN_MODE + where


def plan_mode_items(s: Session) -> list[str]:
    """Section 7's line when the session is in plan mode ([] otherwise)."""
    said = _said(s)
    return [said] if said else []


def plan_mode_step(s: Session, step: str) -> str:
    """Section 9's ``step`` with the plan-mode rule after it when the session is in plan mode."""
    from .local_aborted import wins_over_closing

    said = _said(s)
    if not said:
        return wins_over_closing(s, step)  # a step that waits (blind check 54, N7)
    if declined_plan(s):  # nothing to present or carry out (blind check 76 W2)
        return wins_over_closing(s, f"{step}\n   {said}.")
    return wins_over_closing(
        s, f"{step}\n   {said}; once the user approves, carry the plan out", True
    )
