"""A parsed config file (:class:`FileConfig`) and its accessors, each validating its section.

Values are plain data; an accessor that finds a bad value raises :class:`ConfigError` located
at the key (file, line). The checks a :class:`compactor.Config` also needs are the ones of
:mod:`compactor.counting.config`, called here and located at the file's key.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from compactor.counting.tokens import TokenCounter, resolve_token_counter
from compactor.counting.trigger import TriggerCondition
from compactor.errors import ConfigError

from .schema import SECRET_KEYS

if TYPE_CHECKING:
    from compactor.counting.config import KeepTail, RetentionConfig, SummaryCheck
    from compactor.pipeline.limits import SpendLimits
    from compactor.sizes import InputLimits

__all__ = [
    "DEFAULT_FILE_MAX_DELAY",
    "DEFAULT_LOOP_GUARD",
    "DEFAULT_MAX_GROWTH",
    "DEFAULT_RETRY",
    "FileConfig",
    "Overrides",
    "any_remote",
    "is_headers_key",
    "is_secret_values_key",
    "mask_secrets",
]

T = TypeVar("T")

DEFAULT_FILE_MAX_DELAY = 10.0
"""``retry.max_delay`` (and ``failover.max_delay``) when the file does not set it: SPEC §9.4."""

DEFAULT_RETRY: dict[str, Any] = {
    "max_retries": 2,
    "initial_delay": 1.0,
    "max_delay": DEFAULT_FILE_MAX_DELAY,
}
"""The retry of a run whose config has no ``retry`` section (the command line's default, and
``configs/default.yaml``'s): a transient failure (HTTP 408, 409, 429, 5xx, a timeout, a dropped
connection) is tried twice more, after 1 s then 2 s, or after the server's ``Retry-After`` (at
most ``max_delay``), as the model SDKs would on their own. The library's ``Config()`` keeps Eino's
single call."""

DEFAULT_LOOP_GUARD = 0.5
"""``compact run`` refuses a compaction that keeps this share of the tokens or more."""

DEFAULT_MAX_GROWTH = 2.0
"""``compact run --force`` refuses a compaction that grows the transcript past this many
times its tokens (a summary's fixed preamble and user block may grow a tiny one a little)."""


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
    instructions: str | None = None
    """Focus instructions appended to the user instruction (``--instructions``)."""
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
    batch) may send to remote summarizers (:mod:`compactor.pipeline.limits`)."""
    summary_check: dict[str, Any] | None = None
    """``{min_tokens: N, require_sections: true}``: a reply below it is a failed attempt."""
    input: dict[str, Any] | None = None
    """``{max_line_bytes: N, max_bytes: N}``: the longest line and the largest transcript a
    read holds (:class:`compactor.io.InputLimits`); past either, the input is refused."""
    prices: dict[str, dict[str, float]] | None = None
    """Model name → ``{input, output}`` USD per million tokens (``check --explain``)."""
    strategy: str | None = None
    """``summarize`` (None: the default), ``reduce`` or ``hybrid`` (:mod:`.reduction`)."""
    reduction: dict[str, Any] | None = None
    """Eino's reduction options (SPEC §10) plus ``offload`` and ``offload_dir``."""
    lines: dict[str, int] = field(default_factory=dict, repr=False)
    """Dotted key → line number (1-based), for error messages."""
    unset_env: dict[str, str] = field(default_factory=dict, repr=False)
    """Dotted key → the ``${VAR}`` it names that is not set, for the optional keys that
    became None for it (``model.api_key`` → ``MY_KEY``): the error can name the variable."""

    def __repr__(self) -> str:
        return f"FileConfig({self.to_dict(mask=True)!r})"

    def with_flags(
        self,
        *,
        threshold: int | None = None,
        token_counter: str | None = None,
        instructions: str | None = None,
    ) -> FileConfig:
        """This config with the command line's ``--threshold``, ``--token-counter`` and
        ``--instructions`` (which replaces the ``instructions:`` key).

        ``--threshold N`` replaces the token conditions (``context_tokens``,
        ``context_fraction``) by ``context_tokens: N``; a ``context_messages`` condition stays.
        """
        if threshold is None and token_counter is None and instructions is None:
            return self
        lines = dict(self.lines)
        changes: dict[str, Any] = {}
        if instructions is not None:
            changes["instructions"] = instructions
            lines.pop("instructions", None)
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

        window = self.trigger.get("window_tokens", 0)
        agent_model = self.trigger.get("agent_model")
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
            context_tokens=self.trigger.get("context_tokens", 0),
            context_messages=self.trigger.get("context_messages", 0),
            context_fraction=float(self.trigger.get("context_fraction", 0.0)),
            window_tokens=window,
        )

        def check(trigger: TriggerCondition) -> None:
            check_trigger(trigger, window_keys="trigger.window_tokens or trigger.agent_model")

        return self.located(check, condition, "trigger")

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
        """A :class:`compactor.pipeline.cache.SummaryCache`, or None. ``enabled`` (``--cache`` /
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
        from compactor.pipeline.cache import SummaryCache

        return SummaryCache(self.cache_dir())

    def cache_dir(self) -> Path:
        """The summary cache's folder: ``cache.dir`` (relative to the config file), else
        ``$XDG_CACHE_HOME/compact/summaries`` (``compact cache info`` / ``clear`` use it too)."""
        from compactor.pipeline.cache import default_cache_dir

        folder = (self.cache or {}).get("dir")
        if not folder:
            return default_cache_dir()
        folder = os.path.expanduser(folder)
        if not os.path.isabs(folder) and self.path:
            folder = os.path.join(os.path.dirname(self.path), folder)
        return Path(os.path.abspath(folder))

    def archive_folder(self) -> str | None:
        """``archive_dir`` as an absolute path (``~`` expanded; a relative one is relative to
        the config file, as ``cache.dir`` is); None: the default folder."""
        if not self.archive_dir:
            return None
        folder = os.path.expanduser(self.archive_dir)
        if not os.path.isabs(folder) and self.path:
            folder = os.path.join(os.path.dirname(self.path), folder)
        return os.path.abspath(folder)

    def spend_limits(self) -> SpendLimits | None:
        """The spend limits (None: no ``limits`` section, or one with no limit set)."""
        from compactor.pipeline.limits import SpendLimits

        values = {k: v for k, v in (self.limits or {}).items() if v is not None}
        for key, value in values.items():
            if value < 0:
                raise self.error(f"limits.{key}", f"limits.{key} must be non-negative")
        return SpendLimits(**values) if values else None

    def input_limits(self) -> InputLimits:
        """The ``input`` section's limits (each a positive number of bytes), else the defaults."""
        from compactor.sizes import InputLimits

        values = dict(self.input or {})
        for key, value in values.items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise self.error(
                    f"input.{key}", f"input.{key} must be a positive number of bytes, got {value!r}"
                )
        return InputLimits(**values)

    def keep_tail(self) -> KeepTail | None:
        from compactor.counting.config import KeepTail, check_keep

        if not self.keep:
            return None
        keep = KeepTail(messages=self.keep.get("messages"), tokens=self.keep.get("tokens"))
        return self.located(check_keep, keep, "keep")

    def retention_config(self) -> RetentionConfig | None:
        from compactor.counting.config import RetentionConfig, check_retention

        if self.retention is None or not self.retention.get("enabled", True):
            return None
        values = {k: v for k, v in self.retention.items() if k != "enabled"}
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

        if not self.summary_check:
            return None
        check = SummaryCheck(
            min_tokens=self.summary_check.get("min_tokens", 0),
            require_sections=self.summary_check.get("require_sections", False),
        )
        return self.located(check_summary_check, check, "summary_check")

    def counter(self) -> TokenCounter:
        """The token counter named by ``token_counter``."""
        try:
            return resolve_token_counter(self.token_counter)
        except ConfigError as err:
            raise self.error("token_counter", err.message) from err

    def retry_settings(self) -> dict[str, Any]:
        """``max_retries``, ``initial_delay``, ``max_delay`` a run uses: the file's ``retry``
        section (3 retries when it names no count), else :data:`DEFAULT_RETRY`."""
        if self.retry is None:
            return dict(DEFAULT_RETRY)
        return {
            "max_retries": self.retry.get("max_retries", 3),
            "initial_delay": self.retry.get("initial_delay", 1.0),
            "max_delay": self.retry.get("max_delay", DEFAULT_FILE_MAX_DELAY),
        }

    def attempts(self) -> tuple[int, int]:
        """(primary attempts, failover attempts) this config allows: ``retry.max_retries`` + 1
        (:data:`DEFAULT_RETRY` without a retry section) and ``failover.max_retries`` (0
        without failover)."""
        retry = self.retry_settings()["max_retries"]
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
    """``PREFIX:NAME`` or ``local`` (:func:`compactor.models.registry.flag_settings`)."""
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


def is_secret_values_key(key: object) -> bool:
    """Whether every value under ``key`` is a secret: HTTP headers (:func:`is_headers_key`),
    and what the client adds to the URL's query or the request's body (``extra_query``,
    ``extra_body``: ``api-key``, ``sig``, a token in the body)."""
    return is_headers_key(key) or key in ("extra_query", "extra_body")


def mask_secrets(data: Any) -> Any:
    """A copy of ``data`` with every secret masked: ``api_key`` values and the values of every
    ``*headers``, ``extra_query`` and ``extra_body`` mapping become ``***``, the credentials of
    a URL (``base_url``) become ``http://***@host`` and ``?api-key=***``."""
    from compactor._util import mask_url_credentials

    if isinstance(data, dict):
        out: dict[Any, Any] = {}
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
