"""Which later answer revised an earlier one (blind check 36 W6, cx-worldtime).

The earlier answer "added an output-language setting: JA/EN/FR/ZH …" was quoted as "REVISED
since by the answer above", while the answer above was about ordinal dates; the answer that did
revise it ("FR and ZH removed, a saved fr/zh falls back to JA") was never quoted, so a reader
could take JA/EN/FR/ZH as the current set. Both later answers named the same file, which is all
the "revised" judgement looked at. A later answer revises the earlier one only when it is about
the same work: it shares enough of the earlier answer's distinctive words (file names and the
words every answer uses left out), or the user's request before it does. The label then names
which answer: the one above, or a later one, quoted.
"""

from __future__ import annotations

from compactor._util import lazy_pattern
from compactor.facts import Entry, cut, whole_paths

from .local_session import Session

__all__ = ["revised_title"]

_WORD_RE = lazy_pattern(r"[A-Za-z][A-Za-z0-9]+|[\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff]{2,}")
"""A word: Latin letters, or a run of katakana and kanji (Japanese and Chinese content words)."""
_SUFFIX_RE = lazy_pattern(r"(?:ions?|ing|ed|es|s)$")
_COMMON = frozenset(
    "about above added after again also been before being both changed changes commit committed "
    "could does done each file files from have here into just like made make more most much need "
    "next only other over pushed same should some such than that their them then there these "
    "they this those through under updated very want were what when where which while will with "
    "would your work works working now adds update fixed fix test tests passed pass all "
    "the and for are but not you can".split()
)
_MIN_SHARED = 3
_MIN_SHARE = 0.15
_QUOTE = 600
_OPEN = "(what it left open may be done)"
ABOVE = "An earlier answer, REVISED since by the answer above (what it left open may be done)"
UNREVISED = "An earlier substantial answer, verbatim (the answer above came after it)"


def _words(text: str) -> set[str]:
    """The distinctive words of ``text``: stems of content words (``languages`` → ``langua``),
    short capitalised codes (``FR``, ``ZH``), kanji and katakana runs; no path, no number."""
    for at, path in whole_paths(text):
        text = text[:at] + " " * len(path) + text[at + len(path) :]  # (same length: positions)
    found = set()
    for word in _WORD_RE.findall(text):
        if word.isascii() and len(word) < 4:
            if word.isupper():
                found.add(word.lower())  # FR, ZH, API
            continue
        lower = word.lower()
        if lower not in _COMMON:
            found.add(_SUFFIX_RE.sub("", lower)[:6] if word.isascii() else lower)
    return found


def _same_work(earlier: set[str], text: str) -> bool:
    other = _words(text)
    shared = len(earlier & other)
    return shared >= _MIN_SHARED and shared >= _MIN_SHARE * min(len(earlier), len(other))


def revised_title(s: Session, earlier: Entry, latest: Entry, changed: bool) -> str:
    """The title of ``earlier`` quoted after ``latest``: revised by the answer above, by a later
    answer (quoted), at the user's later request (quoted), or not revised at all (no file both
    name was ``changed`` between them, or no later answer or request is about the same work)."""
    if not changed:
        return UNREVISED
    mine = _words(earlier.text)
    if _same_work(mine, latest.text):
        return ABOVE
    requests = {e.index for e in s.requests}
    asked: Entry | None = None
    for e in reversed(s.entries[earlier.index + 1 : latest.index]):
        if e.internal or e.injected or not e.text.strip():
            continue
        if e.role == "assistant" and not e.calls and _same_work(mine, e.text):
            said = cut(e.text, _QUOTE)
            return f'An earlier answer, REVISED since by a later answer, "{said}" {_OPEN}'
        if e.index in requests and asked is None and _same_work(mine, e.text):
            asked = e
    if asked is not None:
        said = cut(asked.text, _QUOTE)
        return f'An earlier answer, REVISED since at the user’s later request, "{said}" {_OPEN}'
    return UNREVISED
