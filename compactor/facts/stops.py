"""Results that say the user stopped a call: rejected it (Claude Code's "The user doesn't want
to proceed with this tool use") or aborted, interrupted or cancelled it while it ran (Codex's
``aborted by user after 22.9s``): never a success (see :mod:`compactor.facts`)."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.rejections import interruption, is_rejection

from .text import Call, cut, one_line

__all__ = ["ESCALATED", "STOPPED", "escalated", "justification", "rejection", "user_stopped"]

_REASON_RE = lazy_pattern(
    r"(?:reason for (?:the )?(?:rejection|denial)|how to proceed, the user said)\s*:\s*"
    r"(\S[^\n]*(?:\n(?!\n)[^\n]*){0,3})|"
    r"(STOP what you are doing and wait for the user to tell you how to proceed)",
    re.IGNORECASE,
)


_CLARIFY = "the user wants to clarify these questions"

STOPPED = "Interrupted by the user"
"""How :func:`outcome` starts the line of a call the user aborted, interrupted or cancelled."""


def user_stopped(text: str) -> str:
    """For a result that says the user aborted, interrupted or cancelled the call (Codex's
    ``aborted by user after 22.9s``, Claude Code's ``[Request interrupted by user for tool use]``),
    ``Interrupted by the user: <that line>``; else ''. Only a short result, or one whose first
    line says so: a log that mentions an abort is output, not the call's end."""
    if refused := rejection(text):  # one owner decides (compactor.rejections, blind check 26)
        return refused  # Codex's bare "exec command rejected by user" (no error flag, check 19)
    found = interruption(text)  # one owner of the words too (compactor.rejections)
    if found is None:
        return ""
    end = text.find("\n", found.end(), 300)
    return f"{STOPPED}: {cut(one_line(text[: end if end >= 0 else 300]).strip(), 160)}"


def rejection(text: str) -> str:
    """For a call the user rejected (Claude Code's "The user doesn't want to proceed with this
    tool use … The user provided the following reason for the rejection: …", "… To tell you how
    to proceed, the user said: …", "… STOP what you are doing and wait for the user …"), the line
    that says so with the user's reason or instruction, whole (the user's decision); else ''.
    Which results are rejections: :func:`compactor.rejections.is_rejection` (one owner)."""
    if not is_rejection(text):
        return ""
    head = text[:2_000]
    reason = _REASON_RE.search(head)
    said = one_line(reason.group(1) or reason.group(2)).strip() if reason is not None else ""
    if said.lower().startswith(_CLARIFY):  # the CLI's words for "Chat about this" (set 13)
        said = "the user chose to clarify these questions first (the CLI's words)"
    return (
        f"The user rejected this call: {cut(said, 400)}" if said else "The user rejected this call"
    )


ESCALATED = " (escalated, outside the sandbox)"
"""What :func:`call_line` adds to a command the agent asked to run with escalated permissions."""
_ESCALATION_KEYS = ("sandbox_permissions", "with_escalated_permissions")


def escalated(call: Call) -> bool:
    """The call asks to run outside the sandbox (Codex's ``sandbox_permissions:
    "require_escalated"``, ``with_escalated_permissions: true``): the user must approve it."""
    args = call.args
    value = next((args[k] for k in _ESCALATION_KEYS if k in args), None)
    return value is True or (isinstance(value, str) and "escalat" in value)


def justification(call: Call) -> str:
    """Why an escalated call asks to run outside the sandbox, in the agent's words (or '')."""
    value = call.args.get("justification")
    return one_line(value) if isinstance(value, str) else ""


_KILL_TOOL_RE = lazy_pattern(r"(?i)^(?:kill\w*|\w*kill)$")
"""A tool whose job is to kill something (Claude Code's ``KillShell``/``KillBash``, ``kill``)."""


def kill_succeeded(call: Call | None, lines: list[str]) -> bool:
    """A kill tool's result that only reports the kill ("Successfully killed shell: b9884c4",
    "Shell … killed"): the word "killed" is the success of the call, not an error (blind
    check 12, bh-oauth: ``KillShell`` listed as failed)."""
    if call is None or not lines or not _KILL_TOOL_RE.match(call.name):
        return False
    lows = [line.lower() for line in lines]
    return all("killed" in low and "fail" not in low and "error" not in low for low in lows)
