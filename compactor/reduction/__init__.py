"""Eino's reduction middleware (SPEC §10): shrink a history without a model.

Truncates oversized tool results and clears old tool rounds, the full text offloaded to files
an agent can read back. Usable alone, like :func:`compactor.pipeline.middleware.new`::

    from compactor import reduction

    red = reduction.new(reduction.ReductionConfig(backend=reduction.FileOffload("run.offload")))
    state = await red.before_model(state)

or stacked before summarization (:func:`reduce_then_summarize`), as an Eino agent stacks them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .core import (
    DEFAULT_MAX_LENGTH_FOR_TRUNC,
    DEFAULT_MAX_TOKENS_FOR_CLEAR,
    ReduceOutcome,
    Reduction,
    ReductionConfig,
    new,
    read_hint,
    validate_reduction,
)
from .offload import FileOffload, OffloadBackend, OffloadKind, check_offload_dir
from .results import CLEARED_TEXT, PROCESSED_KEY, ResultRef, find_results, round_starts

if TYPE_CHECKING:
    from .stack import StackedOutcome, keep_retained, reduce_then_summarize

_LAZY = {"StackedOutcome", "keep_retained", "reduce_then_summarize"}
"""From :mod:`.stack`, imported when first asked for: it brings in the whole summarizing
pipeline, which ``--strategy reduce`` never needs."""


def __getattr__(name: str) -> object:
    if name in _LAZY:
        from . import stack

        return getattr(stack, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CLEARED_TEXT",
    "DEFAULT_MAX_LENGTH_FOR_TRUNC",
    "DEFAULT_MAX_TOKENS_FOR_CLEAR",
    "PROCESSED_KEY",
    "FileOffload",
    "OffloadBackend",
    "OffloadKind",
    "ReduceOutcome",
    "Reduction",
    "ReductionConfig",
    "ResultRef",
    "StackedOutcome",
    "check_offload_dir",
    "find_results",
    "keep_retained",
    "new",
    "read_hint",
    "reduce_then_summarize",
    "round_starts",
    "validate_reduction",
]
