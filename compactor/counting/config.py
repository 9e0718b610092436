"""Configuration of the middleware (SPEC §2) and its validation.

``Config`` is a frozen, keyword-only dataclass; :func:`validate_config` checks it in the SPEC
order and raises :class:`ConfigError` with the SPEC wording (first failure wins).
"""

from __future__ import annotations

import math
import weakref
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeAlias, cast

from compactor._json import JsonObject
from compactor._util import MaybeAwaitable
from compactor.errors import ConfigError
from compactor.schema import AgenticMessage, AgentState, M, Message

from .tokens import TokenCounter
from .trigger import DEFAULT_CONTEXT_TOKENS, TriggerCondition, thresholds

if TYPE_CHECKING:  # an annotation only: `compact check` loads configs without the events module
    from compactor.events import EventSink

__all__ = [
    "CONFIG_COUNTS",
    "DEFAULT_CONTEXT_TOKENS",
    "DEFAULT_MAX_DELAY",
    "DEFAULT_MAX_RETRIES",
    "Config",
    "FailoverConfig",
    "FailoverContext",
    "KeepTail",
    "PreserveUserMessages",
    "RetentionConfig",
    "RetryConfig",
    "SummaryCheck",
    "TriggerCondition",
    "check_config_fields",
    "check_delay",
    "check_keep",
    "check_non_negative",
    "check_preserve_user_messages",
    "check_retention",
    "check_summary_check",
    "check_trigger",
    "user_message_budget",
    "validate_config",
]

CONFIG_COUNTS: Counter[str] = Counter()
"""How many :class:`Config` objects this process constructed (``built``) and how many times
the SPEC §2 checks ran (``validated``): a test reads it to prove a run builds and validates its
config once. Counting costs one dictionary update per construction."""

ShouldRetry: TypeAlias = Callable[[object, BaseException | None], MaybeAwaitable[bool]]
"""``should_retry`` / ``should_failover``: ``(response, error) -> bool`` (or an awaitable of it);
``response`` is whatever the model returned, unchecked."""

Backoff: TypeAlias = Callable[[int, object, BaseException | None], MaybeAwaitable[float]]
"""``(attempt, response, error) -> seconds`` (or an awaitable of it)."""


MessageFilter: TypeAlias = (
    Callable[[Message], MaybeAwaitable[bool]] | Callable[[AgenticMessage], MaybeAwaitable[bool]]
)
"""``PreserveUserMessages.filter``: ``(message) -> bool`` for the history's message type."""


class Spend(Protocol):
    """``Config.spend``: told before each request the summarizer sends to a remote model."""

    def charge(self, input_tokens: int, model: str) -> None: ...


DEFAULT_MAX_RETRIES = 3
"""``max_retries`` used when a retry or failover config leaves it as None."""

DEFAULT_MAX_DELAY = 60.0
"""The longest wait between two attempts when a retry or failover config sets no
``max_delay``: a server's ``retry-after`` (or a backoff) asking for more gets this."""


@dataclass(frozen=True, kw_only=True, slots=True)
class RetryConfig:
    """Retry of the primary model (SPEC §6)."""

    max_retries: int | None = None
    """Extra calls after the first; None = 3. Total calls = max_retries + 1."""
    should_retry: ShouldRetry | None = None
    """``(response, error) -> bool``; default: retry transient errors only."""
    backoff: Backoff | None = None
    """``(attempt, response, error) -> seconds``; default: :func:`compactor.default_backoff`."""
    max_delay: float | None = None
    """The longest wait between attempts, whatever the backoff or the server's ``retry-after``
    says (a billion seconds, ``inf``, a date in 9999): every wait is ``min(wait, max_delay)``.
    None = :data:`DEFAULT_MAX_DELAY` (60 s)."""


class SummaryCacheLike(Protocol):
    """What the pipeline reads of ``Config.cache``: :class:`compactor.pipeline.cache.SummaryCache`
    satisfies it (counting/ may not import pipeline/, so it is named by its shape)."""

    directory: Path
    hits: int
    misses: int
    stores: int
    errors: int
    refused: str | None

    def peek(self, key: str, kind: type[M], model: str | None = None) -> M | None: ...

    def get(
        self,
        key: str,
        kind: type[M],
        model: str | None = None,
        accept: Callable[[M], bool] | None = None,
    ) -> M | None: ...

    def put(self, key: str, model: str, reply: object) -> None: ...


@dataclass(frozen=True, kw_only=True, slots=True)
class FailoverConfig:
    """Failover to other models after the primary phase failed (SPEC §6)."""

    max_retries: int | None = None
    """Number of failover attempts (single calls each); None = 3, 0 = no failover attempt."""
    should_failover: ShouldRetry | None = None
    """``(response, error) -> bool``; default: an error happened."""
    backoff: Backoff | None = None
    """``(attempt, response, error) -> seconds`` between failover attempts."""
    max_delay: float | None = None
    """The longest wait between failover attempts (see ``RetryConfig.max_delay``); None =
    :data:`DEFAULT_MAX_DELAY`."""
    get_failover_model: Callable[..., Any] | None = None
    """``(FailoverContext) -> (model, input_messages)``; None = primary model and input."""


@dataclass(frozen=True, kw_only=True, slots=True)
class FailoverContext(Generic[M]):
    """What ``get_failover_model`` is told about the attempt it is choosing a model for."""

    attempt: int
    system_instruction: M
    user_instruction: M
    original_messages: list[M]
    last_model_response: M | None
    last_error: BaseException | None


@dataclass(frozen=True, kw_only=True, slots=True)
class PreserveUserMessages:
    """Re-insert the user's own recent messages into the summary (SPEC §5.2)."""

    enabled: bool = True
    """Off → the model's ``<all_user_messages>`` block is left as written."""
    max_tokens: int | None = None
    """Token budget; None = ``context_tokens // 3`` (160,000 // 3 without a token threshold)."""
    filter: MessageFilter | None = None
    """``(message) -> bool``: only messages it accepts are candidates."""
    ensure_block: bool = False
    """When the reply has no ``<all_user_messages>`` block (a weak model left it out), add one
    at the end of its ``<summary>`` (else of the text) holding the selected user messages.
    Off by default, as SPEC §5.2 says (no tag → text unchanged); ``compact``'s config files
    turn it on (``finalize.ensure_user_messages``)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SummaryCheck:
    """A floor under the summarizer's reply (ours; off unless set): a reply below it is a
    failed attempt (``ModelError(kind="weak_summary", transient=True)``), retried and failed
    over like any other."""

    min_tokens: int = 0
    """A reply estimated below this many tokens (UTF-8 bytes / 4) fails."""
    require_sections: bool = False
    """The reply must open a ``<summary>`` block, as the built-in instruction asks (the closing
    tag may be missing: a ``stop`` sequence on ``</summary>`` removes it)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class KeepTail:
    """Keep the newest part of the conversation verbatim after the summary (ours).

    The tail never starts on a tool result or between a tool call and its result; it shrinks
    to the nearest safe start rather than exceed its budget. Both set → the smaller tail.
    Kept messages lose their ``usage``: it measured a request whose history the summary has
    replaced, so it must not become the token counter's baseline (Claude Code drops it too).
    """

    messages: int | None = None
    """Keep at most this many of the newest messages."""
    tokens: int | None = None
    """Keep the newest messages that fit in this many tokens (default estimate)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class RetentionConfig:
    """Check that facts from the summarized part survive in the summary; re-insert the rest."""

    enabled: bool = True
    max_anchors: int = 200
    """Facts extracted from the summarized messages at most."""
    max_facts: int = 50
    """Missing facts appended verbatim at most."""


@dataclass(frozen=True, kw_only=True)
class Config(Generic[M]):
    """Everything the middleware needs. Only ``model`` is required."""

    model: Any = None
    """The summarization model: any object with ``async def generate(messages, **options)``."""
    model_options: JsonObject = field(default_factory=dict)
    """Passed to every summarizer call, primary and failover."""
    token_counter: TokenCounter | None = None
    """``(TokenCounterInput) -> int`` used by the trigger; None = ``default_token_counter``."""
    trigger: TriggerCondition | None = None
    """When to summarize; None = more than 160,000 tokens."""
    system_instruction: str | None = None
    """Replaces the built-in one-sentence system instruction (ours, not in SPEC)."""
    user_instruction: str | None = None
    """Replaces the built-in nine-section user instruction entirely."""
    focus_instructions: str | None = None
    """Appended to the user instruction (built-in or replaced), never replacing it: what the
    summary should focus on (Claude Code's ``/compact <instructions>``)."""
    transcript_file_path: str | None = None
    """Adds the "full transcript is at PATH" note; only when ``finalize`` is unset."""
    gen_model_input: Callable[[M, M, list[M]], MaybeAwaitable[Sequence[M] | None]] | None = None
    """``(system_instruction, user_instruction, original_messages) -> list``; replaces §4 layout."""
    finalize: Callable[[list[M], M], MaybeAwaitable[Sequence[M]]] | None = None
    """``(original_messages, summary) -> list``; when set, NO default post-processing runs."""
    callback: Callable[[AgentState[M], AgentState[M]], MaybeAwaitable[None]] | None = None
    """``(before: AgentState, after: AgentState) -> None``, after finalize, on copies."""
    emit_internal_events: bool = False
    """Deliver the events of SPEC §8 to ``on_event``."""
    on_event: EventSink | None = None
    """Where events go; required when ``emit_internal_events`` is set, and given nothing
    unless it is (SPEC §2, as Eino: ``Config(on_event=print)`` alone delivers no events)."""
    preserve_user_messages: PreserveUserMessages | None = None
    """None = enabled with the default budget; only when ``finalize`` is unset."""
    retry: RetryConfig | None = None
    """None = a single attempt."""
    failover: FailoverConfig | None = None
    """None = no failover."""
    sleep: Callable[[float], Awaitable[None]] | None = None
    """The clock used for retry waits; None = ``asyncio.sleep``. Tests pass a recorder."""

    # ---- beyond Eino (all off by default, so the defaults behave exactly as SPEC says) ----
    summarizer_context_tokens: int | None = None
    """The summarizer's context size; a larger input is summarized in sequential chunks that
    never split a tool call from its result (each chunk also gets the running summary)."""
    reply_reserve_tokens: int = 4_096
    """Tokens of ``summarizer_context_tokens`` kept free for the summary itself."""
    fallback_model: Any = None
    """Last rung of the ladder: called once when retry and failover all failed (e.g. the
    embedded ``LocalSummarizer``); its summary is marked as degraded."""
    loop_guard: float | None = None
    """Fail (``LoopGuardError``) unless tokens after < this fraction of tokens before."""
    max_growth: float | None = None
    """Fail (``LoopGuardError``) when tokens after > this many times tokens before: a forced
    compaction of a small transcript may grow it a little (the preamble and the user block are
    fixed costs), never without bound. None = no limit."""
    keep: KeepTail | None = None
    """Keep the newest part of the conversation verbatim after the summary."""
    mask_secrets: bool | None = None
    """Replace secrets with typed placeholders in the summarizer input; None = on when the
    model says it is remote (``model.remote``), off otherwise."""
    secret_patterns: tuple[tuple[str, str], ...] = ()
    """Extra ``(kind, regex)`` patterns to mask."""
    cache: SummaryCacheLike | None = None
    """A :class:`compactor.pipeline.cache.SummaryCache`: identical summarizer calls reuse the
    reply."""
    retention: RetentionConfig | None = None
    """Check that anchors (paths, errors, URLs, instructions, ...) survive; repair the rest."""
    strip_analysis: bool = False
    """Drop the model's ``<analysis>`` block from the summary (Claude Code does; Eino keeps it)."""
    spend: Spend | None = None
    """A spend guard (:class:`compactor.pipeline.limits.SpendHold`, or any object with
    ``charge(input_tokens, model)``), called before every request the summarizer sends to a
    model that is not embedded and not answered from the cache; it raises
    :class:`~compactor.errors.SpendLimitError` to refuse the request (the run stops)."""
    max_summary_tokens: int | None = None
    """A reply estimated above this many tokens is a failed attempt (retried and failed over
    like any other). Whatever this says, a reply larger than its whole summarizer input (or
    than ``reply_reserve_tokens``, when that is larger) is one too: a summary never grows.
    The ``fallback_model`` (the last rung, compact's own deterministic summarizer) is held to
    this ceiling only: its section headings alone can outweigh a small chunk."""
    summary_check: SummaryCheck | None = None
    """A floor under the reply (minimum size, a ``<summary>`` block); None = any reply."""
    circuit_breaker: bool = True
    """Per run, stop calling a model that failed in a way that will recur: a connection that
    cannot be made, a refused key, an unknown model, a validation error the transcript form
    did not cure (at once), or three failed calls in a row (from the next summarizer input on).
    Its remaining calls fail at once (``kind="circuit_open"``) and the ladder moves on."""

    def __post_init__(self) -> None:
        CONFIG_COUNTS["built"] += 1


_VALIDATED: weakref.WeakValueDictionary[int, Config[Message] | Config[AgenticMessage]] = (
    weakref.WeakValueDictionary()
)
"""The configs :func:`validate_config` passed (or built from a checked draft): each is
checked once, however many times it is handed to ``new()``."""


def mark_validated(config: Config[M]) -> None:
    """Record that ``config``'s values already passed :func:`check_config_fields` (a
    :mod:`compactor.configfile` run checked them before reading its transcript)."""
    _VALIDATED[id(config)] = config


def validate_config(config: Config[M] | None) -> None:
    """Check ``config`` in SPEC §2 order; the first problem raises :class:`ConfigError` with the
    SPEC wording and, in ``ConfigError.key``, the field it is about (``retry.max_retries``).
    A config that passed once is not checked again (it is frozen)."""
    if config is None:
        raise ConfigError("config is required")
    if _VALIDATED.get(id(config)) is config:
        return
    check_config_fields(config)
    mark_validated(config)


def check_config_fields(config: Config[M] | SimpleNamespace) -> None:
    """The checks of :func:`validate_config` on any object with :class:`Config`'s fields as
    attributes (a :class:`Config`, or the draft a config file is checked as before any model
    is built)."""
    CONFIG_COUNTS["validated"] += 1
    if config.model is None:
        raise ConfigError("model is required", key="model")
    if config.trigger is not None:
        check_trigger(config.trigger)
    for name, section in (("retry", config.retry), ("failover", config.failover)):
        if section is not None and section.max_retries is not None:
            check_non_negative(section.max_retries, f"{name}.max_retries")
    for name, section in (("retry", config.retry), ("failover", config.failover)):
        if section is not None and section.max_delay is not None:
            check_delay(section.max_delay, f"{name}.max_delay")
    check_preserve_user_messages(config.preserve_user_messages)
    if config.emit_internal_events and config.on_event is None:
        raise ConfigError("on_event is required when emit_internal_events is set", key="on_event")
    _validate_extras(config)


def check_trigger(trigger: TriggerCondition, *, window_keys: str = "trigger.window_tokens") -> None:
    """The SPEC §2 checks of a trigger, plus ours for ``context_fraction``; ``window_keys``
    names what gives the window in the message (a config file also has ``agent_model``).

    The error's ``key`` is the field (``trigger.context_tokens``); None when no one field is at
    fault (no condition is positive)."""
    _check_int("trigger.context_tokens", trigger.context_tokens)
    _check_int("trigger.context_messages", trigger.context_messages)
    check_non_negative(trigger.context_tokens, "trigger.context_tokens")
    check_non_negative(trigger.context_messages, "trigger.context_messages")
    fraction = trigger.context_fraction
    if isinstance(fraction, bool) or not isinstance(fraction, int | float):
        raise ConfigError(
            f"trigger.context_fraction must be a number, got {fraction!r}",
            key="trigger.context_fraction",
        )
    _check_int("trigger.window_tokens", trigger.window_tokens)
    if not 0 <= fraction <= 1:
        raise ConfigError(
            "trigger.context_fraction must be between 0 and 1", key="trigger.context_fraction"
        )
    if trigger.window_tokens < 0:
        raise ConfigError("trigger.window_tokens must be non-negative", key="trigger.window_tokens")
    if fraction > 0 and trigger.window_tokens == 0:
        raise ConfigError(
            f"trigger.context_fraction needs {window_keys}", key="trigger.context_fraction"
        )
    if trigger.context_tokens == 0 and trigger.context_messages == 0 and fraction == 0:
        raise ConfigError("at least one of context_tokens or context_messages must be positive")


def check_preserve_user_messages(pum: PreserveUserMessages | None) -> None:
    """``max_tokens`` is None or a non-negative integer (``Config`` and ``default_finalizer``)."""
    if pum is not None and pum.max_tokens is not None:
        check_non_negative(pum.max_tokens, "preserve_user_messages.max_tokens")


def user_message_budget(pum: PreserveUserMessages, trigger: TriggerCondition | None) -> int:
    """The user-message budget of a summarization: ``pum.max_tokens``, else a third of the
    token threshold ``trigger`` resolves to (``context_tokens``, or ``context_fraction`` ×
    ``window_tokens``; the smaller when both are set), else 160,000 // 3 (SPEC §5.2). Here,
    not in :mod:`compactor.pipeline.finalize`: checking a config asks for it, and importing
    the finalizer (the fact patterns with it) cost every ``compact run`` ~20 ms (issue 30)."""
    if pum.max_tokens is not None:
        return int(pum.max_tokens)
    return (thresholds(trigger)[0] or DEFAULT_CONTEXT_TOKENS) // 3


def check_keep(keep: KeepTail) -> None:
    """``keep.messages`` and ``keep.tokens`` are None or non-negative integers."""
    for name in ("messages", "tokens"):
        value = getattr(keep, name)
        if value is not None:
            check_non_negative(value, f"keep.{name}")


def check_retention(retention: RetentionConfig) -> None:
    """``retention.max_anchors`` and ``retention.max_facts`` are non-negative integers."""
    for name in ("max_anchors", "max_facts"):
        check_non_negative(getattr(retention, name), f"retention.{name}")


def check_summary_check(check: SummaryCheck) -> None:
    """``summary_check.min_tokens`` is a non-negative integer, ``require_sections`` a bool."""
    check_non_negative(check.min_tokens, "summary_check.min_tokens")
    if not isinstance(check.require_sections, bool):
        raise ConfigError(
            f"summary_check.require_sections must be true or false, got {check.require_sections!r}",
            key="summary_check.require_sections",
        )


def _validate_extras(config: Config[M] | SimpleNamespace) -> None:
    """The fields that are ours (not in SPEC §2), checked after the SPEC ones."""
    if config.summarizer_context_tokens is not None:
        _check_int("summarizer_context_tokens", config.summarizer_context_tokens)
        if config.summarizer_context_tokens <= 0:
            raise ConfigError(
                "summarizer_context_tokens must be positive", key="summarizer_context_tokens"
            )
        _check_int("reply_reserve_tokens", config.reply_reserve_tokens)
        if not 0 <= config.reply_reserve_tokens < config.summarizer_context_tokens // 2:
            raise ConfigError(
                "reply_reserve_tokens must be non-negative and below half of "
                "summarizer_context_tokens",
                key="reply_reserve_tokens",
            )
    if config.max_summary_tokens is not None:
        _check_int("max_summary_tokens", config.max_summary_tokens)
        if config.max_summary_tokens <= 0:
            raise ConfigError("max_summary_tokens must be positive", key="max_summary_tokens")
    guard = config.loop_guard
    if guard is not None:
        if isinstance(guard, bool) or not isinstance(guard, int | float) or not 0 < guard <= 1:
            raise ConfigError(
                f"loop_guard must be a fraction in (0, 1], got {guard!r}", key="loop_guard"
            )
    growth = config.max_growth
    if growth is not None and (
        isinstance(growth, bool)
        or not isinstance(growth, int | float)
        or not math.isfinite(growth)
        or growth <= 0
    ):
        raise ConfigError(f"max_growth must be a positive number, got {growth!r}", key="max_growth")
    if config.keep is not None:
        check_keep(config.keep)
    if config.summary_check is not None:
        check_summary_check(config.summary_check)
    if config.retention is not None:
        check_retention(config.retention)


def check_delay(value: object, name: str) -> None:
    """``value`` is a non-negative, finite number of seconds."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
    ):
        raise ConfigError(
            f"{name} must be a non-negative number of seconds, got {value!r}", key=name
        )


def check_non_negative(value: object, name: str) -> None:
    """``value`` is a non-negative integer; else a ConfigError naming ``name`` (SPEC wording)."""
    _check_int(name, value)
    if cast(int, value) < 0:
        raise ConfigError(f"{name} must be non-negative", key=name)


def _check_int(name: str, value: object) -> None:
    # bool is an int subclass; True as a threshold is a mistake, never silently coerced.
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be an integer, got {value!r}", key=name)
