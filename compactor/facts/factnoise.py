"""Words that look like facts but are not (blind check 15, ll-toolong): a bare name followed by
``(`` is a function called in code (``console.log(x)``), not a file; an identifier that is part
of a path printed just before it (``C2sCgOtr`` of ``dist/assets/form-vendor-C2sCgOtr.js``) is
no fact of its own."""

from __future__ import annotations

from collections.abc import Iterable


def only_called(texts: Iterable[str], name: str) -> bool:
    """Whether every time ``texts`` write the bare name ``name`` (no directory), a ``(`` follows:
    a function called in code (``console.log('x')``), not a file (``build.log (its output)`` is
    one)."""
    if "/" in name or "\\" in name:
        return False
    seen = False
    for text in texts:
        at = text.find(name)
        while at >= 0:
            seen = True
            end = at + len(name)
            if text[end : end + 1] != "(":
                return False
            at = text.find(name, end)
    return seen


def without_parts(facts: Iterable[str]) -> list[str]:
    """``facts`` in order, each once, without a word (letters and digits, not a number) that is
    part of an earlier one (a hash fragment of a printed file name)."""
    kept: list[str] = []
    for fact in facts:
        word = fact.isalnum() and not fact.isdigit()
        if not (word and any(fact in earlier for earlier in kept)):
            kept.append(fact)
    return kept
