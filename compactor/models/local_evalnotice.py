"""A harness's evaluation notice in the user role (blind check 20, taxi-chat): "The agent has
finished. Now running automated tests to validate the solution." is written by the harness
about the agent (third person), not by the user: it is no request. The calls after it are the
harness's own evaluation (build, run, grade); when the session ends with them, the agent's work
ended before the notice and was evaluated: sections 8 and 9 say so with the report's verdict
lines (PASS/FAIL, score), never "continue the latest request"."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.facts import Entry, cut

if TYPE_CHECKING:
    from .local_session import Session

__all__ = [
    "evaluated_items",
    "evaluated_step",
    "is_evaluation_notice",
    "verdict_lines",
    "verdicts_said",
]

_NOTICE_RE = re.compile(
    r"\A\W*(?:the (?:agent|assistant|model)\b[^\n.]{0,60}\b(?:has|have|is) (?:finished|completed|"
    r"done|stopped|ended)\b[^\n]{0,200}?\b(?:now|will now|next)\b[^\n]{0,40}?\b(?:run(?:ning)?|"
    r"evaluat\w*|grad\w*|test\w*|validat\w*|check\w*|verif\w*)|now (?:running|evaluating|grading)"
    r" (?:the )?(?:automated |final |hidden )?(?:tests?|evaluation|grading|checks?|verification)"
    r"\b[^\n]{0,80}?\bthe (?:agent|assistant|model)['’]?s?\b)",
    re.IGNORECASE,
)
"""The harness speaking of the agent in the third person and announcing its own evaluation."""
_NOTICE_MAX = 400
_VERDICT_RE = lazy_pattern(
    r"^\W{0,4}(?:PASS(?:ED)?|FAIL(?:ED|URE)?|ERROR|OK)\b|\b(?:PASS(?:ED)?|FAIL(?:ED)?)\s*[:\-]|"
    r"^\W*(?:total |final |overall )?(?:score|grade|result)\s*[:=]|"
    r"^=+ .*\b\d+ (?:passed|failed)\b",
    re.IGNORECASE,
)
"""A result line that gives a verdict: ``✓ PASS: …``, ``FAIL: …``, ``Score: 7/10``, pytest's
``=== 1 passed in 0.2s ===``."""
_MOST = 40


_ASKS_RE = lazy_pattern(
    r"\?|\b(?:you|your|please|pls|fix|can|could|should|would|why|shows?|failed|fails|errors?)\b",
    re.IGNORECASE,
)
"""Words of a user who writes about the agent but asks something ("… now running the tests
shows 3 failures, please fix them"): a request, never a harness notice."""


def is_evaluation_notice(text: str) -> bool:
    """Whether a user-role text is a harness's notice that it evaluates the agent's work."""
    if len(text) > _NOTICE_MAX or _NOTICE_RE.search(text.strip()) is None:
        return False
    return _ASKS_RE.search(text) is None


def verdict_lines(text: str) -> list[str]:
    """The verdict lines of a result, in order (at most ``_MOST``)."""
    found = [ln.strip() for ln in text.splitlines() if _VERDICT_RE.search(ln.strip())]
    return found[:_MOST]


_CHECK_RE = re.compile(r"^\W{0,4}(?:✓|✗|✘|✔)?\s*(PASS(?:ED)?|FAIL(?:ED)?)\b")
"""A check's verdict line of a grading or test report (``✓ PASS: …``, ``FAIL: …``; upper case)."""


def verdicts_said(lines: list[str], width: int) -> str:
    """What a result's PASS/FAIL verdict lines say, on one line (blind check 20: the picker
    gave "Total Transactions: 0" for a report of 12 "✓ PASS" lines); "" when it has none."""
    marks = [(m.group(1)[:4], ln) for ln in lines if (m := _CHECK_RE.match(ln.strip()))]
    if not marks:
        return ""
    failed = [ln.strip() for kind, ln in marks if kind == "FAIL"]
    if failed:
        shown = cut(" | ".join(failed[:3]), width)
        return f"{len(failed)} of {len(marks)} checks FAILED: {shown}"
    return f"all {len(marks)} checks PASS (last: {cut(marks[-1][1].strip(), width // 2)})"


def _after(entries: list[Entry], notice: Entry) -> list[str]:
    lines: list[str] = []
    for e in entries[notice.index + 1 :]:
        for r in e.results:
            lines.extend(verdict_lines(r.text))
    return lines


def evaluated_items(s: Session, width: int) -> list[str]:
    """Section 8's lines when the session ended with the harness's evaluation."""
    entries, notice = s.entries, s.evaluated
    if notice is None:
        return []
    calls = sum(len(e.calls) for e in entries[notice.index + 1 :])
    head = (
        "The agent's work ended with its last answer; then the harness (not the user) evaluated "
        f"it with {calls} call(s) of its own after its notice {cut(notice.text, width)!r}"
    )
    verdicts = _after(entries, notice)
    if not verdicts:
        return [head + "; the evaluation's output gives no PASS/FAIL verdict line"]
    failed = sum(1 for v in verdicts if re.search(r"\bFAIL", v, re.IGNORECASE))
    passed = sum(1 for v in verdicts if re.search(r"\bPASS", v, re.IGNORECASE))
    return [
        f"{head}; its report's verdict lines ({passed} PASS, {failed} FAIL), verbatim:",
        *(f"  {cut(v, width)}" for v in verdicts),
    ]


def evaluated_step(s: Session) -> str:
    """Section 9 when the session ended with the harness's evaluation ("" otherwise)."""
    entries, notice = s.entries, s.evaluated
    if notice is None:
        return ""
    verdicts = _after(entries, notice)
    failed = sum(1 for v in verdicts if re.search(r"\bFAIL", v, re.IGNORECASE))
    how = (
        f"{failed} check(s) FAILED (section 8): fix those only if the user asks"
        if failed
        else "its verdict lines are in section 8"
    )
    return (
        "   None: the agent's work ended and was evaluated by the harness's automated checks; "
        f"{how}. Nothing is pending; wait for the user's next message."
    )
