"""``compact config show`` and ``compact config validate``."""

from __future__ import annotations

import json
import os
from typing import Annotated, Any

import typer

from compactor.configfile import (
    FileConfig,
    build_config,
    load_config_file,
    load_default_config,
)
from compactor.trigger import thresholds

from . import common
from .common import ConfigOpt, DebugOpt

__all__ = ["config_show", "config_validate"]


def _effective(file_cfg: FileConfig, model: str | None) -> dict[str, Any]:
    data = file_cfg.to_dict(mask=True)
    data.pop("path", None)
    if model is not None:
        if model == "local":
            data["model"] = {"provider": "local"}
        else:
            base = dict(data.get("model") or {})
            base.update(provider="openai", name=model.partition(":")[2])
            data["model"] = base
    elif data.get("model") is None:
        data["model"] = (
            {"provider": "openai", "name": "gpt-4o-mini", "api_key": "***"}
            if os.environ.get("OPENAI_API_KEY")
            else {"provider": "local"}
        )
    condition = file_cfg.trigger_condition()
    tokens, messages = thresholds(condition)
    trigger: dict[str, Any] = {
        "context_tokens": (condition.context_tokens if condition else tokens) or 0,
        "context_messages": messages or 0,
    }
    if condition is not None and condition.context_fraction:
        trigger.update(
            context_fraction=condition.context_fraction,
            window_tokens=condition.window_tokens,
            agent_model=(file_cfg.trigger or {}).get("agent_model"),
            effective_token_threshold=tokens,
        )
    data["trigger"] = trigger
    data["token_counter"] = file_cfg.counter_name()
    return data


def config_show(
    config: ConfigOpt = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model", metavar="SPEC", help="Override the summarizer: openai:NAME or local."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of YAML.")] = False,
    debug: DebugOpt = False,
) -> None:
    """Print the effective config (defaults, file, environment, flags); API keys are masked.

    Examples:

      compact config show

      compact config show -c configs/openai.yaml --json
    """
    try:
        file_cfg = load_default_config(config)
        data = _effective(file_cfg, model)
        if as_json:
            common.say(json.dumps(data, indent=2), json_text=True)
            return
        import yaml

        if file_cfg.path:
            common.say(
                f"# effective config: built-in defaults + {file_cfg.path} + environment + flags"
            )
        common.say(yaml.safe_dump(data, sort_keys=False, allow_unicode=True).rstrip())
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        common.fail(err, debug)


def config_validate(
    config: Annotated[str, typer.Argument(metavar="CONFIG", help="The YAML config file to check.")],
    debug: DebugOpt = False,
) -> None:
    """Check a config file: keys, types, ${VAR} values, pkg.mod:func references and models.

    Examples:

      compact config validate configs/failover.yaml
    """
    from compactor import new

    try:
        file_cfg = load_config_file(config)
        cfg = build_config(file_cfg, transcript_path_auto="/dev/null")
        new(cfg)
        common.say(f"{config}: ok")
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        common.fail(err, debug)
