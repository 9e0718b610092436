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

_REPORTS = 8
"""Free-text reports listed: each teammate's fullest one, then the next fullest, shown in
order (each one line, cut to :data:`_REPORT_CHARS`)."""
_REPORT_CHARS = 600
_NOTICE_HEADS = ("{", "[")
"""How a mailbox notice opens (``{"type":"idle_notification",…}``): JSON, not a report."""


def judge_teammates(s: Session) -> None:
    """Add to the injected context what teammates' deliveries said (module docstring)."""
    senders: dict[str, int] = {}
    reports: list[tuple[str, str]] = []
    sizes: list[int] = []
    for e in s.entries:
        if e.role != "user" or not e.injected or TEAMMATE_TAG not in e.text[:200]:
            continue
        for sender, body in teammate_blocks(e.text):
            who = sender or "a teammate"
            senders[who] = senders.get(who, 0) + 1
            if body and not body.startswith(_NOTICE_HEADS):
                reports.append((who, f"{who}: {cut(one_line(body), _REPORT_CHARS)}"))
                sizes.append(len(body))
    if not senders:
        return
    counts = ", ".join(f"{who} {n}" for who, n in senders.items())
    s.context.append(
        f"Agent-team mailbox: {sum(senders.values())} teammate messages ({counts}): other agents'"
        " reports and notices, not the user's words"
    )
    # the fullest reports (a verify agent's counts, not its "Standing by": check 47 T8), each
    # teammate's fullest first, then the next fullest; shown in order
    fullest: dict[str, int] = {}
    for n, (who, _) in enumerate(reports):
        if who not in fullest or sizes[n] >= sizes[fullest[who]]:
            fullest[who] = n
    chosen = set(fullest.values())
    ranked = sorted(range(len(reports)), key=lambda n: (n in chosen, sizes[n], n))
    keep = sorted(ranked[-_REPORTS:])
    if len(reports) > len(keep):
        s.context.append(f"({len(reports) - len(keep)} shorter teammate reports not shown)")
    s.context.extend(f"Teammate report from {reports[n][1]}" for n in keep)
