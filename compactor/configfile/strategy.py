"""The run's strategy (``strategy:``, ``--strategy``) and the ``reduction:`` section → a
:class:`~compactor.reduction.ReductionConfig` (SPEC §10).

Under ``reduce`` and ``hybrid`` the run's token trigger (``--threshold``,
``trigger.context_tokens`` / ``context_fraction``) is the clearing threshold (Eino's
``max_tokens_for_clear``); ``reduction.max_tokens_for_clear`` applies only when the config has
no token trigger. The read tool a placeholder names is the transcript's own harness's (Claude
Code: ``Read``; Codex: its shell, ``cat FILE``; others: ``read_file``) unless
``reduction.read_file_tool_name`` names another.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from compactor._json import JsonObject
from compactor.errors import ConfigError
from compactor.formats import READ_TOOLS

from .fileconfig import FileConfig
from .settings import Reduction

if TYPE_CHECKING:
    from compactor.events import EventSink
    from compactor.reduction import OffloadBackend, ReductionConfig
    from compactor.reduction.core import Locate

__all__ = [
    "HARNESS_READ_TOOLS",
    "STRATEGIES",
    "clear_threshold",
    "default_offload_dir",
    "offload_enabled",
    "offload_folder",
    "read_tool_for",
    "reduction_config",
    "reduction_settings",
    "strategy_of",
]

STRATEGIES = ("summarize", "reduce", "hybrid")
HARNESS_READ_TOOLS = READ_TOOLS
"""The tool each harness reads a file with (its format's ``spec.read_tool``; others: Eino's
``read_file``)."""


def strategy_of(file_cfg: FileConfig, flag: str | None = None) -> str:
    """``--strategy``, else the file's ``strategy:``, else ``summarize``; checked."""
    value = flag if flag is not None else (file_cfg.strategy or "summarize")
    if value not in STRATEGIES:
        message = f"strategy must be one of {', '.join(STRATEGIES)}, got {value!r}"
        if flag is not None:
            raise ConfigError(f"--strategy: {message}")
        raise file_cfg.error("strategy", message)
    return value


def read_tool_for(file_cfg: FileConfig, fmt: str | None) -> str:
    configured = (file_cfg.reduction or Reduction()).get("read_file_tool_name")
    if configured:
        return str(configured)
    return HARNESS_READ_TOOLS.get(fmt or "", "read_file")


def offload_enabled(file_cfg: FileConfig) -> bool:
    return bool((file_cfg.reduction or Reduction()).get("offload", True))


def default_offload_dir() -> Path:
    """``$XDG_DATA_HOME/compact/offload`` (``~/.local/share/compact/offload``)."""
    xdg = os.environ.get("XDG_DATA_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return base / "compact" / "offload"


def offload_folder(file_cfg: FileConfig, flag: str | None, output: str | None) -> Path:
    """``--offload-dir``, else ``reduction.offload_dir`` (relative to the config file), else
    ``NAME.offload/`` beside the output file ``NAME.jsonl``, else (stdout) the default."""
    if flag:
        return Path(os.path.abspath(flag))
    configured = (file_cfg.reduction or Reduction()).get("offload_dir")
    if configured:
        folder = os.path.expanduser(str(configured))
        if not os.path.isabs(folder) and file_cfg.path:
            folder = os.path.join(os.path.dirname(file_cfg.path), folder)
        return Path(os.path.abspath(folder))
    if output is None:
        return default_offload_dir()
    path = Path(os.path.abspath(output))
    return path.with_name(f"{path.stem}.offload")


def clear_threshold(file_cfg: FileConfig) -> int:
    """The clearing threshold: the run's token trigger, else ``reduction.max_tokens_for_clear``
    (else Eino's 160,000)."""
    from compactor.counting.trigger import thresholds
    from compactor.reduction import DEFAULT_MAX_TOKENS_FOR_CLEAR

    trigger = file_cfg.trigger_condition()
    if trigger is not None:
        tokens, _ = thresholds(trigger)
        if tokens is not None:
            return tokens
    value = (file_cfg.reduction or Reduction()).get(
        "max_tokens_for_clear", DEFAULT_MAX_TOKENS_FOR_CLEAR
    )
    return int(value)


def reduction_settings(file_cfg: FileConfig, fmt: str | None = None) -> JsonObject:
    """The effective reduction options as plain data (``config show``, reports)."""
    from compactor.reduction import ReductionConfig

    section = file_cfg.reduction or Reduction()
    defaults = ReductionConfig()
    return {
        "max_length_for_trunc": section.get("max_length_for_trunc", defaults.max_length_for_trunc),
        "trunc_exclude_tools": list(section.get("trunc_exclude_tools") or []),
        "trunc_preview_chars": section.get("trunc_preview_chars", defaults.trunc_preview_chars),
        "max_tokens_for_clear": clear_threshold(file_cfg),
        "clear_retention_suffix_limit": section.get(
            "clear_retention_suffix_limit", defaults.clear_retention_suffix_limit
        ),
        "clear_at_least_tokens": section.get(
            "clear_at_least_tokens", defaults.clear_at_least_tokens
        ),
        "clear_exclude_tools": list(section.get("clear_exclude_tools") or []),
        "read_file_tool_name": read_tool_for(file_cfg, fmt),
        "offload": offload_enabled(file_cfg),
    }


def reduction_config(
    file_cfg: FileConfig,
    *,
    fmt: str | None = None,
    force: bool = False,
    backend: OffloadBackend | None = None,
    locate: Locate | None = None,
    on_event: EventSink | None = None,
) -> ReductionConfig:
    """The :class:`ReductionConfig` a run of ``fmt`` uses; a bad value is a ConfigError
    located at its key in the file."""
    from compactor.reduction import ReductionConfig, validate_reduction

    values = reduction_settings(file_cfg, fmt)
    del values["offload"]
    cfg = ReductionConfig(
        **{
            **values,
            "trunc_exclude_tools": tuple(values["trunc_exclude_tools"]),
            "clear_exclude_tools": tuple(values["clear_exclude_tools"]),
        },
        force=force,
        backend=backend,
        locate=locate,
        token_counter=file_cfg.counter(),
        on_event=on_event,
    )
    try:
        validate_reduction(cfg)
    except ConfigError as err:
        raise file_cfg.error(
            f"reduction.{err.key}" if err.key else "reduction", err.message
        ) from err
    return cfg
