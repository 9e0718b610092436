"""A parsed config file (:class:`FileConfig`) and its accessors, each validating its section.

Values are plain data; an accessor that finds a bad value raises :class:`ConfigError` located
at the key (file, line). The checks a :class:`compactor.Config` also needs are the ones of
:mod:`compactor.counting.config`, called here and located at the file's key.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from compactor._json import JsonObject, JsonValue
from compactor.counting.tokens import TokenCounter, resolve_token_counter
from compactor.counting.trigger import TriggerCondition
from compactor.errors import ConfigError

from .schema import FINALIZE, MODEL_KEYS, NONE, PRICE_TABLE, SECRET_KEYS, KeySpec
from .settings import (
    Cache,
    Failover,
    Input,
    Keep,
    Key,
    Limits,
    LoopGuard,
    MaskSecrets,
    PreserveUser,
    Reduction,
    Retention,
    Retry,
    Section,
    SummaryChecks,
    Trigger,
    overlay,
    schema_of,
    section,
    setting,
)

if TYPE_CHECKING:
    from compactor.counting.config import KeepTail, RetentionConfig, SummaryCheck
    from compactor.pipeline.cache import SummaryCache
    from compactor.pipeline.limits import SpendLimits
    from compactor.sizes import InputLimits

__all__ = [
    "DEFAULT_FILE_MAX_DELAY",
    "DEFAULT_LOOP_GUARD",
    "DEFAULT_MAX_GROWTH",
    "DEFAULT_RETRY",
    "SCHEMA",
    "FileConfig",
    "Overrides",
    "any_remote",
    "flag_layer",
    "is_headers_key",
    "is_secret_values_key",
    "mask_secrets",
]

T = TypeVar("T")

DEFAULT_FILE_MAX_DELAY: float = Retry.keys()["max_delay"].default
"""``retry.max_delay`` (and ``failover.max_delay``) when the file does not set it: SPEC §9.4
(declared by :class:`~.settings.Retry`)."""

DEFAULT_RETRY: JsonObject = Retry().effective()
"""The retry of a run whose config has no ``retry`` section (the command line's default, and
``configs/default.yaml``'s): a transient failure (HTTP 408, 409, 429, 5xx, a timeout, a dropped
connection) is tried twice more, after 1 s then 2 s, or after the server's ``Retry-After`` (at
most ``max_delay``), as the model SDKs would on their own. The library's ``Config()`` keeps Eino's
single call. Declared by :class:`~.settings.Retry`."""

DEFAULT_LOOP_GUARD: float = LoopGuard.keys()["max_ratio"].default
"""``compact run`` refuses a compaction that keeps this share of the tokens or more."""

DEFAULT_MAX_GROWTH: float = LoopGuard.keys()["max_growth"].default
"""``compact run --force`` refuses a compaction that grows the transcript past this many
times its tokens (a summary's fixed preamble and user block may grow a tiny one a little)."""


@dataclass(kw_only=True, repr=False)  # its own __repr__ masks secrets
class FileConfig:
    """The file/flag layer of a run's configuration: one typed tree (:mod:`.settings`).

    A parsed config file is one layer, the command line's flags another (:func:`flag_layer`);
    :meth:`resolve` lays them over each other. Every key is declared once, with its YAML types,
    default and range (:func:`~.settings.declared`); unset keys are None and read as their
    default through the accessors below, which validate their section at its key (file, line).
    """

    path: str | None = None
    """The file it came from (None = built-in defaults)."""
    model: JsonObject | None = setting(MODEL_KEYS)
    """``provider``, ``name``, ``base_url``, ``api_key``, ``timeout``, ``options``: a model's
    keys are its provider's (:data:`compactor.models.providers.REMOTE_KEYS`)."""
    trigger: Trigger | None = section(Trigger)
    token_counter: str | None = setting((str, NONE), "estimate")
    user_instruction: str | None = setting((str, NONE))
    user_instruction_file: str | None = setting((str, NONE))
    instructions: str | None = setting((str, NONE))
    """Focus instructions appended to the user instruction (``--instructions``)."""
    transcript_file_path: str | None = setting((str, NONE), "auto")
    """``auto`` (input path or its archive), ``archive``, ``none``, or a path."""
    preserve_user_messages: PreserveUser | None = section(PreserveUser)
    retry: Retry | None = section(Retry)
    failover: Failover | None = section(Failover)
    finalize: str | JsonObject | None = setting(FINALIZE)
    """None, ``pkg.mod:func`` or ``{preserve_skills: {...}, system_prompt: "..."}``."""
    callback: str | None = setting((str, NONE))
    gen_model_input: str | None = setting((str, NONE))
    format: str | None = setting((str, NONE), "auto")
    archive_dir: str | None = setting((str, NONE))
    keep: Keep | None = section(Keep)
    """``{messages: N}`` or ``{tokens: N}``: the verbatim tail after the summary."""
    fallback: str | None = setting((str, NONE), "none")
    """``local``: the embedded summarizer as the last rung after retry and failover."""
    loop_guard: LoopGuard | None = section(LoopGuard)
    mask_secrets: MaskSecrets | None = section(MaskSecrets)
    cache: Cache | None = section(Cache)
    retention: Retention | None = section(Retention)
    reply_reserve_tokens: int | None = setting((int,))
    """None: 4,096 tokens, or less for a small summarizer (:func:`.build.reply_reserve`)."""
    max_summary_tokens: int | None = setting((int, NONE))
    """A reply estimated above this many tokens is a failed attempt (see ``Config``)."""
    limits: Limits | None = section(Limits)
    input: Input | None = section(Input)
    summary_check: SummaryChecks | None = section(SummaryChecks)
    prices: dict[str, dict[str, float]] | None = setting(PRICE_TABLE)
    """Model name → ``{input, output}`` USD per million tokens (``check --explain``)."""
    strategy: str | None = setting((str, NONE))
    """``summarize`` (None: the default), ``reduce`` or ``hybrid`` (:mod:`.strategy`)."""
    reduction: Reduction | None = section(Reduction)
    lines: dict[str, int] = field(default_factory=dict, repr=False)
    """Dotted key → line number (1-based), for error messages."""
    unset_env: dict[str, str] = field(default_factory=dict, repr=False)
    """Dotted key → the ``${VAR}`` it names that is not set, for the optional keys that
    became None for it (``model.api_key`` → ``MY_KEY``): the error can name the variable."""
    flagged: frozenset[str] = field(default=frozenset(), repr=False)
    """The keys the command line's flags set (an error names the flag, not the file)."""

    def __repr__(self) -> str:
        return f"FileConfig({self.to_dict(mask=True)!r})"

    @classmethod
    def from_mapping(cls, values: JsonObject, **extra: JsonValue) -> FileConfig:
        """A layer from a type-checked mapping (:mod:`.composer`): sections become their
        dataclasses."""
        out: JsonObject = {}
        for f in dataclasses.fields(cls):
            if f.name in values:
                kind = f.metadata.get("section")
                out[f.name] = kind.from_mapping(values[f.name]) if kind else values[f.name]
        return cls(**out, **extra)

    def resolve(self, *layers: FileConfig) -> FileConfig:
        """This layer with ``layers`` laid over it, each key's last non-None value winning
        (:func:`~.settings.overlay`); a key a later layer sets forgets this file's line."""
        out = overlay(self, *layers)
        lines, unset, flagged = dict(self.lines), dict(self.unset_env), set(self.flagged)
        for layer in layers:
            for key in _changed(out, layer):
                for known in (lines, unset):
                    for k in [k for k in known if k == key or k.startswith((key + ".", key + "["))]:
                        del known[k]
            lines.update(layer.lines)
            unset.update(layer.unset_env)
            flagged |= layer.flagged
        out.path = next((x.path for x in reversed((self, *layers)) if x.path), None)
        out.lines, out.unset_env, out.flagged = lines, unset, frozenset(flagged)
        return out

    def with_flags(
        self,
        overrides: Overrides | None = None,
        *,
        threshold: int | None = None,
        token_counter: str | None = None,
        instructions: str | None = None,
    ) -> FileConfig:
        """This config with the command line's flags laid over it as one layer
        (:func:`flag_layer`, :meth:`resolve`); itself when no flag is given."""
        flags = flag_layer(
            self,
            overrides,
            threshold=threshold,
            token_counter=token_counter,
            instructions=instructions,
        )
        return self if not flags.flagged else self.resolve(flags)

    def value(self, dotted: str) -> JsonValue:
        """The resolved value of ``section.key`` or ``key``: as set, else its declared default."""
        name, _, sub = dotted.partition(".")
        if not sub and name in _SECTIONS:
            return getattr(self, name) or _SECTIONS[name]()  # a section: its keys' defaults
        if not sub:
            value = getattr(self, name)
            return _KEYS[name].default if value is None else value
        sect = getattr(self, name)
        return (sect or _SECTIONS[name]()).value(sub)

    def error(self, key: str, message: str) -> ConfigError:
        """A ConfigError located at ``key`` of this file."""
        return ConfigError(message, path=self.path, line=self.lines.get(key), key=key)

    def located(self, check: Callable[[T], None], value: T, section: str) -> T:
        """``value`` after ``check(value)`` (one of :mod:`compactor.counting.config`'s checks); its
        ConfigError is located at its key in this file (at ``section`` when it names none)."""
        try:
            check(value)
        except ConfigError as err:
            raise self.error(err.key or section, err.message) from err
        return value

    def trigger_condition(self) -> TriggerCondition | None:
        """The trigger, or None (= the 160,000-token default)."""
        if self.trigger is None:
            return None
        from compactor.counting.config import check_trigger

        t = self.trigger
        window = t.value("window_tokens")
        agent_model = t.agent_model
        if agent_model and not window:
            from compactor.counting.windows import KNOWN_WINDOWS, window_for

            found = window_for(agent_model)
            if found is None:
                raise self.error(
                    "trigger.agent_model",
                    f"unknown agent model {agent_model!r}: set trigger.window_tokens, or use "
                    f"one of {', '.join(sorted(KNOWN_WINDOWS))}",
                )
            window = found
        condition = TriggerCondition(
            context_tokens=t.value("context_tokens"),
            context_messages=t.value("context_messages"),
            context_fraction=float(t.value("context_fraction")),
            window_tokens=window,
        )

        def check(trigger: TriggerCondition) -> None:
            check_trigger(trigger, window_keys="trigger.window_tokens or trigger.agent_model")

        return self.located(check, condition, "trigger")

    def _loop_guard(self) -> LoopGuard:
        guard = self.loop_guard or LoopGuard()
        guard.check("loop_guard", self.error)
        return guard

    def loop_guard_ratio(self) -> float | None:
        """The loop guard's max ratio: its default unless the file turns it off or sets another."""
        value = self._loop_guard().value("max_ratio")
        if value is False:
            return None
        return DEFAULT_LOOP_GUARD if value is True else float(value)

    def loop_guard_growth(self) -> float | None:
        """The most a compaction may grow a transcript (``--force`` on a small one): its default
        unless the file sets ``max_growth`` or turns the loop guard off (``loop_guard: false``)."""
        guard = self._loop_guard()
        if guard.max_growth is None and guard.max_ratio is False:
            return None
        value = guard.value("max_growth")
        if value is False:
            return None
        return DEFAULT_MAX_GROWTH if value is True else float(value)

    def masking(self, models: list[JsonObject]) -> bool:
        """Whether secrets are masked: ``auto`` = when any configured model is remote."""
        masks = self.mask_secrets or MaskSecrets()
        masks.check("mask_secrets", self.error)
        setting_ = masks.value("enabled")
        return setting_ if isinstance(setting_, bool) else any_remote(models)

    def secret_patterns(self) -> tuple[tuple[str, str], ...]:
        patterns = self.value("mask_secrets.patterns")
        return tuple((p["name"], p["regex"]) for p in patterns)

    def summary_cache(self, models: list[JsonObject] | None = None) -> SummaryCache | None:
        """A :class:`compactor.pipeline.cache.SummaryCache`, or None. A ``cache`` section (the
        file's, or ``--cache`` / ``--no-cache``) decides; without one it is on when a model of the
        chain is remote (``models``), so a second CI run on the same transcript makes no
        request."""
        on = self.cache.value("enabled") if self.cache is not None else any_remote(models or [])
        if not on:
            return None
        from compactor.pipeline.cache import SummaryCache

        return SummaryCache(self.cache_dir())

    def cache_dir(self) -> Path:
        """The summary cache's folder: ``cache.dir`` (relative to the config file), else
        ``$XDG_CACHE_HOME/compact/summaries`` (``compact cache info`` / ``clear`` use it too)."""
        from compactor.pipeline.cache import default_cache_dir

        folder = self.value("cache.dir")
        return Path(self._relative(folder)) if folder else default_cache_dir()

    def _relative(self, folder: str) -> str:
        """``folder`` (``~`` expanded) as an absolute path, relative to the config file."""
        folder = os.path.expanduser(folder)
        if not os.path.isabs(folder) and self.path:
            folder = os.path.join(os.path.dirname(self.path), folder)
        return os.path.abspath(folder)

    def archive_folder(self) -> str | None:
        """``archive_dir`` as an absolute path (``~`` expanded; a relative one is relative to
        the config file, as ``cache.dir`` is); None: the default folder."""
        return self._relative(self.archive_dir) if self.archive_dir else None

    def spend_limits(self) -> SpendLimits | None:
        """The spend limits (None: no ``limits`` section, or one with no limit set)."""
        from compactor.pipeline.limits import SpendLimits

        limits = self.limits or Limits()
        limits.check("limits", self.error)
        values = limits.given()
        return SpendLimits(**values) if values else None

    def input_limits(self) -> InputLimits:
        """The ``input`` section's limits (each a positive number of bytes), else the defaults."""
        from compactor.sizes import InputLimits

        section_ = self.input or Input()
        section_.check("input", self.error)
        return InputLimits(**section_.effective())

    def keep_tail(self) -> KeepTail | None:
        from compactor.counting.config import KeepTail, check_keep

        if self.keep is None or not self.keep.given():
            return None
        keep = KeepTail(messages=self.keep.messages, tokens=self.keep.tokens)
        return self.located(check_keep, keep, "keep")

    def retention_config(self) -> RetentionConfig | None:
        from compactor.counting.config import RetentionConfig, check_retention

        if self.retention is None or not self.retention.value("enabled"):
            return None
        values = self.retention.effective()
        del values["enabled"]
        return self.located(check_retention, RetentionConfig(**values), "retention")

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
        from compactor.counting.config import SummaryCheck, check_summary_check

        if self.summary_check is None or not self.summary_check.given():
            return None
        check = SummaryCheck(**self.summary_check.effective())
        return self.located(check_summary_check, check, "summary_check")

    def counter(self) -> TokenCounter:
        """The token counter named by ``token_counter``."""
        try:
            return resolve_token_counter(self.value("token_counter"))
        except ConfigError as err:
            raise self.error("token_counter", err.message) from err

    def retry_settings(self) -> JsonObject:
        """``max_retries``, ``initial_delay``, ``max_delay`` a run uses: the file's ``retry``
        section, each unset key (or the whole section) at its declared default."""
        return (self.retry or Retry()).effective()

    def failover_models(self) -> list[JsonObject]:
        """The failover chain's model mappings (empty without failover)."""
        return list(self.value("failover.models")) if self.failover is not None else []

    def failover_attempts(self) -> int:
        """``failover.max_retries`` (0 without a failover section)."""
        return int(self.failover.value("max_retries")) if self.failover is not None else 0

    def attempts(self) -> tuple[int, int]:
        """(primary attempts, failover attempts) this config allows: ``retry.max_retries`` + 1
        and ``failover.max_retries`` (0 without failover)."""
        return self.retry_settings()["max_retries"] + 1, self.failover_attempts()

    def counter_name(self) -> str:
        return str(self.value("token_counter"))

    def to_dict(self, *, mask: bool = True) -> JsonObject:
        """The settings as written, as plain data; unless ``mask`` is False every secret is
        masked (see :func:`mask_secrets`): API keys, header values, URL credentials."""
        data: JsonObject = {}
        for f in dataclasses.fields(self):
            if f.name in ("lines", "unset_env", "flagged"):
                continue
            value = getattr(self, f.name)
            if isinstance(value, Section):
                value = value.given()
            data[f.name] = copy.deepcopy(value)
        return mask_secrets(data) if mask else data


_KEYS: dict[str, Key] = {
    f.name: f.metadata["key"] for f in dataclasses.fields(FileConfig) if "key" in f.metadata
}
_SECTIONS: dict[str, type[Section]] = {
    f.name: f.metadata["section"] for f in dataclasses.fields(FileConfig) if "section" in f.metadata
}

SCHEMA: dict[str, KeySpec] = schema_of(FileConfig)
"""Every top-level key of a config file with the types it accepts (:mod:`.composer` checks
files against it), generated from :class:`FileConfig`'s declarations."""


def _changed(out: FileConfig, layer: FileConfig) -> list[str]:
    """The dotted keys ``layer`` decided in ``out`` (their earlier lines no longer apply)."""
    keys: list[str] = []
    for f in dataclasses.fields(layer):
        value = getattr(layer, f.name)
        if value is None or not ("key" in f.metadata or "section" in f.metadata):
            continue
        if isinstance(value, Section):
            keys += [f"{f.name}.{k}" for k in value.given()]
        elif isinstance(value, dict) and f.name == "model":
            before = getattr(out, f.name) or {}
            keys += [f"model.{k}" for k in value if k in ("provider", "name")]
            keys += [f"model.{k}" for k in before if k not in value]
        else:
            keys.append(f.name)
    return keys


@dataclass(kw_only=True)
class Overrides:
    """The command line's flags that replace a config's keys; None = keep the file's value.
    They become a layer of the tree (:func:`flag_layer`) that :meth:`FileConfig.resolve` lays
    over the file."""

    model: str | None = None
    """``PREFIX:NAME`` or ``local`` (:func:`compactor.models.registry.flag_settings`)."""
    transcript_file_path: str | None = None
    format: str | None = None
    cache: bool | None = None
    """``--cache`` / ``--no-cache``."""
    fallback: str | None = None
    """``--fallback local|none``."""


def flag_layer(
    below: FileConfig,
    overrides: Overrides | None = None,
    *,
    threshold: int | None = None,
    token_counter: str | None = None,
    instructions: str | None = None,
) -> FileConfig:
    """The command line's flags as a layer of the tree, checked (an error names the flag).

    ``--threshold N`` replaces the token conditions (``context_tokens``, ``context_fraction``)
    by ``context_tokens: N``; a ``context_messages`` condition stays. ``--model PREFIX:NAME``
    keeps ``below``'s other settings of that provider."""
    ov = overrides or Overrides()
    values: JsonObject = {}
    if instructions is not None:
        values["instructions"] = instructions
    if threshold is not None:
        if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 1:
            raise ConfigError(f"--threshold must be a positive number of tokens, got {threshold!r}")
        values["trigger"] = Trigger(
            context_tokens=threshold, context_fraction=0.0, window_tokens=0, agent_model=""
        )
    if token_counter is not None:
        try:  # a bad name is an error of the flag, not of the file
            resolve_token_counter(token_counter)
        except ConfigError as err:
            raise ConfigError(f"--token-counter: {err.message}") from err
        values["token_counter"] = token_counter
    if ov.model:
        from compactor.models.registry import flag_settings

        values["model"] = flag_settings(ov.model, below.model)
    if ov.cache is not None:
        values["cache"] = Cache(enabled=ov.cache)
    for name in ("transcript_file_path", "format", "fallback"):
        if getattr(ov, name) is not None:
            values[name] = getattr(ov, name)
    return FileConfig(**values, flagged=frozenset(values))


def any_remote(models: list[JsonObject]) -> bool:
    """Whether a model of ``models`` (config mappings) calls a server (not ``local``)."""
    return any(m.get("provider") not in ("local", "scripted") for m in models)


def is_headers_key(key: object) -> bool:
    """Whether ``key`` holds HTTP headers (``extra_headers``, ``default_headers``, ...): every
    value under it is a secret (``api-key``, ``Authorization``, ...)."""
    return isinstance(key, str) and key.lower().replace("-", "_").endswith("headers")


def is_secret_values_key(key: object) -> bool:
    """Whether every value under ``key`` is a secret: HTTP headers (:func:`is_headers_key`),
    and what the client adds to the URL's query or the request's body (``extra_query``,
    ``extra_body``: ``api-key``, ``sig``, a token in the body)."""
    return is_headers_key(key) or key in ("extra_query", "extra_body")


def mask_secrets(data: JsonValue) -> JsonValue:
    """A copy of ``data`` with every secret masked: ``api_key`` values and the values of every
    ``*headers``, ``extra_query`` and ``extra_body`` mapping become ``***``, the credentials of
    a URL (``base_url``) become ``http://***@host`` and ``?api-key=***``."""
    from compactor._util import mask_url_credentials

    if isinstance(data, dict):
        out: dict[object, JsonValue] = {}
        for k, v in data.items():
            if k in SECRET_KEYS and v:
                out[k] = "***"
            elif is_secret_values_key(k) and isinstance(v, dict):
                out[k] = dict.fromkeys(v, "***")
            elif isinstance(v, str):
                out[k] = mask_url_credentials(v)
            else:
                out[k] = mask_secrets(v)
        return out
    if isinstance(data, list):
        return [mask_url_credentials(v) if isinstance(v, str) else mask_secrets(v) for v in data]
    return data
