"""A call in flight that writes over a committed file says so (blind check 67 N6, issue 28).

cc_jt_readme ended with a Write of README.md in flight; README.md had been committed, pushed and
deployed earlier in the session. Sections 7 and 8 told the resuming agent to check whether the
Write ran and run it again if still needed, never that it would overwrite the committed (and
pushed) version. :func:`committed_overwrites` names each file a call in flight writes (a file
tool, ``apply_patch``, a shell write) that an earlier successful ``git commit`` included: the
files its ``git add`` (in the same command or a call since the previous commit) named, every
file the session changed before it for ``git add -A``/``.``/``--all``/``-u`` or ``commit
-a``, and the files its output lists (``create mode 100644 PATH``); and whether a successful
``git push`` followed the commit.
"""

from __future__ import annotations

import posixpath
import re

from compactor._util import lazy_pattern
from compactor.facts import Call, cut, shell_words
from compactor.facts.listing import listed_paths
from compactor.facts.samecommand import unwrapped

from .local_files import file_changes
from .local_home import same_file_key, win_join, windows_rooted
from .local_session import Session
from .local_text import call_line, code

__all__ = ["committed_overwrites", "listed_overwrites", "overwrites"]

_COMMIT_RE = lazy_pattern(r"\bgit(?:\s+-C\s+\S+)?\s+commit\b")
_PUSH_RE = lazy_pattern(r"\bgit(?:\s+-C\s+\S+)?\s+push\b")
_SEGMENT_RE = lazy_pattern(r"&&|\|\||[;\n]")
_MODE_RE = lazy_pattern(r"^\s*(?:create|rewrite) mode \d+ (.+?)\s*$", re.MULTILINE)
_ALL = "*"
"""A ``git add``/``commit -a`` that takes every changed file."""


def _added(command: str) -> set[str]:
    """The paths the ``git add``/``git commit -a`` parts of ``command`` stage (:data:`_ALL`:
    every change)."""
    found: set[str] = set()
    for part in _SEGMENT_RE.split(unwrapped(command)):
        words = shell_words(part.strip()) if "git" in part else []
        while words and words[0] != "git":
            words = words[1:]
        if len(words) > 1 and words[1] == "-C":
            words = [words[0], *words[3:]]
        if len(words) < 2:
            continue
        flags = {w for w in words[2:] if w.startswith("-")}
        paths = [w for w in words[2:] if not w.startswith("-")]
        if words[1] == "add":
            everything = flags & {"-A", "--all", "-u", "--update"} or "." in paths
            found.update([_ALL] if everything else paths)
        elif words[1] == "commit" and (
            "--all" in flags or any(f[1:2] != "-" and "a" in f for f in flags)
        ):
            found.add(_ALL)
    return found


def _same(path: str, named: str) -> bool:
    """Whether ``named`` (as a call or a commit named it, maybe relative) is the file ``path``."""
    a, b = same_file_key(path), same_file_key(named)
    if a == b:
        return True
    if a != path or b != named:  # a Windows path: both in their folded form
        a, b = a.replace("\\", "/").lower(), b.replace("\\", "/").lower()
    a, b = a.removeprefix("./"), b.removeprefix("./")
    return a.endswith("/" + b) or b.endswith("/" + a)


def _at(where: str, named: str) -> str:
    """``named`` in the directory ``where`` the commit ran in, when that is known."""
    if named == _ALL or not where:
        return named
    if where[1:3] in (":\\", ":/"):
        return named if windows_rooted(named) else win_join(where, named)
    if named.startswith(("/", "~", "$")) or not where.startswith("/"):
        return named
    return posixpath.normpath(posixpath.join(where, named))


def _results(s: Session, ids: set[str]) -> dict[str, str]:
    return {r.call_id: r.text for e in s.entries for r in e.results if r.call_id in ids}


def committed_overwrites(s: Session, width: int) -> list[str]:
    """One line per file a call in flight writes or edits that an earlier successful commit included
    (module docstring); none for most sessions."""
    flying = [
        (c, [(_at(c.cwd, ch.path), ch.action) for ch in file_changes(c) if ch.action != "deleted"])
        for c in s.in_flight
    ]
    flying = [(c, paths) for c, paths in flying if paths]
    if not flying:
        return []
    done = [c for c in s.calls if c.id in s.answered and c.id not in s.failed_calls and c.command]
    gits = [c for c in done if "git" in (c.command or "")]
    texts = _results(s, {c.id for c in gits if _COMMIT_RE.search(c.command or "")})
    commits: list[tuple[Call, set[str]]] = []
    staged: set[str] = set()
    for c in gits:
        command = c.command or ""
        staged |= _added(command)
        if c.id in texts and "nothing to commit" not in texts[c.id][:2000]:
            listed = {m.group(1).strip('"') for m in _MODE_RE.finditer(texts[c.id])}
            commits.append((c, {_at(c.cwd, p) for p in staged | listed}))
            staged = set()
    if not commits:
        return []
    lines: list[str] = []
    for call, paths in flying:
        for path, action in paths:
            hit = next(
                (
                    (c, got)
                    for c, got in reversed(commits)
                    if c.index < call.index and _included(s, path, got, c.index)
                ),
                None,
            )
            if hit is None:
                continue
            commit = hit[0]
            pushed = any(
                commit.index < c.index < call.index and _PUSH_RE.search(c.command or "")
                for c in gits
            )
            version = "committed and pushed" if pushed else "committed"
            did = ("edits", "changed") if action == "edited" else ("writes", "overwrote")
            lines.append(
                f"The call in flight {code(cut(call.name, 40))} {did[0]} "
                f"{code(cut(path, width))}, which {code(cut(commit.command or '', width))} "
                f"included: if it ran, it {did[1]} the {version} version; check `git status` and "
                "`git diff` before going on"
            )
    return lines[:3]


def _included(s: Session, path: str, got: set[str], at: int) -> bool:
    if any(_same(path, named) for named in got if named != _ALL):
        return True
    if _ALL not in got:
        return False
    return any(_same(path, f.path) and any(i < at for i in f.changed_at) for f in s.files.values())


def overwrites(s: Session, width: int) -> list[str]:
    """The lines of :func:`committed_overwrites`, then those of :func:`listed_overwrites` for the
    files no commit included."""
    committed = committed_overwrites(s, width)
    return [*committed, *listed_overwrites(s, width, " ".join(committed))][:3]


def listed_overwrites(s: Session, width: int, said: str = "") -> list[str]:
    """One line per file a call in flight writes whole (creates) that an earlier read-only listing
    (``LS``, ``Glob``, ``ls``, ``find``) showed to exist and the session had not changed before
    (blind check 70 N2: a Write of CLAUDE.md in flight over the user's CLAUDE.md); ``said``: the
    text of lines already written about these files."""
    flying = [
        (c, [_at(c.cwd, ch.path) for ch in file_changes(c) if ch.action in ("created", "written")])
        for c in s.in_flight
    ]
    flying = [(c, paths) for c, paths in flying if paths]
    if not flying:
        return []
    first = min(c.index for c, _ in flying)
    lists = [c for c in s.calls if c.index < first and c.id in s.answered]
    lists = [c for c in lists if c.id not in s.failed_calls]
    texts = _results(s, {c.id for c in lists})
    shown = [(c, listed_paths(c, texts[c.id], c.cwd)) for c in lists if c.id in texts]
    lines: list[str] = []
    for call, paths in flying:
        for path in paths:
            if path in said or _changed_before(s, path, call.index):
                continue
            seen = next((c for c, got in shown if any(_equal(path, p) for p in got)), None)
            if seen is None:
                continue
            lines.append(
                f"The call in flight {code(cut(call.name, 40))} writes {code(cut(path, width))}, "
                f"which existed already ({code(call_line(seen, width))} listed it): if it ran, "
                "it overwrote that file; running it again would overwrite it too, so read the file "
                "first and keep what the user had in it"
            )
    return lines


def _equal(path: str, listed: str) -> bool:
    a, b = same_file_key(path), same_file_key(listed)
    return a == b or (a != path and a.replace("\\", "/") == b.replace("\\", "/"))


def _changed_before(s: Session, path: str, at: int) -> bool:
    return any(_equal(path, f.path) and any(i < at for i in f.changed_at) for f in s.files.values())
