"""Section 7's lines for the open items of the agent's own task list (moved out of
:mod:`compactor.models.local` to make room), and section 8's in-progress items.

A plan written and then left alone while the work went on is not where the work stands (blind
check 28, W6: a Codex ``update_plan`` written once, its first step "in_progress", while later
calls read the files, scanned the project and wrote the status file it planned): when
:data:`STALE_CALLS` tool calls or more came after the last call that wrote or updated it, it
is shown as "the plan as last written …, not updated since", and its in-progress item is not
called the current step."""

from __future__ import annotations

from compactor._util import lazy_pattern
from compactor.facts import cut
from compactor.facts.answered_plan import ANSWERED_PLAN_NOTE, plan_answered
from compactor.facts.declined_plan import DECLINED_PLAN_NOTE, plan_declined

from .local_again import still_open
from .local_session import Session, Task
from .local_text import quote

__all__ = ["STALE_CALLS", "active_items", "open_items", "stale_note", "task_items"]

STALE_CALLS = 5
_TERM_RE = lazy_pattern(r"[^\W_]{3,}")
_GENERIC = frozenset(
    """the and for with from into onto that this these those all any new old its our your
    set setup configure configuration config install installation create update upgrade verify
    check test tests testing run running start stop restart fix add make build deploy deployment
    application app apps functionality file files code project server service services system
    environment variables variable data database user users page pages work task tasks step
    steps ensure review write read clean up final initial basic full complete proper properly
    script scripts command commands directory folder repo repository version latest working
    production local support feature features settings option options""".split()
)
"""Words of a plan item that name no particular thing (a step's verb, a generic noun): an item
is tied to the current request only by a word outside them (``nginx``, ``proxy``, ``pm2``)."""


def stale_note(s: Session) -> str:
    """'' when the plan is current; else what came after its last writing ("5 tool calls and
    1 user message")."""
    if s.plan_at < 0:
        return ""
    calls = sum(1 for c in s.calls if c.index > s.plan_at)
    users = sum(1 for r in s.requests if r.index > s.plan_at)
    if calls < STALE_CALLS:  # a few calls: the next update may simply be due
        return ""
    asked = f" and {users} user message{'s' if users != 1 else ''}" if users else ""
    ran = f"{calls} tool call{'s' if calls != 1 else ''}"
    return ran + asked


def open_items(s: Session) -> list[Task]:
    """The open task-list items; none when the plan belongs to an answered turn (blind check
    45, W6: :func:`~compactor.facts.answered_plan.plan_answered`)."""
    open_tasks = s.open_tasks
    if open_tasks and plan_declined(s.entries, s.plan_at):  # "No, de momento no" (70 W3)
        return []
    return [] if open_tasks and plan_answered(s.entries, s.plan_at) else open_tasks


def task_items(s: Session, item: int, most: int) -> list[str]:
    """The open task-list items, ``most`` of them cut to ``item`` characters (none when none;
    under a note that they are no pending work when the plan belongs to an answered turn)."""
    open_tasks = s.open_tasks
    if not open_tasks:
        return []
    tool = open_tasks[0].tool
    done = len(s.tasks) - len(open_tasks)
    if declined := plan_declined(s.entries, s.plan_at):  # (blind check 70 W3)
        asked, reply = (quote(x, item) for x in declined)
        items = [DECLINED_PLAN_NOTE.format(tool=tool, done=done, total=len(s.tasks), asked=asked,
                                           reply=reply)]  # fmt: skip
        items.extend(f"  {cut(t.subject, item)} (marked {t.status})" for t in open_tasks[:most])
    elif plan_answered(s.entries, s.plan_at):  # (blind check 45, W6)
        items = [ANSWERED_PLAN_NOTE.format(tool=tool, done=done, total=len(s.tasks))]
        ties = _tied(s, open_tasks[:most])
        rest = [t for t in open_tasks[:most] if all(t is not tie for tie, _ in ties)]
        if ties:  # the current request is about some of them (blind check 68 W3)
            items = _tied_items(ties, tool, done, len(s.tasks), item, bool(rest))
        items.extend(f"  {cut(t.subject, item)} (marked {t.status})" for t in rest)
    else:
        items = [f"Open items of the agent's task list ({tool}; {done} of {len(s.tasks)} done):"]
        if stale := stale_note(s):
            items[0] = items[0][:-1] + (
                f" - the plan as last written, {stale} ago; not updated since, so the work since"
                " may have done some of them:"
            )
        items.extend(f"  [{t.status}] {cut(t.subject, item)}" for t in open_tasks[:most])
    if len(open_tasks) > most:  # a list shown in part says so (blind check 11)
        items.append(f"  ({len(open_tasks) - most} more)")
    return items


def _terms(text: str) -> set[str]:
    return {w for w in _TERM_RE.findall(text.lower()) if w not in _GENERIC}


def _tied(s: Session, tasks: list[Task]) -> list[tuple[Task, list[str]]]:
    """The ``tasks`` of an answered turn's plan that share a particular word with the current
    request or with the last failure nothing resolved since it (each with those words)."""
    last = s.last_request
    if last is None:
        return []
    said = _terms(last.text)
    failed = [e for e in s.errors if e.index > last.index and still_open(e)][-1:]
    for err in failed:
        said |= _terms(" ".join([err.call, *err.outcome.lines]))
    ties = [(t, sorted(_terms(t.subject) & said)) for t in tasks]
    return [(t, words) for t, words in ties if words]


def _tied_items(
    ties: list[tuple[Task, list[str]]], tool: str, done: int, total: int, item: int, rest: bool
) -> list[str]:
    """The note of an answered turn's plan whose items ``ties`` the current request is about:
    those possibly still open for it, then the others' heading (blind check 68 W3: "Configure
    Nginx as reverse proxy" was "no pending work" while the user's last message showed nginx
    failing)."""
    words = sorted({w for _, found in ties for w in found})
    lines = [
        f"The agent's plan ({tool}; {done} of {total} marked done) belongs to an earlier turn "
        "that ended with an answer, but the current request (or its last unresolved failure) "
        f"is about {', '.join(words[:4])}: these items of it, not marked done then, are possibly "
        "still open for the current request:"
    ]
    lines.extend(f"  {cut(t.subject, item)} (marked {t.status})" for t, _ in ties)
    if rest:
        lines.append(
            "Its other items, not marked done then, are no pending work: do not redo them unless "
            "the user asks:"
        )
    return lines


def active_items(s: Session, item: int) -> list[str]:
    """Section 8's lines for the task list's in-progress items (at most three): the current
    step, or (a stale plan) the step marked so when it was last written."""
    active = [t for t in open_items(s) if "progress" in t.status][:3]
    stale = stale_note(s) if active else ""
    if stale:
        head = f"Marked in progress when the plan was last written ({stale} ago; not updated"
        head += " since, so not necessarily the current step)"
        return [f"{head}: {cut(t.subject, item)}" for t in active]
    return [f"In progress on the task list: {cut(t.subject, item)}" for t in active]
