"""Whether the step the assistant's last text announced was done by the calls after it (blind
check 36 W2, cc-familiar).

"Let me check what headers exist in the views:" came with a grep; more greps and three Edits
that succeeded followed, with no text between (the next step was said only in a thinking block,
which a summary never reads). Section 9 still said "The assistant was doing: «Let me check …»",
sending a resuming agent back to a step that was done. The announced step is the round of calls
that comes with the text (or right after it: Codex writes a text and its calls as separate
messages), up to the first result; a call of a LATER round that completed and did more than
housekeeping means the work went past that step, and the last action (which section 9 already
names, with its result) is where it stands.
"""

from __future__ import annotations

from collections.abc import Callable

from compactor.facts import Call, Entry, Result

from .local_session import Session

__all__ = ["went_past"]


def went_past(
    s: Session,
    said: Entry,
    results: dict[str, Result],
    housekeeping: Callable[[Call, Result | None], bool],
) -> bool:
    """True when a round of calls after the one ``said`` announced completed a call that is
    not ``housekeeping``: the step ``said`` names is no longer what was being done."""
    answered = False  # a result came back after the announced round: later calls are a new round
    for e in s.entries[said.index :]:
        if e.internal or e.injected:
            continue
        if e.role != "assistant":
            answered = answered or any(r.call_id in results for r in e.results)
            continue
        if answered and any(
            c.id in results and not housekeeping(c, results[c.id]) for c in e.calls
        ):
            return True
    return False
