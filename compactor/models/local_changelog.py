"""Each earlier change of a file the current request is about, one line each (blind check 69 N2).

paq_mcp changed ``.claude/settings.local.json`` three times (moved a nested ``mcpServers`` block to
the top level while adding a server, then added two more servers); the current request was
"please load all mcp servers from the json file" and its work read that file again. Section 3
showed only the last change (the last server added), so the structural fix the whole question
turned on was lost. :func:`earlier_changes` lists the changes before the latest one of a file
changed more than once, when the current request is about it (its text names the file, or a call
since it names the file's path): the tool and the first meaningful lines it added and removed, at
most :data:`_MOST` lines, the newest kept, for the :data:`_FILES` files changed last (a whole
write or a deletion has no lines to show and is left out; a file deleted at the end shows none).
"""

from __future__ import annotations

from compactor.facts import cut

from .local_files import FileState
from .local_session import Session

__all__ = ["earlier_changes"]

_MOST = 4
_FILES = 2
_SHOWN = 2  # lines added (and removed) a change shows


def _meaningful(lines: tuple[str, ...]) -> list[str]:
    """Lines that say something: not a bare bracket or punctuation line (``},``, ``]``)."""
    return [ln.strip() for ln in lines if ln.strip().strip("{}[]()<>,;:/ ")]


def _about(s: Session, f: FileState) -> bool:
    last = s.last_request
    if last is None:
        return False
    name = f.path.replace("\\", "/").rsplit("/", 1)[-1]
    if name and name.lower() in last.text.lower():
        return True
    return any(
        f.path in c.arguments or name in c.arguments for c in s.calls if c.index > last.index
    )


def _latest_files(s: Session) -> list[FileState]:
    """The :data:`_FILES` files changed last: the others' histories are older work."""
    return sorted(s.files.values(), key=lambda f: f.last_index)[-_FILES:]


def _line(tool: str, added: tuple[str, ...], removed: tuple[str, ...], width: int) -> str:
    plus, minus = _meaningful(added), _meaningful(removed)
    parts = []
    if plus:
        parts.append("+ " + " / ".join(plus[:_SHOWN]) + (" …" if len(plus) > _SHOWN else ""))
    if minus:
        parts.append("- " + " / ".join(minus[:_SHOWN]) + (" …" if len(minus) > _SHOWN else ""))
    counts = f" ({len(added)} lines added, {len(removed)} removed)"
    return cut(f"{tool}: " + "; ".join(parts), width) + counts


def earlier_changes(s: Session, f: FileState, width: int) -> list[str]:
    """Section 3's lines for ``f``'s changes before its latest one (module docstring); none for
    a file changed once or one the current request is not about."""
    if f.changes < 2 or "deleted" in f.actions[-1:] or not _about(s, f):
        return []
    if f not in _latest_files(s):
        return []
    seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    earlier = []
    for n, (tool, added, removed) in enumerate(f.history[:-1], 1):
        if (_meaningful(added) or _meaningful(removed)) and (added, removed) not in seen:
            seen.add((added, removed))  # (a whole write, a deletion: no lines to show)
            earlier.append((n, (tool, added, removed)))
    if not earlier:
        return []
    shown = earlier[-_MOST:]
    more = f" ({len(earlier) - len(shown)} older not shown)" if len(earlier) > len(shown) else ""
    return [f"  the earlier changes, in order{more}:"] + [
        f"      {n}. {_line(tool, added, removed, width)}" for n, (tool, added, removed) in shown
    ]
