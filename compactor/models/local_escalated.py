"""A command the sandbox stopped is worked around by the same command run with more rights
(blind check 57 W6, issue 28).

cx_goat_fix: the sandboxed start of a test server (``exec_command``, polled as
``write_stdin(session_id=N)``) died binding its socket: "PermissionError: [Errno 1] Operation not
permitted". The agent ran the SAME command again with ``sandbox_permissions: require_escalated``
and the server came up. Section 4 said "Worked around by apply_patch(… aiohttp …)": the next
success that touched related text, a patch for another problem.

:func:`judge_escalated` reads each open failure whose error is the sandbox's or the system's
refusal (``PermissionError``, "Operation not permitted", "permission denied", EPERM/EACCES,
"sandbox"). Its command is the failed call's own, or, for a poll of a session, the command that
started the session. The first later call that succeeded and runs the same command (the same
core: :func:`compactor.facts.samecommand.core_command`, ``sudo`` aside) with more rights — a
``sandbox_permissions`` / ``with_escalated_permissions`` argument, ``sudo``, or a ``--user``
flag — worked around it: section 4 names that re-run.
"""

from __future__ import annotations

from compactor._util import lazy_pattern
from compactor.facts import Call
from compactor.facts.samecommand import core_command

from .local_records import ErrorFact
from .local_session import Session
from .local_text import call_line

__all__ = ["judge_escalated"]

_DENIED_RE = lazy_pattern(
    r"(?i:PermissionError|operation not permitted|permission denied|\bEPERM\b|\bEACCES\b|"
    r"sandbox)"
)
_SUDO_RE = lazy_pattern(r"^(?:sudo(?:\s+-\S+)*\s+)")
_USER_FLAG_RE = lazy_pattern(r"(?:^|\s)--user\b")
_OPEN = ("", "failed again", "worked around")
"""Verdicts a re-run with more rights overrides: none, failed again, or "done without it" (the
assistant's words, blind check 57 W6 — the re-run is the concrete workaround)."""
_RIGHTS_KEYS = ("sandbox_permissions", "with_escalated_permissions", "escalated")


def judge_escalated(s: Session) -> None:
    """Mark ``worked around by`` each open sandbox-refused failure a later escalated re-run of
    the same command got past (module docstring)."""
    open_ = [
        e for e in s.errors
        if e.after in _OPEN and any(_DENIED_RE.search(x) for x in e.outcome.lines)
    ]  # fmt: skip
    if not open_:
        return
    for err in open_:
        command = _command_of_failure(s, err)
        if not command:
            continue
        mine = _core(command)
        rerun = next(
            (c for c in s.calls
             if c.index > err.index and c.command and c.id in s.answered
             and c.id not in s.failed_calls and _more_rights(c, command)
             and _core(c.command) == mine),
            None,
        )  # fmt: skip
        if rerun is not None:
            err.after, err.by = "worked around by", call_line(rerun, 160)
            err.why = "the same command, re-run with more rights"


def _core(command: str) -> str:
    return _SUDO_RE.sub("", core_command(command))


def _more_rights(call: Call, failed: str) -> bool:
    """Whether ``call`` runs with more rights than the failed ``failed`` command did."""
    if any(call.args.get(k) not in (None, False, "", "use_default") for k in _RIGHTS_KEYS):
        return True
    command = call.command or ""
    if _SUDO_RE.match(core_command(command)) and not _SUDO_RE.match(core_command(failed)):
        return True
    return bool(_USER_FLAG_RE.search(command)) and not _USER_FLAG_RE.search(failed)


def _command_of_failure(s: Session, err: ErrorFact) -> str:
    """The command ``err``'s call ran: its own, or the command that started the session it
    polled (``write_stdin(session_id=N)``)."""
    found: Call | None = None
    for call in s.calls:
        if call.index > err.index:
            break
        if call.id in s.failed_calls and call.name in err.call:
            found = call
    if found is None:
        return ""
    if found.command:
        return found.command
    key = found.args.get("session_id")
    bg = s.background.get(str(key)) if key is not None else None
    if bg is None:
        return ""
    start = next((c for c in s.calls if c.index == bg.index and c.command), None)
    return start.command if start is not None and start.command else ""
