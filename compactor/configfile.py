"""YAML config files for ``compact`` (SPEC §9.4), loadable without the CLI.

:func:`load_config_file` parses a file with :func:`yaml.compose`, so every key keeps its line:
unknown keys and wrong types raise :class:`ConfigError` naming file, line and key (with a
"did you mean" suggestion). ``${VAR}`` and ``${VAR:-default}`` are expanded in string values; an
unset variable without a default is an error, except for the optional ``base_url`` and
``api_key``, which then stay unset. :func:`build_config` turns a :class:`FileConfig` plus CLI
overrides into a :class:`compactor.Config`.

No rich or typer here: library users can load the same files.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._util import MIN_FREE_TEXT_SECRET, register_secret, url_credentials
from .errors import ConfigError, ModelError
from .tokens import TokenCounter, load_callable, resolve_token_counter
from .trigger import TriggerCondition

if TYPE_CHECKING:  # yaml is imported where a file is parsed: `compact check` without -c skips it
    import yaml

    from .config import (
        Config,
        FailoverContext,
        KeepTail,
        PreserveUserMessages,
        RetentionConfig,
        SummaryCheck,
    )
    from .limits import SpendLimits

__all__ = [
    "CONFIG_ENV",
    "MAX_CONFIG_BYTES",
    "MAX_CONFIG_DEPTH",
    "MAX_CONFIG_VALUES",
    "FileConfig",
    "Overrides",
    "UnbuiltModel",
    "any_remote",
    "build_config",
    "check_config",
    "exponential_backoff",
    "is_headers_key",
    "load_config_file",
    "load_default_config",
    "mask_secrets",
    "parse_config_text",
]

CONFIG_ENV = "COMPACT_CONFIG"
"""Environment variable naming the config file used when ``-c`` is not given."""

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"

DEFAULT_FILE_MAX_DELAY = 10.0
"""``retry.max_delay`` (and ``failover.max_delay``) when the file does not set it: SPEC §9.4."""

DEFAULT_LOOP_GUARD = 0.5
"""``compact run`` refuses a compaction that keeps this share of the tokens or more."""

DEFAULT_MAX_GROWTH = 2.0
"""``compact run --force`` refuses a compaction that grows the transcript past this many
times its tokens (a summary's fixed preamble and user block may grow a tiny one a little)."""

_NONE = type(None)
_NUM = (int, float)

# A key's schema: a tuple of accepted types, a nested mapping schema, or one of the markers.
_ANY_MAP = "any-mapping"
_MODEL_LIST = "model-list"
_FINALIZE = "finalize"


@dataclass(frozen=True)
class _Switch:
    """A section that is either a scalar shorthand (``cache: true``) or a mapping."""

    scalar: tuple[type, ...]
    mapping: dict[str, Any]
    shorthand_key: str = "enabled"
    """The mapping key a scalar stands for."""


_MODEL: dict[str, Any] = {
    "provider": (str,),
    "name": (str, _NONE),
    "base_url": (str, _NONE),
    "api_key": (str, _NONE),
    "timeout": (int, float, _NONE),
    "options": _ANY_MAP,
    "context_tokens": (int, _NONE),
    "max_response_bytes": (int,),
    "input": (str, _NONE),
}
_PRESERVE_SKILLS: dict[str, Any] = {
    "skill_tool_name": (str,),
    "max_skills": (int,),
    "max_tokens_per_skill": (int,),
    "skills_token_budget": (int,),
}
_SCHEMA: dict[str, Any] = {
    "model": _MODEL,
    "trigger": {
        "context_tokens": (int,),
        "context_messages": (int,),
        "context_fraction": _NUM,
        "window_tokens": (int,),
        "agent_model": (str, _NONE),
    },
    "token_counter": (str, _NONE),
    "user_instruction": (str, _NONE),
    "user_instruction_file": (str, _NONE),
    "transcript_file_path": (str, _NONE),
    "preserve_user_messages": {"enabled": (bool,), "max_tokens": (int, _NONE)},
    "retry": {"max_retries": (int,), "initial_delay": _NUM, "max_delay": _NUM},
    "failover": {"max_retries": (int,), "max_delay": _NUM, "models": _MODEL_LIST},
    "finalize": _FINALIZE,
    "callback": (str, _NONE),
    "gen_model_input": (str, _NONE),
    "format": (str, _NONE),
    "archive_dir": (str, _NONE),
    "keep": {"messages": (int, _NONE), "tokens": (int, _NONE)},
    "fallback": (str, _NONE),
    "loop_guard": _Switch(
        (bool, int, float),
        {"max_ratio": (bool, int, float), "max_growth": (bool, int, float)},
        "max_ratio",
    ),
    "mask_secrets": _Switch(
        (bool, str), {"enabled": (bool, str), "patterns": "pattern-list"}, "enabled"
    ),
    "cache": _Switch((bool,), {"enabled": (bool,), "dir": (str, _NONE)}),
    "retention": _Switch((bool,), {"enabled": (bool,), "max_anchors": (int,), "max_facts": (int,)}),
    "reply_reserve_tokens": (int,),
    "max_summary_tokens": (int, _NONE),
    "limits": {"max_requests": (int, _NONE), "max_input_tokens": (int, _NONE)},
    "summary_check": {"min_tokens": (int,), "require_sections": (bool,)},
    "prices": "price-table",
}
_OPTIONAL_ENV_KEYS = frozenset({"base_url", "api_key"})
_SECRET_KEYS = frozenset({"api_key"})
_ENV_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass(kw_only=True)
class FileConfig:
    """A parsed config file (or the defaults when there is none). Values are plain data."""

    path: str | None = None
    """The file it came from (None = built-in defaults)."""
    model: dict[str, Any] | None = None
    """``provider``, ``name``, ``base_url``, ``api_key``, ``timeout``, ``options``."""
    trigger: dict[str, Any] | None = None
    token_counter: str | None = None
    user_instruction: str | None = None
    user_instruction_file: str | None = None
    transcript_file_path: str | None = "auto"
    """``auto`` (input path or its archive), ``none``, or a path."""
    preserve_user_messages: dict[str, Any] | None = None
    retry: dict[str, Any] | None = None
    failover: dict[str, Any] | None = None
    finalize: Any = None
    """None, ``pkg.mod:func`` or ``{preserve_skills: {...}, system_prompt: "..."}``."""
    callback: str | None = None
    gen_model_input: str | None = None
    format: str | None = None
    archive_dir: str | None = None
    keep: dict[str, Any] | None = None
    """``{messages: N}`` or ``{tokens: N}``: the verbatim tail after the summary."""
    fallback: str | None = None
    """``local``: the embedded summarizer as the last rung after retry and failover."""
    loop_guard: dict[str, Any] | None = None
    """``{max_ratio: 0.5, max_growth: 2}`` (the defaults), or ``false`` to turn both off."""
    mask_secrets: dict[str, Any] | None = None
    """``{enabled: auto|true|false, patterns: [{name, regex}]}``; auto = on for remote models."""
    cache: dict[str, Any] | None = None
    """``{enabled: true, dir: PATH}``: reuse summaries of identical summarizer requests. No
    section: on for remote models, in ``$XDG_CACHE_HOME/compact/summaries``; ``false``: off."""
    retention: dict[str, Any] | None = None
    """``{enabled: true, max_anchors: 200, max_facts: 50}``."""
    reply_reserve_tokens: int | None = None
    max_summary_tokens: int | None = None
    """A reply estimated above this many tokens is a failed attempt (see ``Config``)."""
    limits: dict[str, Any] | None = None
    """``{max_requests: N, max_input_tokens: N}``: what one ``compact run`` (a file or a whole
    batch) may send to remote summarizers (:mod:`compactor.limits`)."""
    summary_check: dict[str, Any] | None = None
    """``{min_tokens: N, require_sections: true}``: a reply below it is a failed attempt."""
    prices: dict[str, dict[str, float]] | None = None
    """Model name → ``{input, output}`` USD per million tokens (``check --explain``)."""
    lines: dict[str, int] = field(default_factory=dict, repr=False)
    """Dotted key → line number (1-based), for error messages."""
    unset_env: dict[str, str] = field(default_factory=dict, repr=False)
    """Dotted key → the ``${VAR}`` it names that is not set, for the optional keys that
    became None for it (``model.api_key`` → ``MY_KEY``): the error can name the variable."""

    def __repr__(self) -> str:
        return f"FileConfig({self.to_dict(mask=True)!r})"

    def with_flags(
        self, *, threshold: int | None = None, token_counter: str | None = None
    ) -> FileConfig:
        """This config with the command line's ``--threshold`` and ``--token-counter``.

        ``--threshold N`` replaces the token conditions (``context_tokens``,
        ``context_fraction``) by ``context_tokens: N``; a ``context_messages`` condition stays.
        """
        if threshold is None and token_counter is None:
            return self
        lines = dict(self.lines)
        changes: dict[str, Any] = {}
        if threshold is not None:
            if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 1:
                raise ConfigError(
                    f"--threshold must be a positive number of tokens, got {threshold!r}"
                )
            messages = (self.trigger or {}).get("context_messages", 0)
            changes["trigger"] = {"context_tokens": threshold, "context_messages": messages}
            for key in [k for k in lines if k.startswith("trigger")]:
                del lines[key]
        if token_counter is not None:
            try:  # a bad name is an error of the flag, not of the file
                resolve_token_counter(token_counter)
            except ConfigError as err:
                raise ConfigError(f"--token-counter: {err.message}") from err
            changes["token_counter"] = token_counter
            lines.pop("token_counter", None)
        return dataclasses.replace(self, lines=lines, **changes)

    def error(self, key: str, message: str) -> ConfigError:
        """A ConfigError located at ``key`` of this file."""
        return ConfigError(message, path=self.path, line=self.lines.get(key), key=key)

    def trigger_condition(self) -> TriggerCondition | None:
        """The trigger, or None (= the 160,000-token default)."""
        if self.trigger is None:
            return None
        window = self.trigger.get("window_tokens", 0)
        agent_model = self.trigger.get("agent_model")
        if agent_model and not window:
            from .windows import KNOWN_WINDOWS, window_for

            found = window_for(agent_model)
            if found is None:
                raise self.error(
                    "trigger.agent_model",
                    f"unknown agent model {agent_model!r}: set trigger.window_tokens, or use "
                    f"one of {', '.join(sorted(KNOWN_WINDOWS))}",
                )
            window = found
        condition = TriggerCondition(
            context_tokens=self.trigger.get("context_tokens", 0),
            context_messages=self.trigger.get("context_messages", 0),
            context_fraction=float(self.trigger.get("context_fraction", 0.0)),
            window_tokens=window,
        )
        # The same checks as compactor.new() (SPEC §2), located at the key in the file.
        for key in ("context_tokens", "context_messages", "window_tokens"):
            if getattr(condition, key) < 0:
                raise self.error(f"trigger.{key}", f"trigger.{key} must be non-negative")
        if not 0 <= condition.context_fraction <= 1:
            raise self.error(
                "trigger.context_fraction", "trigger.context_fraction must be between 0 and 1"
            )
        if condition.context_fraction > 0 and not condition.window_tokens:
            raise self.error(
                "trigger.context_fraction",
                "trigger.context_fraction needs trigger.window_tokens or trigger.agent_model",
            )
        if (
            condition.context_tokens == 0
            and condition.context_messages == 0
            and condition.context_fraction == 0
        ):
            raise self.error(
                "trigger", "at least one of context_tokens or context_messages must be positive"
            )
        return condition

    def loop_guard_ratio(self) -> float | None:
        """The loop guard's max ratio: 0.5 unless the file turns it off or sets another."""
        if self.loop_guard is None:
            return DEFAULT_LOOP_GUARD
        value = self.loop_guard.get("max_ratio", DEFAULT_LOOP_GUARD)
        if value is False or value is None:
            return None
        if value is True:
            return DEFAULT_LOOP_GUARD
        if not 0 < float(value) <= 1:
            raise self.error("loop_guard.max_ratio", "loop_guard.max_ratio must be in (0, 1]")
        return float(value)

    def loop_guard_growth(self) -> float | None:
        """The most a compaction may grow a transcript (``--force`` on a small one): 2× unless
        the file sets ``max_growth`` or turns the loop guard off (``loop_guard: false``)."""
        if self.loop_guard is None:
            return DEFAULT_MAX_GROWTH
        if "max_growth" not in self.loop_guard:
            off = self.loop_guard.get("max_ratio") is False
            return None if off else DEFAULT_MAX_GROWTH
        value = self.loop_guard["max_growth"]
        if value is False or value is None:
            return None
        if value is True:
            return DEFAULT_MAX_GROWTH
        if not (math.isfinite(float(value)) and float(value) > 0):
            raise self.error(
                "loop_guard.max_growth", "loop_guard.max_growth must be a positive number"
            )
        return float(value)

    def masking(self, models: list[dict[str, Any]]) -> bool:
        """Whether secrets are masked: ``auto`` = when any configured model is remote."""
        setting = (self.mask_secrets or {}).get("enabled", "auto")
        if isinstance(setting, bool):
            return setting
        if setting != "auto":
            raise self.error(
                "mask_secrets.enabled",
                f"mask_secrets.enabled must be true, false or auto, got {setting!r}",
            )
        return any_remote(models)

    def secret_patterns(self) -> tuple[tuple[str, str], ...]:
        return tuple(
            (p["name"], p["regex"]) for p in (self.mask_secrets or {}).get("patterns") or []
        )

    def summary_cache(
        self, enabled: bool | None = None, models: list[dict[str, Any]] | None = None
    ) -> Any:
        """A :class:`compactor.cache.SummaryCache`, or None. ``enabled`` (``--cache`` /
        ``--no-cache``) wins; else ``cache: false`` turns it off, a ``cache`` section turns it
        on, and without one it is on when a model of the chain is remote (``models``), so a
        second CI run on the same transcript makes no request."""
        if enabled is not None:
            on = enabled
        elif self.cache is not None:
            on = self.cache.get("enabled", True)
        else:
            on = any_remote(models or [])
        if not on:
            return None
        from .cache import SummaryCache

        return SummaryCache(self.cache_dir())

    def cache_dir(self) -> Path:
        """The summary cache's folder: ``cache.dir`` (relative to the config file), else
        ``$XDG_CACHE_HOME/compact/summaries`` (``compact cache info`` / ``clear`` use it too)."""
        from .cache import default_cache_dir

        folder = (self.cache or {}).get("dir")
        if not folder:
            return default_cache_dir()
        folder = os.path.expanduser(folder)
        if not os.path.isabs(folder) and self.path:
            folder = os.path.join(os.path.dirname(self.path), folder)
        return Path(os.path.abspath(folder))

    def spend_limits(self) -> SpendLimits | None:
        """The spend limits (None: no ``limits`` section, or one with no limit set)."""
        from .limits import SpendLimits

        values = {k: v for k, v in (self.limits or {}).items() if v is not None}
        for key, value in values.items():
            if value < 0:
                raise self.error(f"limits.{key}", f"limits.{key} must be non-negative")
        return SpendLimits(**values) if values else None

    def keep_tail(self) -> KeepTail | None:
        from .config import KeepTail

        if not self.keep:
            return None
        for key in ("messages", "tokens"):
            value = self.keep.get(key)
            if value is not None and value < 0:
                raise self.error(f"keep.{key}", f"keep.{key} must be non-negative")
        return KeepTail(messages=self.keep.get("messages"), tokens=self.keep.get("tokens"))

    def retention_config(self) -> RetentionConfig | None:
        from .config import RetentionConfig

        if self.retention is None or not self.retention.get("enabled", True):
            return None
        values = {k: v for k, v in self.retention.items() if k != "enabled"}
        for key, value in values.items():
            if value < 0:
                raise self.error(f"retention.{key}", f"retention.{key} must be non-negative")
        return RetentionConfig(**values)

    def strip_analysis(self) -> bool:
        return isinstance(self.finalize, dict) and bool(self.finalize.get("strip_analysis"))

    def ensure_user_messages(self) -> bool:
        """``finalize.ensure_user_messages``: on unless the file turns it off. A reply without
        an ``<all_user_messages>`` block still gets the user's messages (overrides SPEC §5.2,
        where no tag leaves the text as it is; the library keeps SPEC's default)."""
        if isinstance(self.finalize, dict):
            return bool(self.finalize.get("ensure_user_messages", True))
        return True

    def summary_check_config(self) -> SummaryCheck | None:
        """``summary_check``, validated at its keys; None when the file has none."""
        from .config import SummaryCheck

        if not self.summary_check:
            return None
        floor = self.summary_check.get("min_tokens", 0)
        if floor < 0:
            raise self.error("summary_check.min_tokens", "summary_check.min_tokens must be >= 0")
        return SummaryCheck(
            min_tokens=floor, require_sections=self.summary_check.get("require_sections", False)
        )

    def counter(self) -> TokenCounter:
        """The token counter named by ``token_counter``."""
        try:
            return resolve_token_counter(self.token_counter)
        except ConfigError as err:
            raise self.error("token_counter", err.message) from err

    def attempts(self) -> tuple[int, int]:
        """(primary attempts, failover attempts) this config allows: ``retry.max_retries`` + 1
        (1 without a retry section) and ``failover.max_retries`` (0 without failover)."""
        retry = (self.retry or {}).get("max_retries", 3) if self.retry is not None else 0
        failover = (self.failover or {}).get("max_retries", 3) if self.failover is not None else 0
        return retry + 1, failover

    def counter_name(self) -> str:
        return self.token_counter or "estimate"

    def to_dict(self, *, mask: bool = True) -> dict[str, Any]:
        """The effective settings as plain data; unless ``mask`` is False every secret is
        masked (see :func:`mask_secrets`): API keys, header values, URL credentials."""
        data = {
            f.name: copy.deepcopy(getattr(self, f.name))
            for f in dataclasses.fields(self)
            if f.name not in ("lines", "unset_env")
        }
        return mask_secrets(data) if mask else data


@dataclass(kw_only=True)
class Overrides:
    """CLI flags; None = keep the file's value."""

    model: str | None = None
    """``openai:NAME`` or ``local``."""
    transcript_file_path: str | None = None
    format: str | None = None
    cache: bool | None = None
    """``--cache`` / ``--no-cache``."""
    fallback: str | None = None
    """``--fallback local|none``."""


def any_remote(models: list[dict[str, Any]]) -> bool:
    """Whether a model of ``models`` (config mappings) calls a server (not ``local``)."""
    return any(m.get("provider") not in ("local", "scripted") for m in models)


def is_headers_key(key: object) -> bool:
    """Whether ``key`` holds HTTP headers (``extra_headers``, ``default_headers``, ...): every
    value under it is a secret (``api-key``, ``Authorization``, ...)."""
    return isinstance(key, str) and key.lower().replace("-", "_").endswith("headers")


def mask_secrets(data: Any) -> Any:
    """A copy of ``data`` with every secret masked: ``api_key`` values and the values of every
    ``*headers`` mapping become ``***``, the credentials of a URL (``base_url``) become
    ``http://***@host``."""
    from ._util import mask_url_credentials

    if isinstance(data, dict):
        out: dict[Any, Any] = {}
        for k, v in data.items():
            if k in _SECRET_KEYS and v:
                out[k] = "***"
            elif is_headers_key(k) and isinstance(v, dict):
                out[k] = dict.fromkeys(v, "***")
            elif isinstance(v, str):
                out[k] = mask_url_credentials(v) if "@" in v else v
            else:
                out[k] = mask_secrets(v)
        return out
    if isinstance(data, list):
        return [mask_url_credentials(v) if isinstance(v, str) else mask_secrets(v) for v in data]
    return data


# --------------------------------------------------------------------------------------------------
# Loading


def load_default_config(path: str | None = None) -> FileConfig:
    """``path``, else the file named by ``$COMPACT_CONFIG``, else the built-in defaults."""
    chosen = path or os.environ.get(CONFIG_ENV) or None
    if chosen is None:
        return FileConfig()
    return load_config_file(chosen)


def load_config_file(path: str | os.PathLike[str]) -> FileConfig:
    """Read and validate one YAML config file."""
    p = str(path)
    try:
        with open(p, "rb") as fh:
            data = fh.read(MAX_CONFIG_BYTES + 1)  # /dev/zero or a 2 GB file: never read whole
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigError(f"config file larger than {MAX_CONFIG_BYTES:,} bytes", path=p)
        text = data.decode("utf-8")
    except FileNotFoundError as err:
        raise ConfigError("config file not found", path=p) from err
    except IsADirectoryError as err:
        raise ConfigError("config path is a directory", path=p) from err
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"failed to read config file: {err}", path=p) from err
    return parse_config_text(text, path=p)


def parse_config_text(text: str, *, path: str = "<config>") -> FileConfig:
    """Validate YAML ``text`` (``path`` is only used in messages)."""
    import yaml

    try:
        root = _compose(text, path)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(err, "problem", None) or str(err)
        raise ConfigError(f"invalid YAML: {problem}", path=path, line=line) from err
    cfg = FileConfig(path=path)
    if root is None:
        return cfg
    if not isinstance(root, yaml.MappingNode):
        raise ConfigError(
            "the config file must be a mapping of keys", path=path, line=root.start_mark.line + 1
        )
    loader = _Loader(path, cfg.lines, cfg.unset_env)
    values = loader.mapping(root, _SCHEMA, "")
    for key, value in values.items():
        setattr(cfg, key, value)
    if cfg.transcript_file_path is None:
        cfg.transcript_file_path = "none"
    if cfg.user_instruction is not None and cfg.user_instruction_file is not None:
        raise cfg.error(
            "user_instruction_file", "set either user_instruction or user_instruction_file"
        )
    return cfg


MAX_CONFIG_BYTES = 1 << 20
"""A config file larger than this (1 MiB) is refused unread."""
MAX_CONFIG_DEPTH = 32
"""Mappings and lists nest at most this deep in a config file."""
MAX_CONFIG_VALUES = 10_000
"""A config file holds at most this many values, counted with every alias expanded."""

_CORE_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}"
    for name in ("str", "int", "float", "bool", "null", "seq", "map", "timestamp")
)
"""The tags a config may spell out (``!!str 123``); ``!!python/...`` and the like are refused."""


@dataclass(slots=True)
class _Open:
    """A mapping or list being composed: its node, its anchor and its size so far."""

    node: Any
    anchor: str | None
    size: int = 0
    """Values inside it so far, aliases expanded."""
    key: Any = None
    """Mappings: the key node whose value comes next (None: a key comes next)."""


def _compose(text: str, path: str) -> yaml.Node | None:
    """``yaml.compose(text)`` without its recursion and with limits, so that no file can hang,
    exhaust memory or run code.

    The events come from PyYAML's parser (a state machine); the nodes are built here on an
    explicit stack, so a 5,000-deep list is refused at level 33, not a RecursionError. Each
    anchor's size (aliases inside it expanded) is known when it closes, so an alias bomb is
    refused as soon as the expanded total passes :data:`MAX_CONFIG_VALUES`, without expanding
    anything; an alias to an anchor still open (``a: &x [*x]``) is refused as recursive; an
    explicit tag outside the core schema (``!!python/name:os.system``) is refused. Every
    refusal names the line and the key.
    """
    import yaml

    resolver: Any = yaml.resolver.Resolver()  # untyped in the stubs
    stack: list[_Open] = []
    anchors: dict[str, tuple[yaml.Node, int]] = {}
    root: yaml.Node | None = None
    documents = 0

    def fail(event: Any, message: str) -> ConfigError:
        return ConfigError(
            message, path=path, line=event.start_mark.line + 1, key=_open_key(stack) or None
        )

    def check_tag(event: Any) -> None:
        if event.tag not in (None, "!") and event.tag not in _CORE_TAGS:
            tag = str(event.tag).replace("tag:yaml.org,2002:", "!!")
            raise fail(event, f"unsupported YAML tag {tag!r}: a config holds plain data only")

    def attach(node: yaml.Node, size: int, event: Any) -> None:
        nonlocal root
        if not stack:
            root = node
            return
        top = stack[-1]
        if isinstance(top.node, yaml.MappingNode):
            if top.key is None:
                top.key = node
            else:
                top.node.value.append((top.key, node))
                top.key = None
        else:
            top.node.value.append(node)
        top.size += size
        if sum(o.size for o in stack) > MAX_CONFIG_VALUES:
            raise fail(
                event,
                f"the config expands to more than {MAX_CONFIG_VALUES:,} values (through "
                "aliases?): refused",
            )

    for event in yaml.parse(text):
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise fail(event, "a config file holds one YAML document, found a second")
        elif isinstance(event, yaml.ScalarEvent):
            check_tag(event)
            tag = event.tag
            if tag in (None, "!"):
                tag = resolver.resolve(yaml.ScalarNode, event.value, event.implicit)
            start: Any = event.start_mark  # the stubs give marks two Mark types
            end: Any = event.end_mark
            node: yaml.Node = yaml.ScalarNode(tag, event.value, start, end, style=event.style)
            if event.anchor is not None:
                anchors[event.anchor] = (node, 1)
            attach(node, 1, event)
        elif isinstance(event, yaml.AliasEvent):
            if any(o.anchor == event.anchor for o in stack):
                raise fail(event, f"recursive alias *{event.anchor}: refused")
            if event.anchor not in anchors:
                raise fail(event, f"undefined alias *{event.anchor}")
            node, size = anchors[event.anchor]
            attach(node, size, event)
        elif isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            check_tag(event)
            if len(stack) >= MAX_CONFIG_DEPTH:
                raise fail(event, f"nested more than {MAX_CONFIG_DEPTH} levels deep: refused")
            mapping = isinstance(event, yaml.MappingStartEvent)
            kind = yaml.MappingNode if mapping else yaml.SequenceNode
            tag = event.tag
            if tag in (None, "!"):
                tag = resolver.resolve(kind, None, event.implicit)
            start = event.start_mark
            node = kind(tag, [], start, None, flow_style=event.flow_style)
            stack.append(_Open(node, event.anchor))
        elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
            done = stack.pop()
            done.node.end_mark = event.end_mark
            if done.anchor is not None:
                anchors[done.anchor] = (done.node, done.size + 1)
            attach(done.node, done.size + 1, event)
    return root


def _open_key(stack: list[_Open]) -> str:
    """The dotted key of the value being composed (``model.options.x[3]``), for messages."""
    import yaml

    key = ""
    for item in stack:
        if isinstance(item.node, yaml.MappingNode):
            if item.key is None:
                break
            name = item.key.value if isinstance(item.key, yaml.ScalarNode) else "?"
            key = f"{key}.{name}" if key else str(name)
        else:
            key += f"[{len(item.node.value)}]"
    return key if len(key) <= 80 else key[:79] + "…"


class _Loader:
    def __init__(self, path: str, lines: dict[str, int], unset_env: dict[str, str]) -> None:
        self.path = path
        self.lines = lines
        self.unset_env = unset_env

    def err(self, node: yaml.Node, key: str, message: str) -> ConfigError:
        return ConfigError(message, path=self.path, line=node.start_mark.line + 1, key=key)

    def mapping(self, node: yaml.Node, schema: Mapping[str, Any], prefix: str) -> dict[str, Any]:
        import yaml

        if not isinstance(node, yaml.MappingNode):
            raise self.err(
                node, prefix.rstrip(".") or "<root>", f"expected a mapping, got {_kind(node)}"
            )
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            dotted = f"{prefix}{key}"
            if not isinstance(key, str) or key not in schema:
                message = f"unknown key {key!r}"
                close = difflib.get_close_matches(str(key), list(schema), n=1)
                if close:
                    message += f"; did you mean {close[0]!r}?"
                else:
                    message += "; known keys: " + ", ".join(sorted(schema))
                raise ConfigError(message, path=self.path, line=key_node.start_mark.line + 1)
            if key in out:
                raise self.err(key_node, dotted, "duplicate key")
            self.lines[dotted] = key_node.start_mark.line + 1
            out[key] = self.value(value_node, schema[key], dotted)
        return out

    def value(self, node: yaml.Node, spec: Any, key: str) -> Any:
        import yaml

        if isinstance(spec, dict):
            if _is_null(node):
                return None
            return self.mapping(node, spec, key + ".")
        if spec == _ANY_MAP:
            if _is_null(node):
                return {}
            if not isinstance(node, yaml.MappingNode):
                raise self.err(node, key, f"expected a mapping, got {_kind(node)}")
            return self.plain(node, key)
        if isinstance(spec, _Switch):
            if isinstance(node, yaml.MappingNode):
                return self.mapping(node, spec.mapping, key + ".")
            if not isinstance(node, yaml.ScalarNode):
                raise self.err(node, key, f"expected {_names(spec.scalar)} or a mapping")
            value = self.scalar(node, key)
            if value is None:
                return None
            if not _type_ok(value, spec.scalar):
                raise self.err(
                    node, key, f"expected {_names(spec.scalar)} or a mapping, got {value!r}"
                )
            return {spec.shorthand_key: value}
        if spec == "pattern-list":
            if not isinstance(node, yaml.SequenceNode):
                raise self.err(node, key, f"expected a list of {{name, regex}}, got {_kind(node)}")
            items = [
                self.mapping(item, {"name": (str,), "regex": (str,)}, f"{key}[{i}].")
                for i, item in enumerate(node.value)
            ]
            for i, (item, item_node) in enumerate(zip(items, node.value, strict=True)):
                if "name" not in item or "regex" not in item:
                    raise self.err(item_node, f"{key}[{i}]", "a pattern needs 'name' and 'regex'")
                try:
                    re.compile(item["regex"])
                except re.error as err:
                    raise self.err(
                        item_node, f"{key}[{i}].regex", f"invalid regular expression: {err}"
                    ) from err
            return items
        if spec == "price-table":
            if not isinstance(node, yaml.MappingNode):
                raise self.err(
                    node, key, f"expected a mapping of model → prices, got {_kind(node)}"
                )
            table: dict[str, Any] = {}
            for name_node, prices_node in node.value:
                name = str(name_node.value)
                table[name] = self.mapping(
                    prices_node, {"input": _NUM, "output": _NUM}, f"{key}.{name}."
                )
            return table
        if spec == _MODEL_LIST:
            if not isinstance(node, yaml.SequenceNode):
                raise self.err(node, key, f"expected a list of models, got {_kind(node)}")
            return [self.mapping(item, _MODEL, f"{key}[{i}].") for i, item in enumerate(node.value)]
        if spec == _FINALIZE:
            if _is_null(node) or isinstance(node, yaml.ScalarNode):
                value = self.scalar(node, key)
                if value is not None and not isinstance(value, str):
                    raise self.err(
                        node, key, f"expected 'pkg.mod:func' or a mapping, got {value!r}"
                    )
                return value
            return self.mapping(
                node,
                {
                    "preserve_skills": _PRESERVE_SKILLS,
                    "system_prompt": (str, _NONE),
                    "strip_analysis": (bool,),
                    "ensure_user_messages": (bool,),
                },
                key + ".",
            )
        if not isinstance(node, yaml.ScalarNode):
            raise self.err(node, key, f"expected {_names(spec)}, got {_kind(node)}")
        value = self.scalar(node, key)
        if not _type_ok(value, spec):
            shown = "a value of another type" if _leaf(key) in _SECRET_KEYS else repr(value)
            raise self.err(node, key, f"expected {_names(spec)}, got {shown}")
        if isinstance(value, str) and _leaf(key) in _SECRET_KEYS:
            register_secret(value)
        elif isinstance(value, str) and _leaf(key) == "base_url":
            for part in url_credentials(value):
                if part is not None and len(part) >= MIN_FREE_TEXT_SECRET:
                    register_secret(part)
        return value

    def plain(self, node: yaml.Node, key: str) -> Any:
        import yaml

        if isinstance(node, yaml.MappingNode):
            return {str(k.value): self.plain(v, f"{key}.{k.value}") for k, v in node.value}
        if isinstance(node, yaml.SequenceNode):
            return [self.plain(v, key) for v in node.value]
        value = self.scalar(node, key)
        if isinstance(value, str) and any(is_headers_key(part) for part in key.split(".")[:-1]):
            # a header value: masked in every later error, event, report and traceback
            if len(value) >= MIN_FREE_TEXT_SECRET:
                register_secret(value)
        return value

    def scalar(self, node: yaml.Node, key: str) -> Any:
        import yaml

        assert isinstance(node, yaml.ScalarNode)
        raw: str = node.value
        if node.tag != "tag:yaml.org,2002:str" or "${" not in raw:
            return _resolve_scalar(node)
        leaf = _leaf(key)
        missing: list[str] = []

        def repl(m: re.Match[str]) -> str:
            name, default = m.group(1), m.group(2)
            value = os.environ.get(name)
            if value is None or (value == "" and default is not None):
                if default is None:
                    missing.append(name)
                    return ""
                return default
            return value

        expanded = _ENV_RE.sub(repl, raw)
        if missing:
            if leaf in _OPTIONAL_ENV_KEYS and _ENV_RE.fullmatch(raw):
                self.unset_env[key] = missing[0]
                return None
            raise self.err(
                node,
                key,
                f"environment variable {missing[0]!r} is not set (use ${{{missing[0]}:-default}} "
                "for a default)",
            )
        if leaf in _SECRET_KEYS or node.style is not None:
            return expanded
        # An unquoted ${VAR} takes the type its value spells (``${TOKENS:-1000}`` → 1000).
        try:
            loaded = yaml.safe_load(expanded)
        except (yaml.YAMLError, RecursionError, ValueError):  # the environment is hostile too
            return expanded
        if isinstance(loaded, (int, float, bool)) and loaded is not None:
            return loaded
        return expanded


def _resolve_scalar(node: yaml.ScalarNode) -> Any:
    """The value of a scalar; one that does not make its implicit type (``2024-13-45`` looks
    like a date, ``=`` like a YAML value key) stays the text it is."""
    import yaml

    loader = yaml.SafeLoader("")
    try:
        return loader.construct_object(node, deep=True)
    except (yaml.YAMLError, ValueError, TypeError, OverflowError):
        return node.value
    finally:
        loader.dispose()


def _leaf(key: str) -> str:
    return key.rsplit(".", 1)[-1]


def _is_null(node: yaml.Node) -> bool:
    import yaml

    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null"


def _kind(node: yaml.Node) -> str:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    return repr(_resolve_scalar(node)) if isinstance(node, yaml.ScalarNode) else "?"


def _type_ok(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool):
        return bool in types
    return isinstance(value, types)


def _names(types: tuple[type, ...]) -> str:
    names = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}
    parts = [names.get(t, "null") for t in types if not (t is float and int in types)]
    if float in types and int in types:
        parts = [("a number" if p == "an integer" else p) for p in parts]
    return " or ".join(parts)


# --------------------------------------------------------------------------------------------------
# Building the library config


def exponential_backoff(initial: float, maximum: float) -> Callable[..., float]:
    """``min(initial·2^(attempt−1), maximum)``; a server's ``retry-after`` wins when given, up to
    ``maximum`` too (the retry engine caps every wait again at the phase's ``max_delay``)."""

    def backoff(attempt: int, response: Any = None, error: BaseException | None = None) -> float:
        if isinstance(error, ModelError) and error.retry_after is not None:
            return float(min(max(0.0, error.retry_after), maximum))
        return float(min(initial * 2.0 ** min(max(attempt - 1, 0), 64), maximum))

    return backoff


def _model_dict(file_cfg: FileConfig, overrides: Overrides) -> dict[str, Any]:
    if overrides.model:
        spec = overrides.model
        if spec == "local":
            return {"provider": "local"}
        provider, sep, name = spec.partition(":")
        if not sep or not name or provider != "openai":
            raise ConfigError(f"unknown model {spec!r}; expected 'openai:NAME' or 'local'")
        base = dict(file_cfg.model or {})
        if base.get("provider", "openai") != "openai":
            base = {}
        base.update(provider="openai", name=name)
        return base
    if file_cfg.model is None:
        if os.environ.get("OPENAI_API_KEY"):
            return {"provider": "openai", "name": DEFAULT_OPENAI_MODEL}
        return {"provider": "local"}
    return dict(file_cfg.model)


class UnbuiltModel:
    """Stands for a model :func:`check_config` validated but did not build."""

    name = "unbuilt"

    async def generate(self, messages: list[Any], **options: Any) -> Any:
        raise RuntimeError("check_config() validates models; it does not build them")


def _make_model(d: dict[str, Any], key: str, file_cfg: FileConfig, build: bool = True) -> Any:
    from .models.registry import check_model_config, model_from_config  # lazy: may import openai

    spec = {k: v for k, v in d.items() if k not in ("options", "context_tokens")}
    if spec.get("provider") == "local":
        spec = {"provider": "local"}
    if "provider" not in spec:
        has_key = spec.get("api_key") or os.environ.get("OPENAI_API_KEY")
        spec["provider"] = "openai" if has_key else "local"
    if spec["provider"] == "openai" and not spec.get("name"):
        spec["name"] = DEFAULT_OPENAI_MODEL
    if spec["provider"] == "openai" and not spec.get("api_key"):
        _check_key_variable(spec, key, file_cfg)
    try:
        if not build:
            check_model_config(spec)
            return UnbuiltModel()
        return model_from_config(spec)
    except ConfigError as err:
        # "model" + the registry's "provider" → the line of model.provider when the file has it
        sub = f"{key}.{err.key}" if err.key else key
        raise file_cfg.error(sub if sub in file_cfg.lines else key, err.message) from err


def _check_key_variable(spec: dict[str, Any], key: str, file_cfg: FileConfig) -> None:
    """``api_key: ${VAR}`` with VAR unset: name VAR in the error, instead of a generic "no API
    key", when the model is left without one (no ``base_url`` for a server that needs none),
    and never let ``$OPENAI_API_KEY`` stand in for another variable the file names."""
    var = file_cfg.unset_env.get(f"{key}.api_key")
    if var is None:
        return
    has_url = spec.get("base_url") or os.environ.get("OPENAI_BASE_URL")
    stand_in = var != "OPENAI_API_KEY" and os.environ.get("OPENAI_API_KEY")
    if has_url and not stand_in:
        return  # a local server that needs no key
    message = f"no API key: ${{{var}}} is not set"
    if stand_in:
        message += " (compact does not send $OPENAI_API_KEY in its place)"
    raise file_cfg.error(f"{key}.api_key", message)


def _load_ref(file_cfg: FileConfig, key: str, ref: str) -> Callable[..., Any]:
    try:
        return load_callable(ref, what=key)
    except ConfigError as err:
        raise file_cfg.error(key, err.message) from err


def _user_instruction(file_cfg: FileConfig) -> str | None:
    if file_cfg.user_instruction_file is None:
        return file_cfg.user_instruction
    p = Path(file_cfg.user_instruction_file)
    if not p.is_absolute() and file_cfg.path:
        p = Path(file_cfg.path).parent / p
    try:
        return p.read_text(encoding="utf-8")
    except OSError as err:
        raise file_cfg.error(
            "user_instruction_file", f"failed to read {str(p)!r}: {err.strerror or err}"
        ) from err


def transcript_path_setting(
    file_cfg: FileConfig, overrides: Overrides, auto: str | None
) -> str | None:
    """The transcript note's path: a flag wins; ``auto`` → ``auto``; ``none`` → None."""
    if overrides.transcript_file_path is not None:
        value = overrides.transcript_file_path
    else:
        value = file_cfg.transcript_file_path or "auto"
    if value == "none":
        return None
    if value == "auto":
        return auto
    return value


def _finalize(
    file_cfg: FileConfig, transcript_path: str | None, pum: PreserveUserMessages, budget: int
) -> Callable[..., Any] | None:
    spec = file_cfg.finalize
    if spec is None:
        return None
    if isinstance(spec, str):
        return _load_ref(file_cfg, "finalize", spec)
    if "preserve_skills" not in spec and spec.get("system_prompt") is None:
        return None  # e.g. only strip_analysis: the built-in finalizer does the rest
    from .finalize import PreserveSkillsConfig, _default_finalize, new_finalizer
    from .schema import make_system, message_kind

    system_prompt = spec.get("system_prompt")

    async def default_then_prompt(original: list[Any], summary: Any) -> list[Any]:
        out = await _default_finalize(original, summary, pum, budget, transcript_path)
        if system_prompt is not None:
            kind = message_kind(original) if original else type(out[-1])
            out = [make_system(kind, system_prompt), *[m for m in out if m.role != "system"]]
        return out

    builder = new_finalizer()
    if "preserve_skills" in spec:
        builder.preserve_skills(PreserveSkillsConfig(**(spec["preserve_skills"] or {})))
    builder.custom(default_then_prompt)
    try:
        return builder.build()
    except ConfigError as err:
        raise file_cfg.error("finalize", err.message) from err


def _reply_reserve(context: int | None, max_tokens: Any = None) -> int:
    """4,096 tokens for the reply, or a quarter of a small summarizer context, or the reply's
    own cap (``model.options.max_tokens``) when that is smaller."""
    reserve = 4_096 if context is None else min(4_096, context // 4)
    if isinstance(max_tokens, int) and not isinstance(max_tokens, bool) and max_tokens > 0:
        reserve = min(reserve, max_tokens)
    return reserve


def build_config(
    file_cfg: FileConfig,
    overrides: Overrides | None = None,
    *,
    transcript_path_auto: str | None = None,
    model: Any = None,
    build_models: bool = True,
) -> Config[Any]:
    """A :class:`compactor.Config` from the file plus CLI overrides.

    ``transcript_path_auto`` is what ``transcript_file_path: auto`` means for this run (the
    input's absolute path or its archive). ``model`` skips building the model from the file
    (tests pass a ScriptedModel). ``build_models=False`` validates the model settings but puts
    :class:`UnbuiltModel` placeholders in the config (see :func:`check_config`).
    """
    from .config import (  # here, not at the top: `compact check` never builds a Config
        Config,
        FailoverConfig,
        PreserveUserMessages,
        RetryConfig,
        validate_config,
    )

    ov = overrides or Overrides()
    if model is None:
        model = _make_model(_model_dict(file_cfg, ov), "model", file_cfg, build_models)
    options = dict((file_cfg.model or {}).get("options") or {})

    retry = None
    r = file_cfg.retry
    initial = r.get("initial_delay", 1.0) if r is not None else 1.0
    if not (isinstance(initial, int | float) and math.isfinite(initial) and initial >= 0):
        raise file_cfg.error(
            "retry.initial_delay",
            f"retry.initial_delay must be a non-negative number, got {initial!r}",
        )
    # Every wait, the server's retry-after included, is capped at max_delay (10 s by default).
    max_delay: float | None = None
    if r is not None:
        max_delay = r.get("max_delay", DEFAULT_FILE_MAX_DELAY)
        retry = RetryConfig(
            max_retries=r.get("max_retries", 3),
            backoff=exponential_backoff(initial, max_delay),
            max_delay=max_delay,
        )

    failover = None
    if file_cfg.failover is not None:
        f = file_cfg.failover
        models = [
            _make_model(d, f"failover.models[{i}]", file_cfg, build_models)
            for i, d in enumerate(f.get("models") or [])
        ]
        get_model: Callable[..., Any] | None = None
        if models:

            def get_model(ctx: FailoverContext[Any]) -> tuple[Any, None]:
                return models[(ctx.attempt - 1) % len(models)], None

        backoff = None
        if max_delay is not None:
            backoff = exponential_backoff(initial, max_delay)
        failover = FailoverConfig(
            max_retries=f.get("max_retries", 3),
            get_failover_model=get_model,
            backoff=backoff,
            # failover.max_delay, else retry.max_delay, else 10 s: no wait is ever longer
            max_delay=f.get(
                "max_delay", max_delay if max_delay is not None else DEFAULT_FILE_MAX_DELAY
            ),
        )

    pum_d = file_cfg.preserve_user_messages or {}
    pum = PreserveUserMessages(
        enabled=pum_d.get("enabled", True),
        max_tokens=pum_d.get("max_tokens"),
        ensure_block=file_cfg.ensure_user_messages(),
    )
    trigger = file_cfg.trigger_condition()
    budget = pum.max_tokens
    if budget is None:
        from .trigger import thresholds

        budget = (thresholds(trigger)[0] or 160_000) // 3
    transcript_path = transcript_path_setting(file_cfg, ov, transcript_path_auto)
    model_dicts = [_model_dict(file_cfg, ov), *((file_cfg.failover or {}).get("models") or [])]
    contexts = [d["context_tokens"] for d in model_dicts if d.get("context_tokens")]
    fallback_name = ov.fallback or file_cfg.fallback or "none"
    if fallback_name not in ("local", "none"):
        where = "fallback" if ov.fallback is None else "--fallback"
        raise file_cfg.error(where, f"fallback must be 'local' or 'none', got {fallback_name!r}")
    fallback_model = None
    if fallback_name == "local":
        from .models.local import LocalSummarizer

        fallback_model = LocalSummarizer()

    config: Config[Any] = Config(
        model=model,
        model_options=options,
        token_counter=file_cfg.counter(),
        trigger=trigger,
        user_instruction=_user_instruction(file_cfg),
        transcript_file_path=transcript_path,
        gen_model_input=(
            _load_ref(file_cfg, "gen_model_input", file_cfg.gen_model_input)
            if file_cfg.gen_model_input
            else None
        ),
        finalize=_finalize(file_cfg, transcript_path, pum, budget),
        callback=(
            _load_ref(file_cfg, "callback", file_cfg.callback) if file_cfg.callback else None
        ),
        preserve_user_messages=pum,
        retry=retry,
        failover=failover,
        summarizer_context_tokens=min(contexts) if contexts else None,
        reply_reserve_tokens=(
            file_cfg.reply_reserve_tokens
            if file_cfg.reply_reserve_tokens is not None
            else _reply_reserve(
                min(contexts) if contexts else None,
                options.get("max_tokens") or options.get("max_completion_tokens"),
            )
        ),
        fallback_model=fallback_model,
        loop_guard=file_cfg.loop_guard_ratio(),
        max_growth=file_cfg.loop_guard_growth(),
        keep=file_cfg.keep_tail(),
        mask_secrets=file_cfg.masking(model_dicts),
        secret_patterns=file_cfg.secret_patterns(),
        cache=file_cfg.summary_cache(ov.cache, model_dicts),
        retention=file_cfg.retention_config(),
        strip_analysis=file_cfg.strip_analysis(),
        max_summary_tokens=file_cfg.max_summary_tokens,
        summary_check=file_cfg.summary_check_config(),
    )
    file_cfg.spend_limits()  # a bad limit is exit 2 before any work, like every other key
    try:
        validate_config(config)
    except ConfigError as err:
        # "retry.max_retries must be non-negative" → locate the key in the file.
        key = err.message.split(" ", 1)[0]
        if key in file_cfg.lines:
            raise file_cfg.error(key, err.message) from err
        raise ConfigError(err.message, path=file_cfg.path) from err
    return config


def check_config(file_cfg: FileConfig, overrides: Overrides | None = None) -> None:
    """Raise the ConfigError :func:`build_config` would raise, without building any model.

    Everything else is done for real: ``pkg.mod:func`` references (``callback``,
    ``gen_model_input``, ``finalize``, ``token_counter``) are imported, the instruction file is
    read, models and ``--model`` are validated. No model backend (the openai client) is imported,
    so ``compact run`` can check its whole config before reading a transcript at no cost.
    """
    build_config(file_cfg, overrides, transcript_path_auto=None, build_models=False)
