"""A later run whose filter could have hidden the errors it should show gone (blind check 35
W4, cc-phases: ``npx tsc --noEmit 2>&1 | head -50`` printed ``error TS2339``; a later ``npx tsc
--noEmit 2>&1 | grep -E "(signal|pipeline)" || echo "No signal pipeline errors"`` printed the
echo's line and was called the fix; the errors were pre-existing and never fixed).

:func:`hides_errors` tells whether the output of a checker, test runner or build (``tsc``,
``eslint``, ``pytest``, ``npm run …``; :data:`_CHECKER_RE`) went through a filter that keeps
only lines of its own choosing: a ``grep``/``rg``/``Select-String``/``findstr`` that keeps lines
matching a pattern with no error word in it, or one that drops (``-v``) lines matching one
with such a word. Such a run succeeding says nothing of the errors its tool printed."""

from __future__ import annotations

import functools
import re

from compactor._util import lazy_pattern

__all__ = ["hides_errors"]

_FILTER_RE = lazy_pattern(
    r"(?<![|\\])\|(?!\|)\s*(?:grep|egrep|rg|select-string|sls|findstr)\b([^|;&\n]*)",
    re.IGNORECASE,
)
"""A pipe into a line filter, with its arguments (up to the next pipe or step)."""
_ERROR_WORD_RE = lazy_pattern(r"err|fail|TS\\?d|TS\d|warn|problem|✖", re.IGNORECASE)
"""A pattern that keeps (or drops) error lines: it names an error, a failure, a TS code."""
_CHECKER_RE = lazy_pattern(
    r"\b(?:tsc|eslint|biome|pytest|mypy|pyright|ruff|flake8|pylint|jest|vitest|mocha|cargo|"
    r"go\s+(?:test|build|vet)|npm|pnpm|yarn|bun|npx|make|tox|nox|dotnet|gradle|mvn|phpunit|"
    r"rspec|unittest)\b"
)
"""A program whose output lists its errors: filtering it can hide them. (A ``curl … | grep``
keeps what it looks for; its success says it found it.)"""
_INVERT_RE = lazy_pattern(r"(?:^|\s)(?:-[a-zA-Z]*v[a-zA-Z]*|--invert-match|-NotMatch|/v)\b")
_COUNT_RE = lazy_pattern(r"(?:^|\s)(?:-[a-zA-Z]*[cl][a-zA-Z]*|--count|--files-with-matches)\b")


@functools.lru_cache(maxsize=1024)
def hides_errors(command: str) -> bool:
    """Whether ``command`` pipes its output into a filter that could hide its tool's error
    lines (module): a success of it is no proof that a failure before it was fixed."""
    if "|" not in command:
        return False
    for found in _FILTER_RE.finditer(command[:4_000]):
        if _CHECKER_RE.search(command, 0, found.start()) is None:
            continue  # the output of a fetch or a listing: what it keeps is what it wanted
        args = found.group(1)
        if _COUNT_RE.search(args) is not None:
            continue  # `grep -c error`: a count, printed whatever it is
        names_errors = _ERROR_WORD_RE.search(args) is not None
        inverted = _INVERT_RE.search(args) is not None
        if names_errors == inverted:  # keeps other lines, or drops the error lines
            return True
    return False
