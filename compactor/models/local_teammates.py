"""An agent-team lead's mailbox deliveries: context from other agents (blind check 47, W3).

Claude Code delivers a teammate's message to the lead as a user record of
``<teammate-message teammate_id="…">`` blocks (:data:`compactor.formats.notices.TEAMMATE_TAG`).
They are injected (never a request, a constraint or one of "all user messages"), but a
teammate's free-text report holds facts the lead acted on ("`npm run build` fails on two route
conflicts …"). Section 1 lists them among the injected context: how many deliveries came from
whom, and the latest reports (idle notifications and shutdown notices are only counted).
"""

from __future__ import annotations

from compactor.facts import cut, one_line
from compactor.facts.teams import TEAMMATE_TAG, teammate_blocks

from .local_session import Session

__all__ = ["judge_teammates"]

_REPORTS = 4
"""The latest free-text reports listed (each one line, cut to :data:`_REPORT_CHARS`)."""
_REPORT_CHARS = 400
_NOTICE_HEADS = ("{", "[")
"""How a mailbox notice opens (``{"type":"idle_notification",…}``): JSON, not a report."""


def judge_teammates(s: Session) -> None:
    """Add to the injected context what teammates' deliveries said (module docstring)."""
    senders: dict[str, int] = {}
    reports: list[str] = []
    for e in s.entries:
        if e.role != "user" or not e.injected or TEAMMATE_TAG not in e.text[:200]:
            continue
        for sender, body in teammate_blocks(e.text):
            who = sender or "a teammate"
            senders[who] = senders.get(who, 0) + 1
            if body and not body.startswith(_NOTICE_HEADS):
                reports.append(f"{who}: {cut(one_line(body), _REPORT_CHARS)}")
    if not senders:
        return
    counts = ", ".join(f"{who} {n}" for who, n in senders.items())
    s.context.append(
        f"Agent-team mailbox: {sum(senders.values())} teammate messages ({counts}): other agents'"
        " reports and notices, not the user's words"
    )
    shown = reports[-_REPORTS:]
    if len(reports) > len(shown):
        s.context.append(f"({len(reports) - len(shown)} earlier teammate reports not shown)")
    s.context.extend(f"Teammate report from {line}" for line in shown)
