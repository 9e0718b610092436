"""A user-role message a harness integration wrote as one XML-like block that asks for work
(public: the readers and ``facts/`` use it to keep such a message a request).

A harness writes its notices into a session as a user-role message that is one tagged block
(``<turn_aborted>``, ``<user_shell_command>``, ``<system-reminder>`` …): context, never the user's
request. Some integrations write instructions the same way: a CI monitor's
``<ci-monitor-event>CI check "test" failed on PR #12 … Investigate the logs, then fix the failing
check.</ci-monitor-event>`` is the turn the agent then works on (blind check 52, W2: it was dropped
as context, so an older, answered request was named current). Judged by shape, not by tag name:
a block of prose (no nested markup at its start) with an imperative work verb at the start of a
sentence or clause ("fix", "run", "investigate", "then update …") asks for work; the tags the
harnesses use for their own notices (:data:`CONTEXT_TAGS`) never do.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["CONTEXT_TAGS", "HARNESS_SENT", "harness_ask_tag"]

HARNESS_SENT = "sent by a harness integration as <{tag}>, not typed by the user"
"""How the summary labels a request a harness wrote (``{tag}``: the block's tag name)."""

CONTEXT_TAGS = frozenset(
    {
        "turn_aborted",
        "user_shell_command",
        "user_action",
        "subagent_notification",
        "session_paused",
        "goal_context",
        "collaboration_mode",
        "environment_context",
        "user_instructions",
        "ide_opened_file",
        "ide_selection",
        "ide_diagnostics",
        "system-reminder",
        "local-command-stdout",
        "local-command-stderr",
        "local-command-caveat",
        "bash-stdout",
        "bash-stderr",
        "bash-input",
        "task-notification",
        "bash-notification",
        "agent-notification",
        "command-name",
        "command-message",
        "command-args",
    }
)
"""Tags of the notices harnesses write (Claude Code, Codex): context, whatever their words."""

_BLOCK_RE = lazy_pattern(r"\A\s*<([a-z]+(?:[_-][a-z]+)+)(?:\s[^<>]*)?>(.*)</\1>\s*\Z", re.DOTALL)
"""A whole message that is one ``<kebab-or-snake>`` block (attributes allowed)."""
_ASK_RE = lazy_pattern(
    r"(?:\A|[.!?:;]\s+|\n\s*|[,;]?\s*\b(?:then|and then|please)\s+)"
    r"(?:please\s+)?"
    r"(?:(?:fix|re-?run|investigate|address|resolve|debug|repair|retry|review|look\s+(?:into|at)|"
    r"diagnose|triage|correct|revert|rebase|implement|handle)\b"
    r"|(?:check|run|update)\s+(?:the|that|whether|why|if|it|them|all|again|a|an|your|tests?)\b)",
    re.IGNORECASE,
)
"""An imperative work verb opening the block, a sentence, a line or a "then …" clause ("check",
"run" and "update" only before an object: "Check "lint" passed" names a CI check)."""


def harness_ask_tag(text: str) -> str:
    """The tag of ``text`` when the whole of it is one tagged harness block that asks for work
    (see the module's doc), else ''."""
    if "</" not in text:
        return ""
    match = _BLOCK_RE.match(text)
    if match is None or match.group(1) in CONTEXT_TAGS:
        return ""
    body = match.group(2).strip()
    if not body or body.startswith("<") or _ASK_RE.search(body) is None:
        return ""
    return match.group(1)
