"""A turn handed to the user before a bookkeeping call (issue 28, blind check 18).

The assistant's last text asks the user to act or answer ("When you have sudo working, run …,
then come back and say 'done'"); after it only a bookkeeping call followed (saving a note or a
memory, a plan update) and its result never came. The request was answered and waits for the
user: the call in flight is listed as such (section 7), not as the work to continue. A turn
whose last call does real work (an edit, a test run, a build) stays in progress.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call, clean, command_of, one_line, sentence_spans

from .local_decisions import asks_user
from .local_planmode import awaiting_plan
from .local_session import Session
from .local_stops import in_flight_step
from .local_text import quote
from .local_unasked import unasked_offer

__all__ = ["handoff_line", "handoff_step", "judge_handoff"]

_HANDS_OVER_RE = lazy_pattern(
    r"\b(?:come back|get back to me|let me know|tell me|ping me|say [\"'“‘`]?done|"
    r"(?:once|when|after) you(?:['’]ve| have| are|['’]re)?\b[^.]{0,60}\b(?:run|done|ready|"
    r"working|enabled?|installed|finished|approved?|restart\w*)|"
    r"(?:please|you(?:['’]ll| will) need to|you need to|you can) (?:run|enable|install|"
    r"restart|approve|open|set|add|grant|log ?in|sign ?in))\b",
    re.IGNORECASE,
)
"""A sentence handing the next step to the user (act, then answer)."""
_NOTE_SAID_RE = lazy_pattern(
    r"\b(?:sav\w*|writ\w*|record\w*|add\w*|leav\w*|jot\w*|log\w*|stor\w*|updat\w*|keep\w*)\b"
    r"[^.]{0,40}?\b(?:notes?|memory|memories|memo|reminder|insights?|progress|todo)\b"
    r"|\bremember where\b|\bnote (?:this|that|it) down\b",
    re.IGNORECASE,
)
"""The text announcing a bookkeeping call: "(I will save a note so we remember …)"."""
_NOTE_WORD_RE = lazy_pattern(
    r"\b(?:notes?|memory|memories|memo|reminder|insights?|pending\w*|todo|remember|"
    r"waiting for|left off)\b",
    re.IGNORECASE,
)
_NOTE_PATH_RE = lazy_pattern(
    r"(?:^|[/\\])(?:[\w-]*[._-])?(?:notes?|memory|memories|todos?|progress|handoff|journal|"
    r"scratchpad)(?:[._-][\w.-]*)?$|[/\\](?:\.?memory|\.?notes)[/\\]",
    re.IGNORECASE,
)
_PLAN_TOOL_RE = lazy_pattern(r"todo|plan|task_?(?:create|update)|memor|note(?!book)", re.IGNORECASE)
"""Tools that keep the assistant's plan or notes (``TodoWrite``, ``update_plan``, a memory)."""
_APPEND_RE = lazy_pattern(r">>?\s*([^\s;&|]+)")
_PATH_KEYS = ("file_path", "path", "notebook_path")


def _note_path(call: Call) -> bool | None:
    """Whether the file the call writes is a note; None when it names no file."""
    paths = [v for k in _PATH_KEYS if isinstance(v := call.args.get(k), str)]
    command = command_of(call)
    if command is not None:
        paths += _APPEND_RE.findall(command)
    if not paths:
        return None
    return all(_NOTE_PATH_RE.search(p.strip("'\"")) for p in paths)


def _bookkeeping(call: Call, announced: bool) -> bool:
    """A call that only keeps the assistant's own notes: a plan update, a write to a note or
    memory file, or (after the text announced a note) a command that carries the note."""
    if _PLAN_TOOL_RE.search(call.name):
        return True
    note = _note_path(call)
    if note is not None:
        return note
    text = command_of(call) or call.arguments
    return announced and _NOTE_WORD_RE.search(text) is not None


def judge_handoff(s: Session) -> None:
    """Mark the turn answered and handed to the user (:attr:`Session.handoff`) when its last
    text asks the user to act and only bookkeeping calls without a result followed it."""
    last, said = s.last_request, s.last_text
    if s.turn_ended or last is None or said is None or said.index <= last.index:
        return
    after = [c for c in s.calls if c.index >= said.index]
    flying = {c.id for c in s.in_flight}
    if not after or any(c.id not in flying for c in after):
        return  # a call after the text returned: the turn went on
    announced = _NOTE_SAID_RE.search(said.text) is not None
    if not all(_bookkeeping(c, announced) for c in after):
        return
    at = next(
        (p for p, x in sentence_spans(said.text) if asks_user(x) or _HANDS_OVER_RE.search(x)), -1
    )
    if at >= 0:  # from its first sentence handing over on (the command it gives the user too)
        s.turn_ended = True
        s.handoff = s.question = one_line(clean(said.text[at:]))


def handoff_line(s: Session, ref: str, width: int) -> str:
    """Section 8's line for a handed-over turn ("" when the turn was not handed over)."""
    if not s.handoff:
        return ""
    return (
        f"The latest request was answered, awaiting the user's action: {ref}. The last reply "
        f"handed the next step to the user ({quote(s.handoff, width * 2)}); only a bookkeeping "
        "call of the assistant's was still in flight (section 7)"
    )


def handoff_step(s: Session, width: int, most: int) -> str:
    """Section 9 for a handed-over turn ("" when the turn was not handed over)."""
    if not s.handoff:
        return ""
    flying = in_flight_step(s.in_flight, width // 2, most, awaiting_plan(s), unasked_offer(s))
    flying = flying[:1].lower() + flying[1:]
    return (
        f"   Wait for the user: the last reply handed the next step to them "
        f"({quote(s.handoff, width * 2)}). Only then go on with the request. Meanwhile: {flying}."
    )
