"""A plan that belongs to an answered turn (blind check 45, W6).

cx-docs: the agent wrote an ``update_plan`` of four steps (the first in progress), did all four
in that turn without updating the plan, gave its final answer (Codex's ``task_complete``), and
the user then asked for something else (a commit). The summary opened with "The agent's latest
plan (update_plan), every item with its status: - [in_progress] … - [pending] …" and §7 said
"Open items of the agent's task list (update_plan; 0 of 4 done)": a resuming agent was handed
four finished document edits as open work. :func:`plan_answered` tells such a plan: the turn
that wrote it ended with a final answer (an assistant text with no call, the last message before
the user's next request), and a request followed. Its statuses are those of an answered turn,
not open items; a plan written in the current, unanswered turn is not one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from compactor._util import lazy_pattern

from .text import Entry

__all__ = ["ANSWERED_PLAN_HEADING", "ANSWERED_PLAN_NOTE", "plan_answered"]

ANSWERED_PLAN_HEADING = (
    "The agent's plan ({tool}) of an earlier, answered turn: its items were not updated before"
    " that turn ended with an answer, and the user has made a new request since; do not redo"
    " them unless the user asks. Its items as last written:"
)
ANSWERED_PLAN_NOTE = (
    "No open task-list items: the agent's plan ({tool}; {done} of {total} marked done) belongs"
    " to an earlier turn that ended with an answer; its items were not updated before that, so"
    " they are no pending work: do not redo them unless the user asks. Not marked done then:"
)

_GO_ON_RE = lazy_pattern(
    r"^\W*(?:go on|go ahead|continue|proceed|keep going|next|yes|yep|y|ok(?:ay)?|sure|do it|"
    r"\d{1,2}|[a-h])\W*$",
    re.IGNORECASE,
)
"""A reply that only lets the turn's work go on ("go on", "yes", "1"): no new request."""
_REPORT_CHARS = 400
"""A final text this long that ends with a question is a report with an offer ("… Want me to
commit?"); a shorter one is a question asked in the middle of the work."""


def plan_answered(entries: Sequence[Entry], at: int, instruction: str = "") -> bool:
    """Whether the plan written at entry ``at`` (its position) belongs to an answered turn: the
    last message of that turn is an assistant text with no call that neither asks ("…?", unless
    it is a report) nor announces ("…:") anything, and a user request follows that is more than
    a "go on". A user text from ``instruction`` on (the summarizer's own request) is no
    request of the user."""
    if at < 0:
        return False
    last: Entry | None = None
    for e in entries[at + 1 :]:
        if e.internal or e.injected or e.role == "system":
            continue
        text = e.text.split(instruction, 1)[0] if instruction and e.role == "user" else e.text
        if e.role == "user" and not e.results and text.strip():
            if last is None or last.role != "assistant" or last.calls:
                return False  # the turn was cut, or ended on a call: not answered
            said = last.text.rstrip(" \t\n*_`")
            asks = said[-1:] in ("?", "？") and len(said) < _REPORT_CHARS  # a mid-work question
            return not asks and said[-1:] != ":" and _GO_ON_RE.match(text) is None
        if text.strip() or e.calls or e.results:
            last = e
    return False
