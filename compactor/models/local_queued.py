"""A prompt the user typed while the agent worked that was still queued when the session ended
(blind check 39, cc-admin: the user's last instruction, enqueued while the model API kept
failing, never dequeued; :data:`~compactor.schema.STILL_QUEUED_KEY`, read by
:mod:`compactor.formats._claude_queue`).

It is the user's latest words and the current request when it is the last thing the user said,
but the model never received it: sections 1 and 6 say so beside it. It has no record of its
own, so when it falls in the tail kept verbatim after the summary no written message holds it:
the summary quotes it in full (:data:`KEPT_QUEUED`) rather than pointing at the kept tail.
"""

from __future__ import annotations

from compactor.facts import Entry
from compactor.schema import STILL_QUEUED_NOTE

from .local_session import Session

__all__ = ["KEPT_QUEUED", "QUEUED_NOTE", "kept_queued", "queued_text"]

QUEUED_NOTE = STILL_QUEUED_NOTE
KEPT_QUEUED = "kept_queued"
"""Key of :attr:`Session.earlier`: the text of the still-queued latest request, when only the
tail after the summary holds it (set by :func:`compactor.models.local_tail.modelled_pair`)."""


def queued_text(e: Entry) -> str:
    """A user message as section 6 lists it: a still-queued one with :data:`QUEUED_NOTE`."""
    return f"{e.text} ({QUEUED_NOTE})" if e.queued else e.text


def kept_queued(s: Session) -> list[str]:
    """Section 6's line of a still-queued request only the kept tail holds (or none)."""
    text = s.earlier.get(KEPT_QUEUED, "")
    return [f"{text} ({QUEUED_NOTE})"] if text else []
