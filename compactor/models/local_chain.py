"""The last effect in a command chain decides a path's state, and ``ln -s`` makes a link (blind
check 52 W10: ``rm -rf X && mkdir -p X && ln -s ../../../SKILL.md X/SKILL.md && …`` was read as
its first effect, so section 3 said the folder X was "created, then deleted" although the
command made it again and filled it with links, the install the user had asked for).

:func:`links` reads an ``ln -s`` (``-sf``, ``-sfn``, several targets into ``DIR/``): the
links it makes, each with its target, for :mod:`.local_files` to record as "created as a link
to T". :func:`remade` finds the removed paths a later segment of the same command makes again
(``mkdir``, a writer or link whose destination is the path or lies under it, a redirect into
it); :func:`settled` then drops such a removal when the command's changes write the path again,
else shows it as :data:`REMADE`."""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Callable, Collection
from typing import Protocol, TypeVar

from compactor._util import lazy_pattern
from compactor.facts import shell_words

__all__ = ["LINKED", "REMADE", "links", "remade", "settled"]

LINKED = "created as a link to "
REMADE = "removed and made again in the same command"
_MAKERS = frozenset(("mkdir", "touch", "tee"))
"""Programs every path word of which is made."""
_WRITERS = frozenset(("cp", "mv", "ln", "install", "rsync", "unzip", "tar"))
"""Programs whose last path word is what they make (or fill)."""
_REDIRECT_RE = lazy_pattern(r"(?<![<0-9&])>{1,2}[ \t]*([^\s;&|<>]+)")


def links(words: list[str]) -> list[tuple[str, str]]:
    """(link as written, its target) for each link ``ln -s`` makes; none for another ``ln``."""
    flags = [w for w in words[1:] if w.startswith("-")]
    if not any(f == "--symbolic" or (f[1:2] != "-" and "s" in f) for f in flags):
        return []
    if any(f in ("-t", "--target-directory") or f.startswith("--target") for f in flags):
        return []  # ``ln -st DIR T…``: rare, left out
    rest = [w for w in words[1:] if not w.startswith("-")]
    if len(rest) < 2:
        return []
    *targets, dest = rest
    into = len(targets) > 1 or dest.endswith("/")
    return [
        (f"{dest.rstrip('/')}/{posixpath.basename(t.rstrip('/'))}" if into else dest, t)
        for t in targets
    ]


def _made(segment: str, target: Callable[[str], str | None]) -> list[str]:
    """The paths one segment of a command makes or writes into (as :func:`target` reads them)."""
    words = shell_words(segment.strip()) if segment.strip() else []
    out = [p for m in _REDIRECT_RE.finditer(segment) if (p := target(m.group(1)))]
    if not words:
        return out
    prog = words[0].rsplit("/", 1)[-1]
    rest = [w for w in words[1:] if not w.startswith("-")]
    if prog in _MAKERS:
        out += [p for w in rest if (p := target(w))]
    elif prog == "ln":
        out += [p for w, _ in links(words) if (p := target(w))]
    elif prog in _WRITERS and len(rest) >= 2 and (p := target(rest[-1])):
        out.append(p)
    return out


def remade(
    segments: list[str], gone: Collection[str], target: Callable[[str], str | None]
) -> set[str]:
    """The paths of ``gone`` (removed by the command) that a later segment makes again: the
    path itself or a path under it (``rm -rf X && mkdir -p X``, ``rm -rf X && ln -s T X/a``)."""
    back: set[str] = set()
    removed: set[str] = set()
    for segment in segments:
        words = shell_words(segment.strip()) if segment.strip() else []
        prog = words[0].rsplit("/", 1)[-1] if words else ""
        if prog in ("rm", "unlink"):
            removed |= {p for w in words[1:] if (p := target(w)) is not None and p in gone}
            back -= removed
            continue
        for path in _made(segment, target) if removed else ():
            back |= {g for g in removed if path == g or path.startswith(g.rstrip("/") + "/")}
    return back


class _Change(Protocol):
    @property
    def path(self) -> str: ...

    @property
    def action(self) -> str: ...


C = TypeVar("C", bound=_Change)


def settled(changes: list[C], back: set[str]) -> list[C]:
    """``changes`` with the removal of each path in ``back`` dropped when the command writes
    that path again (the write is its last effect), else shown as :data:`REMADE`."""
    written = {c.path for c in changes if c.action != "deleted"}
    out: list[C] = []
    for c in changes:
        if c.action == "deleted" and c.path in back:
            if c.path in written:
                continue
            c = dataclasses.replace(c, action=REMADE)  # type: ignore[type-var]
        out.append(c)
    return out
