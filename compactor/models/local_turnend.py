"""Where the last turn stands once a session is walked: ended, stopped, or cut.

:func:`end_turn` fills the :class:`~.local_session.Session`'s turn fields: whether the last turn
ended with an answer or a terminal tool (``submit``) or stopped mid-work, the request the user
withdrew at once (``aborted``), whether the agent started on the latest request, its reply to
it, the question its final message asked and the step it announced.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.facts import Call, Entry, clean, sentences, strip_output_header

from .local_aborted import aborted_request
from .local_closeask import final_question
from .local_cutturn import cut_announcement
from .local_decisions import announces_step
from .local_noise import is_empty_message
from .local_notices import failed_after
from .local_text import call_line, is_prompt_line
from .local_unreadable import unreadable_request

if TYPE_CHECKING:
    from .local_session import Session

__all__ = ["end_turn"]

_TERMINAL_TOOLS = lazy_pattern(r"^(?:submit|finish|done|complete|attempt_completion|task_complete|"
                             r"end_conversation|transfer_to_human\w*)$", re.IGNORECASE)  # fmt: skip
"""Tools whose result ends the agent's work (SWE-agent ``submit``, tau-bench's hand-over)."""


def end_turn(s: Session, by_id: dict[str, Call]) -> None:
    """Judge the last turn of ``s`` (``by_id``: each call by its id)."""
    local = {i for i, _ in s.local_commands} | {e.index for e in s.harness_errors}
    cut_by = s.interrupted  # sent and interrupted at once: withdrawn (blind check 38 W1)
    if (withdrawn := aborted_request(s.entries, s.requests, cut_by)) is not None:
        s.requests.pop()
        s.aborted, s.interrupted = withdrawn, None
        local.add(withdrawn.index)
    elif (odd := unreadable_request(s.entries, s.requests)) is not None:  # (blind check 76 N1)
        s.requests.pop()
        s.aborted, s.unreadable = odd, True
        local.add(odd.index)
    if (ev := s.evaluated) is not None and s.requests[-1].index > ev.index:
        s.evaluated = None  # a request came after the evaluation: it is past
    upto = len(s.entries) if s.evaluated is None else s.evaluated.index
    last = next(
        (
            e
            for e in reversed(s.entries[:upto])
            if not e.internal and not e.injected and e.role != "system"
            and e.index not in local and (e.text.strip() or e.calls or e.results)
            and not (e.role == "user" and not e.results and is_empty_message(e.text))  # (81)
            and not _orphan(s, by_id, e)
        ),
        None,
    )  # fmt: skip
    if last is not None and last.role == "assistant" and not last.calls:
        s.turn_ended = True
        notice = s.interrupted  # the user cut the turn after this text: it is no answer
        if notice is not None and notice.index >= last.index and s.last_text is not None:
            s.turn_ended = False  # (blind check 11: "now updating X…", then interrupted)
            said = sentences(s.last_text.text)
            s.announced = said[-1] if said and announces_step(said[-1]) else ""
        s.failed_after = failed_after(s.entries, last.index)  # (blind check 12)
    elif last is not None and last.results and not s.in_flight:
        final = by_id.get(last.results[-1].call_id)
        if final is not None and _TERMINAL_TOOLS.match(final.name):
            s.turn_ended, s.ended_by_tool = True, call_line(final, 80)
            output = strip_output_header(clean(last.results[-1].text)).splitlines()
            kept = [ln for ln in output if not is_prompt_line(ln)]
            s.ended_output = "\n".join(kept).strip()
    if s.aborted is not None and not s.turn_ended:  # it cut the work on the request too
        s.interrupted = cut_by
    last_request = s.last_request
    if last_request is not None:
        s.request_started = any(
            e.role == "assistant" and e.index not in local
            for e in s.entries[last_request.index + 1 :]
        )
    if s.reply is not None and (last_request is None or s.reply.index < last_request.index):
        s.reply = None
    if s.turn_ended and not s.ended_by_tool and s.last_text is not None:
        s.question, announced = final_question(s.last_text.text)  # (BENCH41 W5, 42 W1)
        s.announced = announced or s.announced
        if not s.question and (step := cut_announcement(s.last_text.text, announced)):
            s.announced, s.turn_ended, s.cut_turn = step, False, True  # (BENCH44 W2)


def _orphan(s: Session, by_id: dict[str, Call], e: Entry) -> bool:
    """Results only, each for a call the history does not hold (its call lay before an own
    compaction's boundary) or made before an answer the assistant wrote after it: a late
    record, not where the turn stands (blind check 10)."""
    if e.text.strip() or e.calls or not e.results:
        return False
    for r in e.results:
        call = by_id.get(r.call_id) if r.call_id else None
        if r.call_id and call is None:
            continue
        if call is None or not any(
            x.role == "assistant" and not x.calls and not x.internal and x.text.strip()
            for x in s.entries[call.index + 1 : e.index]
        ):
            return False
    return True
