"""Ctrl-C the agent wrote to a running process is its own stop, no failure (blind check 34 W3).

cx-olivia (a Codex Desktop rollout) stopped two dev servers with ``write_stdin(session_id=N,
chars="\\u0003")``; each result said "Process exited with code 1 … ^C". Both calls were listed in
section 4 as failures "Not fixed", and nothing said the servers were stopped. A write of Ctrl-C
(``chars``/``input``/``text`` holding only ``\\x03``) whose result shows the process ended (an
exit line or the echoed ``^C``) did what it was sent for: :func:`ctrl_c_stop` says the process
(its session id and the command that started it) was stopped with Ctrl-C, and the job is no
longer running.
"""

from __future__ import annotations

from compactor.facts import Call, one_line
from compactor.facts.text import cut

__all__ = ["STOPPED_BY_CTRL_C", "ctrl_c_stop", "sent_ctrl_c", "writes_ctrl_c"]

STOPPED_BY_CTRL_C = "stopped with Ctrl-C by the agent"
"""How a background job the agent interrupted ended."""
_KEYS = ("chars", "input", "text", "data", "keys")
_ENDED = ("Process exited with code", "^C", "exited with code", "Terminated", "SIGINT")


def writes_ctrl_c(call: Call) -> bool:
    """Whether ``call`` writes Ctrl-C (and nothing else) to a process: the agent's stop, never a
    retry or a fix of an earlier call to that process, whatever it returned (blind check 43 W2)."""
    if "\\u0003" not in call.arguments and "\x03" not in call.arguments:
        return False
    args = call.args
    sent = next((v for k in _KEYS if isinstance(v := args.get(k), str) and v), "")
    return sent.strip() == "\x03"


def sent_ctrl_c(call: Call, text: str) -> bool:
    """Whether ``call`` wrote Ctrl-C (and nothing else) to a process and its result ``text``
    shows the process ended (an exit line, the echoed ``^C``); not when the write itself was
    refused (no such session)."""
    if "\\u0003" not in call.arguments and "\x03" not in call.arguments:
        return False
    args = call.args
    sent = next((v for k in _KEYS if isinstance(v := args.get(k), str) and v), "")
    if sent.strip() != "\x03":
        return False
    head = text[:2_000]
    return any(word in head for word in _ENDED)


def ctrl_c_stop(call: Call, text: str) -> tuple[int, str] | None:
    """What a Ctrl-C write did, as a printed result ``(score, line)`` (None for another call):
    the process of the job it was written to, named by its session id and its command."""
    if not sent_ctrl_c(call, text):
        return None
    args = call.args
    key = next((str(v) for k in ("session_id", "shell_id", "id") if (v := args.get(k))), "")
    job = f"session {key}" if key else "the process"
    if call.job:
        job += f" (`{cut(one_line(call.job), 120)}`)"
    return 2, f"{STOPPED_BY_CTRL_C}: {job} ended; it is no longer running"
