"""Is a later call another attempt at a failed one? (blind check 9: "Errors and fixes" links)

The signatures a failed call and a later one must share (moved out of
:mod:`compactor.facts.outcomes` to keep it under the module size limit)."""

from __future__ import annotations

from .commands import programs

__all__ = ["Signature", "agent_signature", "same_head", "similar_words"]

Signature = tuple[str, str, frozenset[str]]
"""(tool, program, targets): what a later call must share with a failed one to retry it."""


def agent_signature(name: str, args: dict[str, object]) -> Signature | None:
    """A sub-agent call's signature (a ``subagent_type`` argument, as Claude Code's Task):
    ``agent:TYPE`` and the words of its description; None for other calls."""
    kind = args.get("subagent_type")
    if not isinstance(kind, str) or not kind:
        return None
    about = args.get("description")
    words = set(about.lower().split()) if isinstance(about, str) else set()
    return (name, "agent:" + kind, frozenset(words))


def similar_words(one: frozenset[str], two: frozenset[str]) -> bool:
    """Whether two descriptions say much the same: half of their words or more in common."""
    if not one or not two:
        return not one and not two
    return 2 * len(one & two) >= len(one | two)


def _program_name(program: str) -> str:
    """A program without its version (``python3`` → ``python``, ``pip3.12`` → ``pip``)."""
    return program.rstrip("0123456789.") or program


def same_head(program: str, later: str, targets: frozenset[str], others: frozenset[str]) -> bool:
    """Whether two commands on a shared target have the same head: the same program (its
    version aside), or the later one's program is one the failed command ran (``git add &&
    git commit`` → ``git commit``), or the other way round. ``du`` of a folder is not another
    attempt at a ``bash -c`` script that writes into it."""
    if _program_name(program) == _program_name(later):
        return True
    ran = _ran(targets)
    again = _ran(others)
    return (bool(later) and later in ran) or (bool(program) and program in again)


def _ran(targets: frozenset[str]) -> set[str]:
    """The programs of the command a signature's targets name (its ``$ command`` target)."""
    command = next((t[2:] for t in targets if t.startswith("$ ")), "")
    return set(programs(command)) if command else set()
