"""Whether a tool result says the user rejected the call: the one owner of that decision.

The summary's facts (:mod:`compactor.facts.stops`), its job state
(:mod:`compactor.facts.jobstate`) and reduction (:mod:`compactor.reduction.results`) each carried
their own phrase list until blind check 26 (N1): a result one of them took for a rejection,
another took for output. The harnesses' words, at the start of the result:

* Claude Code: "The user doesn't want to proceed with this tool use. The tool use was rejected
  (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are
  doing …" (optionally followed by "To tell you how to proceed, the user said: …" or "The user
  provided the following reason for the rejection: …"), "The user doesn't want to take this
  action right now", with or without "Error: " before it;
* Codex CLI: "exec command rejected by user", "patch rejected by user", "… declined by user";
  Codex 0.98's bare ``exec_command failed: CreateProcess { message: "Rejected(\\"rejected by
  user\\")" }`` (BENCH41 W1);
* other harnesses: "User rejected the tool call.", "Tool call declined by the user",
  "Permission for this call was denied by the user: …", "[Rejected by user]".

A rejection is the result's first words (after at most 40 characters on its first line:
"Error: ", a tag, a bracket): a result whose later line mentions a rejection is output. The
Claude Code sentences are the CLI's own and may carry the user's words at any length; the
generic "… rejected by user" holds only in a short result (a line or two): a long one whose
first line says so is a log that mentions it.

Claude Code's "[Request interrupted by user for tool use]" and Codex's "aborted by user after
22.9s" are not rejections: the user stopped a call that had started
(:func:`compactor.facts.stops.user_stopped`, "Interrupted by the user"). :func:`interruption`
owns those words: a short result, or one whose first line says so (a log that mentions an abort
is output). Either way a call the user stopped started no background job.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = [
    "MAX_SHORT_REJECTION",
    "REJECTED_BY_USER",
    "interruption",
    "is_rejection",
    "might_be_rejection",
    "stopped_by_user",
]

REJECTED_BY_USER = "Rejected by the user"
"""How the summary's walk of the calls names a call the user rejected (it did not run)."""

_PREFIX = r"\A[^\n]{0,40}?"
_CLI_RE = lazy_pattern(
    _PREFIX + r"(?:The user (?:doesn['’]t|does not) want to (?:proceed with this tool use|"
    r"take this action)|The tool use was rejected\b"
    r"|CreateProcess \{ message: \\*\"Rejected\(\\*\""
    r"(?:rejected|denied|declined) by (?:the )?user)",
    re.IGNORECASE,
)
_SHORT_RE = lazy_pattern(
    _PREFIX + r"(?:(?:the )?user (?:rejected|denied|declined) (?:this|the)\b|"
    r"(?:rejected|denied|declined) by (?:the )?user\b)",
    re.IGNORECASE,
)
MAX_SHORT_REJECTION = 2_000
"""A generic "rejected by user" result is a line or two (Claude Code's bare rejection is about
220 characters): a longer one whose first line says so is output that mentions it."""


def might_be_rejection(text: str) -> bool:
    """A cheap test that rules out almost every result: every phrase holds "user" or "reject"
    within its first 80 characters (casefolded, as the IGNORECASE match: "ſ" is an "s")."""
    head = text[:80].casefold()
    return "user" in head or "reject" in head  # (two tests, no generator: every result)


def is_rejection(text: str) -> bool:
    """Whether the tool result ``text`` is the user's rejection of its call (the call did not
    run), bare or with the user's words after the CLI's: see the module's description."""
    if not might_be_rejection(text):
        return False
    if _CLI_RE.match(text) is not None:
        return True
    return len(text) <= MAX_SHORT_REJECTION and _SHORT_RE.match(text) is not None


_STOPPED_RE = lazy_pattern(
    r"\b(?:abort|interrupt|cancel|stopp)(?:ed|led)\b(?: \w+)? by (?:the )?user\b|"
    r"\[Request interrupted by user",
    re.IGNORECASE,
)


def interruption(text: str) -> re.Match[str] | None:
    """Where the tool result ``text`` says the user aborted, interrupted or cancelled its call
    while it ran (Codex's ``aborted by user after 22.9s``, Claude Code's ``[Request interrupted
    by user for tool use]``): the match in its first 300 characters, on its first line unless
    the result is short; None when it says no such thing."""
    if "user" not in text[:300]:
        return None
    found = _STOPPED_RE.search(text, 0, 300)
    if found is None or (len(text) > 300 and "\n" in text[: found.start()]):
        return None
    return found


def stopped_by_user(text: str) -> bool:
    """Whether the user rejected the call of ``text`` or stopped it while it ran."""
    return is_rejection(text) or interruption(text) is not None
