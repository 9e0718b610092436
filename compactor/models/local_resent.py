"""A request sent again after an earlier sending of it was answered (blind check 39 W4,
cx-dd-world: a Codex request answered, approved and implemented, sent again twice much later
and not answered then; section 1 said "(sent 3 times)" at the last sending and sections 7-9
"not answered yet", as if no sending had been answered, and the earlier sending lost its place
in the order). Identical messages are not merged across an answer: the earlier sending keeps its
place, and the current request says "sent again (an earlier sending, N messages before, was
answered: «…»)"; it is unanswered only since then.
"""

from __future__ import annotations

from compactor.facts import cut, one_line

from .local_harness import is_harness_error
from .local_session import Session

__all__ = ["answered_earlier"]

_ANSWER_CHARS = 160


def answered_earlier(s: Session) -> str:
    """The note for a current request whose text an earlier, answered sending had (else "")."""
    reqs = s.requests
    if len(reqs) < 2:
        return ""
    text = reqs[-1].text.strip()
    k = len(reqs) - 1
    while k > 0 and reqs[k - 1].text.strip() == text:  # the trailing run of sendings
        k -= 1
    j = next((i for i in range(k - 1, -1, -1) if reqs[i].text.strip() == text), -1)
    if j < 0:
        return ""
    answer = next(
        (
            e
            for e in reversed(s.entries[reqs[j].index + 1 : reqs[j + 1].index])
            if e.role == "assistant"
            and e.text.strip()
            and not e.cli_error
            and not is_harness_error(e.text)
        ),
        None,
    )
    if answer is None:
        return ""
    said = cut(one_line(answer.text), _ANSWER_CHARS)
    before = k - j
    return (
        f" (sent again: an earlier sending, {before} user message{'s' * (before != 1)} before, "
        f"was answered: «{said}»)"
    )
