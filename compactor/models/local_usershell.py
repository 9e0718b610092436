"""What the user's own ``!`` shell commands printed, and one that failed after the last answer
(issue 28 after blind check 22, cc-nixsys).

Claude Code writes a ``!`` command as a user record ``<bash-input>cmd</bash-input>`` and its
output as the next one, ``<bash-stdout>…</bash-stdout><bash-stderr>…</bash-stderr>``. The
command alone was a fact ("the user ran `cmd` themselves"); what it printed was dropped, so a
session that ended with the user's ``nix flake check`` failing after the last answer read as
"answered; nothing is pending", and two runs of one command with different outputs were listed
as one message "sent 2 times". Now the output's key line (the error first, as a tool result's)
goes with the command, and a failure after the last answer is the session's open point: the
user ran the command to check the work (sections 7-9). A command that succeeded there is a fact,
not pending work.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.facts import Entry
from compactor.facts.usershell import FAILED, shell_printed

from .local_asksonly import OFFERED, closing_offer
from .local_latetasks import earlier_failed_items, own_failed
from .local_notices import (
    asked_before_failure,
    failed_after_items,
    failed_after_step,
    said_task,
    stopped_at_exit,
)
from .local_restart import down_items
from .local_text import code, quote

if TYPE_CHECKING:
    from .local_session import Session

__all__ = [
    "add_local",
    "after_items",
    "after_step",
    "asked_item",
    "notice_error_items",
    "shell_error_items",
    "shell_failed_after",
]

_RAN = "the user ran `"
_COMMAND_RE = lazy_pattern(r"the user ran `(.+)` themselves(?:; it |$)", re.S)


def add_local(commands: list[tuple[int, str]], e: Entry, local: str) -> None:
    """Record the CLI command ``local`` of entry ``e``; for a ``!`` command's echo (``local``
    is ""), add what it printed to the command it follows."""
    if local:
        commands.append((e.index, local))
        return
    if not commands or not (said := commands[-1][1]).startswith(_RAN):
        return
    at = commands[-1][0]
    if e.index - at <= 2 and said.endswith("` themselves"):  # not already given its echo
        commands[-1] = (at, said + shell_printed(e.text))


def _failed(said: str) -> tuple[str, str] | None:
    if FAILED not in said or (m := _COMMAND_RE.match(said)) is None:
        return None
    return m.group(1), said.split(FAILED, 1)[1]


_SHOWN_MOST = 4


def shell_error_items(s: Session, width: int) -> list[str]:
    """Section 4's lines for the ``!`` commands the user ran that failed (the last few): not
    the agent's calls, but what the user saw fail."""
    failed = [f for _, said in s.local_commands if (f := _failed(said)) is not None]
    if not failed:
        return []
    more = f" (the last {_SHOWN_MOST} of {len(failed)})" if len(failed) > _SHOWN_MOST else ""
    return [
        f"Commands the user ran themselves with `!` that failed when run{more}; later work "
        "may have fixed the earlier ones:",
        *(f"  {code(c)} failed: {quote(e, width)}" for c, e in failed[-_SHOWN_MOST:]),
    ]


def notice_error_items(s: Session) -> list[str]:
    """Section 4's lines for the background tasks the CLI reported failed after the last answer
    (no tool result shows that failure: a notification does; blind check 44, W1)."""
    lines = []
    if s.failed_after:
        lines += [
            "Background tasks the CLI reported failed after the last answer (not a tool result):",
            *(f"  {said_task(task)}" for task in s.failed_after),
        ]
    if s.turn_ended and (stopped := _stopped_at_exit(s)):
        lines += [
            "Background tasks the user's /exit stopped after the last answer (no failure, but "
            "they are not running now: start them again if the work needs them):",
            *(f"  {said_task(task)}" for task in stopped),
        ]
    return lines


def _stopped_at_exit(s: Session) -> list[tuple[str, str, str]]:
    answered = next((e.index for e in reversed(s.entries) if e.role == "assistant"), -1)
    return stopped_at_exit(s.entries, answered)


def asked_item(s: Session, question: str) -> str:
    """Section 7's line for the question the last answer asked (``question``, quoted): when a
    task started for the latest request failed after that answer, the question came before
    the failure and is no longer what the session waits for."""
    if own_failed(s):
        return asked_before_failure(question)
    if closing_offer(s):  # (blind check 66 W1)
        return f"Nothing is pending for the answered request; {OFFERED}: {question}"
    return f"The assistant asked the user and awaits an answer: {question}"


def shell_failed_after(s: Session) -> list[tuple[str, str]]:
    """(command, error) of each ``!`` command the user ran after the assistant's last answer
    whose output shows a failure (only when the turn ended with that answer)."""
    if not s.turn_ended or not s.local_commands:
        return []
    answered = next((e.index for e in reversed(s.entries) if e.role == "assistant"), -1)
    found: list[tuple[str, str]] = []
    for at, said in s.local_commands:
        if at > answered and (failed := _failed(said)) is not None:
            found.append(failed)
    return found


def _shell_items(failed: list[tuple[str, str]], width: int) -> list[str]:
    return [
        f"After the last answer, the user ran {code(command)} themselves; it failed: "
        f"{quote(error, width)}. Until that failure is looked into, the work is not known to be "
        "finished"
        for command, error in failed
    ]


def after_items(s: Session, width: int = 300) -> list[str]:
    """Section 7's lines for what failed after the last answer: a background task the CLI
    reported, a ``!`` command the user ran."""
    own = failed_after_items(own_failed(s))  # only the latest request's tasks (blind check 24)
    shell = _shell_items(shell_failed_after(s), width)
    return own + earlier_failed_items(s, width) + shell + down_items(s, width)  # (check 34)


def after_step(s: Session) -> str:
    """Section 9 when something failed after the last answer ("" when nothing did)."""
    if own := own_failed(s):
        return failed_after_step(own)
    failed = shell_failed_after(s)
    if not failed:
        return ""
    command, error = failed[-1]
    return (
        f"   The user ran {code(command)} after the last answer to check the work, and it "
        f"failed: {quote(error, 300)}. Look into that failure first (find its cause in the "
        "files the work changed, fix it and run the same command again), or, if the user "
        "should act, tell the user what the error means."
    )
