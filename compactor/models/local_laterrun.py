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
path (or a file in it, when it is a folder). A failed run of a script still open (spec-kit's
``check-prerequisites.ps1``, run as ``& .\\…\\x.ps1``, ``powershell -File …``, ``bash x.sh``) is
``worked around by`` the first later successful run of a script of the same name in any of those
forms, with any arguments (the plain form of the same script was a retry already), but not by
one that only printed its help (``x.ps1 -Help``: blind check 41 W3, :mod:`.local_standin`).
"""

from __future__ import annotations

import bisect
import posixpath
import re
from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.facts import Call, command_of
from compactor.facts.samecommand import core_command

from .local_patchfix import same_file
from .local_retries import signature
from .local_standin import is_help_call, result_texts
from .local_text import call_line
from .local_workdir import without_place

if TYPE_CHECKING:
    from .local_records import ErrorFact
    from .local_session import Session

__all__ = ["judge_later_runs"]

_MIN_NAME = 3
_SCRIPT_RE = lazy_pattern(
    r"\A(?:&\s*|\.\s+)?(?:(?:\S*[\\/])?(?:powershell|pwsh)(?:\.exe)?(?:\s+-(?!File\b)\w+"
    r"(?:\s+(?!-)\S+)?)*\s+-File\s+|(?:bash|sh|zsh|python3?|py|node|ruby|perl)\s+)?"
    r"[\"']?([^\s\"']+\.(?:ps1|sh|bat|cmd|py|js|mjs|cjs|rb|pl))[\"']?(?:\s|\Z)",
    re.IGNORECASE,
)
"""A command that runs a script: ``& .\\x.ps1 …``, ``powershell -NoProfile -File x.ps1``,
``bash x.sh``, ``x.ps1 -Json`` (group 1: the script's path)."""


def script_name(command: str) -> str:
    """The script a command runs: its file name and the folder it is in (``powershell/x.ps1``,
    lower case; the name alone when the command gives no folder), or ""."""
    found = _SCRIPT_RE.match(core_command(command))
    if found is None:
        return ""
    parts = [p for p in found.group(1).replace("\\", "/").lower().split("/") if p not in ("", ".")]
    return "/".join(parts[-2:])


def _same_script(one: str, two: str) -> bool:
    """The same script: the same name in a folder of the same name, or the same name where one
    command gives no folder (``build.sh`` of two packages is not one script)."""
    return one == two or (("/" not in one or "/" not in two) and _base(one) == _base(two))


def _paths(targets: frozenset[str]) -> list[str]:
    """The paths of a signature's targets (not its ``$ command``, pids or place), with ``/``."""
    return [
        t.replace("\\", "/")
        for t in sorted(without_place(targets))  # (a set: one order each run)
        if not t.startswith(("$ ", "pid ")) and len(t) >= _MIN_NAME
    ]


def _base(path: str) -> str:
    return posixpath.basename(path.rstrip("/"))


def judge_later_runs(s: Session) -> None:
    """Mark ``worked around by`` each open failed read and script run (module docstring)."""
    _scripts(s)
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


def _command(err: ErrorFact) -> str:
    return next((t[2:] for t in err.signature[2] if t.startswith("$ ")), "")


def _scripts(s: Session) -> None:
    runs = [e for e in s.errors if not e.after and e.signature[0] == "shell"]
    named = [(e, name) for e in runs if (name := script_name(_command(e)))]
    if not named:
        return
    later: list[tuple[int, str, Call]] = []
    for c in s.calls:
        command = command_of(c)
        if command is not None and c.id not in s.failed_calls and c.id in s.answered:
            if name := script_name(command):
                later.append((c.index, name, c))
    texts = result_texts(s, {c.id for _, _, c in later})
    later = [x for x in later if not is_help_call(x[2], texts.get(x[2].id, ""))]  # (41 W3)
    for err, name in named:
        hit = next((c for i, n, c in later if i > err.index and _same_script(n, name)), None)
        if hit is not None:
            err.after, err.by = "worked around by", call_line(hit, 160)
            err.why = f"a later run of {_base(name)} succeeded"
