"""Files a script writes when the agent runs it (issue 28, blind check 24 W3).

cc-steam: the agent wrote ``build_nb.py`` (a ``Write`` whose content does
``json.dump(nb, open("notebook.ipynb", "w"))``), ran it (``cd DIR && python build_nb.py``), and
later executed the notebook with a ``python`` here-document ending in
``nbformat.write(nb, 'notebook.ipynb')``. Section 3 listed notebook.ipynb as "Read, not changed":
only edit calls and a shell command's own redirects/cp/mv were read as changes.

:func:`script_writes`, by shape: a successful shell command that runs a script whose content this
session wrote (its file name after an interpreter: ``python``, ``node`` …), or whose own text holds
code (``python -c``, a here-document), changes each path that code writes with a literal name:
``open(X, "w"|"a"|"x")``, ``nbformat.write(…, X)``, ``Path(X).write_text``, ``.to_csv(X)`` (and
``to_json``/``to_excel``/``to_parquet``/``savefig``/``save``), ``fs.writeFile(X)``. A relative
name resolves against the directory the command ``cd``'s into first, else the script's own
directory. The change reads "written by build_nb.py when run (its code writes it)".
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.facts import Call, command_of

from .local_files import Change

if TYPE_CHECKING:
    from .local_session import Session

__all__ = ["ABSOLUTE", "CD_RE", "script_writes"]

_NAME = r"""[rfbu]?(['"`])([^'"`\n]{1,300})\1"""
_WRITES = lazy_pattern(
    r"\bopen\(\s*" + _NAME + r"""\s*,\s*(?:mode\s*=\s*)?[rfbu]?['"][rbt+]*[wax]"""
    r"|\bnbformat\.write\(\s*[^,()]{1,200},\s*"
    + _NAME.replace(r"\1", r"\3")
    + r"|\bPath\(\s*"
    + _NAME.replace(r"\1", r"\5")
    + r"\s*\)\s*\.\s*write_(?:text|bytes)\("
    r"|\.(?:to_csv|to_json|to_excel|to_parquet|to_feather|savefig|save)\(\s*"
    + _NAME.replace(r"\1", r"\7")
    + r"|\bfs\.(?:promises\.)?writeFile(?:Sync)?\(\s*"
    + _NAME.replace(r"\1", r"\9")
)
"""A write with a literal file name (the name in one of groups 2, 4, 6, 8, 10)."""
_HINTS = ("open(", "write", ".to_", "savefig", ".save(")
_RUNNERS = re.compile(r"(?:^|[\s;&|(/\\])(?:python[\d.]*|py|node|deno|bun|ruby|Rscript|uv run)\b")
_SCRIPTS = (".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".r", ".R")
CD_RE = re.compile(r"""(?:^|[;&|]\s*)cd\s+(?:(['"])(.+?)\1|([^\s;&|'"]+))\s*(?:&&|;)""")
ABSOLUTE = re.compile(r"^(?:/|~|[A-Za-z]:[\\/]|\\\\)")


def _written(code: str) -> list[str]:
    """The literal file names ``code`` writes, in order."""
    if not any(h in code for h in _HINTS):
        return []
    names: dict[str, None] = {}
    for m in _WRITES.finditer(code):
        name = next(g for g in m.group(2, 4, 6, 8, 10) if g is not None)
        if name.strip() and "{" not in name and "%" not in name:  # a template: no one name
            names.setdefault(name.strip(), None)
    return list(names)


def _resolve(name: str, base: str | None) -> str:
    if ABSOLUTE.match(name) or not base:
        return name
    return posixpath.normpath(posixpath.join(base.replace("\\", "/"), name.replace("\\", "/")))


def _known(path: str, s: Session) -> str:
    """``path`` as the session already names it (a read or a change), else as it is."""
    key = path.replace("\\", "/").casefold()
    for known in (*s.files, *s.reads):
        if known.replace("\\", "/").casefold() == key:
            return known
    return path


def script_writes(call: Call, s: Session, found: list[Change]) -> list[Change]:
    """The changes the code ``call``'s shell command runs makes (see the module doc) that
    ``found`` (the command's own changes) does not hold already."""
    command = command_of(call)
    if command is None or _RUNNERS.search(command) is None:
        return []
    cd = CD_RE.search(command)
    where = (cd.group(2) or cd.group(3)) if cd is not None else None
    writes: list[tuple[str, str | None, str]] = []  # (name, base, by)
    for name in _written(command):  # python -c "…", a here-document
        writes.append((name, where, "written by the command's own code"))
    for path, state in s.files.items():
        if state.content is None or not path.endswith(_SCRIPTS):
            continue
        base = posixpath.basename(path.replace("\\", "/"))
        if base not in command:
            continue
        how = f"written by {base} when run (its code writes it)"
        folder = posixpath.dirname(path.replace("\\", "/"))
        writes += [(name, where or folder, how) for name in _written(state.content)]
    have = {c.path for c in found}
    out: list[Change] = []
    for name, base_dir, how in writes:
        path = _known(_resolve(name, base_dir), s)
        if name not in have and path not in have:  # (the command's own changes name it)
            have.add(path)
            out.append(Change(path, how))
    return out
