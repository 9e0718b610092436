"""Context windows of well-known agent models, for ``trigger.context_fraction``.

A small built-in table (tokens of input context, as the providers publish them). Names match by
exact name first, then by the longest known prefix, so dated snapshots such as
``gpt-4o-2024-08-06`` or ``claude-sonnet-4-5-20250929`` find their family. Anything else needs
``trigger.window_tokens``.
"""

from __future__ import annotations

__all__ = ["KNOWN_WINDOWS", "window_for"]

KNOWN_WINDOWS: dict[str, int] = {
    "gpt-4o": 128_000,
    "gpt-4o-mini": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-4.1-mini": 1_047_576,
    "gpt-4.1-nano": 1_047_576,
    "gpt-4-turbo": 128_000,
    "gpt-5": 400_000,
    "gpt-5-mini": 400_000,
    "gpt-5-nano": 400_000,
    "gpt-5-codex": 400_000,
    "o3": 200_000,
    "o4-mini": 200_000,
    "claude-opus-4": 200_000,
    "claude-sonnet-4": 200_000,
    "claude-haiku-4": 200_000,
    "claude-3-7-sonnet": 200_000,
    "claude-3-5-sonnet": 200_000,
    "claude-3-5-haiku": 200_000,
    "gemini-2.5-pro": 1_048_576,
    "gemini-2.5-flash": 1_048_576,
    "deepseek-chat": 128_000,
    "qwen3-coder": 262_144,
}
"""Model name (or family prefix) → context window in tokens."""


def window_for(model: str) -> int | None:
    """The context window of ``model`` (a ``provider:`` prefix ignored), or None."""
    name = model.strip().lower()
    if ":" in name:
        name = name.split(":", 1)[1]
    name = name.rsplit("/", 1)[-1]  # "vendor/gpt-4o" (LiteLLM, OpenRouter)
    if name in KNOWN_WINDOWS:
        return KNOWN_WINDOWS[name]
    best = ""
    for known in KNOWN_WINDOWS:
        if name.startswith(known + "-") and len(known) > len(best):
            best = known
    return KNOWN_WINDOWS[best] if best else None
