"""Whether the last substantial assistant message of the current request is a note mid-work,
not a final answer (issue 28: no wrong statement of where the work stands).

An answer followed by more tool calls in its turn (the agent's plan "4 slides + a new one",
then the script it wrote, that failed, was rewritten and ran; blind check 23 W1, cc-aveva) is
the plan or progress note it was written as: calling it the "final deliverable" contradicts "no
answer yet" and invites a resuming agent to treat the plan as what the user got. So is a message
that ends with a colon ("Let me check …:"; blind check 15). Calls a harness made after its
evaluation notice (:mod:`.local_evalnotice`) are not the agent's: its answer before them stays
the final deliverable.
"""

from __future__ import annotations

from compactor.facts import Entry

from .local_session import Session

__all__ = ["mid_work_title"]


def mid_work_title(s: Session, d: Entry) -> str | None:
    """The title of ``d`` (the last substantial assistant message, in the current request) when
    it is a note mid-work; None when it may be the final answer."""
    if d.text.rstrip().endswith(":"):
        return "The last substantial assistant message, verbatim (a note mid-work, no final answer)"
    end = s.evaluated.index if s.evaluated is not None else len(s.entries)  # the harness's own
    if any(e.calls for e in s.entries if d.index <= e.index < end and e.role == "assistant"):
        return (
            "The agent's plan or progress note, verbatim (written before the tool calls that "
            "followed it in this request: not a final answer)"
        )
    return None
