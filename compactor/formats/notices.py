"""How a harness opens the notices it writes into a session as user text (public: ``facts/``
reads them to tell a background job's end from a user's words).

Claude Code writes a background task's, shell's or async agent's end as a user message (or a
queued one) that opens with one of :data:`NOTICE_TAGS`: ``<task-notification>`` (2.1.x),
``<agent-notification>`` (2.0.x, an async agent) and ``<bash-notification>`` (2.0.x, a
background shell).

An agent-team lead (Claude Code 2.1.x, ``CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS``) receives its
teammates' mailbox deliveries as user records that open with :data:`TEAMMATE_TAG`
(``<teammate-message teammate_id="verify" color="blue">…</teammate-message>``: idle
notifications, shutdown approvals, ``teammate_terminated``, free-text reports). They are
agent-to-agent traffic, never the user's words (blind check 47, W3).
"""

from __future__ import annotations

__all__ = ["CLAUDE_INJECTED", "NOTICE_TAGS", "TEAMMATE_TAG", "after_injected_blocks"]

NOTICE_TAGS = ("<task-notification>", "<agent-notification>", "<bash-notification>")
"""How a CLI's notification that a background task, shell or async agent stopped opens."""
TEAMMATE_TAG = "<teammate-message"
"""How a teammate's mailbox delivery to an agent-team lead opens (attributes follow the name)."""
CLAUDE_INJECTED = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "Caveat: The messages below were generated",
    "<system-reminder>",
    "<task-notification>",
    "<bash-notification>",
    TEAMMATE_TAG,
    "[Request interrupted by user",
    "This session is being continued from a previous conversation",
)
"""How a Claude Code user record the CLI wrote (not the user) opens (``formats.claude_code``)."""


_REMINDER_OPEN, _REMINDER_CLOSE = "<system-reminder>", "</system-reminder>"


def after_injected_blocks(text: str) -> str:
    """``text`` (stripped) after the closed ``<system-reminder>…</system-reminder>`` blocks it
    opens with: what the user typed below the context an IDE put first in the same message
    (blind check 72 N5: a reminder naming the file open in the editor, then the user's request).
    '' when the blocks are all there is; an unclosed block is kept whole. Other notices keep
    what follows them (a task notification's "Read the output file …" is the CLI's words)."""
    rest = text.strip()
    while rest.startswith(_REMINDER_OPEN):
        end = rest.find(_REMINDER_CLOSE)
        if end < 0:
            break
        rest = rest[end + len(_REMINDER_CLOSE) :].strip()
    return rest
