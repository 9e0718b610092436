"""The home folder in a session's paths (blind check 46 W2).

cx-global wrote skill and hook files under ``~/.codex`` (some as ``$HOME/.codex/…``, some by
``apply_patch`` at ``/Users/NAME/.codex/…``), then renamed the folders to lowercase through
temporary names, moved ``~/.codex/skills`` to ``~/.agents/skills`` and removed the link left in
its place; section 3 still listed the four files at their first paths, because a ``cd ~/…`` or
a ``~``/``$HOME`` path of a ``mv`` or ``rm -r`` was never followed. Now:

* :func:`tilde` writes ``$HOME``, ``${HOME}`` and ``"$HOME"`` as ``~`` (one spelling for one
  folder);
* :func:`home_of` tells the home folder from a recorded working directory under it
  (``/Users/NAME``, ``/home/NAME``, ``/root``), so that ``~/x`` and ``/Users/NAME/x`` are found
  as one path (:func:`aliases`);
* :func:`folds_case`: on macOS (a home under ``/Users/``) or Windows, ``Skills`` and
  ``skills`` are the same folder: a move of one carries the files written under the other.
"""

from __future__ import annotations

import ntpath

from compactor._util import lazy_pattern

__all__ = [
    "aliases",
    "folds_case",
    "home_of",
    "rooted",
    "same_file_key",
    "tilde",
    "win_join",
    "windows_rooted",
]

_HOME_VARS = ("${HOME}", "$HOME")
_HOME_RE = lazy_pattern(r"^(?:/Users/[^/]+|/home/[^/]+|/root)(?=/|$)")


def tilde(word: str) -> str:
    """``word`` with a leading ``$HOME`` (``${HOME}``, ``"$HOME"``) written ``~``."""
    if not word.startswith(("$", '"$')):
        return word
    bare = word.replace('"', "")  # ``"$HOME"/x``, ``"$HOME/x"``: the shell's quotes
    for var in _HOME_VARS:
        if bare.startswith(var) and bare[len(var) : len(var) + 1] in ("", "/"):
            return "~" + bare[len(var) :]
    return word


def rooted(path: str) -> bool:
    """Whether ``path`` names one place wherever the shell is (``/x``, ``~``, ``~/x``)."""
    return path.startswith("/") or path == "~" or path.startswith("~/")


def home_of(where: str) -> str:
    """The home folder a working directory lies in; "" when it lies in none known."""
    if not where.startswith(("/Users/", "/home/", "/root")):
        return ""
    m = _HOME_RE.match(where)
    return m.group() if m is not None else ""


def aliases(path: str, home: str) -> tuple[str, ...]:
    """``path`` and, when the home folder is known, its other spelling (``~/x`` and
    ``/Users/NAME/x``)."""
    if not home:
        return (path,)
    if path == "~" or path.startswith("~/"):
        return (path, home + path[1:])
    if path == home or path.startswith(home + "/"):
        return (path, "~" + path[len(home) :])
    return (path,)


def folds_case(home: str, where: str) -> bool:
    """Whether the session's file system is read as case-insensitive (macOS: a home under
    ``/Users/``; Windows: a drive letter)."""
    return home.startswith("/Users/") or where[1:3] in (":\\", ":/")


def windows_rooted(path: str) -> bool:
    """Whether ``path`` names one place on Windows wherever the shell is (``C:\\x``, ``C:/x``,
    ``/c/x``, ``\\x``, ``~``, ``$VAR``): not one to put in the working directory."""
    return not path or path[1:3] in (":\\", ":/") or path.startswith(("/", "\\", "~", "$"))


def win_join(where: str, path: str) -> str:
    """A relative ``path`` in the Windows directory ``where``, written in ``where``'s
    separators (``C:\\Users\\u\\app`` + ``src/a.ts`` → ``C:\\Users\\u\\app\\src\\a.ts``)."""
    joined = ntpath.normpath(ntpath.join(where, path))
    return joined if "\\" in where else joined.replace("\\", "/")


def same_file_key(path: str) -> str:
    """The form in which two spellings of one file are equal: a Windows-shaped path (a drive
    letter) with ``/`` for ``\\`` and in lower case (Windows names fold case); others as they
    are."""
    if path[1:3] not in (":\\", ":/"):
        return path
    return path.replace("\\", "/").lower()
