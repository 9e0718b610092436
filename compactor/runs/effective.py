"""The effective settings of a run, as plain data (``compact config show``).

Every key shows the value a run would use: the resolved tree's value (the file with the flags
laid over it, :meth:`~compactor.configfile.FileConfig.resolve`), else the default its
declaration gives (``retry: {max_retries: 2, ...}`` when the file has no retry section, the
160,000-token trigger, the archive folder under ``$XDG_DATA_HOME``). Nothing is ``null``: a
feature that is off is ``false`` or ``none``, a built-in text or hook is ``built-in``, an unset
hook is ``none``. Secrets are masked (``api_key: ***``, or ``not set``). The values come from
the same builder a run uses (:func:`~compactor.configfile.build_config`), with the config's own
Python hooks left out: showing a config never imports ``pkg.mod:func`` modules (that runs
their code).
"""

from __future__ import annotations

import dataclasses
import os

from compactor._json import JsonObject
from compactor.configfile import FileConfig, Overrides, build_config, mask_secrets
from compactor.configfile.settings import Section
from compactor.counting.trigger import thresholds

__all__ = ["effective_config"]


def _model(d: JsonObject, unset: str | None = None) -> JsonObject:
    """A model mapping (secrets already masked) with every default filled in, as its provider
    shows it (:meth:`compactor.models.providers.Provider.show`); ``unset``: the variable its
    ``api_key: ${VAR}`` names and is not set (the provider's own key variable never stands in
    for another one, so the key reads ``not set``)."""
    from compactor.models.registry import provider_of

    return provider_of(d).show(d, unset)


def _trigger(file_cfg: FileConfig) -> JsonObject:
    condition = file_cfg.trigger_condition()
    tokens, messages = thresholds(condition)
    trigger: JsonObject = {
        "context_tokens": (condition.context_tokens if condition else tokens) or 0,
        "context_messages": messages or 0,
    }
    if condition is not None and condition.context_fraction:
        trigger.update(
            context_fraction=condition.context_fraction,
            window_tokens=condition.window_tokens,
            agent_model=file_cfg.value("trigger.agent_model") or "none",
            effective_token_threshold=tokens,
        )
    return trigger


def _finalize(file_cfg: FileConfig) -> str | JsonObject:
    spec = file_cfg.finalize
    if spec is None:
        return "built-in"
    if isinstance(spec, str):
        return spec
    out: JsonObject = {
        "strip_analysis": bool(spec.get("strip_analysis")),
        "ensure_user_messages": file_cfg.ensure_user_messages(),
    }
    if "preserve_skills" in spec:
        from compactor.pipeline.finalize import PreserveSkillsConfig

        defaults = dataclasses.asdict(PreserveSkillsConfig())
        out["preserve_skills"] = {**defaults, **(spec.get("preserve_skills") or {})}
    out["system_prompt"] = spec.get("system_prompt") or "none"
    for key, value in spec.items():
        out.setdefault(key, value)
    return out


def effective_config(
    file_cfg: FileConfig,
    overrides: Overrides | None = None,
) -> JsonObject:
    """What a run with ``file_cfg`` and ``overrides`` (``--model``, ...) would use, as plain
    data with secrets masked. Raises the ConfigError a run would raise for a bad value."""
    from compactor.configfile import model_settings
    from compactor.configfile.build import with_overrides
    from compactor.io import default_archive_dir

    file_cfg = with_overrides(file_cfg, overrides)
    # The builder a run uses, without the config's Python hooks (never imported here).
    plain = dataclasses.replace(
        file_cfg, callback=None, gen_model_input=None, token_counter=None, finalize=None
    )
    cfg = build_config(plain, transcript_path_auto="auto", build_models=False, require_keys=False)
    primary = mask_secrets(model_settings(file_cfg))
    unset = file_cfg.unset_env
    failover_models = [
        _model(mask_secrets(m), unset.get(f"failover.models[{i}].api_key"))
        for i, m in enumerate(file_cfg.failover_models())
    ]

    data: JsonObject = {
        "model": _model(primary, unset.get("model.api_key")),
        "trigger": _trigger(file_cfg),
    }
    data["token_counter"] = file_cfg.value("token_counter")
    if file_cfg.user_instruction_file:
        data["user_instruction_file"] = file_cfg.user_instruction_file
    else:
        data["user_instruction"] = file_cfg.user_instruction or "built-in"
    data["instructions"] = (file_cfg.instructions or "").strip() or "none"
    setting = file_cfg.value("transcript_file_path")
    data["transcript_file_path"] = (
        "archive" if setting == "archive" else cfg.transcript_file_path or "none"
    )
    from compactor.counting.config import PreserveUserMessages
    from compactor.pipeline.middleware import Middleware

    pum = cfg.preserve_user_messages or PreserveUserMessages()
    data["preserve_user_messages"] = {
        "enabled": pum.enabled,
        "max_tokens": Middleware(cfg).user_budget(pum),  # the rule the run applies
    }
    data["retry"] = file_cfg.retry_settings()  # each unset key at its declared default
    if cfg.failover is not None:
        data["failover"] = {
            "max_retries": cfg.failover.max_retries,
            "max_delay": cfg.failover.max_delay,
            "models": failover_models,
        }
    else:
        data["failover"] = {"max_retries": 0}
    data["fallback"] = file_cfg.value("fallback")
    data["finalize"] = _finalize(file_cfg)
    data["callback"] = file_cfg.callback or "none"
    data["gen_model_input"] = file_cfg.gen_model_input or "built-in"
    data["format"] = file_cfg.value("format")
    data["archive_dir"] = file_cfg.archive_folder() or os.path.abspath(default_archive_dir())
    data["keep"] = (
        {"messages": cfg.keep.messages or "none", "tokens": cfg.keep.tokens or "none"}
        if cfg.keep is not None
        else "none"
    )
    data["loop_guard"] = (
        {
            "max_ratio": cfg.loop_guard if cfg.loop_guard is not None else False,
            "max_growth": cfg.max_growth if cfg.max_growth is not None else False,
        }
        if cfg.loop_guard is not None or cfg.max_growth is not None
        else False
    )
    data["mask_secrets"] = {
        "enabled": bool(cfg.mask_secrets),
        "patterns": [{"name": n, "regex": r} for n, r in cfg.secret_patterns],
    }
    data["cache"] = {"dir": str(cfg.cache.directory)} if cfg.cache is not None else False
    data["retention"] = (
        {"max_anchors": cfg.retention.max_anchors, "max_facts": cfg.retention.max_facts}
        if cfg.retention is not None
        else False
    )
    data["reply_reserve_tokens"] = cfg.reply_reserve_tokens
    data["max_summary_tokens"] = cfg.max_summary_tokens or "none"
    check = cfg.summary_check
    data["summary_check"] = (
        {"min_tokens": check.min_tokens, "require_sections": check.require_sections}
        if check is not None
        else False
    )
    limits = file_cfg.input_limits()
    data["input"] = {"max_line_bytes": limits.max_line_bytes, "max_bytes": limits.max_bytes}
    data["prices"] = file_cfg.prices or {}
    from compactor.configfile.strategy import reduction_settings, strategy_of

    data["strategy"] = strategy_of(file_cfg)
    data["reduction"] = reduction_settings(file_cfg)
    # Keys rendered by nothing above (a newer key or section): the tree's value, else the
    # default its declaration gives; never null.
    shown = file_cfg.to_dict(mask=True)
    for key, value in shown.items():
        if key in data or key in ("path", "user_instruction", "user_instruction_file"):
            continue
        declared = file_cfg.value(key) if value is None or isinstance(value, dict) else value
        if isinstance(declared, Section):
            values = declared.effective()
            declared = mask_secrets({k: "none" if v is None else v for k, v in values.items()})
        data[key] = "none" if declared is None else declared
    return data
