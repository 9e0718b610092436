"""A script's preamble: the steps many unrelated scripts of one agent share (BENCH46 W1).

cx-global (Codex, zsh): every script the agent ran began ``set -euo pipefail`` and a ``# 1) …``
comment. A hooks-config script failed; a much later rename of a skill folder, with nothing in
common but that preamble, was linked to it as "Not fixed: a later … failed too". The preamble
ties no two calls: a comment or shebang, ``set -e…``/``set -o pipefail``, ``shopt``, PowerShell's
``Set-StrictMode`` and ``$ErrorActionPreference = 'Stop'``, a bare ``cd DIR``.
:func:`is_preamble_step` knows such a step by its words; :func:`sets_pipefail` whether a script
turned ``pipefail`` on (then a pipe does not hide a failing program's exit status).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from compactor._util import lazy_pattern

__all__ = ["ends_with_own_marker", "is_preamble_step", "sets_pipefail"]

_PIPEFAIL_RE = lazy_pattern(r"\bset\s+(?:-[a-zA-Z]+\s+)*-[a-zA-Z]*o\s+pipefail\b")
_QUIET = frozenset("set shopt set-strictmode cd pushd chdir set-location".split())
"""Programs that only set the shell up (with options or a directory): no work of their own."""
_OPTIONS = frozenset("pipefail errexit nounset xtrace noglob".split())
_PREFERENCE_RE = lazy_pattern(r"\A\$(?:ErrorActionPreference|ProgressPreference)\b", re.I)


def sets_pipefail(command: str) -> bool:
    """Whether ``command`` turns ``pipefail`` on (``set -euo pipefail``, ``set -o pipefail``)."""
    return "pipefail" in command and _PIPEFAIL_RE.search(command) is not None


_ERREXIT_RE = lazy_pattern(r"\bset\s+(?:-[a-zA-Z]*e[a-zA-Z]*|-o\s+errexit)\b")
_MARKER_RE = lazy_pattern(r"\A[A-Z][A-Z0-9_]*_OK\Z|\A(?:OK|DONE|ALL_OK|SUCCESS)\Z")


def ends_with_own_marker(command: str, output: str) -> bool:
    """Whether a script that stops at its first failing step (``set -e``) printed, as its last
    output line, the OK marker it echoes at its end (``echo RENAMED_OK``): every step before it
    exited 0 (BENCH46 W1)."""
    if "set" not in command or _ERREXIT_RE.search(command) is None:
        return False
    tail = output[-400:].rstrip().rsplit("\n", 1)[-1].strip()
    return _MARKER_RE.match(tail) is not None and f"echo {tail}" in command.replace(
        "'", ""
    ).replace('"', "")


def is_preamble_step(words: Sequence[str]) -> bool:
    """Whether the words of one step of a script only set the shell up (module docstring)."""
    if not words:
        return True
    first = words[0]
    if first.startswith("#") or _PREFERENCE_RE.match(first) is not None:
        return True
    name = first.lower()
    if name not in _QUIET:
        return False
    if name in ("cd", "pushd", "chdir", "set-location"):
        return len(words) <= 3  # `cd DIR`, `Set-Location -Path DIR`
    if name == "set":  # `set -euo pipefail`, not `set x` (a variable of another shell)
        return all(w.startswith(("-", "+")) or w in _OPTIONS for w in words[1:])
    return True  # `shopt -s globstar`, `Set-StrictMode -Version Latest`
