"""Transcript formats: detection, reading and writing (SPEC §9.6).

Public entry points live in :mod:`compactor.formats.registry`.
"""

FORMAT_NAMES = ("openai", "eino", "claude-code", "codex", "anthropic")
"""The transcript formats ``--format`` takes (their names in :mod:`compactor.formats.registry`),
for help texts that must not import the readers."""
