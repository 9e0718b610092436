"""A user message that is no readable text is no request (blind check 76 N1).

sk_rts: the user's last message was a binary paste ("\\x88\\x13 … X … @@ … \\x80ÚB\\x05\\x85±",
blank lines around control characters); the summary called it the current request and section 9
said "Answer the latest request: "\\x88 X @@ \\x80ÚB ±"", although the request before it had been
answered (four fixes, "Builda e testa"). By shape: the user's last message, with nothing the
assistant wrote or called after it, whose characters are mostly not text (control characters,
the replacement character, unassigned or private code points: a quarter or more of its visible
characters, or any of them with no word of three letters) is no request. Like a message the user
interrupted at once (:mod:`.local_aborted`, whose sentences say both), it stays among the user's
messages, the current request is the readable one before it, and sections 7–9 call it unreadable
and wait for the user.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from compactor._util import lazy_pattern
from compactor.facts import Entry

__all__ = ["UNREADABLE", "unreadable", "unreadable_request"]

UNREADABLE = "is not readable text (binary bytes or control characters)"
_BAD = frozenset({"Cc", "Cs", "Co", "Cn"})
_WORD_RE = lazy_pattern(r"[^\W\d_]{3,}")


def unreadable(text: str) -> bool:
    """Whether ``text`` is mostly not text: of its visible characters (all but white space) a
    quarter or more are control characters, replacement characters or code points without a
    character, or some are and no word of three letters is left."""
    shown = [ch for ch in text if not ch.isspace()]
    if not shown:
        return False
    bad = sum(1 for ch in shown if ch == "\ufffd" or unicodedata.category(ch) in _BAD)
    return bad > 0 and (4 * bad >= len(shown) or not _WORD_RE.search(text))


def unreadable_request(entries: Sequence[Entry], requests: Sequence[Entry]) -> Entry | None:
    """The last of ``requests`` when it is :func:`unreadable`, a request came before it and the
    assistant wrote or called nothing after it; else None."""
    if len(requests) < 2 or not unreadable(requests[-1].text):
        return None
    last = requests[-1]
    quiet = not any(
        e.role == "assistant" and not e.internal and (e.text.strip() or e.calls)
        for e in entries[last.index + 1 :]
    )
    return last if quiet else None
