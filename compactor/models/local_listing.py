"""A listing of the folder the work writes to is a real action (blind check 16, issue 28).

adl-agents: three background agents wrote deliverables into ``workflow/`` and the session ended
with ``ls -la …/workflow/`` showing four of the eight files. ``ls`` was taken for a status check,
so "the last action" fell back to a refused call a hundred records back and the listing was cut
to its first line ("total 72 | drwxr-xr-x …"): the progress (which files exist) was lost. An
``ls`` of a folder the work writes to (an earlier call created it or told a sub-agent to write
into it) is an action: :func:`lists_work_folder` says so, and
:func:`listed_names` keeps the names it listed, compactly.
"""

from __future__ import annotations

from compactor._util import lazy_pattern
from compactor.facts import Call
from compactor.facts.commands import command_of, programs

from .local_session import Session

__all__ = ["SUBAGENT_TOOLS", "listed_names", "lists_work_folder", "work_listing"]

_LISTERS = frozenset({"ls", "tree"})
_HOUSE = frozenset({"echo", "true", "printf"})
SUBAGENT_TOOLS = frozenset({"Agent", "Task", "spawn_agent"})
_LONG_RE = lazy_pattern(
    r"^([-dlbcps])[rwxsStT@+.-]{9}[@+.]?\s+\d+\s+\S+\s+\S+\s+(\d+)\s+\S+\s+\S+\s+\S+\s+(.+)$"
)
_SHOWN = 24


def _target(command: str) -> str:
    """The folder an ``ls`` command lists (its first argument that is not an option)."""
    for word in command.split("&&")[0].split("|")[0].split()[1:]:
        if word.startswith("-") or word.startswith("2>") or word in (">", "2>/dev/null"):
            continue
        return word.strip("'\"").rstrip("/")
    return ""


def lists_work_folder(call: Call, s: Session) -> bool:
    """Whether ``call`` is an ``ls`` of a folder whose contents come from outside this agent's
    own edits: an earlier call created it (``mkdir``) or told a sub-agent to write into it (its
    path in an ``Agent``/``Task`` prompt). A listing of a folder the agent's own edits changed
    stays a status check (those edits say what is there)."""
    command = command_of(call)
    if command is None or "ls" not in command:
        return False
    names = programs(command)
    if not names or names[0] not in _LISTERS or not set(names) <= _LISTERS | _HOUSE:
        return False
    target = _target(command)
    if len(target.rsplit("/", 1)[-1]) < 3:
        return False
    for other in s.calls:
        if other.index >= call.index:
            break
        if target not in other.arguments:
            continue
        if other.name in SUBAGENT_TOOLS:
            return True
        made = command_of(other)
        if made is not None and "mkdir" in programs(made):
            return True
    return False


def listed_names(text: str) -> list[str]:
    """The entries an ``ls`` printed (``alpha.md (17,221 B)``, ``beta.md``, ``docs/``), the
    ``.``/``..`` entries and the ``total`` line left out."""
    shown: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("total ") or line.endswith(":"):
            continue
        long = _LONG_RE.match(line)
        if long is not None:
            kind, size, name = long.groups()
            if name in (".", ".."):
                continue
            shown.append(f"{name}/" if kind == "d" else f"{name} ({int(size):,} B)")
        elif " " not in line or len(line.split()) > 1:
            shown.extend(x for x in line.split() if x not in (".", ".."))
    return shown


def work_listing(call: Call, s: Session, text: str) -> str:
    """What the listing of a work folder established, or "" when ``call`` is none."""
    if not lists_work_folder(call, s):
        return ""
    names = listed_names(text)
    if not names:
        return ""
    more = f" … ({len(names) - _SHOWN} more)" if len(names) > _SHOWN else ""
    return f"listed {len(names)} entries: {', '.join(names[:_SHOWN])}{more}"
