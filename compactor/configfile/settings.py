"""The sections of a config file as one typed tree, every key declared once (issue 29).

A key is a dataclass field whose metadata is its :class:`Key`: the YAML types a file may give
(the schema :mod:`.composer` checks, :func:`schema_of`), the default a run uses when no layer
sets it (``config show`` prints it, :meth:`Section.value` returns it), and its range check. A
*layer* (the built-in defaults, a config file, the command line's flags) is an instance of the
same tree whose unset keys are None; :func:`overlay` resolves layers, later non-None values
winning, as the Agents SDK's ``ModelSettings.resolve`` does. The root of the tree is
:class:`~.fileconfig.FileConfig`.

A default that a library dataclass already declares (``RetentionConfig.max_anchors``,
``SummaryCheck.min_tokens``) is read from it (:func:`field_default`), one that a library
constant declares (``compactor.sizes.DEFAULT_MAX_BYTES``) from that, never written again here.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, TypeVar

from compactor._json import JsonObject, JsonValue
from compactor._util import FrozenRecord
from compactor.errors import ConfigError

from .schema import MODEL_LIST, NAME_LIST, NONE, NUM, PATTERN_LIST, KeySpec, Switch

__all__ = [
    "Cache",
    "Failover",
    "Input",
    "Keep",
    "Key",
    "Limits",
    "LoopGuard",
    "MaskSecrets",
    "PreserveUser",
    "Reduction",
    "Retention",
    "Retry",
    "Section",
    "SummaryChecks",
    "Trigger",
    "declared",
    "field_default",
    "overlay",
    "schema_of",
    "section",
    "setting",
]

T = TypeVar("T")
S = TypeVar("S", bound="Section")
V = TypeVar("V")

_CONFIG = "compactor.counting.config"


class Key(FrozenRecord):
    """The declaration of one config key. (A frozen dataclass's behaviour, defined as a plain
    class: every start-up defines it.)"""

    __slots__ = ("types", "given_default", "check", "inherit")  # noqa: RUF023 - field order
    types: KeySpec
    """A tuple of the YAML types a file may give, or a :mod:`.schema` marker."""
    given_default: object
    """The value a run uses when no layer sets the key (None: unset means off or none)."""
    check: Callable[[object, str], None] | None
    """``(value, dotted key)``: a ConfigError for a value out of range, with the key."""
    inherit: str
    """``module:Class.field`` (or ``module:NAME``) whose default this key's is: declared by the
    library dataclass the key becomes, read only when asked (``compact check`` never imports
    :mod:`compactor.counting.config`)."""

    def __init__(
        self,
        types: KeySpec,
        given_default: object = None,
        check: Callable[[object, str], None] | None = None,
        inherit: str = "",
    ) -> None:
        init = object.__setattr__
        init(self, "types", types)
        init(self, "given_default", given_default)
        init(self, "check", check)
        init(self, "inherit", inherit)

    @property
    def default(self) -> JsonValue:
        """The value a run uses when no layer sets the key."""
        if not self.inherit:
            return self.given_default
        module, _, path = self.inherit.partition(":")
        owner, _, name = path.partition(".")
        found = getattr(importlib.import_module(module), owner)
        return field_default(found, name) if name else found


def section(cls: type[S]) -> S | None:
    """A section of the root: None in a layer that does not give it."""
    return field(default=None, metadata={"section": cls})


def setting(
    types: KeySpec,
    default: object = None,
    check: Callable[[object, str], None] | None = None,
    *,
    inherit: str = "",
) -> V | None:
    """A field of the tree: None in a layer that does not set it, declared by a :class:`Key`
    (a field specifier, like ``dataclasses.field``: the field's annotation types its value)."""
    return field(default=None, metadata={"key": Key(types, default, check, inherit)})


def field_default(cls: type, name: str) -> JsonValue:
    """The default of field ``name`` of the dataclass ``cls`` (the one place it is declared)."""
    for f in dataclasses.fields(cls):
        if f.name == name:
            return f.default
    raise AttributeError(name)


# -- range checks (the message names the key) ---------------------------------------------------


def non_negative(value: object, key: str) -> None:
    from compactor.counting.config import check_non_negative

    check_non_negative(value, key)


def non_negative_number(value: object, key: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise ConfigError(f"{key} must be a non-negative number, got {value!r}", key=key)
    if not math.isfinite(value):
        raise ConfigError(f"{key} must be a non-negative number, got {value!r}", key=key)


def ratio(value: object, key: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return  # true: the default; false: off (the schema admits no other type)
    if not 0 < value <= 1:
        raise ConfigError(f"{key} must be in (0, 1]", key=key)


def positive_factor(value: object, key: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return
    if not (math.isfinite(value) and value > 0):
        raise ConfigError(f"{key} must be a positive number", key=key)


def positive_bytes(value: object, key: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{key} must be a positive number of bytes, got {value!r}", key=key)


def auto_or_bool(value: object, key: str) -> None:
    if not isinstance(value, bool) and value != "auto":
        raise ConfigError(f"{key} must be true, false or auto, got {value!r}", key=key)


# -- the sections -------------------------------------------------------------------------------


class Section:
    """A section of a config file; every field is a :func:`setting`."""

    SWITCH: ClassVar[tuple[tuple[type, ...], str] | None] = None
    """(scalar types, key) when ``section: SCALAR`` stands for ``{key: SCALAR}``."""

    # Not the dataclass ones, which are generated per class at import (start-up pays it).
    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.given()!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Section)
            and type(other) is type(self)
            and self.given() == other.given()
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass's own

    @classmethod
    def keys(cls) -> dict[str, Key]:
        return {f.name: f.metadata["key"] for f in dataclasses.fields(cls)}  # type: ignore[arg-type]

    @classmethod
    def from_mapping(cls: type[T], data: Mapping[str, JsonValue] | None) -> T | None:
        """The section of a file's mapping (already type-checked), None when absent."""
        if data is None:
            return None
        return cls(**data)

    def value(self, name: str) -> JsonValue:
        """The key's value, else its declared default."""
        value = getattr(self, name)
        return self.keys()[name].default if value is None else value

    def given(self) -> JsonObject:
        """The keys this layer sets, as written."""
        return {k: getattr(self, k) for k in self.keys() if getattr(self, k) is not None}

    def effective(self) -> JsonObject:
        """Every key: its value, else its default."""
        return {k: self.value(k) for k in self.keys()}

    def check(self, prefix: str, error: Callable[[str, str], ConfigError]) -> None:
        """Run every key's range check; ``error(key, message)`` locates the failure."""
        for name, key in self.keys().items():
            value = getattr(self, name)
            if value is not None and key.check is not None:
                try:
                    key.check(value, f"{prefix}.{name}")
                except ConfigError as err:
                    raise error(err.key or f"{prefix}.{name}", err.message) from err


@dataclass(kw_only=True, repr=False, eq=False)
class Trigger(Section):
    """``trigger``: absent → the 160,000-token default (:mod:`compactor.counting.trigger`)."""

    context_tokens: int | None = setting((int,), 0)
    context_messages: int | None = setting((int,), 0)
    context_fraction: float | None = setting(NUM, 0.0)
    window_tokens: int | None = setting((int,), 0)
    agent_model: str | None = setting((str, NONE))


@dataclass(kw_only=True, repr=False, eq=False)
class PreserveUser(Section):
    """``preserve_user_messages`` (SPEC §5.2)."""

    enabled: bool | None = setting((bool,), True)
    max_tokens: int | None = setting((int, NONE))


@dataclass(kw_only=True, repr=False, eq=False)
class Retry(Section):
    """``retry``: the primary model's retries (absent: these defaults too: two more tries)."""

    max_retries: int | None = setting((int,), 2)
    initial_delay: float | None = setting(NUM, 1.0, non_negative_number)
    max_delay: float | None = setting(NUM, 10.0)


@dataclass(kw_only=True, repr=False, eq=False)
class Failover(Section):
    """``failover``: absent → no failover. ``max_delay`` unset: ``retry.max_delay``."""

    max_retries: int | None = setting((int,), inherit=f"{_CONFIG}:DEFAULT_MAX_RETRIES")
    max_delay: float | None = setting(NUM)
    models: list[JsonObject] | None = setting(MODEL_LIST, ())


@dataclass(kw_only=True, repr=False, eq=False)
class Keep(Section):
    """``keep``: the verbatim tail after the summary."""

    messages: int | None = setting((int, NONE))
    tokens: int | None = setting((int, NONE))


@dataclass(kw_only=True, repr=False, eq=False)
class LoopGuard(Section):
    """``loop_guard``: ``false`` turns both guards off; ``true`` is a key's default."""

    SWITCH = ((bool, int, float), "max_ratio")
    max_ratio: float | bool | None = setting((bool, int, float), 0.5, ratio)
    max_growth: float | bool | None = setting((bool, int, float), 2.0, positive_factor)


@dataclass(kw_only=True, repr=False, eq=False)
class MaskSecrets(Section):
    """``mask_secrets``: ``auto`` = on when a model of the chain is remote."""

    SWITCH = ((bool, str), "enabled")
    enabled: bool | str | None = setting((bool, str), "auto", auto_or_bool)
    patterns: list[dict[str, str]] | None = setting(PATTERN_LIST, ())


@dataclass(kw_only=True, repr=False, eq=False)
class Cache(Section):
    """``cache``: absent → on for remote models; given → on unless ``enabled: false``."""

    SWITCH = ((bool,), "enabled")
    enabled: bool | None = setting((bool,), True)
    dir: str | None = setting((str, NONE))


@dataclass(kw_only=True, repr=False, eq=False)
class Retention(Section):
    """``retention``: absent → off; given → on unless ``enabled: false``."""

    SWITCH = ((bool,), "enabled")
    enabled: bool | None = setting((bool,), True)
    max_anchors: int | None = setting((int,), inherit=f"{_CONFIG}:RetentionConfig.max_anchors")
    max_facts: int | None = setting((int,), inherit=f"{_CONFIG}:RetentionConfig.max_facts")


@dataclass(kw_only=True, repr=False, eq=False)
class Limits(Section):
    """``limits``: what one ``compact run`` may send to remote summarizers."""

    max_requests: int | None = setting((int, NONE), None, non_negative)
    max_input_tokens: int | None = setting((int, NONE), None, non_negative)


@dataclass(kw_only=True, repr=False, eq=False)
class Input(Section):
    """``input``: the longest line and the largest transcript a read holds."""

    max_line_bytes: int | None = setting(
        (int,), None, positive_bytes, inherit="compactor.sizes:DEFAULT_MAX_LINE_BYTES"
    )
    max_bytes: int | None = setting(
        (int,), None, positive_bytes, inherit="compactor.sizes:DEFAULT_MAX_BYTES"
    )


@dataclass(kw_only=True, repr=False, eq=False)
class SummaryChecks(Section):
    """``summary_check``: absent → any reply."""

    min_tokens: int | None = setting((int,), inherit=f"{_CONFIG}:SummaryCheck.min_tokens")
    require_sections: bool | None = setting(
        (bool,), inherit=f"{_CONFIG}:SummaryCheck.require_sections"
    )


@dataclass(kw_only=True, repr=False, eq=False)
class Reduction(Section):
    """``reduction`` (SPEC §10): unset keys take :class:`compactor.reduction.ReductionConfig`'s
    defaults (declared there; :mod:`.strategy` reads them)."""

    max_length_for_trunc: int | None = setting((int, NONE))
    trunc_exclude_tools: list[str] | None = setting(NAME_LIST)
    trunc_preview_chars: int | None = setting((int,))
    max_tokens_for_clear: int | None = setting((int,))
    clear_retention_suffix_limit: int | None = setting((int,))
    clear_at_least_tokens: int | None = setting((int,))
    clear_exclude_tools: list[str] | None = setting(NAME_LIST)
    read_file_tool_name: str | None = setting((str, NONE))
    offload: bool | None = setting((bool,), True)
    offload_dir: str | None = setting((str, NONE))

    def get(self, name: str, fallback: JsonValue = None) -> JsonValue:
        """The key's value, else ``fallback`` (the section read as the mapping it was)."""
        value = getattr(self, name, None)
        return fallback if value is None else value


# -- the tree as a whole ------------------------------------------------------------------------


def schema_of(cls: type) -> dict[str, KeySpec]:
    """The schema :mod:`.composer` checks a file against: each key's types, a section's own
    schema (a :class:`~.schema.Switch` for a section with a scalar shorthand)."""
    out: dict[str, KeySpec] = {}
    for f in dataclasses.fields(cls):
        if "key" in f.metadata:
            out[f.name] = f.metadata["key"].types
        elif "section" in f.metadata:
            section: type[Section] = f.metadata["section"]
            inner = {k: key.types for k, key in section.keys().items()}
            switch = section.SWITCH
            out[f.name] = Switch(switch[0], inner, switch[1]) if switch else inner
    return out


def declared(cls: type, prefix: str = "") -> Iterator[tuple[str, Key]]:
    """(dotted key, declaration) of every key of the tree rooted at ``cls``."""
    for f in dataclasses.fields(cls):
        if "key" in f.metadata:
            yield prefix + f.name, f.metadata["key"]
        elif "section" in f.metadata:
            yield from declared(f.metadata["section"], f"{prefix}{f.name}.")


def overlay(*layers: T) -> T:
    """The layers of one tree resolved: for each key, the last layer's non-None value wins; a
    section given by several layers is resolved key by key (the Agents SDK's
    ``ModelSettings.resolve``). Fields without a declaration are taken from the last layer."""
    last = layers[-1]
    values: JsonObject = {}
    for f in dataclasses.fields(last):  # type: ignore[arg-type]
        given = [getattr(layer, f.name) for layer in layers if getattr(layer, f.name) is not None]
        if "section" in f.metadata and len(given) > 1:
            values[f.name] = overlay(*given)
        elif "section" in f.metadata or "key" in f.metadata:
            values[f.name] = given[-1] if given else None
    return dataclasses.replace(last, **values)  # type: ignore[type-var]
