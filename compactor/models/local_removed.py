"""Folders the session created, read in, and then removed (blind check 36 W7).

cx-speckit: ``npx create-next-app DIR`` made an app folder, the agent read files in it, copied
its content to the repository root (``rsync -a …/DIR/ …/root/``) and removed it (``rm -rf
/abs/…/DIR``, both succeeded). Section 3 still said "Created by shell commands (a folder with
its content): DIR/" and "Read, not changed: …/DIR/.gitignore": a resuming agent would look for
a folder that no longer exists. Now :func:`removed_folders` keeps, for each folder a successful
``rm -r`` removed (resolved where the call ran, as :class:`.local_places.Places` does), the index
of its last removal; :func:`made_then_removed` says whether a folder a command made was removed
after it, and :func:`judge_removed_reads` drops the files read under a removed folder from the
reads, unless a successful call after the removal names the folder again (it was made again).
"""

from __future__ import annotations

import posixpath

from compactor.facts import Call

from .local_places import Places
from .local_session import Session

__all__ = ["judge_removed_reads", "made_then_removed", "removed_folders"]


def removed_folders(s: Session) -> dict[str, int]:
    """Each folder a successful ``rm -r`` removed (absolute when the call's directory is known)
    → the index of its last removal. Only calls whose command holds ``rm `` are walked."""
    places: Places | None = None
    out: dict[str, int] = {}
    for call in s.calls:
        command = call.command
        if command is None or "rm " not in command or call.id in s.failed_calls:
            continue
        places = places or Places()
        for folder in places.removed_by(call):
            out[folder] = call.index
    return out


def _under(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies in it; a relative folder matches any path through
    a folder of that name, a relative path one that ends the folder's path."""
    path = path.rstrip("/")
    if path == folder or path.startswith(folder + "/"):
        return True
    if not folder.startswith("/"):
        return ("/" + folder + "/") in path or path.endswith("/" + folder)
    if not path.startswith("/"):
        return folder.endswith("/" + path) or (posixpath.basename(folder) + "/") in path + "/"
    return False


def made_then_removed(call: Call, folder: str, removed: dict[str, int]) -> bool:
    """Whether ``folder`` (made by ``call``) was removed by a later ``rm -r``."""
    if not removed:
        return False
    made = Places().start(call)
    path = posixpath.normpath(posixpath.join(made, folder)) if made else folder.rstrip("/")
    return any(at > call.index and _under(path, gone) for gone, at in removed.items())


def judge_removed_reads(s: Session) -> None:
    """Drop from ``s.reads`` the files under a folder a later ``rm -r`` removed (they are gone
    with it), unless a successful call after the removal names the folder again."""
    if not s.reads:
        return
    removed = removed_folders(s)
    if not removed:
        return
    for gone, at in removed.items():
        name = posixpath.basename(gone)
        again = any(
            c.index > at and c.id not in s.failed_calls and name in (c.command or c.arguments)
            for c in s.calls
        )
        if again:
            continue
        for path in [p for p in s.reads if p != gone and _under(p, gone)]:
            del s.reads[path]
