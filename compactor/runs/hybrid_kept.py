"""When a forced hybrid run keeps the history as it is although clearing cleared nothing:
the part before the retained rounds holds only an earlier compaction's summary (the client's
own, such as Claude Code's ``isCompactSummary``, or ours) and housekeeping. Summarizing it would
only re-summarize that summary, lossily, and gain nothing (blind check 53: a Claude Code session
at 47,249 tokens against a 160,000 trigger lost a 549-line file's facts that way)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from compactor.schema import content_type, is_tool_result

if TYPE_CHECKING:
    from compactor.reduction import ReduceOutcome
    from compactor.schema import M

__all__ = ["OWN_SUMMARY_KEPT", "forced_summary", "only_own_summary"]

OWN_SUMMARY_KEPT = "the older part is only the client's own summary: kept verbatim"


def forced_summary(outcome: ReduceOutcome[M], skipped: str) -> tuple[bool, str]:
    """:func:`~compactor.runs.run_reduce.hybrid_why` for ``--force`` when clearing cleared
    nothing: summarize the older part, unless it is only an earlier summary (kept as it is)."""
    if only_own_summary(outcome.messages[: outcome.retained_from]):
        return False, f"--force, but nothing to clear ({skipped}); {OWN_SUMMARY_KEPT}"
    return True, f"--force, and clearing cleared nothing ({skipped}): it summarizes"


def only_own_summary(older: Sequence[M]) -> bool:
    """Whether ``older`` holds an earlier compaction's summary and, besides it, only
    housekeeping: system messages and text the CLI injected (no request, answer, call or
    tool result: those are real messages, and a summary of them is worth making)."""
    return any(content_type(m) == "summary" for m in older) and all(
        content_type(m) == "summary" or _housekeeping(m) for m in older
    )


def _housekeeping(msg: M) -> bool:
    if msg.role in ("system", "developer"):
        return True
    if msg.role != "user" or is_tool_result(msg):
        return False
    return msg.extra.get("injected") is True
