"""A permission the final answer tells the user to grant is the user's open step (fix63a 4).

cc-riskbot (a helper's check): the bot's call failed with Discord's "403 Forbidden … Missing
Access"; the final answer said so in prose ("the bot is missing the View Channel permission;
add it in the server settings") and ended the turn. Sections 7 and 9 said "the latest request
was completed … nothing is pending", although nothing was posted and only the user can grant the
permission. :mod:`.local_leftsteps` knew a hand-over only by "please …", "you need to …", a
command block or a "Next steps" list.

:func:`permission_step`: a sentence of the final answer that names a missing permission or
access ("is missing the … permission", "lacks access to", "Missing Access", "403 Forbidden",
"permission denied"), with, in it or the next sentence, an imperative addressed to the user to
grant it ("add it in …", "grant …", "give the bot …", "enable …", "invite …" at a clause's
start, or "you must/need to/should …" one of those): the step is that sentence (up to the end
of the imperative's clause). The agent's own report ("I added the role") has a subject, no
imperative, and is no step.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import one_line

__all__ = ["permission_step"]

_NEEDS_RE = lazy_pattern(
    r"\b(?:missing|lacks?|lacking|without|needs?|requires?|doesn['’]t have|does not have|"
    r"has no)\b[^.;!?\n]{0,60}?\b(?:permissions?|access|scopes?|privileges?|intents?)\b|"
    r"\bMissing Access\b|\b(?:permission|access) (?:denied|is missing)\b|"
    r"\b403\b[^.\n]{0,30}\bForbidden\b|\bForbidden\b[^.\n]{0,30}\b403\b",
    re.IGNORECASE,
)
"""Words that name a permission or access the actor lacks."""
_GRANT_VERBS = r"(?:add|grant|give|enable|assign|invite|allow|turn on|toggle on|authori[sz]e)"
_GRANT_RE = lazy_pattern(
    rf"(?:^|[.;:!?]\s+|,\s+(?:then\s+|so\s+)?|\bthen\s+|[—–-]\s+)(?:please\s+)?"
    rf"({_GRANT_VERBS}\b[^.;!?\n]{{3,160}})|"
    rf"\byou(?:['’]ll| will)? (?:must|need to|have to|should) (?:first |then |also )?"
    rf"({_GRANT_VERBS}\b[^.;!?\n]{{3,160}})",
    re.IGNORECASE,
)
"""An imperative addressed to the user to grant something, from its verb to its clause's end."""
_IF_RE = lazy_pattern(r"^(?:if|in case|should|whenever|when|once)\b", re.IGNORECASE)
"""A conditional sentence ("If it fails again, add …"): advice, no open step."""
_SENTENCE_RE = lazy_pattern(r"[^.!?\n]+(?:[.!?](?=\s|$)|\n|$)")
_STEP = 220


def permission_step(reply: str) -> tuple[str, list[str]]:
    """(the sentence naming the missing permission, [the step]) when the final answer ``reply``
    tells the user to grant a permission or access it names as missing; ("", []) otherwise."""
    if _NEEDS_RE.search(reply) is None or _GRANT_RE.search(reply) is None:
        return "", []
    spans = [m.group(0).strip() for m in _SENTENCE_RE.finditer(reply) if m.group(0).strip()]
    for k, sentence in enumerate(spans):
        if _NEEDS_RE.search(sentence) is None or _IF_RE.match(sentence):
            continue
        for said in spans[k : k + 2]:  # the imperative: in that sentence or the next
            grant = _GRANT_RE.search(said)
            if grant is None or (said is not sentence and _IF_RE.match(said)):
                continue
            step = one_line(said[: grant.end()]).strip(" ,;:")
            return one_line(sentence), [step[:_STEP]]
    return "", []
