"""A message the user interrupted at once is no request (blind check 38 W1).

cx-usage: the user's request was answered; the user then sent a mistyped command
("/status/staus") and interrupted that turn at once — the agent CLI's ``<turn_aborted>`` notice
and ``turn_aborted`` event came right after it, with no assistant output and no call in between.
The summary made that text the current request and section 9 said "Answer the latest request".
By shape: the user's last message whose turn was interrupted before ANY assistant output or
call (nothing the assistant wrote or called after it; Codex's ``<turn_aborted>`` notice or
``turn_aborted`` event, Claude Code's bare ``[Request interrupted by user]``) was withdrawn by
the user. It stays among the user's messages, but the current request stays the one before it
(:func:`aborted_request`, which :func:`~.local_session.build_session` applies); sections 8 and
9 say that the user sent it and interrupted it at once, and that the next step is to wait for
the user (:func:`aborted_line`, :func:`aborted_step`). A message whose turn the assistant had
started working on (text or a call) before the interrupt stays the current request.

Blind check 49 W4: such a message may be a real request (a command template's feature
description, interrupted before any work). The summary names it by the user's words
(:func:`~.local_template.template_quote`), calls it interrupted, not "no request", and says to
ask the user whether to continue with it rather than act on it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.facts import Entry

from .local_asksonly import ASKS_ONLY, asks_only
from .local_template import template_quote
from .local_text import quote
from .local_unreadable import UNREADABLE

if TYPE_CHECKING:
    from .local_session import Session

__all__ = [
    "aborted_line",
    "aborted_message",
    "aborted_note",
    "aborted_request",
    "aborted_step",
    "nothing_pending",
    "wins_over_closing",
]

WINS = "this step wins over the closing instruction to continue without asking"
"""What section 9 says when it waits for the user while the closing instruction (SPEC §5.2, the
client's continuation text, which stays) says to continue without asking (blind checks 52 W9,
54 N7): one owner of the words, for every step that waits."""
_WAITS_RE = lazy_pattern(r"\bwait (?:for|until) the user\b", re.IGNORECASE)

_WORDS_AFTER_RE = lazy_pattern(r"\A\s*\[Request interrupted by user[^\]\n]{0,40}\]\s*\S")
"""Words the user typed after Claude Code's notice: a request of their own (local_turns)."""
_QUOTED = 120  # characters of the withdrawn message
_WORDS = 400  # characters of the user's words typed into a command template (49 W4)


def aborted_request(
    entries: Sequence[Entry], requests: Sequence[Entry], notice: Entry | None
) -> Entry | None:
    """The last of ``requests`` when the user interrupted its turn (``notice``, at or after it)
    before the assistant wrote or called anything, and a request came before it; else None."""
    if notice is None or len(requests) < 2 or _WORDS_AFTER_RE.match(notice.text):
        return None
    last = requests[-1]
    if notice.index < last.index:
        return None
    quiet = not any(
        e.role == "assistant" and not e.internal and (e.text.strip() or e.calls)
        for e in entries[last.index + 1 :]
    )
    return last if quiet else None


def _said(s: Session) -> str:
    withdrawn = s.aborted
    if withdrawn is None:
        return ""
    return template_quote(withdrawn.text, _WORDS) or quote(withdrawn.text, _QUOTED)


def aborted_message(s: Session) -> list[tuple[int, str]]:
    """The withdrawn message as (index, text), kept among the user's messages (or none)."""
    return [] if s.aborted is None else [(s.aborted.index, s.aborted.text)]


def aborted_note(s: Session) -> str:
    """The analysis step of the withdrawn message."""
    if s.unreadable:
        return f"User sent {_said(s)}, which {UNREADABLE}: no request."
    return (
        f"User sent {_said(s)}, then interrupted that turn at once (interrupted before any "
        "work: ask the user whether to continue with it)."
    )


def aborted_line(s: Session) -> str:
    """Section 8's sentence on the withdrawn message ('' when there is none)."""
    said = _said(s)
    if not said:
        return ""
    if s.unreadable:  # (blind check 76 N1)
        head = f"The user then sent a message that {UNREADABLE}: {said}; no request"
        if s.turn_ended:
            return f"{head}; the request before it was answered. Wait for the user"
        return f"{head}; the latest request before it was left unfinished"
    head = (
        f"The user then sent {said} and interrupted that turn at once (the agent CLI's notice, "
        "before any output or call): interrupted before any work, not carried out; ask the user "
        "whether to continue with it"
    )
    if s.turn_ended:
        return f"{head}; the request before it was answered. Wait for the user"
    return f"{head}; the interrupt also stopped the latest request, which was left unfinished"


def aborted_step(s: Session, ref: str) -> str:
    """Section 9 when the latest request was answered and the user then sent a message and
    interrupted it at once: wait for the user ('' otherwise)."""
    said = _said(s)
    if not said or not s.turn_ended:
        return ""
    asked = f" The answer asked the user: {quote(s.question, _QUOTED * 2)}." if s.question else ""
    if s.unreadable:  # (blind check 76 N1)
        return (
            f"   Wait for the user: the latest request ({ref}) was answered; the user's last "
            f"message {UNREADABLE}: {said}, no request to act on. Do not start anything on your "
            f"own. No task is left to continue, so {WINS}.{asked}"
        )
    return (
        f"   Wait for the user: the latest request ({ref}) was answered; the user then sent "
        f"{said} and interrupted that turn at once, before any output or call. Do not start it "
        "or run anything on your own (the user interrupted it: do not redo it). No task is left "
        f"to continue, so {WINS}: ask the user whether to continue with it, and wait for the "
        f"answer.{asked}"
    )


def nothing_pending(s: Session, done: str, answered: str) -> str:
    """Section 7 when nothing is open: the latest request (``done``: its quote) was answered
    (``answered``: the fixed words); when the user then sent a message and interrupted it at
    once, that is said, as sections 8 and 9 say it (blind check 52 W9: one owner for how the
    session ended, so the three never disagree)."""
    from .local_lostcalls import lost_note  # (local_session imports this module)

    said = _said(s)
    if said and s.turn_ended and s.unreadable:  # (blind check 76 N1)
        return (
            f"   - None to carry out on your own: the latest request{done} was answered; the "
            f"user's last message {UNREADABLE}: {said}, no request. No task, background job or "
            "tool call is open."
        ) + lost_note(s, 120)
    if said and s.turn_ended:
        return (
            f"   - None to carry out on your own: the latest request{done} was answered; the "
            f"user then sent {said} and interrupted that turn at once, before any output or "
            "call: not carried out, not done (section 9: ask the user whether to continue with "
            "it). No task, background job or tool call is open."
        ) + lost_note(s, 120)  # a call the session went on past is no open call (71 N2)
    if asks_only(s):  # questions before any change are no completion (blind check 61 W6)
        return f"   - The latest request{done} was {ASKS_ONLY}; it waits for the user's answers."
    return (
        f"   - None: {answered}. The latest request{done} was completed and no task, "
        "background job or tool call is open."
    ) + lost_note(s, 120)


def wins_over_closing(s: Session, step: str, approval: bool = False) -> str:
    """Section 9's ``step`` saying plainly that it wins over the closing instruction when it
    waits for the user (``approval``: a plan awaiting the user's approval) and no job is left
    running ('' and other steps unchanged)."""
    if WINS in step or s.running or not (approval or _WAITS_RE.search(step)):
        return step
    why = "The plan needs the user's approval" if approval else "No task is left to continue"
    return f"{step.rstrip()}{'' if step.rstrip().endswith('.') else '.'} {why}, so {WINS}."
