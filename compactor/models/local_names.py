"""File names the user's words cut at a space (blind check 11): "… GitHub PRs.md" read as
``PRs.md`` when the calls name the whole file (``Manage Linear workspace and GitHub PRs.md``)."""

from __future__ import annotations

from compactor.facts.text import FILE_KEYS

from .local_session import Session

__all__ = ["cut_names"]


def _basename(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


def cut_names(s: Session, named: list[str]) -> list[str]:
    """``named`` without the bare names that are only the tail of a longer file name with a
    space before it, as the session's calls and files spell it: either whole or not listed."""
    bare = [p for p in named if "/" not in p and "\\" not in p]
    if not bare:
        return named
    known = {_basename(p) for p in (*s.files, *s.reads)}
    for call in s.calls:
        for key in FILE_KEYS:
            value = call.args.get(key)
            if isinstance(value, str) and value:
                known.add(_basename(value))
    spaced = [k for k in known if " " in k]
    cut = {
        p for p in bare
        if p not in known and any(k.endswith(" " + p) for k in spaced)
    }  # fmt: skip
    return [p for p in named if p not in cut] if cut else named
