"""compactor — keep long LLM-agent conversations inside the context window.

A Python port of Eino's summarization middleware (trigger → summarize with retry and failover →
finalize), plus the ``compact`` command line. See SPEC §0 for the public API::

    import compactor as c
    mw = c.new(c.Config(model=c.ScriptedModel.replying("<summary>…</summary>")))
    state = await mw.before_model(state)

Importing this package pulls in neither rich, typer nor a model SDK. The public names are loaded on
first use (PEP 562): ``compact check`` never pays for the middleware, tenacity or asyncio.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .counting.config import (
        Config,
        FailoverConfig,
        FailoverContext,
        KeepTail,
        PreserveUserMessages,
        RetentionConfig,
        RetryConfig,
        SummaryCheck,
        TriggerCondition,
        validate_config,
    )
    from .counting.tokens import TokenCounterInput, default_token_counter
    from .counting.trigger import TriggerDecision
    from .errors import (
        CompactorError,
        ConfigError,
        ErrorKind,
        InputChangedError,
        LoopGuardError,
        ModelError,
        SpendLimitError,
        StreamError,
        SummarizationError,
        TranscriptError,
    )
    from .events import (
        AfterSummarize,
        AttemptStart,
        BeforeSummarize,
        ChunkStart,
        CircuitOpen,
        ContextLimit,
        Event,
        EventSink,
        GenerateSummary,
        InputRendered,
        ModelSkipped,
        RetryWait,
        ShorterSummary,
    )
    from .models.base import ChatModel
    from .models.scripted import ScriptedModel, Step, UnexpectedModelCall
    from .pipeline.cache import SummaryCache
    from .pipeline.finalize import (
        DefaultFinalizerConfig,
        FinalizerBuilder,
        PreserveSkillsConfig,
        default_finalizer,
        new_finalizer,
    )
    from .pipeline.middleware import Middleware, SummarizeOutcome, new
    from .pipeline.retry import default_backoff
    from .runs.runner import Run, RunOptions, RunResult, arun_file, plan, run_file
    from .schema import (
        AgenticMessage,
        AgentState,
        Block,
        Message,
        Part,
        ToolCall,
        ToolInfo,
        Usage,
    )

__version__ = "0.1.0"

_MODULES: dict[str, tuple[str, ...]] = {
    ".counting.config": (
        "Config",
        "FailoverConfig",
        "FailoverContext",
        "KeepTail",
        "PreserveUserMessages",
        "RetentionConfig",
        "RetryConfig",
        "SummaryCheck",
        "TriggerCondition",
        "validate_config",
    ),
    ".errors": (
        "CompactorError",
        "ConfigError",
        "ErrorKind",
        "InputChangedError",
        "LoopGuardError",
        "ModelError",
        "SpendLimitError",
        "StreamError",
        "SummarizationError",
        "TranscriptError",
    ),
    ".events": (
        "AfterReduce",
        "AfterSummarize",
        "AttemptStart",
        "BeforeReduce",
        "BeforeSummarize",
        "ChunkStart",
        "CircuitOpen",
        "ContextLimit",
        "Event",
        "EventSink",
        "GenerateSummary",
        "InputRendered",
        "ModelSkipped",
        "RetryWait",
        "ShorterSummary",
    ),
    ".pipeline.cache": ("SummaryCache",),
    ".pipeline.finalize": (
        "DefaultFinalizerConfig",
        "FinalizerBuilder",
        "PreserveSkillsConfig",
        "default_finalizer",
        "new_finalizer",
    ),
    ".pipeline.middleware": ("Middleware", "SummarizeOutcome", "new"),
    ".models.base": ("ChatModel",),
    ".models.scripted": ("ScriptedModel", "Step", "UnexpectedModelCall"),
    ".runs.runner": ("Run", "RunOptions", "RunResult", "arun_file", "plan", "run_file"),
    ".schema": (
        "AgenticMessage",
        "AgentState",
        "Block",
        "Message",
        "Part",
        "ToolCall",
        "ToolInfo",
        "Usage",
    ),
    ".pipeline.retry": ("default_backoff",),
    ".counting.tokens": ("TokenCounterInput", "default_token_counter"),
    ".counting.trigger": ("TriggerDecision",),
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names}
"""Public name → the module that defines it."""


_SUBPACKAGES = frozenset({"reduction"})
"""Packages reachable as attributes of ``compactor`` (imported on first access)."""


def __getattr__(name: str) -> Any:
    """Import the module defining ``name`` on first access and cache the value (PEP 562)."""
    if name in _SUBPACKAGES:  # ``compactor.reduction.new(...)`` after ``import compactor``
        return importlib.import_module(f".{name}", __name__)
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public API only: ``dir(compactor)`` and completion in a REPL show what
    ``__all__`` names, not this module's own imports (``Any``, ``importlib``, ...)."""
    return sorted(__all__)


__all__ = [
    "AfterReduce",
    "AfterSummarize",
    "AgentState",
    "AgenticMessage",
    "AttemptStart",
    "BeforeReduce",
    "BeforeSummarize",
    "Block",
    "ChatModel",
    "ChunkStart",
    "CircuitOpen",
    "CompactorError",
    "Config",
    "ConfigError",
    "ContextLimit",
    "DefaultFinalizerConfig",
    "ErrorKind",
    "Event",
    "EventSink",
    "FailoverConfig",
    "FailoverContext",
    "FinalizerBuilder",
    "GenerateSummary",
    "InputChangedError",
    "InputRendered",
    "KeepTail",
    "LoopGuardError",
    "Message",
    "Middleware",
    "ModelError",
    "ModelSkipped",
    "Part",
    "PreserveSkillsConfig",
    "PreserveUserMessages",
    "RetentionConfig",
    "RetryConfig",
    "RetryWait",
    "Run",
    "RunOptions",
    "RunResult",
    "ScriptedModel",
    "ShorterSummary",
    "SpendLimitError",
    "Step",
    "StreamError",
    "SummarizationError",
    "SummarizeOutcome",
    "SummaryCache",
    "SummaryCheck",
    "TokenCounterInput",
    "ToolCall",
    "ToolInfo",
    "TranscriptError",
    "TriggerCondition",
    "TriggerDecision",
    "UnexpectedModelCall",
    "Usage",
    "__version__",
    "arun_file",
    "default_backoff",
    "default_finalizer",
    "default_token_counter",
    "new",
    "new_finalizer",
    "plan",
    "run_file",
    "validate_config",
]
