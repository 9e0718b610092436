"""The user's open message when it lies only in an earlier summary (blind check 21, W1).

After Claude Code's own compaction, the live window may hold no user request at all: only the
summary and the CLI's usage-limit notice (the limit hit right after the compaction). The
request is then the earlier summary's: Claude Code's summaries name the user's last message
("**User's Final Question**: "…"", the last item of "All user messages"). That message is the
current request, and the next step is to answer it (its "Next Step" says how), not to
"continue the current work and the pending tasks": the current work may be the design that
message questions, and the pending tasks may be only the agent's own proposals.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .local_blocked import blocked_at
from .local_prior import calls_since_prior, prior_excerpt
from .local_session import Session
from .local_text import prior_sections, quote

__all__ = ["asked_step", "earlier_ask", "earlier_ask_line", "earlier_ask_step"]

_FINAL_RE = lazy_pattern(
    r"^[\W_]*(?:the )?user['’]?s? (?:final|last|latest|open|pending) "
    r"(?:question|message|request|ask)\b[*_ ]*:?[*_ ]*:?\s*(\S.*)$",
    re.IGNORECASE | re.MULTILINE,
)
"""A labelled line naming the user's last message (``**User's Final Question**: "…"``)."""
_ITEM_RE = lazy_pattern(r"^\s*(?:[-*] |\d{1,3}[.)] )\s*(\S.*)$", re.MULTILINE)
_COMPACT_ASK_RE = lazy_pattern(r"(?i)\A\s*/compact\b|\bsummary of the conversation\b")
"""The compaction's own prompt, which the earlier summary answered."""
_QUOTED_RE = lazy_pattern(r"\A[\"“「](.+?)[\"”」](?=\s|$|[(.,;:])")


def _said(text: str) -> str:
    """The quoted words at the start of ``text`` (a summary's ``"…" (its translation)``), else
    the text itself."""
    text = text.strip()
    match = _QUOTED_RE.match(text)
    return match.group(1).strip() if match else text


def earlier_ask(s: Session) -> str:
    """The user's last message as the latest earlier summary states it, when nothing the user
    typed and no tool call came after that summary ("" otherwise, or when it names none): its
    labelled line ("User's Final Question"), or, when the usage limit stopped the session right
    after the summary, the last of its "All User Messages"; never the compaction's prompt."""
    if s.last_request is not None or not s.prior or calls_since_prior(s):
        return ""
    text = s.prior[-1]
    labelled = [_said(x) for x in _FINAL_RE.findall(text)]
    if labelled and not _COMPACT_ASK_RE.search(labelled[-1]):
        return labelled[-1]
    if blocked_at(s) is None:  # (an unlabelled last message may be the one the summary did)
        return ""
    items = [_said(x) for x in _ITEM_RE.findall(prior_sections(text).get(6, ""))]
    return items[-1] if items and not _COMPACT_ASK_RE.search(items[-1]) else ""


def earlier_ask_line(s: Session, width: int) -> str:
    """Section 1's line when no request came since the earlier summary: :func:`earlier_ask`,
    or that the work continues the earlier summary's."""
    ask = earlier_ask(s)
    if not ask:
        return "   Continues the work described in the earlier summary."
    return (
        "   Current request: the user's last message, which only the earlier summary holds "
        f"(no request came after it): {quote(ask, width)}"
    )


def earlier_ask_step(s: Session, width: int, prior_limit: int) -> str:
    """Section 9 for :func:`earlier_ask` ("" when there is none): answer that message, as the
    earlier summary's next step says when it has one."""
    ask = earlier_ask(s)
    if not ask:
        return ""
    step = f"answer the user's last message, which the earlier summary quotes: {quote(ask, width)}"
    prior = prior_excerpt(s, 9, prior_limit)
    if prior:
        step += f". The earlier summary's next step for it: {prior}"
    return step + (
        ". The earlier summary's pending tasks (section 7) are not the next step unless that "
        "answer leads there."
    )


def asked_step(s: Session, step: str, goal: str, width: int, prior_limit: int) -> tuple[str, str]:
    """(what to do once a usage limit allows, section 9 otherwise) for the state's ``step``:
    :func:`earlier_ask_step` when the earlier summary holds the open message; else the step
    itself, or ``goal`` when no request came since the earlier summary."""
    asked = earlier_ask_step(s, width, prior_limit)
    if asked:
        return asked, f"   {asked[0].upper()}{asked[1:]}"
    return (step.strip() if s.last_request is not None else goal), step
