"""Whether a user's sentence is a constraint or a preference (issue 28, point 6): it asks for or
forbids something. Moved here from :mod:`compactor.models.local_views` (which lists the rules) to
make room; blind check 12 added the descriptive "never"/"always" ("the conditional never
updates", "it always fails"): a statement of the problem, not a rule of the user's."""

from __future__ import annotations

import re
from collections.abc import Iterable

from compactor._util import lazy_pattern

__all__ = ["RULE_MARK_RE", "conditioned", "is_constraint"]

RULE_MARK_RE = lazy_pattern(r"^(?:[-*•>]\s*|\d+[.)]\s*)+")
"""A list mark before a rule (``- ``, ``1. ``)."""
_CUT_AT = 180  # a sentence this long may have been cut at MAX_LINE by its length
_FRAGMENT_END_RE = lazy_pattern(
    r"\b(?:for|to|of|the|a|an|and|or|with|in|on|at|by|from|that|than|as|is|be)$", re.IGNORECASE
)
_DESCRIBED_NOT_RE = lazy_pattern(
    r"^(?:(?:please|and|but|so|also|just|then|i|we|you|you should|we should)\s+)?"
    r"(?:do not|don['’]?t|never|always|must|make sure)\b",
    re.IGNORECASE,
)
_RULE_WORD_RE = lazy_pattern(
    r"\b(?:must|never|always|make sure|should)\b|(?:^|[,;:]\s+)(?:please\s+)?keep\s+(?:the|it|all|"
    r"every|our|my|this|these|those|them|to)\b|\bno new\b",
    re.IGNORECASE,
)
_OPINION_RE = lazy_pattern(
    r"^(?:(?:but|and|so|also|hmm|well|no|yeah)[,\s]+)?(?:i|we)\s+(?:do not|don['’]?t)\s+"
    r"(?:(?:really|quite|fully|actually|even|totally|exactly|yet)\s+)?(?:"
    r"(?:think|believe)\s+(?:that['’]?s|that is|this is|it['’]?s|it is|so|this|that)\b|"
    r"know|see|understand|remember|recall|feel|suppose|guess|get it|mind|care)\b",
    re.IGNORECASE,
)
_CLOSERS = "\"'”’»)]}*_` \t"
"""What may close a sentence after its "?" (quotes, brackets, Markdown emphasis)."""
_DESCRIBES_RE = lazy_pattern(
    r"(?<!^)\b(?:never|always)\s+(?:\w*[^\Ws]s|been|gets?|got|had|did)\b|"
    r"\b(?:is|are|was|were|has|have|had|did|does)\s+(?:never|always)\b",
    re.IGNORECASE,
)
"""A "never"/"always" that says what happens (``X never updates``, ``it has never worked``), not
what the user wants: not a rule word."""


def is_constraint(sentence: str) -> bool:
    """Whether a user sentence that holds a rule word asks for or forbids something: not a
    question, not a fragment cut mid-phrase ("It's never used for"), and a "don't" that is an
    order ("Do not start the dev server"), not a description ("events do not appear")."""
    text = RULE_MARK_RE.sub("", sentence.strip()).strip()
    if not text or text.rstrip(_CLOSERS).endswith("?") or len(text.split()) < 3:
        return False
    led = _DESCRIBED_NOT_RE.match(text) is not None  # (one cut at its length limit ends anywhere)
    if not (led and len(text) >= _CUT_AT) and _FRAGMENT_END_RE.search(text.rstrip(".!:;, ")):
        return False
    ordered = _OPINION_RE.match(text) is None and led
    return ordered or _RULE_WORD_RE.search(_DESCRIBES_RE.sub(" ", text)) is not None


_CONDITION_RE = lazy_pattern(
    r"(?:[-*•>]\s*|\d+[.)]\s*)*((?:if|when|whenever|unless|upon|on|in case|otherwise|"
    r"else)\b[^\n:.]{0,200}?(?:\([^\n()]{0,200}\)[^\n:.]{0,40}?)?):\s",
    re.IGNORECASE,
)
"""A line led by a condition, up to its colon (``- On guardrail failure (invalid spec, …):
respond with …``, ``If the build fails: …``); a comma's scope in prose is unclear ("When
done, tell me. Don't commit." is no conditional rule), a colon's is its line."""


def conditioned(text: str, found: Iterable[tuple[int, str]]) -> list[tuple[int, str]]:
    """The rule sentences ``found`` (position in ``text``, sentence), each later sentence of a
    line led by a condition given with its condition (blind check 35 W6: a command's "On
    guardrail failure (…): respond with `Error: <reason>` only. Do NOT include `Diff:` or
    `Tests:` sections." was listed as the bare rule "Do NOT include Diff: or Tests: sections.",
    which on success tells the agent to leave out the sections the command requires)."""
    out: list[tuple[int, str]] = []
    for pos, sentence in found:
        start = text.rfind("\n", 0, pos) + 1
        head = _CONDITION_RE.match(text, start, pos) if pos > start else None
        if head is not None and head.end() <= pos:
            sentence = f"{' '.join(head.group(1).split())}: {sentence}"
        out.append((pos, sentence))
    return out
