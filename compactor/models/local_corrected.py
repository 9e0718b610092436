"""An answer the user's next message corrected (BENCH46 W6).

cc-crdt: the answer "That's the same PR — 188. The CodeRabbit comment is just the walkthrough
summary … No actionable review comments or issues raised. It's clean to merge." was quoted in
section 8 as an earlier request's answer, although the user's next message sent the review's
URL (which had "Actionable comments posted: 1") and the agent then worked on that review.

By shape, the next message corrects the answer when it (short, at most :data:`_SHORT` characters):

* says so: "look again", "check again", "are you sure", "that's not right", "you missed",
  "it has comments", "there are 2 issues";
* or is mostly a link (evidence) on the answer's subject: a URL whose path shares a number or a
  word with the answer (``…/pull/188#pullrequestreview-…`` after "the same PR — 188").

Such an answer is superseded: its title says "superseded by the user's correction: '…'"
(:func:`.local_dialogue.judge_disputed`).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["CORRECTED", "corrects"]

CORRECTED = "superseded by the user's correction"
_SHORT = 400
_CORRECTS_RE = lazy_pattern(
    r"\b(?:look|check|read|try) (?:it |that |this |again |more )*(?:again|closer|carefully)\b|"
    r"\bare you sure\b|\b(?:that|this|it)(?:['’]s| is) not (?:right|correct|true|accurate|it)\b|"
    r"\b(?:that|this|it)(?:['’]s| is) (?:wrong|incorrect|false)\b|\byou (?:missed|overlooked)\b|"
    r"\b(?:it|there|the \w+) (?:does |do )?(?:has|have|are|is) (?:\d+ |some |a few |an? )?"
    r"(?:actionable |open |unresolved )?(?:comments?|issues?|errors?|findings?|nitpicks?)\b",
    re.IGNORECASE,
)
_URL_RE = lazy_pattern(r"https?://\S+")
_PART_RE = lazy_pattern(r"[A-Za-z]{4,}|\d{2,}")
_COMMON = frozenset({"https", "http", "github", "gitlab", "html", "index", "pull", "pulls"})
_WORD_RE = lazy_pattern(r"\w+")


def corrects(reply: str, answer: str) -> bool:
    """Whether ``reply``, the user's next message after ``answer``, corrects it (module
    docstring)."""
    if len(reply) > _SHORT:
        return False
    if _CORRECTS_RE.search(reply) is not None:
        return True
    urls = _URL_RE.findall(reply)
    if not urls or len(_URL_RE.sub("", reply).strip()) > len(reply) // 2:
        return False  # no link, or a request of its own with a link in it
    parts = {p.lower() for u in urls for p in _PART_RE.findall(u.split("://", 1)[1])}
    parts -= _COMMON
    said = {w.lower() for w in _WORD_RE.findall(answer[:4_000])}
    return bool(parts & said)
