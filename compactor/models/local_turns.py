"""The user's turns that are not typed messages, and which request a short reply continues (issue
28, blind check 13).

* A rejected call whose result carries the user's words (Claude Code's "The user doesn't want to
  proceed with this tool use … To tell you how to proceed, the user said: …", or "… the
  following reason for the rejection: …") is the user's turn: those words are a request, at the
  rejection's place (:func:`judge_user_turns`). The CLI's own "the user wants to clarify these
  questions" text is not the user's words.
* A rejection that tells the agent to stop and wait ("STOP what you are doing and wait for the
  user to tell you how to proceed"), when nothing the agent did or the user typed follows it,
  puts the latest request on hold: the next step is to wait for the user (:func:`on_hold`).
* The user's words typed after the CLI's interrupt notice in the same message
  (``[Request interrupted by user for tool use] use the v2 API``) are a request too.
* The user's answers to the agent's questions (``AskUserQuestion``) after the current request
  are named with it (:func:`answers_since`).
* A short reply ("お願いします。", "2", "go ahead") continues the request before it that is not
  itself such a reply (:func:`continued_request`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from compactor._util import lazy_pattern
from compactor.facts import cut, one_line

from .local_answers import user_answers
from .local_handoff import handoff_line, handoff_step
from .local_session import Session
from .local_supersede import continues
from .local_text import code, quote

__all__ = [
    "answers_since",
    "continued_request",
    "hold_line",
    "hold_step",
    "judge_cli_rejections",
    "judge_user_turns",
]

_SAID_RE = lazy_pattern(
    r"(?:doesn['’]t|does not) want to proceed with this tool use.{0,300}?"
    r"(?:how to proceed, the user said|reason for (?:the )?(?:rejection|denial))\s*:\s*",
    re.IGNORECASE | re.DOTALL,
)
_CLI_TEMPLATE = "the user wants to clarify these questions"
_CLARIFIED = "the user chose to clarify these questions"  # how facts.rejection says so
_REJECTED = "The user rejected this call: "  # how compactor.facts.rejection says so
_WAIT_RE = lazy_pattern(r"STOP what you are doing|wait for the user to tell you how to proceed")
"""The CLI's words for a bare rejection (the user's own words are a request: no hold)."""
_TYPED_AFTER_RE = lazy_pattern(
    r"\A\s*\[Request interrupted by user[^\]\n]{0,40}\]\s*(\S.*)", re.DOTALL
)
_CALL = 90  # characters of the rejected call's line
_SHORT = 3  # words: "お願いします。", "2", "go ahead"


def continued_request(texts: Sequence[str]) -> str | None:
    """For a short last reply that continues (:func:`continues`), the latest request before it
    that is not itself one; else None."""
    last = texts[-1] if texts else ""
    if len(last.split()) > _SHORT or not continues(last):
        return None
    return next((t for t in reversed(texts[:-1]) if t != last and not continues(t)), None)


def judge_user_turns(s: Session) -> None:
    """Each rejection that carries the user's words joins the requests at its place (the
    latest one becomes the current request; its start and reply are then judged again)."""
    added = False
    notice = s.interrupted  # "[Request interrupted by user for tool use] use the v2 API"
    typed = _TYPED_AFTER_RE.match(notice.text) if notice is not None else None
    if notice is not None and typed is not None:
        s.requests.append(replace(notice, text=typed.group(1).strip(), injected=False))
        s.interrupted, added = None, True  # it cut the request before, not these words
    for err in s.errors:
        if not err.outcome.lines or not err.outcome.lines[0].startswith(_REJECTED):
            continue
        entry = s.entries[err.index] if 0 <= err.index < len(s.entries) else None
        said = ""
        for r in entry.results if entry is not None else ():
            found = _SAID_RE.search(r.text[:20_000])
            if found is not None:
                said = r.text[found.end() : found.end() + 20_000].strip()
        if entry is None or not said or said.lower().startswith(_CLI_TEMPLATE):
            continue
        turn = replace(entry, text=said, results=(), calls=(), injected=False)
        s.requests.append(turn)
        s.trimmed[entry.index] = turn  # the walk quotes the user's words, not the empty record
        added = True
    if not added:
        return
    s.requests.sort(key=lambda e: e.index)
    last = s.requests[-1]
    s.request_started = any(e.role == "assistant" for e in s.entries[last.index + 1 :])
    if s.reply is not None and s.reply.index < last.index:
        s.reply = None


def judge_cli_rejections(s: Session) -> None:
    """A rejection whose only words are the CLI's (the STOP-and-wait text, "the user wants to
    clarify these questions") is set aside, those words kept: they are no standing rule of the
    user's (they are not listed among the constraints)."""
    for err in s.errors:
        if err.after == "rejected" and (_WAIT_RE.search(err.by) or err.by.startswith(_CLARIFIED)):
            err.after = "skipped"


def answers_since(s: Session, width: int) -> str:
    """Section 1's line naming the user's answers to the agent's questions given after the
    current request ('' when none)."""
    last = s.last_request
    if last is None:
        return ""
    after = [t for _, t in user_answers(s, last.index)]  # only the entries after it are read
    if not after:
        return ""
    shown = "; ".join(cut(t, width) for t in after[-4:])
    more = f" ({len(after) - 4} earlier ones in section 6)" if len(after) > 4 else ""
    return f"   Since then the user answered the assistant's questions{more}: {shown}"


def on_hold(s: Session) -> tuple[str, str] | None:
    """(call, the words) of a rejection that told the agent to stop and wait, when it is the
    last thing that happened (no later request, no later call); else None."""
    last = s.last_request
    for err in reversed(s.errors):
        if last is not None and err.index <= last.index:  # the user's words came with it
            return None
        head = err.outcome.lines[0] if err.outcome.lines else ""
        if not head.startswith(_REJECTED) or _WAIT_RE.search(head) is None:
            continue
        if any(c.index > err.index for c in s.calls):
            return None  # the agent went on (or was told how to)
        return err.call, head.removeprefix(_REJECTED)
    return None


def hold_line(s: Session, ref: str, width: int) -> str:
    """Sections 7 and 8: that the user told the agent to stop and wait, or that the last reply
    handed the next step to the user ('' when neither)."""
    held = on_hold(s)
    if held is None:
        return handoff_line(s, ref, width)
    call, said = held
    return (
        f"The user told the agent to stop and wait: they rejected {code(cut(call, _CALL))}, "
        f"saying {quote(said, width)}. Until the user says how to proceed, the latest request is "
        f"on hold: {ref}"
    )


def hold_step(s: Session, ref: str, width: int) -> str:
    """Section 9 when the user told the agent to stop and wait, or the last reply handed the
    next step to the user ('' when neither)."""
    held = on_hold(s)
    if held is None:
        return handoff_step(s, width, 4)
    call, said = held
    return (
        f"   Wait for the user's instruction: the user rejected {code(cut(call, _CALL))} and said "
        f"{quote(one_line(said), width)}. Do not go on with {ref} or run anything until the "
        "user says how to proceed."
    )
