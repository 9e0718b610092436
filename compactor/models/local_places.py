"""Where a call's relative paths are, and where files went after moves (issue 28, blind check 26
W3).

cc-matt ran ``mv private-otc-marketplace/* . && mv private-otc-marketplace/.env.example
packages/nextjs/.env.example``, then ``rm -rf private-otc-marketplace`` (both succeeded, the
records' ``cwd`` the home folder), yet the summary listed every changed file under the deleted
folder: relative names were never put in a directory, and a move of a directory's contents was
not followed. Now:

* a relative path in a call is resolved against the call's directory: the one the harness
  recorded (``Call.cwd``: Claude Code's record ``cwd``, Codex's ``turn_context``; a ``workdir``
  argument below it), else the last ``cd`` of a call that ran (never a rejected or failed one:
  it had no effect); a leading ``cd X &&`` of the call itself moves it;
* a successful ``mv``/``git mv`` of known files (``mv DIR/* DEST``, ``mv DIR/.file DEST``,
  ``mv DIR DEST``) carries their states to the new paths (``moved from …``), and so does a
  move in Python code the call runs (``shutil.move('a', 'b')``: :mod:`.local_pymoves`);
* a successful ``rm -r DIR`` deletes the known files still under it, and DIR is *gone* until a
  later change makes a file in it again: a relative name is never put there
  (:func:`.local_relpath.state_for`);
* a later ``ls DIR`` (or ``find DIR``) that printed nothing, or "No such file or directory",
  shows DIR gone or empty: its known files were deleted, by the user or outside the calls, and
  are said to be (blind check 29 W1: a spec folder the user deleted by hand, then ``ls -1
  specs`` printed nothing, and the summary still listed its seven files as current); a known
  file a later ``git status`` lists deleted is deleted too.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import posixpath
import re
from collections.abc import Callable, Collection

from compactor._util import lazy_pattern
from compactor.facts import Call, one_line, shell_words, strip_output_header
from compactor.facts.shellwrap import inner_command, without_redirections

from .local_files import Change, FileState
from .local_gitnames import GitNames
from .local_home import aliases, folds_case, home_of, rooted, tilde, win_join, windows_rooted
from .local_loops import unrolled
from .local_pymoves import might_move, with_python_moves

__all__ = ["Places", "rename_known", "reread_moved"]

_SEGMENT_RE = lazy_pattern(r"&&|\|\||[;\n]")
_CD_RE = lazy_pattern(r"(?:\A|&&|;|\n)\s*cd\s+(\"[^\"]+\"|'[^']+'|[^\s;&|]+)")
_MOVED = "moved from "
_KEYWORDS = frozenset(("then", "do", "else", "{", "(", "!"))
"""A compound command's words before the command itself (``if …; then mv A B; fi``)."""
_STATUS_DELETED_RE = lazy_pattern(r"^(?:\s+deleted:\s+|D[ MD]? |[ MARC]D )(\S.*)$", re.MULTILINE)
"""A file ``git status`` lists deleted (long form ``deleted:``, short form ``D`` in a column)."""
_HEREDOC_RE = lazy_pattern(
    r"<<-?[ \t]*(['\"]?)(\w+)\1[^\n]*\n.*?(?:\n[ \t]*\2[ \t]*(?=\n|$)|\Z)", re.DOTALL
)
"""A here-document's body: data (a script it writes may say ``rm -rf dist``), never run here."""


def _absolute(path: str) -> bool:
    return path.startswith("/")


def _join(where: str, path: str) -> str:
    return posixpath.normpath(posixpath.join(where, path))


class Places:
    """The session's shell directory (from the calls that ran) and the removed directories."""

    __slots__ = ("copies", "git", "gone", "home", "links", "shell")

    def __init__(self) -> None:
        self.shell = ""
        """The directory the last ``cd`` of a call that ran left (used when no call records one)."""
        self.gone: set[str] = set()
        """Directories a call removed (``rm -r``) that no later change made a file in."""
        self.home = ""
        """The home folder, told from a recorded directory under it (``~`` is it)."""
        self.copies: dict[str, tuple[str, bool, int]] = {}
        """Folders a ``cp -r`` copied → (where to, written ``DEST/``, when): removed later, the
        files they held then were moved."""
        self.links: dict[str, str] = {}
        """Links an ``ln -s`` made → their target: removing one leaves the target's files."""
        self.git = GitNames()
        """Names a ``git status``/``git commit`` shows changed outside the calls (58 W1)."""

    # -- where ---------------------------------------------------------------------------------

    def base(self, call: Call) -> str:
        """The directory the call started in: the recorded one (a ``workdir`` argument below
        it), else the shell's; "" when unknown."""
        where = call.cwd
        if where and not self.home:
            self.home = home_of(where)
        args = call.args
        given = args.get("workdir")  # a workdir argument, else a cwd one (not a generator)
        if not (isinstance(given, str) and given):
            given = args.get("cwd")
        if isinstance(given, str) and given:
            where = _join(where, given) if where else given
        return where or self.shell

    def start(self, call: Call) -> str:
        """The directory the call's command ran in: :meth:`base`, moved by a leading ``cd X &&``
        of the command itself; "" when unknown."""
        start = self.base(call)
        command = inner_command(call) or ""
        lead = _CD_RE.match(command) if command[:8].lstrip().startswith("cd ") else None
        moved = tilde(lead.group(1).strip("\"'")) if lead is not None else ""
        if moved and (rooted(moved) or not moved.startswith(("~", "$"))):
            start = self.resolve(start, moved) if start else moved
        return start

    def resolve(self, where: str, path: str) -> str:
        """``path`` as an absolute path when ``where`` (an absolute POSIX or Windows directory)
        is known (a Windows one in its own separators: blind check 67 N1)."""
        if where[1:3] in (":\\", ":/") and not windows_rooted(path):
            return win_join(where, path)
        if not where or not rooted(where) or rooted(path) or path.startswith(("~", "$")):
            return path
        if "\\" in path or path[1:2] == ":":  # a Windows path: left as written
            return path
        return _join(where, path)

    def under_gone(self, path: str) -> bool:
        """Whether ``path`` lies in a directory the session removed (a relative removed
        directory matches any path through a folder of that name)."""
        for gone in self.gone:
            if path.startswith(gone + "/") or (not _absolute(gone) and ("/" + gone + "/") in path):
                return True
        return False

    def removed_by(self, call: Call) -> set[str]:
        """The folders the ``rm -r`` segments of ``call`` remove, resolved where it ran (after
        its own ``cd``s); a fresh walk: neither the known files nor the shell's directory move."""
        command = inner_command(call) or ""
        script = unrolled(_HEREDOC_RE.sub("", command) if "<<" in command else command)
        walker = Places()
        walker.home = self.home
        walker._walk(call, script, self.base(call), {}, {}, call.index, set())
        return walker.gone

    # -- what a listing showed -----------------------------------------------------------------

    def listed(
        self,
        call: Call,
        text: str,
        files: dict[str, FileState],
        index: int,
        more: tuple[dict[str, list[str]], dict[str, None]] | None = None,
    ) -> None:
        """After a call (failed or not) that only lists one folder (``[cd X &&] ls [-1a] DIR``,
        ``find DIR``): when it printed nothing or "No such file or directory", the known files
        under DIR are deleted, and DIR is gone until a later change makes a file in it; the
        renames and new files a ``git status``/``git commit`` shows (``more``: the files by
        base name, the paths read: :mod:`.local_gitnames`)."""
        command = inner_command(call) or ""
        state = (files, *(more or ({}, {})))
        self.git.seen(self, call, command, text, state, index)
        lists = " ls " in f" {command}" or "find " in command or "git status" in command
        if not (files or state[2]) or not lists or "|" in command:
            return
        where, folder, prog, full = self.base(call), "", "", True
        for segment in _SEGMENT_RE.split(command):
            words = shell_words(segment.strip()) if segment.strip() else []
            rest = [w for w in words[1:] if not w.startswith("-")]
            if words[:1] == ["cd"] and rest and not folder and _absolute(where or "/"):
                where = self.resolve(where, rest[0]) if where else rest[0]
            elif words[:1] in (["ls"], ["find"]) and len(rest) == 1 and not folder:
                prog, folder = words[0], rest[0].rstrip("/")
            elif words[:2] == ["git", "status"] and not folder:
                prog, folder = "git status", "."
                full = not [w for w in words[2:] if w[:1] != "-" and ">" not in w]
            elif words[:2] == ["git", "add"] and not folder:
                continue  # (prints nothing: ``git add DIR && git status --short``, 58 W1)
            elif words:
                return  # anything else: the listing is not all the call shows
        if prog == "git status":
            self.git.status(self, where, command, text, state, index, full)
            for m in _STATUS_DELETED_RE.finditer(strip_output_header(text)):
                key = self.resolve(where, m.group(1).strip().strip('"'))
                if key in files and files[key].actions and files[key].actions[-1] != "deleted":
                    how = f"hand or outside the calls: a later `{one_line(command)[:120]}` lists it"
                    files[key].apply(Change(key, "deleted"), how + " deleted", index)
            return
        if not folder or folder in (".", "") or any(c in folder for c in "*?[$~"):
            return
        body = [x.strip() for x in strip_output_header(text).strip().splitlines() if x.strip()]
        gone = self.resolve(where, folder)
        empty = all(
            x == "total 0" or x.endswith((" .", " ..")) or (prog == "find" and x in (folder, gone))
            for x in body
        )
        missing = len(body) <= 2 and any("No such file or directory" in x for x in body)
        if not (empty or missing):
            return
        self.gone.add(gone)
        how = f"hand or outside the calls: a later `{' '.join(command.split())[:120]}` found "
        how += "no such folder" if missing else "the folder empty"
        for key in [k for k in files if k.startswith(gone + "/")]:
            if files[key].actions and files[key].actions[-1] != "deleted":
                files[key].apply(Change(key, "deleted"), how, index)

    # -- what a successful call did ------------------------------------------------------------

    def follow(
        self,
        call: Call,
        changes: list[Change],
        files: dict[str, FileState],
        by_name: dict[str, list[str]],
        index: int,
        reads: dict[str, None] | None = None,
    ) -> list[Change]:
        """After a successful call: its changes with their paths resolved, less those its moves
        already carried over; the moves and recursive removals applied to ``files`` (and to the
        paths read, ``reads``); the shell's directory after it."""
        command = inner_command(call) or ""  # (``bash -lc 'mv a b'``: the script)
        if might_move(command):  # ``python3 -c "…shutil.move('a', 'b')"``: ``mv a b`` (debt51)
            command = with_python_moves(command)
        where = self.base(call)
        handled: set[str] = set()
        if command and any(w in command for w in ("mv ", "rm ", "cd ", "cp ", "ln ")):
            script = _HEREDOC_RE.sub("", command) if "<<" in command else command  # its data
            script = unrolled(script)  # ``for d in A B; do mv "$d" …; done`` (blind 46 W2)
            where = self._walk(call, script, where, files, by_name, index, handled, reads)
        out: list[Change] = []
        start = self.start(call)  # ``cd X && cat > f``: in X
        for change in changes:
            path = self.resolve(start, change.path)
            if handled and (path.rstrip("/") in handled or change.path.rstrip("/") in handled):
                continue
            if self.gone and rooted(path) and change.action != "deleted":
                self.gone = {g for g in self.gone if not path.startswith(g + "/")}  # made again
            out.append(change if path == change.path else dataclasses.replace(change, path=path))
        if not call.cwd and where and rooted(where):
            self.shell = where  # the harness records no directory: the shell keeps it
        return out

    def _walk(
        self,
        call: Call,
        command: str,
        where: str,
        files: dict[str, FileState],
        by_name: dict[str, list[str]],
        index: int,
        handled: set[str],
        reads: dict[str, None] | None = None,
    ) -> str:
        """Apply the command's ``cd``/``mv``/``rm -r`` segments in order (a ``cp -r`` and an
        ``ln -s`` are noted); the directory after."""
        temps: set[str] = set()  # the names its moves went to (``mv A a.tmp && mv a.tmp a``)
        for segment in _SEGMENT_RE.split(command):
            words = without_redirections(shell_words(segment.strip()) if segment.strip() else [])
            while words and words[0] in _KEYWORDS:
                words = words[1:]
            if not words:
                continue
            if "$" in segment:
                words = [tilde(w) for w in words]
            if words[0] == "git" and len(words) > 2 and words[1] == "mv":
                words = words[1:]
            prog = words[0]
            rest = [w for w in words[1:] if not w.startswith("-")]
            if prog == "cd" and rest and (rooted(rest[0]) or not rest[0].startswith(("~", "$"))):
                where = self.resolve(where, rest[0]) if where else rest[0]
            elif prog == "mv" and len(rest) >= 2:
                dest = self.resolve(where, rest[-1])
                sources = [self.resolve(where, w) for w in rest[:-1]]
                move: tuple[list[str], str, bool | None] = (sources, dest, rest[-1].endswith("/"))
                if self._carry(call, move, files, by_name, index, handled, reads):
                    handled.update(w.rstrip("/") for w in rest)  # (as written, too)
                handled.update(w.rstrip("/") for w in rest[:-1] if w in temps)  # a temp name
                temps.add(rest[-1])
            elif prog in ("rm", "unlink"):
                deep = prog == "rm" and _recursive(words)
                for w in rest:
                    path = self.resolve(where, w).rstrip("/")
                    if path in self.links:  # a link removed: its target's files stay there
                        own = files.pop(path, None)  # the link itself goes nowhere (52 W10)
                        move = ([path], self.links.pop(path), None)  # (never into it)
                        self._carry(call, move, files, by_name, index, handled, reads)
                        if own is not None:
                            files[path] = own
                        handled.add(path)
                    elif (
                        deep
                        and path not in ("", ".", "/", "~")
                        and _plain(path)
                        and "*" not in path
                    ):
                        self._remove(call, path, files, by_name, index, handled, reads)
            elif prog == "cp" and _recursive(words, "a") and len(rest) == 2:
                source = self.resolve(where, rest[0]).rstrip("/")
                if _plain(source) and "*" not in source:
                    dest = self.resolve(where, rest[1])
                    self.copies[source] = (dest, rest[1].endswith("/"), index)
            elif prog == "ln" and len(rest) == 2 and any("s" in w for w in words if w[:1] == "-"):
                link = self.resolve(where, rest[1]).rstrip("/")  # a relative target: beside it
                self.links[link] = self.resolve(posixpath.dirname(link) or where, rest[0])
        return where

    def _carry(
        self,
        call: Call,
        move: tuple[list[str], str, bool | None],
        files: dict[str, FileState],
        by_name: dict[str, list[str]],
        index: int,
        handled: set[str],
        reads: dict[str, None] | None,
        since: int | None = None,
    ) -> bool:
        """Carry the states (and reads) of the known files a move of ``sources`` to ``dest``
        (``slash``: written ``DEST/``) takes along, in each spelling of the home folder (``~``,
        ``/Users/NAME``), case folded on macOS (``since``: a copy's index, the files changed
        after it were not copied); whether it took any."""
        sources, dest, slash = move
        known: Collection[str] = files.keys() if not reads else dict.fromkeys((*files, *reads))
        if since is not None:
            known = [k for k in known if k not in files or files[k].last_index <= since]
        fold = folds_case(self.home, dest)
        moved = _moves(sources, dest, known, slash, fold)
        if self.home and (other := [aliases(p, self.home)[-1] for p in sources]) != sources:
            seen = {old for old, _ in moved}
            there = _moves(other, aliases(dest, self.home)[-1], known, slash, fold)
            moved += [(old, new) for old, new in there if old not in seen]
        for old, new in moved:
            if old in files:
                rename_known(files, by_name, old, new, call.name, index)
            if reads and old in reads:
                reread_moved(reads, old, new)
            handled.update((old, new))
        if moved:  # the folders named: no change of their own (blind check 39 W1)
            handled.update(w.rstrip("/") for w in (*sources, dest))
        return bool(moved)

    def _remove(
        self,
        call: Call,
        gone: str,
        files: dict[str, FileState],
        by_name: dict[str, list[str]],
        index: int,
        handled: set[str],
        reads: dict[str, None] | None,
    ) -> None:
        """An ``rm -r`` of ``gone``: the known files under it deleted (in every spelling of the
        home folder), or moved when the folder was copied before (``cp -r A B && rm -rf A``)."""
        copied = next(
            (self.copies.pop(g) for g in aliases(gone, self.home) if g in self.copies), None
        )
        if copied is not None:  # the files it held then are there; any later one is gone
            self._carry(
                call, ([gone], *copied[:2]), files, by_name, index, handled, reads, copied[2]
            )
        self.gone.add(gone)
        fold = folds_case(self.home, gone)
        for g in aliases(gone, self.home):
            head = (g.lower() if fold else g) + "/"
            for key in [k for k in files if (k.lower() if fold else k).startswith(head)]:
                files[key].apply(Change(key, "deleted"), call.name, index)
                handled.add(key)


def _recursive(words: list[str], also: str = "R") -> bool:
    """Whether the command has ``-r``/``-R``/``--recursive`` (or the flag letter ``also``)."""
    return any(
        w == "--recursive"
        or (w.startswith("-") and not w.startswith("--") and ("r" in w or "R" in w or also in w))
        for w in words[1:]
    )


def _plain(path: str) -> bool:
    """A path the shell does not expand further (no ``$VAR``, no ``~user``)."""
    return "$" not in path and (not path.startswith("~") or path == "~" or path[1] == "/")


def _moves(
    sources: list[str],
    dest: str,
    files: Collection[str],
    slash: bool | None = False,
    fold: bool = False,
) -> list[tuple[str, str]]:
    """(old path, new path) of each known file the ``mv`` of ``sources`` to ``dest`` moved
    (``slash``: the destination was written ``DIR/``, a folder the sources go into; None: the
    source is another name of the destination, a link to it, never put into it; ``fold``:
    names that differ in case only are one, as on macOS)."""
    dest = dest.rstrip("/") or "/"
    if not _plain(dest) or any(not _plain(s) for s in sources):
        return []
    low: Callable[[str], str] = str.lower if fold else str
    keys = [(k, low(k)) for k in files]
    renamed = fold and low(dest) in {low(s.rstrip("/")) for s in sources}  # Skills → skills
    into = slash is not None and (
        slash
        or len(sources) > 1
        or (not renamed and any(k.startswith(low(dest) + "/") for _, k in keys))
    )
    out: list[tuple[str, str]] = []
    for src in sources:
        src = src.rstrip("/")
        folder, _, pattern = src.rpartition("/")
        if any(c in pattern for c in "*?["):  # ``DIR/*``: what the pattern names (no dotfile)
            for key in [k for k, _ in keys if k.startswith(folder + "/")]:
                first = key[len(folder) + 1 :].split("/", 1)[0]
                hidden = first.startswith(".") and not pattern.startswith(".")
                if not hidden and fnmatch.fnmatchcase(first, pattern):
                    out.append((key, f"{dest}/{key[len(folder) + 1 :]}"))
            continue
        same = [k for k, low_k in keys if low_k == low(src)]
        if same:  # a file with an extension moved to a name without one: a folder
            name = src.rsplit("/", 1)[-1]
            inside = into or ("." in name.strip(".") and "." not in dest.rsplit("/", 1)[-1])
            out.extend((k, f"{dest}/{name}" if inside else dest) for k in same)
        else:  # a directory: its known files
            top = f"{dest}/{src.rsplit('/', 1)[-1]}" if into else dest
            head = low(src) + "/"
            out.extend((k, top + k[len(src) :]) for k, low_k in keys if low_k.startswith(head))
    return [(old, new) for old, new in out if old != new]


def reread_moved(reads: dict[str, None], old: str, new: str) -> None:
    """A path read, moved: the read is of the file at ``new`` now (order kept)."""
    moved = {(new if k == old else k): None for k in reads}
    reads.clear()
    reads.update(moved)


def rename_known(
    files: dict[str, FileState],
    by_name: dict[str, list[str]],
    old: str,
    new: str,
    tool: str,
    index: int,
) -> None:
    """Carry the state of the file at ``old`` to ``new`` (a move keeps its content)."""
    state = files.pop(old)
    if new in files:  # over a known file: the moved one is it now
        named = by_name.get(new.rsplit("/", 1)[-1], [])
        if new in named:
            named.remove(new)
    base = old.rsplit("/", 1)[-1]
    if old in by_name.get(base, []):
        by_name[base].remove(old)
    state.path = new
    first = next((a for a in state.actions if a.startswith(_MOVED)), None)
    if first is None:
        state.actions.append(_MOVED + old)
        state.changes += 1
        state.changed_at.append(index)
    else:  # moved again (a folder renamed after its move): one move from where it was made
        state.actions.remove(first)
        if first != _MOVED + new:  # (moved back: no move at all)
            state.actions.append(first)
        elif state.changes > 1:  # (``mv Skills skills.tmp && mv skills.tmp skills`` on macOS)
            state.changes -= 1
    state.tool, state.last_index = tool, index
    files[new] = state
    by_name.setdefault(new.rsplit("/", 1)[-1], []).append(new)
