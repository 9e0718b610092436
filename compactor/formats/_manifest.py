"""GENERATED from the formats' declarations (``SPEC`` in each format module) by
``python -m compactor.formats.registry``: do not edit. A test fails when it is stale.
"""

FORMAT_NAMES = (
    "openai",
    "eino",
    "claude-code",
    "codex",
    "anthropic",
    "cursor",
    "copilot",
    "opencode-hooks",
)
APPEND_FORMATS = ("claude-code", "codex")
FORMAT_HELP = {
    "openai": "OpenAI chat-completions messages, one {role, content} object per line",
    "eino": "Eino schema.Message objects (Go), one per line",
    "claude-code": "Claude Code session logs (~/.claude/projects/*/*.jsonl)",
    "codex": "OpenAI Codex CLI / Desktop rollouts (~/.codex/sessions/**/rollout-*.jsonl)",
    "anthropic": "Anthropic Messages API turns, one {role, content} object per line",
    "cursor": "Cursor agent transcripts, one {role, message: {content}} object per line",
    "copilot": "GitHub Copilot CLI session logs (~/.copilot/session-state/*/events.jsonl)",
    "opencode-hooks": "OpenCode transcripts of oh-my-opencode's Claude Code-compatible hooks",
}
READ_TOOLS = {
    "eino": "read_file",
    "claude-code": "Read",
    "codex": "shell",
    "copilot": "view",
    "opencode-hooks": "read",
}
