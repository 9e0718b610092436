"""The keys a config file may hold, with the types each accepts (checked by :mod:`.loading`).

A key's schema is a tuple of accepted types, a nested mapping schema, a :class:`Switch`, or
one of the markers below (a section with its own shape).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compactor.models.providers import REMOTE_KEYS

__all__ = [
    "ANY_MAP",
    "FINALIZE",
    "FINALIZE_KEYS",
    "MAX_CONFIG_DEPTH",
    "MAX_CONFIG_VALUES",
    "MODEL_KEYS",
    "MODEL_LIST",
    "NAME_LIST",
    "NONE",
    "NUM",
    "OPTIONAL_ENV_KEYS",
    "PATTERN_LIST",
    "PRICE_TABLE",
    "SCHEMA",
    "SECRET_KEYS",
    "Switch",
]

MAX_CONFIG_DEPTH = 32
"""Mappings and lists nest at most this deep in a config file."""
MAX_CONFIG_VALUES = 10_000
"""A config file holds at most this many values, counted with every alias expanded."""

NONE = type(None)
NUM = (int, float)

ANY_MAP = "any-mapping"
"""A mapping of plain values, kept as written (``model.options``)."""
MODEL_LIST = "model-list"
"""A list of model mappings (``failover.models``)."""
FINALIZE = "finalize"
"""``pkg.mod:func`` or a mapping of :data:`FINALIZE_KEYS`."""
PATTERN_LIST = "pattern-list"
"""A list of ``{name, regex}`` (``mask_secrets.patterns``)."""
NAME_LIST = "name-list"
"""A list of strings (``reduction.clear_exclude_tools``)."""
PRICE_TABLE = "price-table"
"""Model name → ``{input, output}`` (``prices``)."""


@dataclass(frozen=True)
class Switch:
    """A section that is either a scalar shorthand (``cache: true``) or a mapping."""

    scalar: tuple[type, ...]
    mapping: dict[str, Any]
    shorthand_key: str = "enabled"
    """The mapping key a scalar stands for."""


MODEL_KEYS: dict[str, Any] = {
    "provider": (str,),
    "name": (str, NONE),
    "options": ANY_MAP,
    "context_tokens": (int, NONE),
    # a remote model's keys, declared once with their checks and defaults by the providers
    **{key: spec.types for key, spec in REMOTE_KEYS.items()},
}
FINALIZE_KEYS: dict[str, Any] = {
    "preserve_skills": {
        "skill_tool_name": (str,),
        "max_skills": (int,),
        "max_tokens_per_skill": (int,),
        "skills_token_budget": (int,),
    },
    "system_prompt": (str, NONE),
    "strip_analysis": (bool,),
    "ensure_user_messages": (bool,),
}
SCHEMA: dict[str, Any] = {
    "model": MODEL_KEYS,
    "trigger": {
        "context_tokens": (int,),
        "context_messages": (int,),
        "context_fraction": NUM,
        "window_tokens": (int,),
        "agent_model": (str, NONE),
    },
    "token_counter": (str, NONE),
    "user_instruction": (str, NONE),
    "user_instruction_file": (str, NONE),
    "instructions": (str, NONE),
    "transcript_file_path": (str, NONE),
    "preserve_user_messages": {"enabled": (bool,), "max_tokens": (int, NONE)},
    "retry": {"max_retries": (int,), "initial_delay": NUM, "max_delay": NUM},
    "failover": {"max_retries": (int,), "max_delay": NUM, "models": MODEL_LIST},
    "finalize": FINALIZE,
    "callback": (str, NONE),
    "gen_model_input": (str, NONE),
    "format": (str, NONE),
    "archive_dir": (str, NONE),
    "keep": {"messages": (int, NONE), "tokens": (int, NONE)},
    "fallback": (str, NONE),
    "loop_guard": Switch(
        (bool, int, float),
        {"max_ratio": (bool, int, float), "max_growth": (bool, int, float)},
        "max_ratio",
    ),
    "mask_secrets": Switch(
        (bool, str), {"enabled": (bool, str), "patterns": PATTERN_LIST}, "enabled"
    ),
    "cache": Switch((bool,), {"enabled": (bool,), "dir": (str, NONE)}),
    "retention": Switch((bool,), {"enabled": (bool,), "max_anchors": (int,), "max_facts": (int,)}),
    "reply_reserve_tokens": (int,),
    "max_summary_tokens": (int, NONE),
    "limits": {"max_requests": (int, NONE), "max_input_tokens": (int, NONE)},
    "input": {"max_line_bytes": (int,), "max_bytes": (int,)},
    "summary_check": {"min_tokens": (int,), "require_sections": (bool,)},
    "prices": PRICE_TABLE,
    "strategy": (str, NONE),
    "reduction": {
        "max_length_for_trunc": (int, NONE),
        "trunc_exclude_tools": NAME_LIST,
        "trunc_preview_chars": (int,),
        "max_tokens_for_clear": (int,),
        "clear_retention_suffix_limit": (int,),
        "clear_at_least_tokens": (int,),
        "clear_exclude_tools": NAME_LIST,
        "read_file_tool_name": (str, NONE),
        "offload": (bool,),
        "offload_dir": (str, NONE),
    },
}
"""Every top-level key of a config file (:class:`~.fileconfig.FileConfig` has one field each)."""

OPTIONAL_ENV_KEYS = frozenset({"base_url", "api_key"})
"""Keys whose ``${VAR}`` may be unset: the key is then None (the error can name ``VAR``)."""
SECRET_KEYS = frozenset({"api_key"})
"""Keys whose values are secrets: registered for redaction, never shown in messages."""
