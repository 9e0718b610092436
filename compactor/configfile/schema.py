"""The vocabulary of a config file's schema: the markers of the shapes a key may take, a
model mapping's keys (:data:`MODEL_KEYS`, from the providers' declarations), the size limits.

A key's schema is a tuple of accepted types, a nested mapping schema, a :class:`Switch`, or
one of the markers below (a section with its own shape). The schema of a whole file,
``fileconfig.SCHEMA``, is generated from the declarations of :mod:`.settings` and
:class:`~.fileconfig.FileConfig`.
"""

from __future__ import annotations

from typing import TypeAlias

from compactor._util import FrozenRecord
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


KeySpec: TypeAlias = "tuple[type, ...] | str | Switch | dict[str, KeySpec]"
"""What a key of the file schema may hold: its types, a named shape (:data:`ANY_MAP`,
:data:`NAME_LIST`, ...), a section with a scalar shorthand, or a nested mapping's schema."""


class Switch(FrozenRecord):
    """A section that is either a scalar shorthand (``cache: true``) or a mapping. (A frozen
    dataclass's behaviour, defined as a plain class: every start-up defines it.)"""

    __slots__ = ("scalar", "mapping", "shorthand_key")  # noqa: RUF023 - field order
    scalar: tuple[type, ...]
    mapping: dict[str, KeySpec]
    shorthand_key: str
    """The mapping key a scalar stands for."""

    def __init__(
        self, scalar: tuple[type, ...], mapping: dict[str, KeySpec], shorthand_key: str = "enabled"
    ) -> None:
        init = object.__setattr__
        init(self, "scalar", scalar)
        init(self, "mapping", mapping)
        init(self, "shorthand_key", shorthand_key)


MODEL_KEYS: dict[str, KeySpec] = {
    "provider": (str,),
    "name": (str, NONE),
    "options": ANY_MAP,
    "context_tokens": (int, NONE),
    # a remote model's keys, declared once with their checks and defaults by the providers
    **{key: spec.types for key, spec in REMOTE_KEYS.items()},
}
FINALIZE_KEYS: dict[str, KeySpec] = {
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

OPTIONAL_ENV_KEYS = frozenset({"base_url", "api_key"})
"""Keys whose ``${VAR}`` may be unset: the key is then None (the error can name ``VAR``)."""
SECRET_KEYS = frozenset({"api_key"})
"""Keys whose values are secrets: registered for redaction, never shown in messages."""
