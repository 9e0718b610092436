"""A sentence sets a failed call aside only when it is about that call (blind check 41 W9).

cc-cta: ``echo "=== posthog ===" && grep -rn "posthog" src/ --include=*.astro`` failed on a zsh
glob while the agent first read the code; the next assistant text came many calls later, and its
comment on a design option ("If you take (c), the measurement section's "skip dismiss rate for
the sticky bar" needs revisiting …") was quoted as "Set aside on purpose, not to be fixed": its
"skip" was a quoted section title, and the sentence was about PostHog events, not the grep.

By shape, a set-aside sentence must (:func:`about_failure`):

* hold its skip word outside quotation marks (a quoted title or phrase is someone else's words);
* name the failed call — its program, a word of its command (a path, a search term, a package:
  ``docs`` of ``make docs``, ``lint`` of ``golangci-lint`` in "the linter") or of its error — or
  come right after the failure, with no other call between (then "skipping it" can only mean it);
  a short reply of the user's ("no, skip it") to assistant words that name the failure counts too
  (:func:`.local_setaside.set_aside_words`).
"""

from __future__ import annotations

import bisect
from operator import attrgetter
from typing import TYPE_CHECKING

from compactor._util import lazy_pattern

if TYPE_CHECKING:
    from .local_records import ErrorFact
    from .local_session import Session

__all__ = ["about_failure", "right_after", "unquoted"]

_QUOTED_RE = lazy_pattern(r"\"[^\"\n]{1,200}\"|“[^”\n]{1,200}”|`[^`\n]{1,200}`|«[^»\n]{1,200}»")
_TOKEN_RE = lazy_pattern(r"[^\W_]{3,}")
_STOP = frozenset(
    """the and for with from into this that then than not but are was were has have had its
    his her our you your will would should could can cannot can't did does done don't doesn't
    error errors failed fail fails failure command commands found file files such directory
    exit code line lines matches match usage option options invalid unknown missing install
    run runs running test tests bash shell sudo echo true false null none all any get set
    output input print result results value values path paths name names type types true
    include exclude only also just now here there what when where which while why how""".split()
)
"""Words of a command or an error that name nothing in particular."""
_PREFIX = 4
"""Two words this long or longer match when one starts the other (``lint`` / ``linter``)."""
_PROSE_ARG_RE = lazy_pattern(
    r"\b(?:prompt|content|message|plan|body|text|new_string|old_string|instructions)="
    r".*?(?=, [a-z_]+=|\)?$)"
)
"""A tool call's argument of prose the agent wrote (``Task(prompt=…)``): a later sentence sharing
one of its words is not about the failure (BENCH48 W4: the final report's "Removed unnecessary
try/except …" shared a word with a failed sub-agent call's prompt)."""


def unquoted(sentence: str) -> str:
    """``sentence`` without its quoted spans ("…", “…”, `…`, «…»)."""
    if '"' not in sentence and "“" not in sentence and "`" not in sentence and "«" not in sentence:
        return sentence
    return _QUOTED_RE.sub(" ", sentence)


def _terms(err: ErrorFact) -> set[str]:
    """The words of the failed call (its line without the tool's name) and of its error lines
    that may name it."""
    line = err.call.split(": ", 1)[-1] if ": " in err.call[:40] else err.call
    if "=" in line and "(" in line[:60] and _PROSE_ARG_RE.search(line):  # (BENCH48 W4)
        line = _PROSE_ARG_RE.sub(" ", line)
    text = " ".join((line, err.signature[1], *err.outcome.lines[:2]))
    return {t for t in _TOKEN_RE.findall(text.lower()) if t not in _STOP}


def _matches(term: str, word: str) -> bool:
    if term == word:
        return True
    if len(term) < _PREFIX or len(word) < _PREFIX:
        return False
    return word.startswith(term) or term.startswith(word)


def about_failure(err: ErrorFact, sentence: str, adjacent: bool) -> bool:
    """Whether ``sentence`` (with a skip word, :data:`.local_skipped._SKIPS_RE`) can set ``err``
    aside: it names the failed call or its error, or it came right after it (``adjacent``)."""
    if adjacent:
        return True
    terms = _terms(err)
    words = set(_TOKEN_RE.findall(sentence.lower()))
    return any(_matches(t, w) for t in terms for w in words)


def right_after(s: Session, err: ErrorFact, role: str) -> bool:
    """Whether the next message of ``role`` with text after the failure ``err`` came before any
    other call (the words answer the failure itself)."""
    nxt = next(
        (e.index for e in s.entries[err.index + 1 :] if e.role == role and not e.injected
         and not e.internal and e.text.strip()),
        None,
    )  # fmt: skip
    if nxt is None:
        return False
    at = bisect.bisect_right(s.calls, err.index, key=_INDEX)  # the first call after it
    return at >= len(s.calls) or s.calls[at].index >= nxt


_INDEX = attrgetter("index")
