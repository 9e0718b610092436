"""A file the summary would call deleted that a later result shows present (issue 28, blind
check 13): ``rm package-lock.json`` and later a ``git status`` listing `` M package-lock.json``
means the file exists again (a later command wrote it), so "deleted" is no longer where it
stands: its last action becomes :data:`SHOWN_PRESENT`.

A folder too (blind check 38 W3, cc-og): ``rm -rf …/.openclaw && bash deploy-agent-z.sh`` deleted
it and the script deployed into it again; a later Read of ``.openclaw/agents/z/tests/…py``
succeeded, yet §3 and §8 said ".openclaw (deleted by Bash)". A later successful call that names a
path inside the deleted path (a read, a write, an edit) or runs there (``cd DIR && …``) shows it
present (:func:`_inside`).

The latest evidence decides (blind check 72 W1, jk_strom): ``git rm images/borovice.jpg`` and its
commit's ``delete mode``, then the user saved a smaller photo under the same name, ``ls -la
images/`` listed it and a later commit said ``create mode 100644 images/borovice.jpg``; §3 still
said "deleted by Bash". A listing of the file's folder (``ls``/``dir`` of it) or a search tool's
list (``Glob``, ``find``) that names it, or a commit's ``create mode`` line, shows it present; a
later commit's ``delete mode`` line or a status ``D`` line shows it gone again. The last of these
is where the file stands."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call, Result, command_of, is_reading_call, programs, shell_words

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
_COMMIT_RE = lazy_pattern(r"^\[[^\]\n]+ [0-9a-f]{7,40}\] ", re.MULTILINE)
"""The head line of a ``git commit``'s output (``[main 85984a2] message``)."""
_MODE_RE = lazy_pattern(r"^ (create|delete) mode \d+ (\S.*)$", re.MULTILINE)
"""A commit summary's line that adds or removes a file."""
_GONE_RE = lazy_pattern(
    r"^(?: D|D ) \"?([^\"\r\n]+?)\"?[ \t]*$|^\s*deleted:\s+([^\r\n]+?)\s*$", re.MULTILINE
)
"""A ``git status`` line that lists a file as deleted."""
_MISSING = ("No such file", "cannot access", "not found", "File Not Found")
_LISTING = frozenset({"cd", "ls", "dir", "find"})
"""The programs of a command that only lists (``cd X && ls -la images/``)."""


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


def _dir_switch(word: str) -> bool:
    """A ``dir`` switch (``/b``, ``/s``, ``/a``), not a path."""
    return word.startswith("/") and len(word) <= 3


def _norm(path: str) -> str:
    return path.replace("\\", "/").rstrip("/")


def _in_folder_list(call: Call | None, text: str, path: str, places: Places) -> bool:
    """Whether a listing that only lists — ``ls``/``dir`` of the file's folder (its name a word
    of a line), or ``find``/``Glob`` (a line that is its path) — names the file."""
    if call is None:
        return False
    head = text[:_SCANNED]
    if not head.strip() or any(m in head for m in _MISSING):
        return False
    name, parent = path.replace("\\", "/").rsplit("/", 1)[-1], _norm(path).rsplit("/", 1)[0]
    command = command_of(call)
    where = places.start(call) if command is not None else ""
    if command is None or not command.strip():
        if call.name.lower() != "glob":
            return False
        lines = [line.strip() for line in head.splitlines()]
        return any(line and _same(line, path) for line in lines)
    ran = programs(command)
    if not ran or not set(ran) <= _LISTING or ran.count("cd") != len(ran) - 1:
        return False
    if ran[-1] == "find":
        lines = [line.strip() for line in head.splitlines()]
        return any(
            line and (_same(line, path) or _same(places.resolve(where, line), path))
            for line in lines
        )
    words = shell_words(command.rsplit("&&", 1)[-1])[1:]
    switches = [w for w in words if w.startswith("-") or (ran[-1] == "dir" and _dir_switch(w))]
    args = [w for w in words if w not in switches]
    flags = "".join(w for w in switches if not w.startswith("--"))
    if len(args) > 1 or any(f in flags for f in ("R", "d", "/s", "/S")):  # recursive; the folder
        return False
    folder = places.resolve(where, args[0]) if args else where
    if not folder or not (_norm(folder) == parent or _same(_norm(folder), parent)):
        return False
    return any(name in line.split() for line in head.splitlines())


def _committed(text: str, path: str) -> bool | None:
    """What a ``git commit``'s summary says of the file: True for ``create mode … PATH``,
    False for ``delete mode … PATH``, None when it names it not (or is no commit)."""
    head = text[:_SCANNED]
    if _COMMIT_RE.search(head) is None:
        return None
    said = None
    for m in _MODE_RE.finditer(head):
        if _same(m.group(2).strip().strip('"'), path):
            said = m.group(1) == "create"
    return said


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


def _gone(r: Result, path: str, name: str) -> bool:
    """Whether a later result shows the file gone: a commit's ``delete mode`` line for it, or a
    ``git status`` line that lists it deleted."""
    head = r.text[:_SCANNED]
    if r.is_error or name not in head:
        return False
    if _committed(head, path) is False:
        return True
    return any(_same((m.group(1) or m.group(2)).strip(), path) for m in _GONE_RE.finditer(head))


def judge_present(s: Session) -> None:
    """Every file whose last action is ``deleted`` that a later tool result shows present, by
    the latest such evidence, is shown so: "deleted by Bash, then shown present by a later
    result". Present: a ``git status`` lists it (modified, added, untracked), an ``ls`` of it
    or of its folder lists it, a ``find``/``Glob`` names it, a commit creates it, a read tool
    read it without an error, a call used a path inside it. Gone again: a later commit deletes
    it or a ``git status`` lists it deleted (:func:`_gone`)."""
    gone = [f for f in s.files.values() if f.actions and f.actions[-1] == "deleted"]
    if not gone:
        return
    answered = {r.call_id for e in s.entries for r in e.results if not r.is_error}
    calls = {c.id: c for e in s.entries for c in e.calls}
    places = Places()
    for f in gone:
        name = f.path.replace("\\", "/").rsplit("/", 1)[-1]
        shown = False
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
                or any(
                    _in_folder_list(calls.get(r.call_id), r.text, f.path, places)
                    or _committed(r.text, f.path) is True
                    for r in e.results
                    if not r.is_error and name in r.text[:_SCANNED]
                )
                or any(  # a call that used a path inside it (a folder made again, 38 W3)
                    _inside(c, f.path, places)
                    for c in e.calls
                    if c.id in answered and c.id not in s.failed_calls
                )
            ):
                shown = True
            elif shown and any(_gone(r, f.path, name) for r in e.results):
                shown = False  # gone again: the latest evidence decides (blind check 72 W1)
        if shown:
            f.actions.append(SHOWN_PRESENT)
