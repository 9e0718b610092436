"""The files the user named that no call names (section 3: "Named by the user, never by a call
(only in the user's words; they may not exist)"; moved from :mod:`.local_views`).

Blind check 24 W4 (cc-steam): the user named ``D:\\…\\study-package\\steam.csv``; calls used it
as ``cd "D:/…/study-package" && head -2 steam.csv`` and ``cd "…/tasks/task 2" && cp
"../../steam.csv" data/``, and the summary said it may not exist. A relative file name in a shell
command that ``cd``'s first (:func:`cd_named`) is also read against that folder.
"""

from __future__ import annotations

import posixpath
import re

from compactor.facts import command_of

from .local_earlier import earlier_said
from .local_noise import normal_path, path_in
from .local_scriptwrites import ABSOLUTE, CD_RE
from .local_session import Session

__all__ = ["cd_named", "untouched"]

_FILE_RE = re.compile(r"""(?<![\w./\\-])((?:\.{1,2}/)*[\w.-]+(?:/[\w.-]+)*\.[A-Za-z]\w{0,7})\b""")
"""A relative file name (with an extension) in a command."""


def untouched(s: Session, named: list[str]) -> list[str]:
    """Of the files the user named, those no call of the session names (never opened, searched
    for or changed): they are only in the user's words and may not exist (issue 28)."""
    if not named:
        return []
    said = normal_path("\n".join(c.arguments.replace("\\\\", "\\") for c in s.calls))
    said += "\n" + "\n".join(normal_path(p) for p in s.files) + earlier_said(s)
    left = [p for p in named if not path_in(p.removeprefix("./"), said)]  # './Use Cases/x.md
    return [p for p in left if not path_in(p, cd_named(s))] if left else left


def cd_named(s: Session) -> str:
    """The relative file names of the shell commands that ``cd DIR`` first, each joined to DIR
    (:func:`normal_path`, one a line)."""
    found: list[str] = []
    for call in s.calls:
        command = command_of(call)
        if command is None or "cd " not in command:
            continue
        cd = CD_RE.search(command)
        if cd is None:
            continue
        folder = (cd.group(2) or cd.group(3)).replace("\\", "/")
        if not ABSOLUTE.match(folder):
            continue
        for m in _FILE_RE.finditer(command, cd.end()):
            found.append(posixpath.normpath(posixpath.join(folder, m.group(1))))
    return normal_path("\n".join(found))
