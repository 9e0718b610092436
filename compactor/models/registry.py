"""Model registry: ``PREFIX:NAME`` / ``local`` → a :class:`~compactor.models.base.ChatModel`.

The providers are a table (:data:`compactor.models.providers.PROVIDERS`), not a chain of
``if``s: this module looks a prefix up there and lets the :class:`~.providers.Provider`
validate and build. A provider imports its backend only when it builds a model, so importing
this module never imports an SDK (``compact check`` must not pay for one).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from compactor._json import JsonObject, JsonValue
from compactor.errors import ConfigError
from compactor.models.base import ChatModel
from compactor.models.providers import (
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_REMOTE,
    DEFAULT_TIMEOUT,
    INPUT_MODES,
    PROVIDERS,
    Provider,
    default_provider,
)

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_TIMEOUT",
    "FACTORIES",
    "INPUT_MODES",
    "check_model_config",
    "create_model",
    "default_provider",
    "flag_settings",
    "mapping_meant",
    "model_completions",
    "model_flag_choices",
    "model_flag_help",
    "model_from_config",
    "provider_of",
    "with_model_defaults",
]

Factory = Callable[..., ChatModel]

FACTORIES: dict[str, Factory] = {prefix: p.build for prefix, p in PROVIDERS.items()}
"""Prefix → factory ``(name, **kwargs) -> ChatModel`` (the providers' :meth:`~.Provider.build`)."""


def _known() -> str:
    return ", ".join(f"{p!r}" for p in sorted(PROVIDERS))


def provider_of(settings: Mapping[str, JsonValue]) -> Provider:
    """The provider of a model mapping (its ``provider``, else :func:`default_provider`);
    ConfigError (``key="provider"``) for one compact does not know."""
    prefix = settings.get("provider") or default_provider(settings)
    provider = PROVIDERS.get(prefix) if isinstance(prefix, str) else None
    if provider is not None:
        return provider
    if prefix == "scripted":
        raise ConfigError(
            "a scripted model is created in Python (compactor.ScriptedModel), not in a config "
            f"file; use provider {' or '.join(repr(p) for p in sorted(PROVIDERS))}",
            key="provider",
        )
    raise ConfigError(
        f"unknown model provider {prefix!r}: known providers are {_known()} "
        "(a scripted model is created in Python: compactor.ScriptedModel)",
        key="provider",
    )


def with_model_defaults(settings: Mapping[str, JsonValue]) -> JsonObject:
    """A copy of a model mapping with ``provider`` (:func:`default_provider`) and the
    provider's default ``name`` filled in when missing."""
    out = dict(settings)
    if out.get("provider") is None:
        out["provider"] = default_provider(out)
    provider = PROVIDERS.get(out["provider"]) if isinstance(out["provider"], str) else None
    return provider.with_defaults(out) if provider is not None else out


def create_model(spec: str, **kwargs: JsonValue) -> ChatModel:
    """Build a model from ``PREFIX:NAME`` or ``local``; kwargs go to the backend."""
    prefix, _, name = spec.partition(":")
    provider = PROVIDERS.get(prefix.strip())
    if provider is None:
        raise ConfigError(f"unknown model {spec!r}: known prefixes are {_known()}")
    return provider.build(name.strip(), **kwargs)


def model_from_config(d: JsonObject, *, require_key: bool = True) -> ChatModel:
    """Build a model from a config mapping: ``provider``, ``name``, ``base_url``, ``api_key``,
    ``timeout``, ``max_response_bytes``, ``input`` (``auto`` | ``messages`` | ``transcript``).
    ``require_key=False``: a remote model with no key at hand is built anyway (its first
    request fails as a model error) instead of being a ConfigError."""
    if d.get("provider") is None:
        raise ConfigError(
            f"unknown model provider None: known providers are {_known()}", key="provider"
        )
    provider = provider_of(d)
    name, kwargs = provider.settings(d, require_key)
    return provider.build(name, **kwargs)


def check_model_config(d: JsonObject, *, require_key: bool = True) -> None:
    """Raise the ConfigError :func:`model_from_config` would raise, without building the model
    (so no backend SDK is imported)."""
    if d.get("provider") is None:
        raise ConfigError(
            f"unknown model provider None: known providers are {_known()}", key="provider"
        )
    provider_of(d).settings(d, require_key)


def model_flag_choices(conjunction: str = "or") -> str:
    """What ``--model`` takes, from the table: ``local, PREFIX:NAME or PREFIX:NAME``."""
    names = [p.prefix for p in PROVIDERS.values() if not p.remote]
    names += [f"{p.prefix}:NAME" for p in PROVIDERS.values() if p.remote]
    return f"{', '.join(names[:-1])} {conjunction} {names[-1]}"


def _model_hint(spec: str) -> str:
    """``; did you mean 'PREFIX:gpt-4o'?`` for ``gpt-4o`` (the default remote provider),
    ``opnai:gpt-4o`` (the closest prefix), ``locl``."""
    import difflib

    prefix, sep, name = spec.partition(":")
    local = [p.prefix for p in PROVIDERS.values() if not p.remote]
    remote = [p.prefix for p in PROVIDERS.values() if p.remote]
    if not sep and (close := difflib.get_close_matches(spec.strip().lower(), local, 1, 0.7)):
        return f"; did you mean {close[0]!r}?"
    if not sep and spec.strip():
        return f"; did you mean '{DEFAULT_REMOTE.prefix}:{spec.strip()}'?"
    if name and (close := difflib.get_close_matches(prefix.lower(), remote, 1, 0.6)):
        return f"; did you mean '{close[0]}:{name}'?"
    return ""


def mapping_meant(value: str) -> str:
    """The model mapping a scalar ``model: VALUE`` in a config file meant, as YAML flow text:
    ``{provider: local}``, ``{provider: PREFIX, name: NAME}`` for ``PREFIX:NAME``, else the
    default remote provider's ``{provider: PREFIX, name: VALUE}``."""
    exact = PROVIDERS.get(value)
    if exact is not None and not exact.remote:
        return f"{{provider: {exact.prefix}}}"
    prefix, sep, name = value.partition(":")
    provider = PROVIDERS.get(prefix) if sep else None
    if provider is None or not provider.remote or not name:
        provider, name = DEFAULT_REMOTE, value
    return f"{{provider: {provider.prefix}, name: {name}}}"


def model_completions(incomplete: str) -> list[str]:
    """Shell completion of ``--model``: each provider's values (:meth:`.Provider.completions`)
    that start with ``incomplete``."""
    names = [name for p in PROVIDERS.values() for name in p.completions()]
    return [name for name in names if name.startswith(incomplete)]


def flag_settings(spec: str, file_model: Mapping[str, JsonValue] | None) -> JsonObject:
    """The model mapping of ``--model SPEC``: ``PREFIX:NAME`` keeps the file's other settings
    of that provider (a file model of another provider is left out), ``local`` is just that."""
    prefix, sep, name = spec.partition(":")
    provider = PROVIDERS.get(prefix)
    if provider is not None and not provider.remote and not sep:
        return {"provider": provider.prefix}
    if provider is None or not provider.remote or not name:
        raise ConfigError(
            f"unknown model {spec!r}; expected {model_flag_choices()}{_model_hint(spec)}"
        )
    base = dict(file_model or {})
    if base.get("provider", DEFAULT_REMOTE.prefix) != provider.prefix:
        base = {}
    base.update(provider=provider.prefix, name=name)
    return base


def model_flag_help() -> str:
    """``--model``'s help, from the table: each prefix with what it is."""
    parts = [
        f"{p.prefix if not p.remote else p.prefix + ':NAME'} ({p.title})"
        for p in PROVIDERS.values()
    ]
    return f"{', '.join(parts[:-1])} or {parts[-1]}"
