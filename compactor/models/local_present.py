"""A file the summary would call deleted that a later result shows present (issue 28, blind
check 13): ``rm package-lock.json`` and later a ``git status`` listing `` M package-lock.json``
means the file exists again (a later command wrote it), so "deleted" is no longer where it
stands: its last action becomes :data:`SHOWN_PRESENT`.

A folder too (blind check 38 W3, cc-og): ``rm -rf …/.openclaw && bash deploy-agent-z.sh`` deleted
it and the script deployed into it again; a later Read of ``.openclaw/agents/z/tests/…py``
succeeded, yet §3 and §8 said ".openclaw (deleted by Bash)". A later successful call that names a
path inside the deleted path (a read, a write, an edit) or runs there (``cd DIR && …``) shows it
present (:func:`_inside`)."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call, command_of, is_reading_call, programs

from .local_files import SHOWN_PRESENT
from .local_places import Places
from .local_session import Session

__all__ = ["judge_present"]

_STATUS_RE = lazy_pattern(
    r"^[ \t]?(?:[MARCU?][MARCU ?]?|[ MARCU][MARCU])[ \t]+\"?(?P<path>[^\"\r\n]+?)\"?[ \t]*$"
    r"|^\s*(?:modified|new file|renamed|copied):\s+(?:\S+ -> )?(?P<long>[^\r\n]+?)\s*$",
    re.MULTILINE,
)
"""A ``git status`` line that lists a file as present: short (`` M path``, ``A  path``,
``?? path``) or long (``modified:   path``); never a ``D`` (deleted) line."""
_PATH_KEYS = ("file_path", "path", "filename", "notebook_path")
_SEARCH_RE = lazy_pattern(r"grep|glob|search|find|list|^ls$", re.IGNORECASE)
"""A search tool's name: its path may be missing without an error result."""
_SCANNED = 20_000
"""How much of each later result is read (a status listing comes first)."""


def _same(listed: str, path: str) -> bool:
    listed, path = listed.replace("\\", "/").strip(), path.replace("\\", "/")
    return listed == path or path.endswith("/" + listed) or listed.endswith("/" + path)


def _listed(call: Call | None, text: str, name: str) -> bool:
    """Whether ``ls`` run on the file itself (``ls -la package-lock.json``) listed it: a line of
    its output holds the name as a word, and nothing says it is missing."""
    command = command_of(call) if call is not None else None
    if command is None or name not in command or programs(command)[:1] not in (["ls"], ["dir"]):
        return False
    head = text[:_SCANNED]
    if "No such file" in head or "cannot access" in head or "not found" in head.lower():
        return False
    return any(name in line.split() for line in head.splitlines())


def _within(path: str, folder: str) -> bool:
    """Whether ``path`` lies inside ``folder`` (a relative folder: any path through it)."""
    path, folder = path.replace("\\", "/"), folder.replace("\\", "/").rstrip("/")
    if not folder:
        return False
    if path.startswith(folder + "/"):
        return True
    return not folder.startswith("/") and ("/" + folder + "/") in path


def _inside(call: Call, folder: str, places: Places) -> bool:
    """Whether a call that succeeded names a path inside ``folder`` (a Read, Write or Edit of a
    file in it) or ran in it (``cd FOLDER/sub && …``): the folder exists again."""
    searched = _SEARCH_RE.search(call.name) is not None  # "No files found" is no error
    if not searched and any(
        isinstance(path := call.args.get(key), str) and path.strip() and _within(path, folder)
        for key in _PATH_KEYS
    ):
        return True
    command = command_of(call)
    if command is None or not command.lstrip().startswith("cd ") or "&&" not in command:
        return False  # only a leading `cd X &&`: the rest ran there (not after `cd X;`)
    head = command.lstrip().split("&&", 1)[0]
    if ";" in head or "\n" in head.strip() or "||" in head:
        return False
    where = places.start(call)
    return bool(where) and (where.rstrip("/") == folder.rstrip("/") or _within(where, folder))


def judge_present(s: Session) -> None:
    """Every file whose last action is ``deleted`` that a later tool result's ``git status``
    lists as present (modified, added, untracked), that a later ``ls`` of it lists, or that a
    later read tool read without an error, is shown so: "deleted by Bash, then shown present
    by a later result"."""
    gone = [f for f in s.files.values() if f.actions and f.actions[-1] == "deleted"]
    if not gone:
        return
    answered = {r.call_id for e in s.entries for r in e.results if not r.is_error}
    calls = {c.id: c for e in s.entries for c in e.calls}
    places = Places()
    for f in gone:
        name = f.path.replace("\\", "/").rsplit("/", 1)[-1]
        for e in s.entries[f.last_index + 1 :]:
            read = any(  # a later read of the file that worked: it is there
                _same(path, f.path)
                for c in e.calls
                if c.id in answered and c.id not in s.failed_calls and is_reading_call(c)
                for key in _PATH_KEYS
                if isinstance(path := c.args.get(key), str)
            )
            if (
                read
                or any(
                    _same(m.group("path") or m.group("long"), f.path)
                    for r in e.results
                    if name in (head := r.text[:_SCANNED]) and not r.is_error
                    for m in _STATUS_RE.finditer(head)
                )
                or any(_listed(calls.get(r.call_id), r.text, name) for r in e.results)
                or any(  # a call that used a path inside it (a folder made again, 38 W3)
                    _inside(c, f.path, places)
                    for c in e.calls
                    if c.id in answered and c.id not in s.failed_calls
                )
            ):
                f.actions.append(SHOWN_PRESENT)
                break
