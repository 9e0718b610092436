"""Conditional alternatives in an assistant message: "If you'd rather I drive it via CLI, type
`! vercel login` … and I'll run `vercel --prod`", "Alternatively, …", "Or, if you want, …". A
bare "ok …" reply does not accept them unless it names them (BENCH50 W6, cc_bookmarks: "ok do
that verify but before that …" was read as accepting the CLI deploy alternative; the user had
deployed by himself, and no `vercel login` ever ran)."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import clean, one_line, sentence_spans

from .local_decisions import strip_list_mark

__all__ = ["alternatives", "names_alternative"]

_ALT_RE = lazy_pattern(
    r"^\W*(?:(?:or|and)\W+)?(?:if you(?:['’]d| would)? (?:rather|prefer)\b|alternatively\b|"
    r"if you(?:['’]d| would)? (?:want|like) (?:me )?to (?:instead|rather)\b|"
    r"(?:or|otherwise),? if you(?:['’]d| would)? (?:want|like|rather|prefer)\b)",
    re.IGNORECASE,
)
"""The start of a line or sentence that offers a conditional alternative."""
_WORD_RE = lazy_pattern(r"[^\W\d_][\w-]{2,}")
_STOP = frozenset(
    "you you'd would rather prefer want like instead alternatively otherwise the and for with "
    "via that this then can could will i'll i'd me it's its your from into can't just also".split()
)
"""Words of an alternative's condition that name nothing (a reply holding them names no part)."""


def alternatives(text: str) -> dict[str, str]:
    """The sentences of ``text`` (as :func:`judge_proposals` lists them: one line, no list mark)
    that stand in a conditional alternative (the sentence, or its line, starts like one), each
    with the line that holds the alternative's condition."""
    body = clean(text)
    out: dict[str, str] = {}
    for pos, raw in sentence_spans(body):
        x = strip_list_mark(raw.strip())
        if not x:
            continue
        start = body.rfind("\n", 0, pos) + 1
        line = strip_list_mark(body[start : body.find("\n", pos) if "\n" in body[pos:] else None])
        if _ALT_RE.match(x):
            out[one_line(x)] = x
        elif _ALT_RE.match(line.strip()):
            out[one_line(x)] = line
    return out


def names_alternative(reply: str, condition: str) -> bool:
    """Whether the reply names the alternative: a word of its condition (the words up to the
    first ``:`` or ``,``, "rather I drive it via CLI") or of the alternative itself."""
    head = re.split(r"[:,]", condition, maxsplit=1)[0]
    words = {w.lower() for w in _WORD_RE.findall(head)} - _STOP
    said = {w.lower() for w in _WORD_RE.findall(reply)}
    return bool(words & said)
