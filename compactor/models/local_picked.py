"""The options a short reply picks by letter or number (blind check 29, G1).

cx-copy §1: "Current request: "1" (a short reply: it continues the request before it, "C+2")"
kept the user's choice but not the assistant's message that defined C ("master = latest
002-wallet-connect") and 2 ("rebase, then merge/fast-forward master"): a resuming agent could
not tell what the user chose. :func:`picked_lines` finds, for each of the last two requests that
is only option marks (``C+2``, ``B``, ``1 and 3``, ``A、2``), the items of the assistant's last
message before it that those marks open (``C.``, ``C)``, ``C:``, ``**C**``, ``(C)``, ``Option
C``, ``2.``, ``2)``) and names them with their text. fix28a names the items of a numbered list
that a "ditch number 5 and 6" sentence picks (``local_numbered``); this is the bare reply.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Entry, cut, one_line

from .local_optlist import offer_scope
from .local_session import Session

__all__ = ["picked_lines"]

_REPLY_RE = lazy_pattern(
    r"^\s*(?:option\s*)?([A-Ha-h]|\d{1,2})(?:\s*(?:\+|,|/|&|、|，|and|和|et|y|und|\s)\s*"
    r"(?:option\s*)?([A-Ha-h]|\d{1,2}))*\s*[.!。]?\s*$",
    re.IGNORECASE,
)
_MARK_RE = lazy_pattern(r"(?<![A-Za-z0-9])([A-Ha-h]|\d{1,2})(?![A-Za-z0-9])")
_ITEM = (
    r"^[ \t>*_-]{{0,6}}(?:\*\*|__)?(?:option\s+|方案\s*|选项\s*)?\(?{mark}"
    r"(?:[.):：]|\*\*|__|\s+[-—–])"
    r"(?:\*\*|__)?[ \t]*(?P<text>\S.*)$"
)
_TEXT_CHARS = 160


def _options(text: str, mark: str) -> str:
    """The text of the item ``mark`` opens in ``text`` (the first such line), or ""."""
    regex = re.compile(_ITEM.format(mark=re.escape(mark)), re.MULTILINE | re.IGNORECASE)
    found = regex.search(text)
    return cut(one_line(found.group("text").strip(" *_`")), _TEXT_CHARS) if found else ""


def _picked(reply: str, offer: str) -> str:
    if len(reply) > 24 or _REPLY_RE.match(reply) is None:
        return ""
    marks = list(dict.fromkeys(m.group(1) for m in _MARK_RE.finditer(reply)))
    scope = offer_scope(offer)  # the options' list, not a list above it (BENCH45 W1)
    named = [(m, _options(scope, m) or _options(offer, m)) for m in marks]  # (C+2: two lists)
    if not named or not all(text for _, text in named):
        return ""  # a mark the message defines nowhere: not a pick from it
    return "; ".join(f"{m}: {text}" for m, text in named)


def _offer_before(s: Session, request: Entry, since: int) -> str:
    for e in reversed(s.entries[since : request.index]):
        if e.role == "assistant" and not e.internal and e.text.strip():
            return e.text
    return ""


def picked_lines(s: Session) -> list[str]:
    """Section 1's lines naming what the last two requests pick, when they are bare option
    marks that the assistant's message before each defines."""
    out: list[str] = []
    requests = s.requests[-2:]
    for i, request in enumerate(requests):
        since = requests[i - 1].index + 1 if i else max(0, request.index - 400)
        reply = one_line(request.text)
        offer = _offer_before(s, request, since) if len(reply) <= 24 else ""
        if offer and (picked := _picked(reply, offer)):
            out.append(f'   The user\'s reply "{reply}" picks these of the options the assistant '
                       f"gave before it: {picked}")  # fmt: skip
    return out
