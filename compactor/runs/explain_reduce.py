"""``check --explain``'s strategy lines: what ``reduce`` and ``hybrid`` would free, from a dry
reduction that writes nothing and calls no model (the run itself: :mod:`compactor.runs.run_reduce`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from compactor._json import JsonObject
from compactor.configfile.strategy import (
    offload_enabled,
    offload_folder,
    reduction_config,
    strategy_of,
)

from .run_reduce import hybrid_why

if TYPE_CHECKING:
    from compactor.configfile import FileConfig
    from compactor.reduction import OffloadKind
    from compactor.schema import M, ToolInfo

__all__ = ["explain_strategies", "render_strategies"]


class _DryRun:
    """A backend that names the file a run would write (the same path :class:`FileOffload`
    would give it under ``root``, so that placeholders, and the tokens predicted, are the
    run's), and writes nothing."""

    def __init__(self, root: Path) -> None:
        from compactor.reduction import FileOffload

        self._paths = FileOffload(root)  # names only: it creates nothing until it saves
        self._sizes: dict[str, int] = {}

    def longest_path(self, kind: OffloadKind, call_id: str) -> str:
        return self._paths.longest_path(kind, call_id)

    def save(self, kind: OffloadKind, call_id: str, content: str) -> str:
        longest = self.longest_path(kind, call_id)
        plain = longest[: -len(_HASH_TAIL)]
        size = len(content.encode("utf-8", "surrogatepass"))
        if self._sizes.setdefault(plain, size) != size:  # a reused call id: the run adds a hash
            return longest
        return plain


_HASH_TAIL = "-" + "0" * 12
"""What :meth:`FileOffload.longest_path` adds for a reused call id (a short content hash)."""


async def explain_strategies(
    file_cfg: FileConfig,
    fmt: str | None,
    messages: list[M],
    tools: list[ToolInfo],
    summarized_tokens: int,
    output: str | None = None,
) -> JsonObject:
    """``check --explain``: what each strategy would free, without writing or calling anything.
    ``summarized_tokens``: the estimate of the part summarize would replace by a summary;
    ``output``: the file a run would write (``NAME.compact.jsonl`` beside the input), whose
    offload folder the placeholders would name, as the run's do (None: stdout, the default
    folder)."""
    from compactor.counting.trigger import decide
    from compactor.reduction import Reduction
    from compactor.schema import AgentState

    chosen = strategy_of(file_cfg)
    root = offload_folder(file_cfg, None, output)
    backend = _DryRun(root) if offload_enabled(file_cfg) else None
    cfg = reduction_config(file_cfg, fmt=fmt, backend=backend)
    reduction: Reduction[M] = Reduction(cfg)
    outcome = await reduction.reduce(AgentState(messages=list(messages), tools=list(tools)))
    after = await decide(
        outcome.messages, tools, file_cfg.trigger_condition(), file_cfg.counter(), always_count=True
    )
    forced_cfg = reduction_config(file_cfg, fmt=fmt, backend=backend, force=True)
    forced_reduction: Reduction[M] = Reduction(forced_cfg)
    forced = await forced_reduction.reduce(AgentState(messages=list(messages), tools=list(tools)))
    return {
        "chosen": chosen,
        "summarize": {"summarized_tokens": summarized_tokens},
        "reduce": outcome.to_dict(),
        "hybrid": {
            "tokens_after_reduce": outcome.tokens_after,
            "summarizes": after.triggered,
            # --force clears every round outside the retained ones; when there is nothing to
            # clear the run summarizes (less than clear_at_least_tokens: it stays as it is)
            "forced_tokens_before_reduce": forced.tokens_before,  # counted as after is
            "forced_tokens_after_reduce": forced.tokens_after,
            "forced_summarizes": hybrid_why(True, forced, None)[0],
            "forced_clear_skipped": forced.clear_skipped,
        },
    }


def render_strategies(data: JsonObject) -> list[str]:
    """The ``check --explain`` lines of :func:`explain_strategies`."""
    red, hyb = data["reduce"], data["hybrid"]
    cleared = (
        f"{red['cleared']:,} cleared"
        if red["clear_skipped"] is None
        else f"none cleared ({red['clear_skipped']})"
    )
    then = (
        "then summarizes the older part (one retained round fewer at a time until under the "
        "trigger; exit 4 when none is)"
        if hyb["summarizes"]
        else "no summary needed"
    )
    if hyb.get("forced_summarizes"):
        forced = (
            f"with --force: clears nothing ({hyb['forced_clear_skipped']}), so it summarizes "
            "the older part (kept only if smaller)"
        )
    elif hyb.get("forced_clear_skipped"):  # too little to clear: no summary either
        forced = f"with --force: clears nothing ({hyb['forced_clear_skipped']}); under the "
        forced += "trigger the history stays as it is"
    else:
        forced = (
            f"with --force: clears every round outside the retained ones, to "
            f"{hyb.get('forced_tokens_after_reduce', 0):,} tokens"
        )
        if hyb.get("forced_tokens_before_reduce", red["tokens_before"]) != red["tokens_before"]:
            # the count above read the provider's usage; this one the text, as after is
            forced += f" (from {hyb['forced_tokens_before_reduce']:,}, counted the same way)"
    usage = ""
    if isinstance(red.get("tokens_before_usage"), int):  # the count above read it (check 71)
        usage = f"; counted from the text, the provider's usage: {red['tokens_before_usage']:,}"
    return [
        f"  strategies (this config: {data['chosen']}):",
        f"    summarize:         replaces ~{data['summarize']['summarized_tokens']:,} tokens "
        "by a summary",
        f"    reduce:            {red['truncated']:,} truncated, {cleared}: "
        f"{red['tokens_before']:,} → {red['tokens_after']:,} tokens "
        f"({red['tokens_freed']:,} freed{usage})",
        f"    hybrid:            reduce to {hyb['tokens_after_reduce']:,} tokens, {then}",
        f"                       {forced}",
    ]
