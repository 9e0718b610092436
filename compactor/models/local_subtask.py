"""Section 1 of a sub-agent's own transcript (blind check 77 N1).

Claude Code writes each sub-agent's conversation to its own file (``agent-*.jsonl``, every record
``isSidechain``). Its first user message is the prompt the parent agent gave it: the task, not
the user's words. Some exports hold no such message at all (gr_bench1–3: the first record is the
sub-agent's own "I'll implement Phase 4 …" turn), and §1 said only "No request from the user in
this part of the conversation", so a resuming agent had to guess its task from the first quoted
step and the plan file it read first.

:func:`subagent_task_lines` names the file as a sub-agent's and states the task: the first
request when there is one ("the task this sub-agent was given: …"), else the sub-agent's first
words and the file it read first.
"""

from __future__ import annotations

from compactor.facts import cut, one_line

from .local_earlier import SUBAGENT
from .local_session import Session
from .local_text import code, quote

__all__ = ["is_subagent_file", "subagent_task_lines"]

_FIRST_CALLS = 4
"""How many of the sub-agent's first calls are searched for the file it read first."""
_READS = ("Read", "read_file", "View")


def is_subagent_file(s: Session) -> bool:
    """Whether the session is a sub-agent's own transcript (every record ``isSidechain``)."""
    return s.earlier.get(SUBAGENT) == "yes"


def _first_read(s: Session) -> str:
    for call in s.calls[:_FIRST_CALLS]:
        path = call.args.get("file_path") or call.args.get("path")
        if call.name in _READS and isinstance(path, str) and path:
            return path
    return ""


def subagent_task_lines(s: Session, width: int) -> list[str]:
    """Section 1's lines for a sub-agent's own transcript (the module description); [] for any
    other session."""
    if not is_subagent_file(s):
        return []
    if s.requests:
        task = quote(cut(one_line(s.requests[0].text), width * 2), width * 2)
        return [
            "   This file is a sub-agent's transcript (every record `isSidechain`): its first "
            "message is the prompt the parent agent gave it, not the user's words; the task "
            f"this sub-agent was given: {task}"
        ]
    first = next((e for e in s.entries if e.role == "assistant" and e.text.strip()), None)
    said = f" as its first turn states it: {quote(one_line(first.text), width)}" if first else ""
    read = _first_read(s)
    read_line = f" (it first read {code(read)})" if read else ""
    return [
        "   No request from the user: this file is a sub-agent's transcript (every record "
        "`isSidechain`), and the prompt the parent agent gave it is not in the file. The task "
        f"this sub-agent was given,{said or ' unknown: no turn of it states it'}{read_line}."
    ]
