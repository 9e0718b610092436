"""What a Claude Code record is, by its ``type``: one owner for :mod:`.claude_code` (the reader)
and :mod:`._claude_write` (the writer), so each imports it at the top and neither the other."""

from __future__ import annotations

from compactor._json import JsonObject

from ._family import is_untyped_metadata

__all__ = [
    "MESSAGE_TYPES",
    "READ_SKILL_TOOL",
    "RECORD_TYPES",
    "SKILL_TOOL",
    "is_unknown_metadata",
]

SKILL_TOOL = "Skill"
"""Claude Code's skill-loading tool; read as ``skill``, SPEC §5.3's default name."""

READ_SKILL_TOOL = "skill"
MESSAGE_TYPES = ("user", "assistant", "attachment")

RECORD_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "attachment",
        "progress",
        "file-history-snapshot",
        "permission-mode",
        "mode",
        "last-prompt",
        "ai-title",
        "custom-title",
        "agent-name",
        "agent-color",
        "agent-setting",
        "worktree-state",
        "pr-link",
        "queue-operation",
        "summary",
        "tag",
    }
)
"""Types the reader knows (FORMATS.md §1.1): ``user``/``assistant`` are messages, the others
metadata. Another type is read by its shape (RELIABILITY, Decisions): without a ``message``,
metadata kept verbatim and reported (:func:`.claude_code.unknown_metadata`); with one,
refused."""


def is_unknown_metadata(rec: JsonObject, kind: object) -> bool:
    """A record of a type this reader does not know and no ``message``: metadata. A record
    with no ``type`` at all (``{"_type": "hive-mind-meta", ...}``, a tool's header line) is
    metadata too when it holds no key of a message of any format."""
    if kind is None and "type" not in rec:
        return is_untyped_metadata(rec)
    return isinstance(kind, str) and kind not in RECORD_TYPES and "message" not in rec
