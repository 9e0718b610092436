"""The model providers compact knows, one object each: the table is :data:`PROVIDERS`.

A :class:`Provider` owns everything about one backend that the rest of compact needs without
importing its SDK: its ``--model`` prefix, its default model name, its environment variables
(API key, base URL) and default endpoint, the config keys it reads with their types, defaults and
ranges (:meth:`Provider.settings`, the one validation of a model mapping), why it has no key
(:meth:`Provider.key_problem`), its ``config show`` row (:meth:`Provider.show`), its label in
``check --explain`` (:meth:`Provider.label`), the endpoint the summary cache keys on
(:meth:`Provider.endpoint`) and the client it builds (:meth:`Provider.build`, which imports the
backend's module only then). How a provider's errors map to :class:`~compactor.errors.ModelError`
kinds (with ``window``, ``prompt_tokens``, ``retry_after`` as typed fields) lives in its
backend's ``*_errors`` module.

Adding a backend: write ``models/NAME*.py`` (the client, its wire format, its error mapping) and
add one :class:`Provider` row to :data:`PROVIDERS`. Nothing outside ``models/`` names a provider.

This module imports no SDK (``compact check`` must not pay for one).
"""

from __future__ import annotations

import importlib
import math
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from compactor._json import JsonObject, JsonValue
from compactor._util import FrozenRecord, mask_url_credentials
from compactor.errors import ConfigError
from compactor.models.base import ChatModel
from compactor.schema import AgenticMessage, Message

if TYPE_CHECKING:
    from compactor.models.openai_body import RequestBody

__all__ = [
    "ANTHROPIC",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_TIMEOUT",
    "INPUT_MODES",
    "LOCAL",
    "OPENAI",
    "PROVIDERS",
    "REMOTE_KEYS",
    "ModelKey",
    "Provider",
    "default_provider",
    "provider_named",
]

DEFAULT_TIMEOUT = 60.0
"""``model.timeout`` when unset: seconds for one whole attempt of a remote model."""

DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""``model.max_response_bytes`` when unset: the largest response body a remote model accepts,
counted after gzip/deflate decoding."""

INPUT_MODES = ("auto", "messages", "transcript")
"""``model.input``: how the summarizer input is sent (:mod:`compactor.pipeline.rendering`)."""


def _positive_number(value: JsonValue, key: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        # a deadline on every attempt: .inf would let a dripping server hang a run
        raise ConfigError(f"must be a positive number, got {value!r}", key=key)
    return float(value)


def _positive_bytes(value: JsonValue, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"must be a positive number of bytes, got {value!r}", key=key)
    return value


def _input_mode(value: JsonValue, key: str) -> str:
    if value not in INPUT_MODES:
        choices = ", ".join(repr(m) for m in INPUT_MODES)
        raise ConfigError(f"must be one of {choices}, got {value!r}", key=key)
    return str(value)


def _string(value: JsonValue, key: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"must be a string, got {type(value).__name__}", key=key)
    return value


class ModelKey(FrozenRecord):
    """One key of a remote model's mapping, declared once. (A frozen dataclass's behaviour,
    defined as a plain class: ``configfile.schema`` needs the table on every start-up.)"""

    __slots__ = ("keyword", "types", "check", "default")  # noqa: RUF023 - field order
    keyword: str
    """The backend's keyword argument the value goes to."""
    types: tuple[type, ...]
    """The YAML types a config file may give (``configfile.schema.MODEL_KEYS`` reads them)."""
    check: Callable[[JsonValue, str], JsonValue]
    """``(value, key) -> the backend's value``; a ConfigError for a wrong type or range."""
    default: JsonValue
    """The value a run uses when the key is unset (``config show`` prints it)."""

    def __init__(
        self,
        keyword: str,
        types: tuple[type, ...],
        check: Callable[[JsonValue, str], JsonValue],
        default: JsonValue = None,
    ) -> None:
        init = object.__setattr__
        init(self, "keyword", keyword)
        init(self, "types", types)
        init(self, "check", check)
        init(self, "default", default)


_NONE = type(None)

REMOTE_KEYS: dict[str, ModelKey] = {
    "base_url": ModelKey("base_url", (str, _NONE), _string),
    "api_key": ModelKey("api_key", (str, _NONE), _string),
    "timeout": ModelKey("timeout", (int, float, _NONE), _positive_number, DEFAULT_TIMEOUT),
    "max_response_bytes": ModelKey(
        "max_response_bytes", (int,), _positive_bytes, DEFAULT_MAX_RESPONSE_BYTES
    ),
    "input": ModelKey("input_mode", (str, _NONE), _input_mode, "auto"),
}
"""The keys of a remote model's mapping (a new one: a row here and a keyword of
:class:`compactor.models.sdk_call.SdkModel`, the remote backends' constructor).
``provider``, ``name``, ``options`` and ``context_tokens`` are every model's."""


class Provider(FrozenRecord):
    """One model provider; see the module docstring. (A frozen dataclass's behaviour, defined
    as a plain class: the table is read on every start-up.)"""

    __slots__ = (  # noqa: RUF023 - field order: repr and == follow it
        "prefix",
        "backend",
        "remote",
        "default_name",
        "key_env",
        "base_url_env",
        "default_base_url",
        "title",
        "about",
        "url_note",
        "body_module",
        "families",
    )

    prefix: str
    """``provider:`` in a config and the ``--model PREFIX:NAME`` prefix."""
    backend: str
    """``module:Class`` of the model, imported by :meth:`build` only."""
    remote: bool
    """Calls a server (secret masking is on by default for it)."""
    default_name: str | None
    """The model of a mapping that names none (None: a name is required)."""
    key_env: str | None
    """The environment variable of the API key (a remote provider's default: ``PREFIX_API_KEY``,
    as the SDKs name it: ``OPENAI_API_KEY``)."""
    base_url_env: str | None
    """The environment variable of the base URL (a remote provider's default:
    ``PREFIX_BASE_URL``)."""
    default_base_url: str | None
    """Where requests go without ``base_url`` or :attr:`base_url_env`."""
    title: str
    """What it is, in ``--model``'s help."""
    about: str
    """What its models are, in a sentence (the starter config: "an OpenAI-compatible model")."""
    url_note: str
    """A comment on ``base_url`` in the starter config (which servers it may point at)."""
    body_module: str
    """A module whose ``request_body(model, messages, request_params(options))`` builds the
    body its models send, when they build it once (the summary cache keys on its bytes), so
    ``check --explain`` keys as the run does without building a client; empty: none."""
    families: tuple[str, ...]
    """Name prefixes of its well-known models (the ``--model`` completion offers them); empty:
    every well-known model (an OpenAI-compatible server may serve any of them)."""

    def __init__(self, prefix: str, **fields: object) -> None:
        """``Provider(prefix, backend=..., ...)``: the other fields by keyword, each defaulting
        as in :data:`_PROVIDER_DEFAULTS`."""
        unknown = fields.keys() - _PROVIDER_DEFAULTS.keys()
        if unknown:
            raise TypeError(f"Provider() got an unexpected keyword argument {min(unknown)!r}")
        init = object.__setattr__
        init(self, "prefix", prefix)
        for name, default in _PROVIDER_DEFAULTS.items():
            init(self, name, fields.get(name, default))
        stem = prefix.upper()
        if self.remote and self.key_env is None:
            init(self, "key_env", f"{stem}_API_KEY")
        if self.remote and self.base_url_env is None:
            init(self, "base_url_env", f"{stem}_BASE_URL")

    def commented_example(self) -> str:
        """The commented ``model:`` section the starter config shows for this provider."""
        note = f"   # {self.url_note}" if self.url_note else ""
        return (
            f"# model:\n#   provider: {self.prefix}\n#   name: {self.default_name}\n"
            f"#   api_key: ${{{self.key_env}}}\n#   base_url: ${{{self.base_url_env}:-}}{note}\n"
        )

    # -- the environment -----------------------------------------------------------------------

    def env_key(self) -> str | None:
        return os.environ.get(self.key_env) or None if self.key_env else None

    def env_base_url(self) -> str | None:
        return os.environ.get(self.base_url_env) or None if self.base_url_env else None

    def endpoint(self, base_url: str | None) -> str:
        """The endpoint a model with ``base_url`` calls (else the environment's, else the
        provider's), credentials masked: the summary cache's key uses it, and ``check
        --explain`` finds the same cache entries as the run without building a client."""
        chosen = base_url or self.env_base_url() or self.default_base_url or ""
        return mask_url_credentials(chosen.rstrip("/"))

    # -- a model mapping -----------------------------------------------------------------------

    def with_defaults(self, settings: Mapping[str, JsonValue]) -> JsonObject:
        out = dict(settings)
        out["provider"] = self.prefix
        if self.default_name and not out.get("name"):
            out["name"] = self.default_name
        return out

    def label(self, settings: Mapping[str, JsonValue]) -> str:
        """``PREFIX:NAME`` (``local``): how ``check --explain`` and reports name the model."""
        if not self.remote:
            return self.prefix
        return f"{self.prefix}:{settings.get('name') or self.default_name}"

    def planned_window(
        self, settings: Mapping[str, JsonValue], assumed: int
    ) -> tuple[int, str | None]:
        """``(window, assumed label)`` a run plans with for a model of this provider whose
        ``context_tokens`` is not set: its published window
        (:func:`compactor.counting.windows.window_for`), else ``assumed`` named by :meth:`label`
        (the live view, the report and ``check --explain`` say it was assumed). ``(0, None)``: no
        window (the embedded summarizer, a mapping without a name)."""
        from compactor.counting.windows import window_for

        name = settings.get("name") or self.default_name
        if not self.remote or not isinstance(name, str) or not name:
            return 0, None
        known = window_for(name)
        return (known, None) if known else (assumed, self.label({"name": name}))

    def request_body(
        self,
        name: str,
        messages: list[Message] | list[AgenticMessage],
        options: Mapping[str, JsonValue],
    ) -> RequestBody:
        """The body a model ``name`` of this provider sends for ``messages`` (its
        :attr:`body_module`, imported now)."""
        module = importlib.import_module(self.body_module)
        body: RequestBody = module.request_body(name, messages, module.request_params(options))
        return body

    def completions(self) -> list[str]:
        """``--model`` values a shell completes to: the prefix alone, or ``PREFIX:NAME`` for the
        well-known models of its family (:data:`compactor.counting.windows.KNOWN_WINDOWS`)."""
        from compactor.counting.windows import KNOWN_WINDOWS

        if not self.remote:
            return [self.prefix]
        return [f"{self.prefix}:{n}" for n in KNOWN_WINDOWS if n.startswith(self.families or "")]

    def settings(
        self, d: Mapping[str, JsonValue], require_key: bool = True
    ) -> tuple[str, JsonObject]:
        """``(model name, backend keywords)`` of a config mapping, validated (ConfigError with
        the offending key)."""
        if not self.remote:
            return "", {}
        name = d.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"model.name is required for provider {self.prefix!r}", key="name")
        kwargs: JsonObject = {}
        for key, spec in REMOTE_KEYS.items():
            value = d.get(key)
            if value is not None:
                kwargs[spec.keyword] = spec.check(value, key)
        if require_key and not (
            kwargs.get("api_key") or self.env_key() or kwargs.get("base_url") or self.env_base_url()
        ):
            # Known before any call: a configuration problem (exit 2), not a failed summary.
            raise ConfigError(self.no_key_message(name), key="api_key")
        return name.strip(), kwargs

    def no_key_message(self, name: JsonValue) -> str:
        return (
            f"no API key for {self.prefix} model {name!r}: set {self.key_env} or model.api_key "
            f"(a local server that needs none: set model.base_url or {self.base_url_env})"
        )

    def key_problem(self, spec: Mapping[str, JsonValue], unset_var: str | None) -> str | None:
        """Why the model ``spec`` has no API key to send, or None when it has one or needs none
        (a ``base_url`` for a local server). ``unset_var``: the variable the file's ``api_key:
        ${VAR}`` names and is not set; the provider's own variable never stands in for it."""
        if not self.remote or spec.get("api_key"):
            return None
        has_url = spec.get("base_url") or self.env_base_url()
        if unset_var is None:
            if has_url or self.env_key():
                return None
            return self.no_key_message(spec.get("name"))
        stand_in = unset_var != self.key_env and self.env_key()
        if has_url and not stand_in:
            return None  # a local server that needs no key
        message = f"no API key: ${{{unset_var}}} is not set"
        if stand_in:
            message += f" (compact does not send ${self.key_env} in its place)"
        return message

    def show(self, d: Mapping[str, JsonValue], unset_var: str | None = None) -> JsonObject:
        """The ``config show`` row of a model mapping (secrets already masked) with every
        default filled in: the environment's base URL as a run would use it, ``api_key: ***``
        or ``not set``."""
        if not self.remote:
            return {"provider": self.prefix}
        out: JsonObject = {"provider": self.prefix, "name": d.get("name") or self.default_name}
        url = d.get("base_url") or mask_url_credentials(self.env_base_url() or "")
        out["base_url"] = url or self.default_base_url
        stand_in = unset_var in (None, self.key_env) and self.env_key()
        out["api_key"] = "***" if d.get("api_key") or stand_in else "not set"
        for key, spec in REMOTE_KEYS.items():
            if key == "input":
                out["options"] = d.get("options") or {}
            if key not in out:
                out[key] = d.get(key) or spec.default
        for key, value in d.items():  # the rest as written (context_tokens, newer keys)
            if key not in out and key != "api_key":
                out[key] = "none" if value is None else value
        return out

    def build(self, name: str, **kwargs: JsonValue) -> ChatModel:
        """The model (imports its backend now)."""
        module, _, attr = self.backend.partition(":")
        cls = getattr(importlib.import_module(module), attr)
        if not self.remote:
            if name:
                raise ConfigError(f"the local summarizer takes no model name, got {name!r}")
            model: ChatModel = cls()
            return model
        if not name:
            raise ConfigError(
                f"{self.prefix} model name is required, e.g. "
                f"'{self.prefix}:{self.default_name or 'NAME'}'"
            )
        built: ChatModel = cls(name, **kwargs)
        return built


_PROVIDER_DEFAULTS: dict[str, object] = {
    "backend": "",
    "remote": True,
    "default_name": None,
    "key_env": None,  # a remote provider's: PREFIX_API_KEY
    "base_url_env": None,  # a remote provider's: PREFIX_BASE_URL
    "default_base_url": None,
    "title": "",
    "about": "",
    "url_note": "",
    "body_module": "",
    "families": (),
}
"""Each :class:`Provider` field but ``prefix``, in field order, and its default."""


LOCAL = Provider(
    "local",
    backend="compactor.models.local:LocalSummarizer",
    remote=False,
    title="embedded, no network",
)
OPENAI = Provider(
    "openai",
    backend="compactor.models.openai:OpenAIModel",
    body_module="compactor.models.openai_body",
    default_name="gpt-4o-mini",
    default_base_url="https://api.openai.com/v1",
    title="any OpenAI-compatible server",
    about="an OpenAI-compatible model",
    url_note="vLLM, llama.cpp, Ollama, LiteLLM, ...",
)
ANTHROPIC = Provider(
    "anthropic",
    backend="compactor.models.anthropic:AnthropicModel",
    default_name="claude-sonnet-4-5",
    default_base_url="https://api.anthropic.com",
    title="Anthropic's Messages API",
    about="an Anthropic model",
    families=("claude-",),
)

PROVIDERS: dict[str, Provider] = {p.prefix: p for p in (LOCAL, OPENAI, ANTHROPIC)}
"""Prefix → provider: the one table of the providers compact knows."""

DEFAULT_REMOTE = OPENAI
"""The provider of a model mapping that names none, when its API key is at hand."""


def default_provider(settings: Mapping[str, JsonValue]) -> str:
    """The provider of a model mapping that names none: :data:`DEFAULT_REMOTE` when an API key
    is at hand (the mapping's ``api_key`` or its key variable), else ``local`` (the embedded
    summarizer, no network). The one place this rule is decided."""
    if settings.get("api_key") or DEFAULT_REMOTE.env_key():
        return DEFAULT_REMOTE.prefix
    return LOCAL.prefix


def provider_named(prefix: JsonValue) -> Provider | None:
    """The provider of ``prefix``, or None."""
    return PROVIDERS.get(prefix) if isinstance(prefix, str) else None
