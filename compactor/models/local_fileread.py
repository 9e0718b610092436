"""The files a reading call read, and the content a later full read of a changed file showed
(moved from :mod:`compactor.models.local_session`, which is at the module size limit).

Blind check 61 W5 (a Codex session): ``.gitignore`` was created by the agent's patch with
``@target/``, then changed outside the agent's calls; ``cat .gitignore`` printed ``target/`` and
``target``, and a later patch appended ``@target/``. Section 3 showed the content rebuilt from
the agent's own patches ("@target/ @target/"), which the read had shown to be wrong. A later
full read of a changed file (``cat FILE`` alone, a Read tool call without offset or limit) is
its content at that point: the reconstruction is replaced by what the read printed, and later
patches apply on top of it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.facts import Call, command_of, programs, strip_output_header, whole_paths

if TYPE_CHECKING:
    from .local_places import Places
    from .local_session import Session

__all__ = ["note_read"]

_SEARCH_TOOL_RE = lazy_pattern(r"grep|glob|search|find|list|^ls$", re.IGNORECASE)
_NUMBERED_RE = lazy_pattern(r"^ *\d+(?:→|\t)(.*)$")
"""A line of a Read tool's result: its number, then ``→`` or a tab, then the line."""
_CUT_RE = lazy_pattern(r"truncated|omitted|<system-reminder>|\[\.\.\.|…", re.IGNORECASE)
"""A read whose output may not be the whole file."""
_SHELL_RE = lazy_pattern(r"[|;&<>`$()]")
_MOST = 20_000  # characters of a read taken as the file's content, at most


def note_read(s: Session, places: Places, call: Call, text: str) -> None:
    """Record the files ``call`` (a reading call that succeeded) read in ``s.reads``; when it
    read a whole file the session changed and printed other content than the one rebuilt
    from the changes, that printed content is the file's content from then on (W5)."""
    if _SEARCH_TOOL_RE.search(call.name):
        return  # a search names a directory or a pattern, not a file it read
    for key in ("file_path", "path", "filename", "notebook_path"):
        value = call.args.get(key)
        if isinstance(value, str) and value:  # one file under one name (re-judged W2)
            path = places.resolve(places.base(call), value)
            s.reads.setdefault(path, None)
            if _changed(s, path) and not (call.args.get("offset") or call.args.get("limit")):
                _read_back(s, path, _unnumbered(text))
            return
    command = command_of(call)
    if command is not None and programs(command)[:1] in (["cat"], ["sed"], ["head"], ["nl"]):
        where = places.base(call)
        found = [places.resolve(where, path) for _, path in whole_paths(command)]  # (W6)
        for path in found:
            s.reads.setdefault(path, None)
        words = command.split()
        if len(words) == 2 and words[0] == "cat" and not _SHELL_RE.search(command):
            path = places.resolve(where, words[1].strip("'\""))  # `cat FILE` alone (.gitignore)
            if _changed(s, path):
                _read_back(s, path, strip_output_header(text))


def _changed(s: Session, path: str) -> bool:
    """Whether the session changed ``path`` and holds its rebuilt content (cheap: first)."""
    f = s.files.get(path)
    return f is not None and f.content is not None


def _unnumbered(text: str) -> str | None:
    """A Read tool's result without its line numbers; None when a line has none."""
    lines = text.rstrip("\n").split("\n")
    found = [_NUMBERED_RE.match(line) for line in lines]
    if not lines or any(m is None for m in found):
        return None
    return "\n".join(m.group(1) for m in found if m is not None)


def _read_back(s: Session, path: str, printed: str | None) -> None:
    f = s.files.get(path)
    if f is None or f.content is None or printed is None or not f.actions:
        return
    if f.actions[-1] == "deleted" or len(printed) > _MOST or _CUT_RE.search(printed):
        return
    shown = printed.rstrip("\n")
    if not shown.strip() or _lines(shown) == _lines(f.content):
        return
    f.content, f.expanded = shown, False  # later changes apply on top of it


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").split("\n")]
