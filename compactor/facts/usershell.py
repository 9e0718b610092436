"""What a ``!`` shell command the user ran printed (issue 28 after blind check 22, cc-nixsys).

Claude Code writes the command as ``<bash-input>cmd</bash-input>`` and its output as the next
user record, ``<bash-stdout>…</bash-stdout><bash-stderr>…</bash-stderr>`` (or both in one
record). The output is no words of the user's, but it is a result: the user often runs the
command to check the agent's work. :func:`shell_printed` reads it as a tool result is read
(:func:`~compactor.facts.outcomes.outcome`: the key error line first, the exit code when
shown); :func:`shell_echoes` finds the echo of each ``!`` command among the user messages.
"""

from __future__ import annotations

from collections.abc import Sequence

from compactor._util import lazy_pattern
from compactor.schema import AgenticMessage, Message, user_text

from .outcomes import outcome
from .text import Result, cut, one_line

__all__ = ["ECHO_HEADS", "FAILED", "shell_echoes", "shell_printed"]

ECHO_HEADS = ("<bash-stdout>", "<bash-stderr>")
FAILED = "; it failed: "
"""How :func:`shell_printed` opens for a command whose output shows a failure."""
_SHOWN = 3
"""Lines shown of an output with no error line (its key lines are its first ones)."""
_ECHO_TAG_RE = lazy_pattern(r"</?bash-std(?:out|err)>")


def shell_printed(echo: str) -> str:
    """What a ``!`` command's echo says, to follow "the user ran `cmd` themselves": that it
    failed, with the key error line (and exit code when shown), or its first lines (no
    "succeeded": the echo holds no exit status, and a sudo that could not ask for a password
    prints no error line the rules rank)."""
    body = _ECHO_TAG_RE.sub("\n", echo).strip()
    if not body:
        return "; it printed nothing"
    found = outcome(Result("", "Bash", body))
    if found.failed:
        status = f" (exit code {found.exit_code})" if found.exit_code else ""
        said = found.lines[0] if found.lines else one_line(body)
        return f"{FAILED}{cut(one_line(said), 200)}{status}"
    lines = [line for ln in body.splitlines() if len(line := ln.strip()) > 2]
    shown = " | ".join(lines[:_SHOWN])
    more = f" … ({len(lines)} lines)" if len(lines) > _SHOWN else ""
    return f"; it printed: {cut(one_line(shown), 160)}{more}" if lines else "; it printed nothing"


def shell_echoes(
    context: Sequence[Message | AgenticMessage], users: Sequence[Message | AgenticMessage]
) -> dict[int, str]:
    """``id(message)`` → :func:`shell_printed` of its echo, for each ``!`` command message of
    ``users`` (messages of ``context``) whose echo follows it within two messages."""
    wanted = {
        id(m)
        for m in users
        if (text := user_text(m)).startswith("<bash-input>") and "<bash-std" not in text
    }  # (a command with its output in the same record: :func:`~.noise.user_shell` reads it)
    found: dict[int, str] = {}
    if not wanted:
        return found
    for i, msg in enumerate(context):
        if id(msg) not in wanted:
            continue
        for after in context[i + 1 : i + 3]:
            text = user_text(after).lstrip() if after.role == "user" else ""
            if text.startswith(ECHO_HEADS):
                found[id(msg)] = shell_printed(text)
                break
    return found
