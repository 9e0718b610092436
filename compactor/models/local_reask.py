"""A "yes" to a re-asked suggestion accepts that suggestion (blind check 49, N3).

Spec Kit's clarify flow (Codex, cx_kardex_abort) offers "**Suggested:** Replace the existing
image with the new one …"; the user answered "Option B" (of an earlier question), the agent
replied "Your reply “Option B” doesn’t map to anything. Please reply with a short answer, or say
“yes” to accept my suggestion", and the user said "yes". The summary listed the complaint as
"Accepted by the user" and lost the decision. When the message a "yes" answers only asks again
for the earlier suggestion (``say "yes" to accept my suggestion``), the accepted item is that
suggestion: the latest ``Suggested:`` / ``Recommended:`` line of the assistant's messages just
before it.

Blind check 55, W3 (cc-jk): an answer said "I'd revoke/regenerate it on GitHub when convenient"
(advice to the user) and closed with "Want me to scrub the token string from the archived copy,
or leave it?"; the user's "Yes, scrub the token" was listed as "Accepted by the user: … I'd
revoke/regenerate it". When the answer closes with a question that offers an action of the
agent's (``Want me to …?``, ``Should I …?``), a "yes" accepts that question (:func:`closing_ask`),
not the statements before it: those stay what the assistant said (advice to the user stays the
user's to act on), unless the question offers to carry them out ("… with all these
refinements?", :func:`refers_back`).

fix57a 5: that advice was then dropped — listed nowhere. Advice to the user before such a
question (:func:`user_advice`: "I'd revoke/regenerate it …", "you should …", "I recommend …",
"consider …") stays the user's open decision: section 7 lists it as "not yet decided"
(:func:`undecided_items`); the agent's own statements ("Going forward I'll …") are no advice.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Entry, one_line, sentences

from .local_session import Session
from .local_text import quote

__all__ = ["closing_ask", "reasked_suggestion", "refers_back", "undecided_items", "user_advice"]

_REASK_RE = lazy_pattern(
    r"\b(?:say|reply|answer|type)\s+[\"“'‘]?(?:yes|ok|y)[\"”'’]?\s+to\s+accept\s+(?:my|the)\s+"
    r"(?:suggest\w*|recommend\w*)",
    re.IGNORECASE,
)
_SUGGESTED_RE = lazy_pattern(
    r"^\W{0,6}(?:Suggested|Recommended)(?:\s+answer)?\W{0,6}:\W{0,4}(\S.{3,})$",
    re.IGNORECASE | re.MULTILINE,
)
_BACK = 12
"""Entries before the re-asking message where the suggestion is looked for."""


def reasked_suggestion(s: Session, said: Entry) -> str | None:
    """The suggestion a "yes" to ``said`` accepts when ``said`` only asks again for it; None
    when ``said`` asks nothing of the kind or no earlier suggestion is found."""
    if _REASK_RE.search(said.text) is None:
        return None
    for e in reversed(s.entries[max(0, said.index - _BACK) : said.index]):
        if e.role == "assistant" and e.text and not e.internal:
            found = list(_SUGGESTED_RE.finditer(e.text))
            if found:
                return found[-1].group(1).strip().rstrip("*").strip()
    return None


_OFFER_ASK_RE = lazy_pattern(
    r"^\W*(?:(?:so|ok(?:ay)?|also|and)\W+)?(?:do you want me to|would you like me to|want me to|"
    r"shall i|should i|can i|may i|ok(?:ay)? (?:if|for me) to|ok to|mind if i)\b",
    re.IGNORECASE,
)
"""A question that offers an action of the agent's: "Want me to scrub it?", "Should I …?"."""
_OR_NOT_RE = lazy_pattern(
    r"[,\s]+or\s+(?:not|leave (?:it|them|that|things)(?: as (?:is|it is))?|keep (?:it|them)|"
    r"skip (?:it|that)|should i\b.*|do you want\b.*|would you\b.*)\W*$",
    re.IGNORECASE,
)
"""The question's other way ("…, or leave it?"): not what a yes accepts."""
_BACK_RE = lazy_pattern(
    r"\b(?:these|those|the above|all of (?:this|that|them|it)|all that|everything above)\b",
    re.IGNORECASE,
)
"""The question offers to carry out what the answer proposed ("update the plan with all these
refinements"): a yes accepts those proposals too."""
_TAIL = 1_500
"""The end of the answer where its closing question is looked for."""


def closing_ask(text: str) -> str | None:
    """What the question that closes the answer ``text`` offers to do when it offers an action of
    the agent's ("Want me to remove the scratch copy, or leave it?": "remove the scratch copy"):
    what a "yes" to the answer accepts (blind check 55, W3); None when the answer ends otherwise
    (a statement, "Sound good?")."""
    tail = text.rstrip()[-_TAIL:]
    if not tail.endswith("?"):
        return None
    said = sentences(tail)
    last = one_line(said[-1]) if said else ""
    head = _OFFER_ASK_RE.match(last)
    if head is None:
        return None
    action = _OR_NOT_RE.sub("", last[head.end() :]).strip(" ?？")
    return action or None


def refers_back(action: str) -> bool:
    """Whether the action a closing question offers (:func:`closing_ask`) carries out the
    proposals before it ("update the plan document with these refinements"): then a yes
    accepts them as well as the action."""
    return _BACK_RE.search(action) is not None


_ADVICE_RE = lazy_pattern(
    r"\b(?:I['’]d|I would) (?!like\b|love\b|be\b|have\b|say\b|guess\b|think\b)[a-z]+|"
    r"\bI (?:recommend|suggest|advise|strongly recommend)\b|"
    r"\byou (?:should|could|might|may) (?:also |still |want to |consider |need to )?"
    r"(?!see\b|get\b|notice\b|find\b|be\b)[a-z]+|\byou(?:['’]ll| will) (?:want|need) to\b|"
    r"^\W*(?:consider|make sure|remember to|don['’]t forget to)\b|\bit(?:['’]s| is) worth\b|"
    r"\b(?:my |the )?recommendation\b",
    re.IGNORECASE,
)
"""A sentence that advises the user: "I'd revoke it", "you should …", "I recommend …"."""
_ADVICE_MOST = 2


def user_advice(text: str) -> list[str]:
    """The sentences of the answer ``text`` before its closing question that advise the user
    (:data:`_ADVICE_RE`; not a question): what a "yes" to the question leaves undecided."""
    said = sentences(text.rstrip()[-_TAIL:])
    found = [one_line(x) for x in said[:-1] if not x.rstrip().endswith("?")]
    return [x for x in found if _ADVICE_RE.search(x)][-_ADVICE_MOST:]


def undecided_items(s: Session, width: int) -> list[str]:
    """Section 7's lines for advice the user's "yes" did not answer (it answered the closing
    question): the user's open decision (fix57a 5)."""
    return [
        f"Not yet decided by the user (their yes answered the closing question, not this "
        f"advice): {quote(x, width)}"
        for _, x in s.undecided[-_ADVICE_MOST:]
    ]
