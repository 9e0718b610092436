"""Model registry: ``openai:NAME`` / ``local`` → a :class:`~compactor.models.base.ChatModel`.

Each factory imports its backend only when called, so importing this module never imports
``openai`` (``compact check`` must not pay for it).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from typing import Any

from compactor.errors import ConfigError
from compactor.models.base import ChatModel

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_OPENAI_MODEL",
    "DEFAULT_TIMEOUT",
    "FACTORIES",
    "INPUT_MODES",
    "check_model_config",
    "create_model",
    "default_provider",
    "model_from_config",
    "with_model_defaults",
]

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
"""The model of an ``openai`` provider whose mapping names none."""

DEFAULT_TIMEOUT = 60.0
"""``model.timeout`` when unset: seconds for one whole attempt of an openai model."""

DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""``model.max_response_bytes`` when unset: the largest response body an openai model accepts,
counted after gzip/deflate decoding."""

INPUT_MODES = ("auto", "messages", "transcript")
"""``model.input``: how the summarizer input is sent (:mod:`compactor.rendering`); the OpenAI
model's ``input_mode``. Here so that checking a config never imports the openai client."""


def _openai(name: str, **kwargs: Any) -> ChatModel:
    from compactor.models.openai import OpenAIModel

    if not name:
        raise ConfigError("openai model name is required, e.g. 'openai:gpt-4o-mini'")
    return OpenAIModel(name, **kwargs)


def _local(name: str, **kwargs: Any) -> ChatModel:
    from compactor.models.local import LocalSummarizer

    if name:
        raise ConfigError(f"the local summarizer takes no model name, got {name!r}")
    return LocalSummarizer()


Factory = Callable[..., ChatModel]

FACTORIES: dict[str, Factory] = {"openai": _openai, "local": _local}
"""Prefix → factory ``(name, **kwargs) -> ChatModel``."""


def default_provider(settings: Mapping[str, Any]) -> str:
    """The provider of a model mapping that names none: ``openai`` when an API key is at hand
    (the mapping's ``api_key`` or ``$OPENAI_API_KEY``), else ``local`` (the embedded
    summarizer, no network). The one place this rule is decided."""
    return "openai" if settings.get("api_key") or os.environ.get("OPENAI_API_KEY") else "local"


def with_model_defaults(settings: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a model mapping with ``provider`` (:func:`default_provider`) and, for
    ``openai``, ``name`` (:data:`DEFAULT_OPENAI_MODEL`) filled in when missing."""
    out = dict(settings)
    if out.get("provider") is None:
        out["provider"] = default_provider(out)
    if out["provider"] == "openai" and not out.get("name"):
        out["name"] = DEFAULT_OPENAI_MODEL
    return out


def create_model(spec: str, **kwargs: Any) -> ChatModel:
    """Build a model from ``openai:gpt-4o-mini`` or ``local``; kwargs go to the backend."""
    prefix, _, name = spec.partition(":")
    factory = FACTORIES.get(prefix.strip())
    if factory is None:
        known = ", ".join(f"{p!r}" for p in sorted(FACTORIES))
        raise ConfigError(f"unknown model {spec!r}: known prefixes are {known}")
    return factory(name.strip(), **kwargs)


def model_from_config(d: dict[str, Any], *, require_key: bool = True) -> ChatModel:
    """Build a model from a config mapping: ``provider``, ``name``, ``base_url``, ``api_key``,
    ``timeout``, ``max_response_bytes``, ``input`` (``auto`` | ``messages`` | ``transcript``).
    ``require_key=False``: an openai model with no key at hand is built anyway (its first
    request fails as a model error) instead of being a ConfigError."""
    spec, kwargs = _spec_from_config(d, require_key)
    return create_model(spec, **kwargs)


def check_model_config(d: dict[str, Any], *, require_key: bool = True) -> None:
    """Raise the ConfigError :func:`model_from_config` would raise, without building the model
    (so no backend, e.g. the openai client, is imported)."""
    _spec_from_config(d, require_key)


def _spec_from_config(d: dict[str, Any], require_key: bool = True) -> tuple[str, dict[str, Any]]:
    """``(create_model spec, backend kwargs)`` of a config mapping, validated."""
    provider = d.get("provider")
    if provider == "scripted":
        raise ConfigError(
            "a scripted model is created in Python (compactor.ScriptedModel), not in a config "
            "file; use provider 'local' or 'openai'",
            key="provider",
        )
    if provider == "local":
        return "local", {}
    if provider == "openai":
        name = d.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ConfigError("model.name is required for provider 'openai'", key="name")
        kwargs: dict[str, Any] = {}
        for key in ("base_url", "api_key"):
            value = d.get(key)
            if value is not None:
                if not isinstance(value, str):
                    raise ConfigError(f"must be a string, got {type(value).__name__}", key=key)
                kwargs[key] = value
        timeout = d.get("timeout")
        if timeout is not None:
            if (
                isinstance(timeout, bool)
                or not isinstance(timeout, int | float)
                or not math.isfinite(timeout)
                or timeout <= 0
            ):
                # a deadline on every attempt: .inf would let a dripping server hang a run
                raise ConfigError(f"must be a positive number, got {timeout!r}", key="timeout")
            kwargs["timeout"] = float(timeout)
        limit = d.get("max_response_bytes")
        if limit is not None:
            if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
                raise ConfigError(
                    f"must be a positive number of bytes, got {limit!r}", key="max_response_bytes"
                )
            kwargs["max_response_bytes"] = limit
        form = d.get("input")
        if form is not None:
            if form not in INPUT_MODES:
                choices = ", ".join(repr(m) for m in INPUT_MODES)
                raise ConfigError(f"must be one of {choices}, got {form!r}", key="input")
            kwargs["input_mode"] = form
        if require_key and not (
            kwargs.get("api_key")
            or os.environ.get("OPENAI_API_KEY")
            or kwargs.get("base_url")
            or os.environ.get("OPENAI_BASE_URL")
        ):
            # Known before any call: a configuration problem (exit 2), not a failed summary.
            raise ConfigError(
                f"no API key for openai model {name!r}: set OPENAI_API_KEY or model.api_key "
                "(a local server that needs none: set model.base_url or OPENAI_BASE_URL)",
                key="api_key",
            )
        return f"openai:{name}", kwargs
    raise ConfigError(
        f"unknown model provider {provider!r}: known providers are 'local' and 'openai' "
        "(a scripted model is created in Python: compactor.ScriptedModel)",
        key="provider",
    )
