"""What a compaction would do, without doing it: the data behind ``compact check --explain``.

:func:`explain` never calls a model. It reports where the tokens are (by role, by tool), each
trigger condition with its margin, and the plan: what stays verbatim (system messages, the
tail), what is summarized, which user messages the finalizer would re-insert or cut, how big
the summarizer input is, the chunk plan when it would not fit the summarizer's context, what
secret masking would replace, and an estimated cost from a price table. Everything is plain
data (JSON-safe); the CLI renders it.

Token figures in the breakdowns use the default estimate (UTF-8 bytes / 4, SPEC §3) per
message; the total and the trigger use the configured counter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .config import Config, PreserveUserMessages
from .finalize import _is_candidate, select_user_messages
from .middleware import Middleware
from .schema import AgenticMessage, Message, ToolInfo, user_text
from .summarize import build_model_input, input_tokens, plan_summarizer_chunks, split_system
from .tokens import estimate_message, estimate_text
from .trigger import TriggerDecision, fraction_threshold, thresholds

__all__ = ["PlannedModel", "explain", "explain_config"]


def _by_role(messages: Sequence[Message | AgenticMessage]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for msg in messages:
        role = msg.role
        if isinstance(msg, AgenticMessage) and role == "user":
            if msg.blocks and all(b.type == "function_tool_result" for b in msg.blocks):
                role = "tool"
        row = out.setdefault(role, {"messages": 0, "tokens": 0})
        row["messages"] += 1
        row["tokens"] += estimate_message(msg)
    return dict(sorted(out.items(), key=lambda kv: -kv[1]["tokens"]))


def _by_tool(messages: Sequence[Message | AgenticMessage]) -> dict[str, dict[str, int]]:
    """Per tool name: calls and their argument tokens, results and their tokens."""
    out: dict[str, dict[str, int]] = {}
    names: dict[str, str] = {}

    def row(name: str) -> dict[str, int]:
        return out.setdefault(
            name, {"calls": 0, "call_tokens": 0, "results": 0, "result_tokens": 0}
        )

    for msg in messages:
        if isinstance(msg, Message):
            for call in msg.tool_calls:
                names[call.id] = call.name
                r = row(call.name)
                r["calls"] += 1
                r["call_tokens"] += estimate_text(call.name + call.arguments)
            if msg.role == "tool":
                name = names.get(msg.tool_call_id or "") or msg.tool_name or msg.name or "?"
                r = row(name)
                r["results"] += 1
                r["result_tokens"] += estimate_message(msg)
            continue
        for block in msg.blocks:
            if block.type == "function_tool_call":
                name = block.name or "?"
                names[block.call_id or ""] = name
                r = row(name)
                r["calls"] += 1
                r["call_tokens"] += estimate_text(name + (block.arguments or ""))
            elif block.type == "function_tool_result":
                name = names.get(block.call_id or "") or block.name or "?"
                r = row(name)
                r["results"] += 1
                r["result_tokens"] += estimate_message(AgenticMessage("user", blocks=[block]))
    return dict(
        sorted(out.items(), key=lambda kv: -(kv[1]["call_tokens"] + kv[1]["result_tokens"]))
    )


def _conditions(config: Config[Any], decision: TriggerDecision) -> list[dict[str, Any]]:
    trigger = config.trigger
    max_tokens, max_messages = thresholds(trigger)
    rows: list[dict[str, Any]] = []
    tokens = decision.tokens
    if max_messages is not None:
        rows.append(
            {
                "condition": "context_messages",
                "value": decision.messages,
                "threshold": max_messages,
                "fired": decision.messages > max_messages,
                "margin": max_messages - decision.messages,
            }
        )
    explicit = trigger.context_tokens if trigger is not None else max_tokens
    if explicit:
        rows.append(
            {
                "condition": "context_tokens",
                "value": tokens,
                "threshold": explicit,
                "fired": tokens is not None and tokens > explicit,
                "margin": None if tokens is None else explicit - tokens,
            }
        )
    frac = fraction_threshold(trigger)
    if frac is not None and trigger is not None:
        rows.append(
            {
                "condition": "context_fraction",
                "value": tokens,
                "threshold": frac,
                "fraction": trigger.context_fraction,
                "window_tokens": trigger.window_tokens,
                "fired": tokens is not None and tokens > frac,
                "margin": None if tokens is None else frac - tokens,
            }
        )
    return rows


def _span(messages: Sequence[Any], start: int, end: int) -> dict[str, int]:
    return {
        "start": start,
        "end": end,
        "messages": end - start,
        "tokens": sum(estimate_message(m) for m in messages[start:end]),
    }


async def _user_messages(config: Config[Any], mw: Middleware[Any], head: list[Any]) -> Any:
    if config.finalize is not None:
        return {"applies": False, "reason": "a custom finalize is configured"}
    pum = config.preserve_user_messages or PreserveUserMessages()
    if not pum.enabled:
        return {"applies": False, "reason": "preserve_user_messages is off"}
    budget = mw.user_budget(pum)
    candidates = [m for m in head if _is_candidate(m)]
    kept, _ = await select_user_messages(head, budget, pum.filter)
    # At most one message is cut: the oldest one kept, when it is not a candidate's whole text.
    cut = 1 if kept and kept[0] not in {user_text(m) for m in candidates} else 0
    return {
        "applies": True,
        "budget_tokens": budget,
        "candidates": len(candidates),
        "kept_whole": len(kept) - cut,
        "cut": cut,
        "dropped": len(candidates) - len(kept),
    }


def _cost(
    prices: Mapping[str, Mapping[str, float]] | None,
    model: str,
    calls: list[int],
    reply_tokens: int,
) -> dict[str, Any] | None:
    if not prices:
        return None
    short = model.split(":", 1)[-1]
    price = prices.get(model) or prices.get(short)
    if price is None:
        return {"model": model, "usd": None, "reason": f"no price for {short!r} in prices"}
    input_tokens_total = sum(calls)
    output_tokens = reply_tokens * len(calls)
    usd = (
        input_tokens_total * float(price.get("input", 0.0))
        + output_tokens * float(price.get("output", 0.0))
    ) / 1_000_000
    return {
        "model": model,
        "calls": len(calls),
        "input_tokens": input_tokens_total,
        "output_tokens_max": output_tokens,
        "usd_max": round(usd, 6),
        "input_per_mtok": float(price.get("input", 0.0)),
        "output_per_mtok": float(price.get("output", 0.0)),
    }


async def explain(
    config: Config[Any],
    messages: list[Any],
    tools: Sequence[ToolInfo],
    decision: TriggerDecision,
    *,
    model: str,
    prices: Mapping[str, Mapping[str, float]] | None = None,
) -> dict[str, Any]:
    """The dry-run explanation of compacting ``messages`` with ``config``; never calls a model.

    ``decision`` is the trigger decision already made with the configured counter; ``model``
    names the summarizer (for the report and the price lookup).
    """
    mw: Middleware[Any] = Middleware(config)
    system_messages, context = split_system(list(messages))
    to_summarize, tail = mw.split_tail(list(messages))
    head = to_summarize[len(system_messages) :]
    n_sys = len(system_messages)
    masker = mw.make_masker()
    system_instruction, user_instruction, model_input = await build_model_input(
        config, to_summarize
    )
    if masker is not None:
        model_input = masker.mask_messages(model_input)
    summarizer_tokens = input_tokens(model_input)
    limit = config.summarizer_context_tokens
    chunks: list[dict[str, Any]] = []
    calls = [summarizer_tokens]
    if limit and config.gen_model_input is None and summarizer_tokens > limit:
        plan = plan_summarizer_chunks(config, to_summarize, system_instruction, user_instruction)
        for i, c in enumerate(plan.chunks, start=1):
            chunks.append(
                {
                    "index": i,
                    "start": c.start + plan.offset,
                    "end": c.end + plan.offset,
                    "messages": c.end - c.start,
                    "tokens": c.tokens,
                    "oversized": c.oversized,
                }
            )
        fixed = summarizer_tokens - sum(c.tokens for c in plan.chunks)
        running = limit // 4
        calls = [c.tokens + fixed + (running if i else 0) for i, c in enumerate(plan.chunks)]
    plan_data: dict[str, Any] = {
        "system_messages": n_sys,
        "summarized": _span(messages, n_sys, n_sys + len(head)),
        "tail": _span(messages, n_sys + len(head), len(messages)) if tail else None,
        "keep": (
            None
            if config.keep is None
            else {"messages": config.keep.messages, "tokens": config.keep.tokens}
        ),
        "user_messages": await _user_messages(config, mw, head),
        "summarizer": model,
        "summarizer_input_tokens": summarizer_tokens,
        "summarizer_context_tokens": limit,
        "chunks": chunks,
        "masked_secrets": dict(masker.counts) if masker is not None else None,
        "fallback": getattr(config.fallback_model, "name", None),
        "cache": None if config.cache is None else str(config.cache.directory),
        "loop_guard": config.loop_guard,
        "retention": config.retention is not None and config.retention.enabled,
        "strip_analysis": config.strip_analysis,
        "estimated_cost": _cost(prices, model, calls, config.reply_reserve_tokens),
    }
    return {
        "messages": decision.messages,
        "tokens": decision.tokens,
        "triggered": decision.triggered,
        "reason": decision.reason,
        "conditions": _conditions(config, decision),
        "by_role": _by_role(messages),
        "by_tool": _by_tool(context),
        "plan": plan_data,
    }


class PlannedModel:
    """Stands in for the summarizer in ``check --explain``: named, never called, never built."""

    def __init__(self, name: str, remote: bool) -> None:
        self.name = name
        self.remote = remote

    async def generate(self, messages: list[Any], **options: Any) -> Any:
        raise AssertionError("--explain never calls a model")


def explain_config(file_cfg: Any, model: str | None) -> tuple[str, Config[Any]]:
    """(summarizer name, the Config a run would use) for ``check --explain``, built without
    importing or building any model backend."""
    import dataclasses

    from .configfile import Overrides, _model_dict, build_config

    overrides = Overrides(model=model)
    primary = _model_dict(file_cfg, overrides)
    name = "local" if primary.get("provider") == "local" else f"openai:{primary.get('name')}"
    chain = [primary, *((file_cfg.failover or {}).get("models") or [])]
    planned = PlannedModel(name, remote=primary.get("provider") != "local")
    cfg = build_config(
        # a dry run never calls the callback: its module is not imported (it runs code)
        dataclasses.replace(file_cfg, failover=None, callback=None),
        overrides,
        transcript_path_auto="/dev/null",
        model=planned,
    )
    return name, dataclasses.replace(cfg, mask_secrets=file_cfg.masking(chain))
