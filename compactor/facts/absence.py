"""A path's absence that the command itself expected is no error (blind check 51, W3).

cc-orpheus §7: "Unresolved failure: Bash: rm -rf apps/web/dist && ls apps/web/dist 2>&1 | head -3;
mise run test …" (§4: "failed: ls: apps/web/dist: No such file or directory"). The ``ls`` was the
command's own check that the folder it had just removed was gone; the tests after it passed.

:func:`expected_absence` says a "missing path" line (``No such file or directory``, ``cannot
access``, ``does not exist``) is such a check's answer when it names a path the same command

* removed (``rm -rf X``, ``rmdir X``, ``git rm X``, ``unlink X``) and then listed or tested
  (``rm -rf X && ls X``), or
* listed or tested with a fallback for its absence (``ls X || echo gone``, ``stat X || …``).

A later step's failure on the removed path (``rm -rf build && cat build/out.txt``, a build tool's
"build: No such file") is no such check: only a checking program's line of that very path is.

Read by :func:`compactor.facts.wenton.went_on` (an unflagged call whose only error lines are
such answers went on) and by the summary's "did not fail, but printed" list.

A flagged one (``rm -rf X && ls X`` exits 2: :func:`confirms_removal`, fix57a) is no failure
either: every error line it printed is such an answer. A check of a path an EARLIER call removed
(``rm -rf X``, then ``ls X`` exits 2) is one too, judged by the session model with
:func:`removed_paths` and :func:`missing_checked`.
"""

from __future__ import annotations

import functools
import re

from compactor._util import lazy_pattern

__all__ = [
    "confirms_removal",
    "expected_absence",
    "missing_checked",
    "removed_paths",
    "says_missing",
]

_SEGMENT_RE = lazy_pattern(r"(\|\||&&|[|;\n])")
_MISSING_RE = lazy_pattern(
    r"No such file or directory|cannot access|does not exist|doesn['’]t exist|"
    r"cannot find (?:path|the path)",
    re.IGNORECASE,
)
_REMOVERS = frozenset({"rm", "rmdir", "unlink", "trash"})
_CHECKERS = frozenset({"ls", "stat", "test", "[", "cat", "find", "file", "du"})
_MAX_COMMAND = 4_000


def says_missing(line: str) -> bool:
    """Whether ``line`` says a path is not there."""
    return _MISSING_RE.search(line) is not None


def _words(segment: str) -> list[str]:
    words = [w.strip("'\"") for w in segment.split()]
    while words and (words[0] in ("sudo", "command") or "=" in words[0]):
        words = words[1:]
    if words[:2] == ["git", "rm"]:
        words = ["rm", *words[2:]]
    return words


def _paths(words: list[str]) -> set[str]:
    return {
        w.rstrip("/")
        for w in words[1:]
        if w and not w.startswith(("-", ">", "<", "2>", "&")) and w not in ("!", "]")
    }


@functools.lru_cache(maxsize=1024)
def _scan(command: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(the paths ``command`` removed, or checked with a fallback for their absence; the paths it
    removed; the paths it checked)."""
    parts = _SEGMENT_RE.split(command)
    removed: set[str] = set()
    found: set[str] = set()
    checks: set[str] = set()
    for i in range(0, len(parts), 2):
        words = _words(parts[i])
        if not words:
            continue
        after = parts[i + 1] if i + 1 < len(parts) else ""
        if words[0] in _REMOVERS:
            removed |= _paths(words)
        elif words[0] in _CHECKERS:
            checked = _paths(words)
            checks |= checked
            found |= checked if after == "||" else checked & removed
    return _real(found), _real(removed), _real(checks)


def _real(paths: set[str]) -> frozenset[str]:
    return frozenset(p for p in paths if p and p not in (".", "..", "/"))


def _expected_paths(command: str) -> frozenset[str]:
    """The paths ``command`` removed, or checked with a fallback for their absence."""
    return _scan(command)[0]


def removed_paths(command: str | None) -> frozenset[str]:
    """The paths ``command`` removes (``rm -rf X``, ``rmdir X``, ``git rm X``, ``unlink X``)."""
    if not command or len(command) > _MAX_COMMAND:
        return frozenset()
    return _scan(command)[1]


def missing_checked(command: str | None, line: str) -> frozenset[str]:
    """The paths ``command`` lists or tests (``ls X``, ``stat X``, ``test -e X``) that the error
    ``line`` says are missing."""
    if not command or len(command) > _MAX_COMMAND or not says_missing(line):
        return frozenset()
    return frozenset(path for path in _scan(command)[2] if _names(line, path))


def confirms_removal(command: str | None, lines: tuple[str, ...] | list[str]) -> bool:
    """Whether ``lines``, the error lines of a flagged ``command``, are all its own check that a
    path it removed is gone (``rm -rf X && ls X`` exits 2: "No such file or directory")."""
    return bool(lines) and all(expected_absence(command, line) for line in lines)


def expected_absence(command: str | None, line: str) -> bool:
    """Whether the error ``line`` of ``command``'s output says a path is missing that the same
    command removed or checked for absence (the module docstring)."""
    if not command or len(command) > _MAX_COMMAND or not says_missing(line):
        return False
    return any(_names(line, path) for path in _expected_paths(command))


def _names(line: str, path: str) -> bool:
    """Whether ``line`` names ``path`` as a whole word (not ``build`` of ``build-tools``)."""
    at = line.find(path)
    while at >= 0:
        end = at + len(path)
        before = line[at - 1] if at else " "
        after = line[end] if end < len(line) else " "
        if not (before.isalnum() or before in "_-./") and not (after.isalnum() or after in "_-/"):
            return True
        at = line.find(path, at + 1)
    return False
