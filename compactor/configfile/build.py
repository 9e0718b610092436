"""Building a :class:`compactor.Config` from a :class:`~.fileconfig.FileConfig` plus the
command line's :class:`~.fileconfig.Overrides` (:func:`build_config`), or only checking that it
would build (:func:`check_config`, which imports no model backend)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NoReturn, TypedDict, TypeVar

from compactor._json import JsonObject, JsonValue
from compactor.counting.tokens import load_callable
from compactor.errors import ConfigError, ErrorKind, ModelError
from compactor.schema import AgenticMessage, M, Message

from .fileconfig import DEFAULT_FILE_MAX_DELAY, FileConfig, Overrides, flag_layer
from .settings import Retry

T = TypeVar("T")


class RunFields(TypedDict, total=False):
    """The :class:`~compactor.Config` fields a run sets over the file's (``build_config``'s
    ``runtime``): its own event sink, the guards of a forced run, masking for ``--explain``."""

    emit_internal_events: bool
    on_event: EventSink | None
    loop_guard: float | None
    mask_secrets: bool | None


if TYPE_CHECKING:
    from compactor.counting.config import Config, FailoverContext, PreserveUserMessages
    from compactor.events import EventSink
    from compactor.models.base import ChatModel

__all__ = [
    "ASSUMED_WINDOW",
    "KeylessModel",
    "UnbuiltModel",
    "build_config",
    "chain_goes_on",
    "check_config",
    "config_fields",
    "exponential_backoff",
    "key_problem",
    "missing_keys",
    "model_settings",
    "summarizer_window",
]

ASSUMED_WINDOW = 200_000
"""The summarizer window planned for a remote model compact does not know (not in
:data:`compactor.counting.windows.KNOWN_WINDOWS`) whose ``context_tokens`` is not set: the window
Eino's 160,000-token trigger is made for. Without it an 11-million-token history would go out as one
request that every real server refuses."""


def exponential_backoff(initial: float, maximum: float) -> Callable[..., float]:
    """``min(initial·2^(attempt−1), maximum)``; a server's ``retry-after`` wins when given, up to
    ``maximum`` too (the retry engine caps every wait again at the phase's ``max_delay``)."""

    def backoff(attempt: int, response: object = None, error: BaseException | None = None) -> float:
        if isinstance(error, ModelError) and error.retry_after is not None:
            return float(min(max(0.0, error.retry_after), maximum))
        return float(min(initial * 2.0 ** min(max(attempt - 1, 0), 64), maximum))

    return backoff


def with_overrides(file_cfg: FileConfig, overrides: Overrides | None) -> FileConfig:
    """``file_cfg`` with the flags of ``overrides`` laid over it (:meth:`FileConfig.resolve`);
    itself when there are none (a run's plan resolved its flags already)."""
    if overrides is None or overrides == Overrides():
        return file_cfg
    return file_cfg.resolve(flag_layer(file_cfg, overrides))


def model_settings(file_cfg: FileConfig, overrides: Overrides | None = None) -> JsonObject:
    """The primary model's mapping a run uses: the resolved ``model`` (``--model PREFIX:NAME``
    keeps the file's other settings of that provider,
    :func:`compactor.models.registry.flag_settings`) as written, else the default
    (:func:`compactor.models.registry.with_model_defaults`)."""
    from compactor.models.registry import with_model_defaults

    file_cfg = with_overrides(file_cfg, overrides)
    if file_cfg.model is None:
        return with_model_defaults({})
    return dict(file_cfg.model)


def summarizer_window(
    file_cfg: FileConfig, overrides: Overrides | None = None
) -> tuple[int | None, str | None]:
    """(the summarizer window a run plans chunks with, the model whose window it assumed).

    The smallest window of the models a run may send to: a model's ``context_tokens``, else
    for a remote model its published window (:func:`compactor.counting.windows.window_for`), else
    :data:`ASSUMED_WINDOW`, named as assumed (its provider's ``planned_window``; said in the
    live view, the report and ``check --explain``). The embedded summarizer has none. A
    server's own context-length error still re-plans smaller."""
    from compactor.models.providers import provider_named
    from compactor.models.registry import with_model_defaults

    file_cfg = with_overrides(file_cfg, overrides)
    models = [model_settings(file_cfg), *file_cfg.failover_models()]
    best: tuple[int, str | None] | None = None
    for d in models:
        if d.get("context_tokens"):
            window: tuple[int, str | None] = (d["context_tokens"], None)
        else:
            full = with_model_defaults(d)
            provider = provider_named(full.get("provider"))
            if provider is None:
                continue
            window = provider.planned_window(full, ASSUMED_WINDOW)
            if not window[0]:
                continue
        if best is None or window[0] < best[0]:
            best = window
    return (best[0], best[1]) if best is not None else (None, None)


class UnbuiltModel:
    """Stands for a model :func:`check_config` validated but did not build."""

    name = "unbuilt"

    async def generate(
        self, messages: list[Message] | list[AgenticMessage], **options: JsonValue
    ) -> NoReturn:
        raise RuntimeError("check_config() validates models; it does not build them")


def _make_model(
    d: JsonObject, key: str, file_cfg: FileConfig, build: bool = True, required: bool = True
) -> ChatModel:
    """The model of ``d`` (``key`` locates it in the file). ``required``: the chain has no other
    model to go on with, so a remote model without an API key is a ConfigError (exit 2, before
    any work); otherwise it is built as a :class:`KeylessModel`, whose calls fail as a model
    error for the circuit breaker and failover to take over (issue 32)."""
    from compactor.models.providers import provider_named
    from compactor.models.registry import check_model_config, model_from_config, with_model_defaults

    spec = with_model_defaults(
        {k: v for k, v in d.items() if k not in ("options", "context_tokens")}
    )
    provider = provider_named(spec.get("provider"))
    if provider is not None and not provider.remote:
        spec = {"provider": provider.prefix}  # the embedded summarizer reads no other key
    problem = key_problem(spec, key, file_cfg)
    if problem is not None and required and file_cfg.unset_env.get(f"{key}.api_key"):
        raise file_cfg.error(f"{key}.api_key", problem)
    try:
        if not build:
            check_model_config(spec, require_key=required)
            return UnbuiltModel()
        model = model_from_config(spec, require_key=required)
    except ConfigError as err:
        # "model" + the registry's "provider" → the line of model.provider when the file has it
        sub = f"{key}.{err.key}" if err.key else key
        raise file_cfg.error(sub if sub in file_cfg.lines else key, err.message) from err
    return model if problem is None else KeylessModel(model, problem)


class KeylessModel:
    """A remote model whose API key is not set, in a chain that goes on without it: every call
    fails at once, before any request, with ``ModelError(kind="auth", persistent=True)`` naming
    what is missing, so the circuit breaker skips it and failover (or the fallback) answers.
    Never sends its provider's key variable in place of the one the file names. Everything else
    (``name``, ``remote``, ``endpoint``, ...) is the wrapped model's."""

    def __init__(self, model: ChatModel, message: str) -> None:
        self.model = model
        self.message = message

    def __getattr__(self, name: str) -> object:
        if name == "model":  # not set yet (a copy being made): no recursion
            raise AttributeError(name)
        return getattr(self.model, name)

    def _refusal(self) -> ModelError:
        return ModelError(
            self.message,
            kind=ErrorKind.AUTH,
            transient=False,
            persistent=True,
            model=getattr(self.model, "name", None),
        )

    async def generate(
        self, messages: list[Message] | list[AgenticMessage], **options: JsonValue
    ) -> NoReturn:
        raise self._refusal()

    async def send_body(self, body: object, kind: type, **options: JsonValue) -> NoReturn:
        """The wrapped model's route for a body built once (its ``request_body``): refused
        too, so no request ever leaves without its key."""
        raise self._refusal()


def key_problem(spec: JsonObject, key: str, file_cfg: FileConfig) -> str | None:
    """Why the model ``spec`` (at ``key``) has no API key to send, or None when it has one or
    needs none (its provider decides: :meth:`compactor.models.providers.Provider.key_problem`;
    ``api_key: ${VAR}`` with VAR unset names VAR, and the provider's own key variable never
    stands in for another variable the file names)."""
    from compactor.models.providers import provider_named

    provider = provider_named(spec.get("provider"))
    if provider is None:
        return None
    return provider.key_problem(spec, file_cfg.unset_env.get(f"{key}.api_key"))


def missing_keys(file_cfg: FileConfig, overrides: Overrides | None = None) -> list[str]:
    """``KEY: why`` for every model of the chain (primary, failover models) that has no API
    key: what ``compact config validate`` reports as ``not set``."""
    from compactor.models.registry import with_model_defaults

    file_cfg = with_overrides(file_cfg, overrides)
    dicts = [("model", model_settings(file_cfg))]
    dicts += [(f"failover.models[{i}]", d) for i, d in enumerate(file_cfg.failover_models())]
    out = []
    for key, d in dicts:
        spec = with_model_defaults({k: v for k, v in d.items() if k != "options"})
        problem = key_problem(spec, key, file_cfg)
        if problem is not None:
            out.append(f"{key}.api_key: {problem}")
    return out


def chain_goes_on(file_cfg: FileConfig, overrides: Overrides | None = None) -> bool:
    """Whether a run has a model after the primary: failover models it may try, or the
    ``local`` fallback. Only then may a model of the chain lack its API key."""
    file_cfg = with_overrides(file_cfg, overrides)
    if file_cfg.failover_models() and file_cfg.failover_attempts() > 0:
        return True
    return bool(file_cfg.value("fallback") == "local")


def _load_ref(file_cfg: FileConfig, key: str, ref: str) -> Callable[..., object]:
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


def _transcript_path(file_cfg: FileConfig, auto: str | None) -> str | None:
    """The transcript note's path: ``auto`` and ``archive`` → ``auto`` (what the run resolved:
    the input, its archived copy, or ``-`` for stdin); ``none`` → None."""
    value = file_cfg.value("transcript_file_path")
    if value == "none":
        return None
    if value in ("auto", "archive"):  # archive: `auto` is the archived copy's path
        return auto
    return str(value)


def _finalize(
    file_cfg: FileConfig,
    transcript_path: str | None,
    pum: PreserveUserMessages,
    budget: int,
    agent_session: bool = False,
) -> Callable[..., object] | None:
    """The configured finalize; for an agent session without one (or with only
    ``strip_analysis``) the default one plus the durable context (skills, instruction files,
    the latest plan within PreserveSkills' budgets) and bounded earlier pasted texts."""
    spec = file_cfg.finalize
    if isinstance(spec, str):
        return _load_ref(file_cfg, "finalize", spec)
    durable = agent_session and (spec is None or "preserve_skills" not in spec)
    if spec is None and not durable:
        return None
    spec = spec or {}
    if "preserve_skills" not in spec and spec.get("system_prompt") is None and not durable:
        return None  # e.g. only strip_analysis: the built-in finalizer does the rest
    from compactor.pipeline.finalize import (
        EARLIER_USER_CHARS,
        DefaultFinalizerConfig,
        PreserveSkillsConfig,
        default_finalizer,
        new_finalizer,
    )
    from compactor.schema import make_system

    system_prompt = spec.get("system_prompt")
    settings = DefaultFinalizerConfig(
        preserve_user_messages=dataclasses.replace(pum, max_tokens=budget),
        transcript_file_path=transcript_path,
        earlier_user_chars=EARLIER_USER_CHARS if agent_session else None,
    )

    async def default_then_prompt(original: list[M], summary: M) -> list[M]:
        # built here: a bad budget is validate_config's error, located at its key
        out: list[M] = await default_finalizer(settings)(original, summary)
        if system_prompt is not None:
            kind: type[M] = type(original[0]) if original else type(out[-1])
            first: list[M] = [make_system(kind, system_prompt)]
            out = first + [m for m in out if m.role != "system"]
        return out

    builder = new_finalizer()
    if "preserve_skills" in spec:
        builder.preserve_skills(PreserveSkillsConfig(**(spec["preserve_skills"] or {})))
    elif durable:
        builder.preserve_durable(PreserveSkillsConfig())
    builder.custom(default_then_prompt)
    try:
        built = builder.build()
    except ConfigError as err:
        raise file_cfg.error("finalize", err.message) from err
    # its handlers and default_then_prompt only read the history: no deep copy of it is needed
    built.readonly_input = True
    return built


def _reply_reserve(context: int | None, max_tokens: JsonValue = None) -> int:
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
    model: ChatModel | None = None,
    build_models: bool = True,
    require_keys: bool = True,
    runtime: RunFields | None = None,
    checked: bool = False,
    agent_session: bool = False,
) -> Config[M]:
    """A :class:`compactor.Config` from the file plus CLI overrides.

    ``transcript_path_auto`` is what ``transcript_file_path: auto`` means for this run (the
    input's absolute path or its archive). ``model`` skips building the model from the file
    (tests pass a ScriptedModel). ``build_models=False`` validates the model settings but puts
    :class:`UnbuiltModel` placeholders in the config (see :func:`check_config`).
    ``require_keys=False`` (``config show``): no model is refused for a missing API key. Else
    only a primary with no model after it (:func:`chain_goes_on`) must have one. ``runtime``:
    fields the caller sets itself (a run's event sink), in the same construction.
    ``checked``: ``file_cfg`` passed :func:`check_config` (a run's plan checked it before
    reading its transcript), so the config is built without checking it again.
    """
    from compactor.counting.config import Config, mark_validated, validate_config

    file_cfg = with_overrides(file_cfg, overrides)
    fields = config_fields(
        file_cfg,
        transcript_path_auto=transcript_path_auto,
        model=model,
        build_models=build_models,
        require_keys=require_keys,
        agent_session=agent_session,
    )
    config: Config[M] = Config(**{**fields, **(runtime or {})})
    if checked:
        mark_validated(config)
    else:
        _locate(file_cfg, validate_config, config)
    return config


def _locate(file_cfg: FileConfig, check: Callable[[T], None], config: T) -> None:
    """``check(config)``, its ConfigError located at its key in the file when it has one."""
    try:
        check(config)
    except ConfigError as err:
        if err.key is not None and err.key in file_cfg.lines:
            raise file_cfg.error(err.key, err.message) from err
        raise ConfigError(err.message, path=file_cfg.path) from err


def config_fields(
    file_cfg: FileConfig,
    *,
    transcript_path_auto: str | None = None,
    model: ChatModel | None = None,
    build_models: bool = True,
    require_keys: bool = True,
    agent_session: bool = False,
) -> dict[str, Any]:
    """The :class:`compactor.Config` fields of a resolved ``file_cfg`` (see
    :func:`build_config`), each key's own checks done, located at it in the file."""
    from compactor.counting.config import (
        FailoverConfig,
        PreserveUserMessages,
        RetryConfig,
        user_message_budget,
    )

    alone = require_keys and not chain_goes_on(file_cfg)
    primary = model_settings(file_cfg)
    if model is None:
        model = _make_model(primary, "model", file_cfg, build_models, alone)
    options = dict((file_cfg.model or {}).get("options") or {})

    settings = file_cfg.retry_settings()  # each unset key at its declared default
    (file_cfg.retry or Retry()).check("retry", file_cfg.error)
    initial = settings["initial_delay"]
    # Every wait, the server's retry-after included, is capped at max_delay (10 s by default).
    retry = RetryConfig(
        max_retries=settings["max_retries"],
        backoff=exponential_backoff(initial, settings["max_delay"]),
        max_delay=settings["max_delay"],
    )
    max_delay: float | None = None  # failover's waits follow a retry section the file has
    if file_cfg.retry is not None:
        max_delay = settings["max_delay"]

    failover = None
    if file_cfg.failover is not None:
        f = file_cfg.failover
        models = [
            _make_model(d, f"failover.models[{i}]", file_cfg, build_models, required=False)
            for i, d in enumerate(file_cfg.failover_models())
        ]
        get_model: Callable[[FailoverContext[M]], tuple[ChatModel, None]] | None = None
        if models:

            def get_model(ctx: FailoverContext[M]) -> tuple[ChatModel, None]:
                return models[(ctx.attempt - 1) % len(models)], None

        backoff = None
        if max_delay is not None:
            backoff = exponential_backoff(initial, max_delay)
        failover = FailoverConfig(
            max_retries=f.value("max_retries"),
            get_failover_model=get_model,
            backoff=backoff,
            # failover.max_delay, else retry.max_delay, else 10 s: no wait is ever longer
            max_delay=next(
                d for d in (f.max_delay, max_delay, DEFAULT_FILE_MAX_DELAY) if d is not None
            ),
        )

    pum_s = file_cfg.preserve_user_messages
    pum = PreserveUserMessages(
        enabled=file_cfg.value("preserve_user_messages.enabled"),
        max_tokens=pum_s.max_tokens if pum_s is not None else None,
        ensure_block=file_cfg.ensure_user_messages(),
    )
    trigger = file_cfg.trigger_condition()
    budget = user_message_budget(pum, trigger)
    transcript_path = _transcript_path(file_cfg, transcript_path_auto)
    model_dicts = [primary, *file_cfg.failover_models()]
    window, _ = summarizer_window(file_cfg)
    fallback_name = file_cfg.value("fallback")
    if fallback_name not in ("local", "none"):
        where = "--fallback" if "fallback" in file_cfg.flagged else "fallback"
        raise file_cfg.error(where, f"fallback must be 'local' or 'none', got {fallback_name!r}")
    fallback_model = None
    if fallback_name == "local":
        from compactor.models.local import LocalSummarizer

        fallback_model = LocalSummarizer()

    fields: dict[str, Any] = {
        "model": model,
        "model_options": options,
        "token_counter": file_cfg.counter(),
        "trigger": trigger,
        "user_instruction": _user_instruction(file_cfg),
        "focus_instructions": (file_cfg.instructions or "").strip() or None,
        "transcript_file_path": transcript_path,
        "gen_model_input": (
            _load_ref(file_cfg, "gen_model_input", file_cfg.gen_model_input)
            if file_cfg.gen_model_input
            else None
        ),
        "finalize": _finalize(file_cfg, transcript_path, pum, budget, agent_session),
        "callback": (
            _load_ref(file_cfg, "callback", file_cfg.callback) if file_cfg.callback else None
        ),
        "preserve_user_messages": pum,
        "retry": retry,
        "failover": failover,
        "summarizer_context_tokens": window,
        "reply_reserve_tokens": (
            file_cfg.reply_reserve_tokens
            if file_cfg.reply_reserve_tokens is not None
            else _reply_reserve(
                window,
                options.get("max_tokens") or options.get("max_completion_tokens"),
            )
        ),
        "fallback_model": fallback_model,
        "loop_guard": file_cfg.loop_guard_ratio(),
        "max_growth": file_cfg.loop_guard_growth(),
        "keep": file_cfg.keep_tail(),
        "mask_secrets": file_cfg.masking(model_dicts),
        "secret_patterns": file_cfg.secret_patterns(),
        "cache": file_cfg.summary_cache(model_dicts),
        "retention": file_cfg.retention_config(),
        "strip_analysis": file_cfg.strip_analysis(),
        "max_summary_tokens": file_cfg.max_summary_tokens,
        "summary_check": file_cfg.summary_check_config(),
    }
    file_cfg.spend_limits()  # a bad limit is exit 2 before any work, like every other key
    file_cfg.input_limits()
    return fields


def check_config(file_cfg: FileConfig, overrides: Overrides | None = None) -> None:
    """Raise the ConfigError :func:`build_config` would raise, without building any model.

    Everything else is done for real: ``pkg.mod:func`` references (``callback``,
    ``gen_model_input``, ``finalize``, ``token_counter``) are imported, the instruction file is
    read, models and ``--model`` are validated. No model backend (no SDK) is imported,
    so ``compact run`` can check its whole config before reading a transcript at no cost.
    """
    from compactor.counting.config import Config, check_config_fields

    file_cfg = with_overrides(file_cfg, overrides)
    fields = config_fields(file_cfg, build_models=False)
    defaults = {
        f.name: f.default
        for f in dataclasses.fields(Config)
        if f.default is not dataclasses.MISSING
    }
    # The SPEC checks on the values a Config would hold, without constructing one: a run
    # builds its Config once, after reading its transcript, from this checked layer.
    _locate(file_cfg, check_config_fields, SimpleNamespace(**{**defaults, **fields}))
