"""The files an assistant's findings link to (blind check 6), and the request they answer
(blind check 65, W2).

Codex writes a review's findings as Markdown links (``[hook.ts](/repo/src/hook.ts:26)``): the
link names the file its words only allude to, so section 3 keeps them. They are "the last
findings" of the current request only when the linking message came after it; the links of an
earlier request's answer (a yadm question three turns back, while the current review had no
answer yet) are labelled with that request, or left out when no request came before them.
"""

from __future__ import annotations

from compactor._util import lazy_pattern
from compactor.facts import cut

from .local_session import Session

__all__ = ["linked_line"]

_LINKED_RE = lazy_pattern(r"\]\(<?((?:[A-Za-z]:)?/[^()<>\s]+?\.\w{1,8})(?::\d+(?::\d+)?)?>?\)")
"""A Markdown link to a file (``[hook.ts](/repo/src/hook.ts:26)``), as Codex writes review
findings: the link names the file its words only allude to."""
_LINKS_LEAST = 3
_REQUEST_MOST = 80


def _find(s: Session) -> None:
    """Fill ``s.linked`` (the paths) and ``s.linked_to`` (the earlier request they answer, ``""``
    for the current one) from the last assistant message linking :data:`_LINKS_LEAST` files."""
    s.linked = []
    for e in reversed(s.entries):
        if e.role == "assistant" and e.text.count("](") >= _LINKS_LEAST:
            found = dict.fromkeys(m.group(1) for m in _LINKED_RE.finditer(e.text))
            if len(found) >= _LINKS_LEAST:
                asked = [r for r in s.requests if r.index < e.index]
                if s.requests and not asked:
                    return  # before every request: an earlier summary's, not an answer
                if asked and asked[-1] is not s.requests[-1]:
                    s.linked_to = cut(" ".join(asked[-1].text.split()), _REQUEST_MOST)
                s.linked = list(found)
                return


def linked_line(s: Session, most: int) -> str:
    """Section 3's line for the files the last assistant answer linking 3+ files (a review's
    findings) links to that no call changed, each once (the findings otherwise survived only
    as identifier lists: blind check 6); ``""`` when there are none."""
    if s.linked is None:  # found once: every rendering of the summary asks again
        _find(s)
    linked = ", ".join([p for p in (s.linked or []) if p not in s.files][:most])
    if not linked:
        return ""
    if s.linked_to:  # not the current request's findings (blind check 65, W2)
        return (
            f'Linked in the assistant\'s answer to an earlier request ("{s.linked_to}"): {linked}'
        )
    return "Linked in the assistant's last findings (review): " + linked
