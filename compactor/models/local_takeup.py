"""Whether a reply that opens with "ok" takes up what the assistant offered (blind check 58, W5).

cc-ken: the answer about a model ended "Would you like me to search for more info?"; after two
``/plan`` commands the user wrote "ok great, i am using the extension chat, i can't use that
model, why is that? …" — an acknowledgement, then a different question. Section 5 said
"Accepted by the user: search for more info", and nothing was ever searched.

By shape: a reply that opens with a strong yes ("yes", "sure", "go ahead", "do it", "sounds
good", "let's do it") agrees, whatever follows. One that opens only with an acknowledgement
("ok", "okay", "great", "perfect", "alright") agrees when nothing much follows ("ok", "ok
please"), when what follows says to go ahead ("ok, do it", "okay go for it"), when it asks
nothing (an instruction or a remark: read as before), or when its question names what was
offered (a content word of the closing offer, else of the proposals: "ok, can you search the
changelog too?"); else it acknowledges the answer and asks about something else: the offer is
not taken up (no decision).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["takes_up"]

_STRONG_RE = lazy_pattern(
    r"^\W*(?:yes|yep|yeah|sure|sounds good|go ahead|do it|lgtm|approved?|agreed|"
    r"let['’]?s do (?:it|that)|please do)\b",
    re.IGNORECASE,
)
_ACK_RE = lazy_pattern(
    r"^\W*(?:(?:ok(?:ay)?|great|perfect|alright|all right|cool|nice|good)\b\W*)+", re.IGNORECASE
)
_GO_RE = lazy_pattern(
    r"\b(?:go ahead|do it|do that|do so|please do|proceed|go for it|go with|let['’]?s do|"
    r"sounds good|yes|sure|carry on|continue)\b",
    re.IGNORECASE,
)
_ASKS_RE = lazy_pattern(r"[?？]|\b(?:why|how come)\b", re.IGNORECASE)
_WORD_RE = lazy_pattern(r"[^\W\d_]{4,}")
_COMMON = frozenset(
    "that this with have what your from will would like about more then them there these those "
    "just also into want make sure okay great please thanks thank could should which when where "
    "does doing done here some other need know".split()
)
_FEW_WORDS = 3  # an acknowledgement followed by this many words or fewer still agrees


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD_RE.findall(text)} - _COMMON


def takes_up(reply: str, offered: list[str]) -> bool:
    """Whether ``reply`` (the user's next message, opening with an accepting word) agrees to
    ``offered`` (the closing offer the assistant asked, else its proposals), not only
    acknowledges the answer."""
    if _STRONG_RE.match(reply):
        return True
    ack = _ACK_RE.match(reply)
    rest = reply[ack.end() :] if ack is not None else reply
    if len(rest.split()) <= _FEW_WORDS or _GO_RE.search(rest[:300]):
        return True
    if _ASKS_RE.search(rest[:1_000]) is None:
        return True  # no question of its own: judged as before
    named = _words(rest[:1_000])
    return any(named & _words(x) for x in offered)
