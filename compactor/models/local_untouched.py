"""The files the user named that no call names (section 3: "Named by the user, never by a call
(only in the user's words; they may not exist)"; moved from :mod:`.local_views`).

Blind check 24 W4 (cc-steam): the user named ``D:\\…\\study-package\\steam.csv``; calls used it
as ``cd "D:/…/study-package" && head -2 steam.csv`` and ``cd "…/tasks/task 2" && cp
"../../steam.csv" data/``, and the summary said it may not exist. A relative file name in a shell
command that ``cd``'s first (:func:`cd_named`) is also read against that folder.

Blind check 44 W4 (cc-dots): the file starts mid-session (its first record is the output of
``install.sh``, whose call lies before it) and the assistant reported "`install.sh` - now
handles nested configs properly", yet the summary said install.sh, named by the user, "may not
exist". A file a tool result names, or, when the log starts mid-session, the assistant's text
names, is said to be named there (:func:`named_elsewhere`), not "may not exist".
"""

from __future__ import annotations

import posixpath
import re

from compactor._util import lazy_pattern
from compactor.facts import command_of

from .local_earlier import earlier_said
from .local_noise import normal_path, path_in
from .local_scriptwrites import ABSOLUTE, CD_RE
from .local_session import Session

__all__ = ["cd_named", "elsewhere_lines", "named_elsewhere", "untouched"]

_FILE_RE = lazy_pattern(r"""(?<![\w./\\-])((?:\.{1,2}/)*[\w.-]+(?:/[\w.-]+)*\.[A-Za-z]\w{0,7})\b""")
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


def _starts_mid_session(s: Session) -> bool:
    """Whether the log begins inside a session: an earlier summary came before it, or its first
    record is a result of a call it does not hold (the calls before it are not here)."""
    if s.prior:
        return True
    first = next((e for e in s.entries if not e.internal and not e.injected and e.role != "system"
                  and (e.text.strip() or e.calls or e.results)), None)  # fmt: skip
    if first is None or not first.results:
        return False
    ids = {c.id for c in s.calls}
    return any(r.call_id and r.call_id not in ids for r in first.results)


def _names(path: str, text: str) -> bool:
    """Whether ``text`` (:func:`normal_path`) names ``path`` as a whole name, not inside one."""
    name = re.escape(normal_path(path).removeprefix("./"))
    return re.search(rf"(?<![\w.-]){name}(?![\w-])", text) is not None


_RESULTS = "results"


def named_elsewhere(s: Session, only: list[str]) -> dict[str, str]:
    """Of ``only`` (files the user named that no call names): file → who names it, a tool
    result (its output shows the file) or, when the log starts mid-session, the assistant's text
    (the calls that touched it lie before this part)."""
    if not only:
        return {}
    results = normal_path("\n".join(r.text for e in s.entries for r in e.results))
    texts = ""
    if _starts_mid_session(s):
        texts = normal_path("\n".join(e.text for e in s.entries if e.role == "assistant"))
    found: dict[str, str] = {}
    for p in only:
        if _names(p, results):
            found[p] = _RESULTS
        elif texts and _names(p, texts):
            found[p] = "text"
    return found


def elsewhere_lines(found: dict[str, str]) -> list[str]:
    """Section 3's lines for :func:`named_elsewhere`'s files."""
    shown = [p for p, by in found.items() if by == _RESULTS]
    said = [p for p, by in found.items() if by != _RESULTS]
    lines = [f"Named by the user and in tool results, not by a call: {', '.join(shown)}"]
    lines = lines if shown else []
    if said:
        lines.append(
            "Named by the user and in the assistant's text, not by a call in this part (the log "
            "starts mid-session: calls before it may have touched them): " + ", ".join(said)
        )
    return lines
