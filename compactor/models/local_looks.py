"""Which later call can be the workaround of a failure (blind check 15, eq-bgtrain): not a
look — a read, a search, a listing, ``ps aux | grep`` — when what failed was work (a run, a
background job), whatever the assistant's words before it ("Let me try", "instead"); and for
an interpreter (``python``, ``node`` …) not merely the same program: ``python -c "import
yaml …"`` is no other way to run ``python train.py``, which only the same script can be."""

from __future__ import annotations

from compactor.facts import Call, command_of, is_reading_call, programs
from compactor.facts.commands import is_reading_program
from compactor.facts.reads import only_reads
from compactor.facts.shellwrap import inner_command

__all__ = ["only_looks", "same_script"]

_LOOKING = frozenset(
    "ps pgrep pidof top htop free df du uptime lsof nvidia-smi sleep tail watch env printenv "
    "whoami hostname uname id".split()
)
"""Programs that only look at the machine (or wait): running them changes nothing."""
_INTERPRETERS = frozenset(
    "python python2 python3 py node ruby perl php java julia lua rscript bash sh zsh".split()
)
_SCRIPT_FREE = ("-c", "-e")


def only_looks(call: Call) -> bool:
    """Whether ``call`` only reads, searches, lists or looks at processes (no work done)."""
    if is_reading_call(call) or only_reads(call):  # (``docker compose logs``: blind check 18)
        return True
    command = command_of(call)
    if command is None:
        return False
    names = programs(inner_command(call) or command)  # `bash -lc 'ls -la'` lists (42 W2)
    return bool(names) and all(n in _LOOKING or is_reading_program(n) for n in names)


def _interpreter(name: str) -> bool:
    return name.rstrip("0123456789.") in _INTERPRETERS or name in _INTERPRETERS


def _scripts(command: str) -> set[str]:
    """What each interpreter of ``command`` runs: its script's file name or ``-m module``
    (``-c``/``-e`` code runs no script: nothing)."""
    words = [w.strip("'\"") for w in command.split()]
    found: set[str] = set()
    for i, word in enumerate(words):
        if not _interpreter(word.rsplit("/", 1)[-1].lower()):
            continue
        for j in range(i + 1, len(words)):
            arg = words[j]
            if arg in _SCRIPT_FREE or arg == "--eval":
                break
            if arg == "-m" and j + 1 < len(words):
                found.add("-m " + words[j + 1])
                break
            if not arg.startswith("-"):
                found.add(arg.rsplit("/", 1)[-1])
                break
    return found


def same_script(later: str, goal_commands: list[str]) -> bool:
    """Whether ``later`` runs the work of one of ``goal_commands`` again: any command of the
    same program unless that program is an interpreter; then it must run the same script (or
    ``-m`` module) — ``python -c "…"`` runs none."""
    if not any(_interpreter(n) for n in programs(later)):
        return True
    mine = _scripts(later)
    return any(mine & _scripts(command) for command in goal_commands)
