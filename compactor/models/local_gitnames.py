"""Files renamed, added or removed outside the calls, told by a later ``git status`` or ``git
commit`` (issue 28, blind check 58 W1).

The user renamed two skill files in the IDE between two calls; the only trace was a later
``git status --short`` (``R  a.md -> b.md``, ``A  c.md``) and the commit's summary (``rename
{a.md => b.md} (100%)``, ``create mode 100644 c.md``), yet the summary listed the files under
their old names. Now, as a ``D`` line already deletes a known file (:mod:`.local_places`):

* a rename line (``R old -> new``, ``renamed: old -> new``, ``rename {old => new}``) carries a
  known file (or a path read) to its new name, as a shell ``mv`` does;
* an added line (``A new``, ``new file: new``, ``create mode … new``) of a file no call made, in
  the folder of a known file, lists it as added outside the calls (a few at most);
* a known file an earlier full ``git status`` listed untracked (``??``) that a later full status
  of the same folder no longer lists, with no commit between and a new file beside it, was
  renamed or removed outside the calls: it is deleted under its old name.

Paths are resolved against the directory the command ran in, as the ``D`` lines are.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.facts import Call, one_line, strip_output_header

from .local_files import Change, FileState

if TYPE_CHECKING:
    from .local_places import Places

__all__ = ["GitNames"]

_SHORT_RE = lazy_pattern(r"^([ MADRCU?!]{2}) (\S.*)$", re.MULTILINE)
_LONG_RE = lazy_pattern(
    r"^\t(renamed|new file|modified|deleted|typechange):\s+(\S.*)$", re.MULTILINE
)
_UNTRACKED_HEAD = "Untracked files:"
_COMMIT_HEAD_RE = lazy_pattern(r"^\[[^\]\n]+ [0-9a-f]{7,40}\] ", re.MULTILINE)
_COMMIT_RENAME_RE = lazy_pattern(r"^ (?:rename|copy) (\S.*?) \(\d+%\)$", re.MULTILINE)
_COMMIT_CREATE_RE = lazy_pattern(r"^ create mode \d+ (\S.*)$", re.MULTILINE)
_BRACE_RE = lazy_pattern(r"\{([^{}]*) => ([^{}]*)\}")
_MAX_ADDED = 3
"""Files added outside the calls listed per result, at most."""
_LIVE = ("created", "written", "edited")


def _unquote(path: str) -> str:
    return path.strip().strip('"')


def _commit_pair(text: str) -> tuple[str, str]:
    """``dir/{a => b}/f`` or ``a => b``: (old path, new path)."""
    m = _BRACE_RE.search(text)
    if m is None:
        old, _, new = text.partition(" => ")
        return _unquote(old), _unquote(new)
    head, tail = text[: m.start()], text[m.end() :]
    old = (head + m.group(1) + tail).replace("//", "/")
    new = (head + m.group(2) + tail).replace("//", "/")
    return _unquote(old), _unquote(new)


class GitNames:
    """The untracked files each full ``git status`` listed, and when a commit last ran."""

    __slots__ = ("committed", "untracked")

    def __init__(self) -> None:
        self.untracked: dict[str, tuple[set[str], int]] = {}
        """Directory → (the untracked paths its last full status listed, when)."""
        self.committed = -1
        """When a call last committed (or stashed): a file then leaves the status lists."""

    def seen(
        self,
        places: Places,
        call: Call,
        command: str,
        text: str,
        state: tuple[dict[str, FileState], dict[str, list[str]], dict[str, None]],
        index: int,
    ) -> None:
        """After any call: what its ``git status``/``git commit`` output says of names."""
        if "git" not in command:
            return
        if any(w in command for w in ("git commit", "git stash", "git merge", "git pull")):
            self.committed = index
            if "git commit" in command and _COMMIT_HEAD_RE.search(text[:4_000]):
                self._commit(places, call, command, text, state, index)

    def status(
        self,
        places: Places,
        where: str,
        command: str,
        text: str,
        state: tuple[dict[str, FileState], dict[str, list[str]], dict[str, None]],
        index: int,
        full: bool,
    ) -> None:
        """A ``git status`` (``full``: of the whole tree) run in ``where`` printed ``text``."""
        files = state[0]
        body = strip_output_header(text)
        renames: list[tuple[str, str]] = []
        added: list[str] = []
        listed: set[str] = set()
        untracked: set[str] = set()
        for m in _SHORT_RE.finditer(body):
            code, rest = m.group(1), m.group(2)
            if " -> " in rest and ("R" in code or "C" in code):
                old, _, new = rest.partition(" -> ")
                renames.append((_unquote(old), _unquote(new)) if "R" in code else ("", ""))
                listed.update((_unquote(old), _unquote(new)))
                continue
            path = _unquote(rest)
            listed.add(path)
            if code == "??":
                untracked.add(path)
            elif code[0] == "A":
                added.append(path)
        in_untracked = False
        for line in body.splitlines():
            if line.startswith(_UNTRACKED_HEAD):
                in_untracked = True
            elif in_untracked and line.startswith("\t"):
                untracked.add(_unquote(line))
                listed.add(_unquote(line))
            elif line and not line.startswith((" ", "\t")):
                in_untracked = False
        for m in _LONG_RE.finditer(body):
            kind, rest = m.group(1), m.group(2)
            if kind == "renamed" and " -> " in rest:
                old, _, new = rest.partition(" -> ")
                renames.append((_unquote(old), _unquote(new)))
                listed.update((_unquote(old), _unquote(new)))
                continue
            listed.add(_unquote(rest))
            if kind == "new file":
                added.append(_unquote(rest))
        how = f"hand or outside the calls: a later `{one_line(command)[:120]}` lists it"
        for old, new in renames:
            if old and new:
                self._rename(places, where, old, new, state, how + f" renamed to {new}", index)
        news = [
            n for p in added + sorted(untracked) if (n := places.resolve(where, p)) not in files
        ]
        self._added(places, where, added, state, how + " added", index)
        if not full or not where:
            return
        before = self.untracked.get(where)
        self.untracked[where] = ({places.resolve(where, p) for p in untracked}, index)
        if before is None or self.committed > before[1]:
            return
        shown = {places.resolve(where, p).rstrip("/") for p in listed}
        folders = {p for p in shown if any(q.startswith(p + "/") for q in before[0])}
        for key in sorted(before[0]):
            f = files.get(key)
            if f is None or not f.actions or f.actions[-1] not in _LIVE or f.last_index > index:
                continue
            if key in shown or any(key.startswith(d + "/") for d in folders):
                continue
            folder = key.rsplit("/", 1)[0] + "/"
            beside = [n for n in news if n.startswith(folder) and n != key]
            if beside:  # a new name beside it: renamed (or removed) outside the calls
                gone = f"hand or outside the calls: a later `{one_line(command)[:120]}` "
                gone += "no longer lists it (renamed or removed)"
                f.apply(Change(key, "deleted"), gone, index)

    def _commit(
        self,
        places: Places,
        call: Call,
        command: str,
        text: str,
        state: tuple[dict[str, FileState], dict[str, list[str]], dict[str, None]],
        index: int,
    ) -> None:
        where = places.base(call)
        body = strip_output_header(text)[:20_000]
        how = f"hand or outside the calls: the commit's summary (`{one_line(command)[:80]}`)"
        for m in _COMMIT_RENAME_RE.finditer(body):
            if m.group(0).startswith(" rename"):
                old, new = _commit_pair(m.group(1))
                self._rename(places, where, old, new, state, how + f" renames it to {new}", index)
        made = [_unquote(m.group(1)) for m in _COMMIT_CREATE_RE.finditer(body)]
        self._added(places, where, made, state, how + " adds it", index)

    @staticmethod
    def _rename(
        places: Places,
        where: str,
        old: str,
        new: str,
        state: tuple[dict[str, FileState], dict[str, list[str]], dict[str, None]],
        how: str,
        index: int,
    ) -> None:
        """A rename no call made: the known file (or read) at ``old`` is at ``new``."""
        from .local_places import rename_known, reread_moved  # (one owner of moves)

        files, by_name, reads = state
        old, new = places.resolve(where, old), places.resolve(where, new)
        if old == new:
            return
        if old in files and files[old].actions and files[old].actions[-1] != "deleted":
            rename_known(files, by_name, old, new, how, index)
        if old in reads and new not in reads:
            reread_moved(reads, old, new)

    @staticmethod
    def _added(
        places: Places,
        where: str,
        paths: list[str],
        state: tuple[dict[str, FileState], dict[str, list[str]], dict[str, None]],
        how: str,
        index: int,
    ) -> None:
        """New files no call made, in the folder of a known file (or read): added outside."""
        files, by_name, reads = state
        folders = {k.rsplit("/", 1)[0] for k in (*files, *reads) if "/" in k}
        count = 0
        for path in paths:
            key = places.resolve(where, path)
            if key in files or key in reads or key.endswith("/") or not key.startswith("/"):
                continue
            if key.rsplit("/", 1)[0] not in folders or count >= _MAX_ADDED:
                continue
            count += 1
            f = files[key] = FileState(key)
            f.apply(Change(key, "created"), how, index)
            by_name.setdefault(key.rsplit("/", 1)[-1], []).append(key)
