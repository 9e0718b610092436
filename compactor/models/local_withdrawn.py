"""A rejection the user withdrew at once: "Sorry continue" (blind check 69 W5).

bck_php: the user rejected two calls in a row (``netstat … | grep 9000``, a ``Grep``) and each
time wrote "Sorry continue" as their very next message; the agent went on, found the port
conflict and fixed it. The summary still listed the diagnosis before the first rejected call
among the "Proposals the user turned down (not decisions; do not act on them)". Row 3242 knew
only a rejection the same call later redid.

By shape, in any language: a rejected call whose result is followed (harness notices such as
"[Request interrupted by user for tool use]" and other tool results aside) by a user message
that only says to go on — "continue", "go ahead", "proceed", "sorry, continue", "yes do it",
"続けて", "继续", "weiter" — optionally after an apology or a yes, and with no new instruction,
was withdrawn: :func:`went_on` gives that message.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call

from .local_session import Session

__all__ = ["went_on"]

_LEAD = (
    r"sorry|so sorry|oops|my bad|my mistake|ah|oh|ok(?:ay)?|yes|yeah|yep|sure|fine|please|pls|"
    r"all ?right|désolée?|perdón|perdon|lo siento|scusa|entschuldigung|sorry about that|"
    r"ごめん(?:なさい)?|すみません|すいません|失礼しました|抱歉|对不起|不好意思|はい|好的?"
)
_GO = (
    r"continue|go on|go ahead|carry on|keep going|proceed|resume|do it|go for it|"
    r"mach weiter|weiter(?:machen)?|continúa|continua|continuar|sigue|seguir|continuez|"
    r"vas-y|allez-y|prosegui|vai avanti|продолжай(?:те)?|続けて(?:ください)?|進めて(?:ください)?|"
    r"どうぞ|继续|繼續|请继续|請繼續|계속(?:해(?:주세요)?)?"
)
_TAIL = (
    r"please|pls|then|now|anyway|with it|again|ahead|on|bitte|por favor|s'il te plaît|ください|吧"
)
_GO_ON_RE = lazy_pattern(
    rf"^[\W_]*(?:(?:{_LEAD})[\W_]*){{0,3}}(?:{_GO})(?:[\W_]*(?:{_TAIL}))*[\W_]*$",
    re.IGNORECASE,
)
"""A message that only says to go on, maybe after an apology or a yes; nothing else."""
_NOTICE = "[Request interrupted by user"
_REACH = 12  # entries after the rejection searched for the user's next message


def went_on(s: Session, call: Call) -> str:
    """The user's next message after rejected ``call``'s result when it only says to go on
    (module doc), else ''."""
    answered = False
    for e in s.entries[call.index : call.index + _REACH]:
        if e.role != "user":
            continue
        if any(r.call_id == call.id for r in e.results):
            answered = True
        if not answered or e.results or e.internal or e.injected or not e.text.strip():
            continue
        text = e.text.strip()
        if text.startswith(_NOTICE) and text.endswith("]"):
            continue
        return text if len(text) <= 60 and _GO_ON_RE.match(text) else ""
    return ""
