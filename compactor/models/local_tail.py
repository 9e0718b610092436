"""The session model of a summarized part followed by the tail kept verbatim after the summary
(where work stands is read from both; section 3 and the steps from the summarized part only);
moved from :mod:`compactor.models.local_state` to keep it under the module size limit."""

from __future__ import annotations

from collections.abc import Sequence

from compactor.schema import AgenticMessage, Message

from .local_judges import modelled
from .local_lost import carry_lost
from .local_queued import KEPT_QUEUED
from .local_requests import KEPT_ASKED, KEPT_REQUEST, asked_before
from .local_session import Session
from .local_statusdate import note_head_moves

__all__ = ["TAIL", "modelled_pair", "modelled_with_tail"]

TAIL = "tail"
"""Key of :attr:`Session.earlier`: a tail is kept verbatim after the summary (the analysis's
counts are of the summarized part only)."""


def modelled_pair(
    items: Sequence[Message | AgenticMessage], kept: Sequence[Message | AgenticMessage]
) -> tuple[Session, Session | None]:
    """:func:`modelled` of ``items`` and, when a tail is ``kept``, :func:`modelled_with_tail`;
    a file the tail found lost is lost in section 3 too (:func:`carry_lost`)."""
    session = modelled(items)
    if not kept:
        return session, None
    state = modelled_with_tail(items, kept)
    carry_lost(state, session)
    session.earlier[TAIL] = "kept"
    note_head_moves(session, kept, len(items))  # a commit in the tail dates a status before
    last, latest = session.last_request, state.last_request
    if latest is not None and (last is None or latest.index > last.index):  # (blind check 22)
        session.earlier[KEPT_REQUEST], session.earlier[KEPT_ASKED] = (
            latest.text,
            asked_before(state),
        )
        if latest.queued:  # typed, never delivered: no kept record holds it (blind check 39)
            session.earlier[KEPT_QUEUED] = latest.text
    if not session.files and (later := [p for p in state.files if p not in session.files]):
        session.earlier["kept"] = "\n".join(later)  # section 3 must not say "no file" (set 21)
    return session, state


def modelled_with_tail(
    items: Sequence[Message | AgenticMessage], kept: Sequence[Message | AgenticMessage]
) -> Session:
    """The session model of ``items`` followed by the ``kept`` tail (where work stands), without
    verbatim quotes of texts the kept tail holds: it is right below the summary, and a final
    answer or a command's output quoted again doubled it (blind check 4)."""
    cut = len(items)
    state = modelled([*items, *kept])
    if state.deliverable is not None and state.deliverable.index >= cut:
        state.deliverable = None
    if state.deliverable is None:
        state.deliverable_note = ""
    if state.revised is not None and state.revised.index >= cut:
        state.revised = None
    if state.reply is not None and state.reply.index >= cut:
        state.reply = None
    if state.last_text is not None and state.last_text.index >= cut:
        state.last_text = None
    if state.ended_output and any(e.index >= cut and e.results for e in state.entries):
        state.ended_output = ""
    return state
