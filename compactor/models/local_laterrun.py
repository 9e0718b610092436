"""A failed read of a missing file that a later run of the same program found at another path
(blind check 37, W6).

cx-jenga (Codex 0.63, Windows PowerShell in German): spec-kit's plan step read
``Get-Content D:\\…\\specs\\master\\spec.md``; it failed ("Der Pfad … kann nicht gefunden werden, da
er nicht vorhanden ist": the branch had no feature folder) and the assistant said "Cannot
proceed". The user named the feature (``/speckit.plan 001-…``), and the same read of
``specs\\001-…\\spec.md`` succeeded; plan, tasks and implementation followed. The "not found"
check reads English words only, so section 4 listed the read first among "the unfixed ones", "Not
retried afterwards", as if the planning were still blocked.

:func:`judge_later_runs` settles, by shape and in any language, a failed read still open whose
error names the path it read: ``worked around by`` the first later successful run of the same
program on a file of the same name at another path, or by the first later call that made that
path (or a file in it, when it is a folder).
"""

from __future__ import annotations

import bisect
import posixpath
from typing import TYPE_CHECKING

from compactor.facts import Call, command_of

from .local_patchfix import same_file
from .local_retries import signature
from .local_text import call_line
from .local_workdir import without_place

if TYPE_CHECKING:
    from .local_records import ErrorFact
    from .local_session import Session

__all__ = ["judge_later_runs"]

_MIN_NAME = 3


def _paths(targets: frozenset[str]) -> list[str]:
    """The paths of a signature's targets (not its ``$ command``, pids or place), with ``/``."""
    return [
        t.replace("\\", "/")
        for t in without_place(targets)
        if not t.startswith(("$ ", "pid ")) and len(t) >= _MIN_NAME
    ]


def _base(path: str) -> str:
    return posixpath.basename(path.rstrip("/"))


def judge_later_runs(s: Session) -> None:
    """Mark ``worked around by`` each open failed read (module docstring)."""
    reads = [
        e for e in s.errors
        if not e.after and (e.reading or e.probe) and e.signature[0] == "shell"
    ]  # fmt: skip
    if not reads:
        return
    runs: dict[tuple[str, str], list[tuple[int, str, Call]]] = {}
    for c in s.calls:  # each successful command once: its program and the names it reads
        if c.id in s.failed_calls or c.id not in s.answered or command_of(c) is None:
            continue
        _, program, targets = signature(c)
        for path in _paths(targets):
            runs.setdefault((program, _base(path)), []).append((c.index, path, c))
    for err in reads:
        said = " ".join(err.outcome.lines).replace("\\", "/")
        missing = [p for p in _paths(err.signature[2]) if p in said and "." in _base(p)]
        if missing:
            _settle(s, err, missing, runs)


def _settle(
    s: Session,
    err: ErrorFact,
    missing: list[str],
    runs: dict[tuple[str, str], list[tuple[int, str, Call]]],
) -> None:
    found: tuple[int, str, Call] | None = None
    for path in missing:
        later = runs.get((err.signature[1], _base(path)), [])
        at = bisect.bisect_right([i for i, _, _ in later], err.index)
        hit = next((x for x in later[at:] if not same_file(x[1], path)), None)
        if hit is not None and (found is None or hit[0] < found[0]):
            found = hit
    if found is not None:
        err.after, err.by = "worked around by", call_line(found[2], 160)
        err.why = f"the same program later read {_base(found[1])} at another path"
        return
    for path in missing:  # a later call made the missing file (or a file in the folder)
        for key, state in s.files.items():
            norm = key.replace("\\", "/")
            if not (same_file(norm, path) or norm.startswith(path.rstrip("/") + "/")):
                continue
            made = [i for i in state.changed_at if i > err.index]
            by = [c for c in s.calls if err.index < c.index < made[0]] if made else []
            if by:
                err.after, err.by = "worked around by", call_line(by[-1], 160)
                err.why = "the missing path was made after it"
                return
