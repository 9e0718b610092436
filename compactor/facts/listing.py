"""The paths a read-only listing call showed to exist (blind check 70 N2, issue 28).

rb_write ended with a ``Write`` of CLAUDE.md in flight, and an earlier ``LS`` and ``Glob(**/*.md)``
had listed a CLAUDE.md in that very folder: the Write would overwrite a file the user had, yet the
summary only said to run the call again if still needed. :func:`listed_paths` reads what one
finished listing call printed: Claude Code's ``LS`` tree (``- /root/`` then indented ``- name``
lines, folders ending in ``/``), a ``Glob``'s one path a line, a shell ``ls`` (plain or long
format, ``dir:`` headers for several folders) or ``find``. Paths come back as the call named them,
joined to its folder when relative (``posixpath``; a Windows folder keeps its separators); a
listing it cannot read gives nothing.
"""

from __future__ import annotations

import ntpath
import posixpath
import re

from compactor._util import lazy_pattern

from .commands import shell_words
from .samecommand import unwrapped
from .text import Call

__all__ = ["LISTING_TOOLS", "listed_paths"]

LISTING_TOOLS = frozenset({"ls", "glob", "list_directory", "list_dir", "find_files"})
"""Tool names (lower case) whose result lists paths: Claude Code's ``LS`` and ``Glob``, other
harnesses' directory listings."""

_TREE_RE = lazy_pattern(r"^( *)- (.+?)\s*$")
_LONG_RE = lazy_pattern(r"^[-dlcbps][-rwxsStT]{9}[.+@]?\s")
_PIPE_RE = lazy_pattern(r"\|\s*(?:head|tail|sort|grep)\b[^|;&]*$")
_MAX_LINES = 2_000


_NAME_RE = lazy_pattern(r"[^\s]+|[^\s][^\t]{0,120}\.[A-Za-z0-9]{1,8}")
"""A listed name: one word, or words ending in a file suffix (``My Paper.pdf``); never a
sentence a harness printed ("Your command ran successfully …") nor a prompt (``bash-$``)."""


def _plausible(name: str) -> bool:
    return _NAME_RE.fullmatch(name) is not None and not name.endswith(("$", "#", ">", ":"))


def _join(where: str, name: str) -> str:
    if not where or name.startswith(("/", "~")) or name[1:3] in (":\\", ":/"):
        return name
    if where[1:3] in (":\\", ":/"):
        joined = ntpath.normpath(ntpath.join(where, name))
        return joined if "\\" in where else joined.replace("\\", "/")
    return posixpath.normpath(posixpath.join(where, name))


def _tree(text: str, where: str) -> set[str]:
    """An ``LS`` tree: each ``- name`` under the nearest less indented folder line."""
    found: set[str] = set()
    stack: list[tuple[int, str]] = []
    for line in text.splitlines()[:_MAX_LINES]:
        m = _TREE_RE.match(line)
        if m is None:
            continue
        depth, name = len(m.group(1)), m.group(2)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        path = _join(stack[-1][1] if stack else where, name.rstrip("/"))
        if name.endswith("/"):
            stack.append((depth, path))
        else:
            found.add(path)
    return found


def _lines(text: str, where: str) -> set[str]:
    """One path a line (``Glob``, ``find``), relative ones in ``where``."""
    found: set[str] = set()
    for line in text.splitlines()[:_MAX_LINES]:
        name = line.strip()
        if name and not name.startswith(("No files", "find:", "(")) and _plausible(name):
            found.add(_join(where, name))
    return found


def _ls(words: list[str], text: str, where: str) -> set[str]:
    """A shell ``ls``: the folder it listed (one argument, or ``dir:`` headers) and each name."""
    if any(w.startswith("-") and "R" in w for w in words[1:]):
        return set()  # recursive: its sub-folder headers are not read
    args = [w for w in words[1:] if not w.startswith("-")]
    folder = _join(where, args[0]) if len(args) == 1 else where
    found: set[str] = set()
    for line in text.splitlines()[:_MAX_LINES]:
        line = line.rstrip()
        if not line or line.startswith("total "):
            continue
        if len(args) > 1 and line.endswith(":"):
            folder = _join(where, line[:-1])
            continue
        if _LONG_RE.match(line):
            if line[0] == "d":
                continue
            name = line.split(None, 8)[-1].split(" -> ")[0]
        elif len(args) == 1 and line == args[0]:  # `ls FILE` prints the file's own name
            found.add(folder)
            continue
        else:
            name = line
        if name not in (".", "..") and "/" not in name.rstrip("/") and _plausible(name):
            found.add(_join(folder, name))
    return found


def listed_paths(call: Call, text: str, where: str = "") -> set[str]:
    """The file paths ``call``'s result ``text`` listed as existing (``where``: the folder the
    call ran in); empty for a call that is no listing."""
    name = call.name.lower()
    if name in LISTING_TOOLS:
        folder = call.args.get("path")
        base = folder if isinstance(folder, str) and folder else where
        if _TREE_RE.match(text.lstrip("\n").split("\n", 1)[0]):
            return _tree(text, base)
        return _lines(text, base)
    command = call.command
    if not command:
        return set()
    command = _PIPE_RE.sub("", unwrapped(command).replace("2>/dev/null", "")).strip()
    if re.search(r"[|;&<>`$]", command):
        return set()
    words = shell_words(command)
    if not words:
        return set()
    if words[0] == "ls":
        return _ls(words, text, where)
    if words[0] == "find" and len(words) > 1:
        return _lines(text, where)
    return set()
