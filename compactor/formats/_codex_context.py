"""Which Codex messages a rewritten history leaves out (:mod:`.codex`'s writer).

Codex writes some user-role messages as context, not as the user's words: its own compaction
(``codex-rs/core/src/compact.rs``: ``collect_user_messages`` → ``event_mapping::parse_turn_item``
→ ``parse_user_message``, which returns nothing for a "contextual" user message) keeps every
other user message in its ``replacement_history``. The contextual ones are the fragments
``context/contextual_user_message.rs`` registers (in Codex 0.77, ``event_mapping.rs``:
``is_session_prefix``, ``is_user_instructions``, ``is_skill_instructions``,
``is_user_shell_command_text``): ``<environment_context>``, ``<user_instructions>`` /
``# AGENTS.md instructions``, ``<skill>``, ``<user_shell_command>``, ``<turn_aborted>``,
``<subagent_notification>``. Anything else, ``<user_action>`` (the result of ``/review``, which
the user's next request refers to) included, is a user message Codex keeps, and so does
compact. The reader still marks every ``<…>`` message ``injected`` (it is not typed text and
never the current request); this module only decides what the writer drops.
"""

from __future__ import annotations

from compactor.schema import AgenticMessage, Message, content_type

from . import _jsonl
from .harness_asks import harness_ask_tag

__all__ = ["injected_user_text", "reinjected"]

_INJECTED_PREFIXES = ("<", "# AGENTS.md instructions")

INSTRUCTION_FILES = ("# AGENTS.md instructions", "<user_instructions>")
"""Injected instruction files (AGENTS.md; ``<user_instructions>`` is how Codex wrapped them before
its ``# AGENTS.md instructions`` heading): durable context a reduced history keeps."""
KEPT_NOTICES = ("<turn_aborted>",)
"""Harness notices Codex writes once into the history and never recreates on resume."""
CONTEXTUAL_PREFIXES = (
    "<environment_context>",
    *INSTRUCTION_FILES,
    "<skill>",
    "<user_shell_command>",
    *KEPT_NOTICES,
    "<subagent_notification>",
)
"""User-role messages Codex's own compaction leaves out of its ``replacement_history``
(case-insensitive, after leading blanks, as Codex matches them)."""


def injected_user_text(text: str) -> bool:
    """A Codex user message the reader marks ``injected``: any ``<…>`` markup or AGENTS.md, except
    one tagged block a harness integration wrote to ask for work (blind check 52 W2)."""
    return text.lstrip().startswith(_INJECTED_PREFIXES) and not harness_ask_tag(text)


def _contextual(text: str) -> bool:
    lowered = text.lstrip()[:64].lower()
    return lowered.startswith(tuple(p.lower() for p in CONTEXTUAL_PREFIXES))


def reinjected(msg: Message | AgenticMessage, original: bool, summarized: bool = True) -> bool:
    """Developer instructions and contextual user messages from the file (``original``: matched
    to a message read from it; a copy keeps the reader's marks): Codex writes them anew each
    session. A system message a finalizer added is its own and is kept. A thread goal and a
    ``<turn_aborted>`` notice are kept: Codex writes each once (the goal when a goal turn
    starts, from thread state; the notice when the user interrupts) and rebuilds neither from
    its state on resume, so dropping them loses the objective and the interruption. A user
    message Codex's compaction keeps (not :data:`CONTEXTUAL_PREFIXES`: ``<user_action>``, text
    the user typed with a leading ``<``) is kept too.

    A history with no summary (``summarized`` False: ``--strategy reduce``, or hybrid that only
    reduced) keeps the developer instructions and every user-role record where they were:
    nothing in such a history summarizes what it would drop (blind check 29: cx-nexus lost
    three ``<skill>`` bodies, three ``<subagent_notification>`` messages, one the only trace of
    a subagent's shutdown, and a second ``<environment_context>``; before, only the instruction
    files and the current request's skills were kept, as Codex's own compaction keeps them)."""
    if content_type(msg) is not None or msg.extra.get("codex_goal"):
        return False
    text = _jsonl.message_text(msg).lstrip() if msg.role in ("user", "system") else ""
    if msg.role == "user" and (text.startswith(KEPT_NOTICES) or not _contextual(text)):
        return False
    from_file = original or "codex_role" in msg.extra
    if not summarized and ((msg.role == "system" and from_file) or msg.role == "user"):
        return False  # nothing summarizes what it drops: every user-role record stays (set 29)
    return (msg.role == "system" and from_file) or bool(msg.extra.get("injected"))
