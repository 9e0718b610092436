"""Proposals the later dialogue overtook (blind check 39, W2).

* W2 (cc-lowlight): the assistant wrote "Let me fix the model with numerically stable attention
  and lower learning rate, then restart:" and called ``kill PID``; the user rejected only that
  call, and after a later request the assistant made exactly that fix with successful edits. A
  proposal whose distinctive words later successful changes carry (the text leading in to them,
  what they wrote, the files they changed) was carried out: it is no proposal the user turned
  down (:func:`carried_out`); the rejected call itself stays listed as rejected.
"""

from __future__ import annotations

from compactor._util import lazy_pattern
from compactor.facts import Call

from .local_noise import is_file_edit
from .local_session import Session

__all__ = ["carried_out"]

_WORD_RE = lazy_pattern(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_GENERIC = frozenset(
    "about after again before being could every first going other their there these those which "
    "while would should might still using where think maybe right change changes update updated "
    "fixed fixing should since until whole issue error errors problem script command running "
    "works working check checks let's model models value values should really simply first "
    "second third later added adding start started restart files would".split()
)
_SHARED = 3  # distinctive words a proposal and the later changes share to call it carried out
_ARGS = 4_000  # characters of a change's arguments read


def _stem(word: str) -> str:
    for suffix in ("ally", "ly", "ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def _words(text: str) -> set[str]:
    """The distinctive words of ``text``: identifiers split (``MultiheadAttention`` →
    multihead, attention), lower-cased, of 5 letters or more, not generic, lightly stemmed."""
    found = (w.lower() for w in _WORD_RE.findall(text))
    return {_stem(w) for w in found if len(w) >= 5 and w not in _GENERIC}


def _changes_after(s: Session, index: int) -> list[Call]:
    """The successful file changes (``Edit``, ``Write``, ``apply_patch`` …) made after entry
    ``index``."""
    return [
        c
        for c in s.calls
        if c.index > index and is_file_edit(c) and c.id in s.answered and c.id not in s.failed_calls
    ]


def carried_out(s: Session, index: int, text: str) -> bool:
    """Whether later successful changes carried out the proposal ``text`` of entry ``index``:
    they (the assistant text leading in to them, what they wrote, the files they changed) share
    at least ``_SHARED`` of its distinctive words."""
    changes = _changes_after(s, index)
    if not changes:
        return False
    wanted = _words(text)
    if len(wanted) < _SHARED:
        return False
    said: set[str] = set()
    for at in sorted({c.index for c in changes}):
        said |= _words(s.entries[at].text)
    for c in changes:
        said |= _words(c.arguments[:_ARGS])
    return len(wanted & said) >= _SHARED
