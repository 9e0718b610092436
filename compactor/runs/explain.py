"""What a compaction would do, without doing it: the data behind ``compact check --explain``.

:func:`explain` never calls a model. It reports where the tokens are (by role, by tool), each
trigger condition with its margin, and the plan: what stays verbatim (system messages, the
tail), what is summarized, which user messages the finalizer would re-insert or cut, how big
the summarizer input is, the chunk plan when it would not fit the summarizer's context, what
secret masking would replace, and an estimated cost from a price table. Everything is plain
data (JSON-safe); the CLI renders it.

The rows of tokens by role add up to the count the trigger used: with the default counter, a
provider-reported usage baseline is a row of its own (it stands for every message up to the
one that reported it), the messages after it are estimated (UTF-8 bytes / 4, SPEC §3) and the
tool definitions are a row; with another counter each message is what it adds to a request
(the count of it twice minus once), and the rest of the total (tool definitions, request
framing) is a row. The chunk plan is the run's own
(:func:`~compactor.pipeline.chunking.plan_summarizer_chunks`): its ranges and token figures are the
ones a run reports. The tokens by tool use the estimate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from compactor._json import JsonObject, JsonValue
from compactor._util import maybe_await, model_name
from compactor.counting.config import Config, PreserveUserMessages
from compactor.counting.tokens import (
    TokenCounterInput,
    baseline_index,
    default_token_counter,
    estimate_message,
    estimate_text,
    estimate_tools,
)
from compactor.counting.trigger import (
    TriggerDecision,
    checked_count,
    fraction_threshold,
    thresholds,
)
from compactor.errors import SpendLimitError
from compactor.models.providers import Provider, provider_named
from compactor.pipeline.cache import request_key
from compactor.pipeline.chunking import (
    initial_brevity,
    input_tokens,
    needs_chunks,
    plan_summarizer_chunks,
    running_allowance,
)
from compactor.pipeline.finalize import is_user_candidate, select_user_messages
from compactor.pipeline.middleware import Middleware
from compactor.pipeline.rendering import transcript_input
from compactor.pipeline.replies import is_embedded, oversized_reply, weak_reply
from compactor.pipeline.summarize import build_model_input
from compactor.schema import (
    AgenticMessage,
    M,
    Message,
    ToolInfo,
    message_kind,
    split_system,
    user_text,
)

if TYPE_CHECKING:
    from compactor.configfile import FileConfig
    from compactor.pipeline.limits import SpendLimits

__all__ = [
    "PlannedModel",
    "RequestPlan",
    "explain",
    "explain_config",
    "model_label",
    "plan_requests",
    "summarizer_chain",
]


def _role(msg: Message | AgenticMessage) -> str:
    if isinstance(msg, AgenticMessage) and msg.role == "user":
        if msg.blocks and all(b.type == "function_tool_result" for b in msg.blocks):
            return "tool"
    return msg.role


async def _token_rows(
    config: Config[M], messages: Sequence[Message | AgenticMessage], tools: Sequence[ToolInfo]
) -> JsonObject:
    """Where the counted tokens are, in rows that add up to what the trigger counted.

    * ``baseline``: with the default counter, the provider-reported usage of the newest
      assistant message that has it: it stands for every message up to there.
    * ``by_role``: the messages the counter counted itself, by role.
    * ``overhead``: what the counter adds beyond the messages: the tool definitions (default
      counter), or another counter's tools and per-request framing (the total minus what the
      messages add), so the rows always add up.
    """
    counter = config.token_counter or default_token_counter
    by_role: dict[str, dict[str, int]] = {}

    def add(msg: Message | AgenticMessage, tokens: int) -> None:
        row = by_role.setdefault(_role(msg), {"messages": 0, "tokens": 0})
        row["messages"] += 1
        row["tokens"] += tokens

    baseline: dict[str, int] | None = None
    if counter is default_token_counter:
        start = baseline_index(messages)
        if start >= 0:
            usage = messages[start].usage
            assert usage is not None
            baseline = {"messages": start + 1, "tokens": usage.total_tokens}
        for msg in messages[start + 1 :]:
            add(msg, estimate_message(msg))
        overhead = estimate_tools(tools)
        label = "tool definitions"
        total = default_token_counter(TokenCounterInput(messages, tools))
    else:

        async def count(
            history: Sequence[Message | AgenticMessage], with_tools: Sequence[ToolInfo] = ()
        ) -> int:
            return checked_count(
                await maybe_await(counter(TokenCounterInput(history, list(with_tools))))
            )

        for msg in messages:
            # What the message adds to a request: twice it minus once (exact for counters
            # that frame every message alike, as the tiktoken counters do).
            add(msg, await count([msg, msg]) - await count([msg]))
        total = await count(list(messages), tools)
        overhead = total - sum(r["tokens"] for r in by_role.values())
        label = "tools and framing"
    return {
        "baseline": baseline,
        "by_role": dict(sorted(by_role.items(), key=lambda kv: -kv[1]["tokens"])),
        "overhead": {"label": label, "tokens": overhead},
    }


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


def _conditions(config: Config[M], decision: TriggerDecision) -> list[JsonObject]:
    trigger = config.trigger
    max_tokens, max_messages = thresholds(trigger)
    rows: list[JsonObject] = []
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


def _span(messages: Sequence[Message | AgenticMessage], start: int, end: int) -> dict[str, int]:
    return {
        "start": start,
        "end": end,
        "messages": end - start,
        "tokens": sum(estimate_message(m) for m in messages[start:end]),
    }


async def _user_messages(config: Config[M], mw: Middleware[M], head: list[M]) -> JsonObject:
    if config.finalize is not None:
        return {"applies": False, "reason": "a custom finalize is configured"}
    pum = config.preserve_user_messages or PreserveUserMessages()
    if not pum.enabled:
        return {"applies": False, "reason": "preserve_user_messages is off"}
    budget = mw.user_budget(pum)
    candidates = [m for m in head if is_user_candidate(m)]
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
) -> JsonObject | None:
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
    config: Config[M],
    messages: list[M],
    tools: Sequence[ToolInfo],
    decision: TriggerDecision,
    *,
    model: str,
    prices: Mapping[str, Mapping[str, float]] | None = None,
    chain: Mapping[str, JsonValue] | None = None,
    limits: SpendLimits | None = None,
) -> JsonObject:
    """The dry-run explanation of compacting ``messages`` with ``config``; never calls a model.

    ``decision`` is the trigger decision already made with the configured counter; ``model``
    names the summarizer (for the report and the price lookup); ``chain`` is
    :func:`summarizer_chain`'s account of the attempts and failover models; ``limits`` the
    config's spend limits, checked against the requests the run would send.
    """
    mw: Middleware[M] = Middleware(config)
    system_messages, context = split_system(list(messages))
    to_summarize, tail = mw.split_tail(list(messages))
    head = to_summarize[len(system_messages) :]
    n_sys = len(system_messages)
    requests = await plan_requests(config, messages)
    summarizer_tokens = requests.summarizer_tokens
    limit = config.summarizer_context_tokens
    chunks = requests.chunks
    plan_data: JsonObject = {
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
        "attempts": (chain or {}).get("attempts", 1),
        "failover": list((chain or {}).get("failover", [])),
        "failover_attempts": (chain or {}).get("failover_attempts", 0),
        "summarizer_input_tokens": summarizer_tokens,
        "summarizer_context_tokens": limit,
        # the model whose window was assumed (unknown, no model.context_tokens), else None
        "window_assumed": (chain or {}).get("window_assumed"),
        "chunks": chunks,
        "masked_secrets": requests.masked,
        "requests": _requests(requests, limits),
        "fallback": getattr(config.fallback_model, "name", None),
        "cache": None if config.cache is None else str(config.cache.directory),
        "loop_guard": config.loop_guard,
        "max_growth": config.max_growth,
        "retention": config.retention is not None and config.retention.enabled,
        "strip_analysis": config.strip_analysis,
        # what the calls would cost, had the cache nothing: the cost of the plan, not of a rerun
        "estimated_cost": _cost(prices, model, requests.uncached, config.reply_reserve_tokens),
    }
    return {
        "messages": decision.messages,
        "tokens": decision.tokens,
        "triggered": decision.triggered,
        "reason": decision.reason,
        "conditions": _conditions(config, decision),
        **await _token_rows(config, messages, tools),
        "by_tool": _by_tool(context),
        "plan": plan_data,
    }


@dataclass(frozen=True, slots=True)
class RequestPlan:
    """What a summarization would send, if every call succeeds (no retry, no failover)."""

    calls: list[int]
    """Input tokens of each request it would send: none when the summary is cached or the
    summarizer is embedded, one per chunk when the input is chunked."""
    uncached: list[int]
    """The same without the cache (what the first run costs)."""
    summarizer_tokens: int
    """The summarizer input of one pass (the default estimate)."""
    chunks: list[JsonObject]
    """The chunk plan (empty: one pass)."""
    cached: bool
    """The one-pass summary is in the cache already."""
    embedded: bool
    """The summarizer is the embedded one: no request at all."""
    masked: dict[str, int] | None
    """Secrets masking would replace (None: masking off)."""

    @property
    def requests(self) -> int:
        return len(self.calls)

    @property
    def input_tokens(self) -> int:
        return sum(self.calls)


async def plan_requests(config: Config[M], messages: list[M]) -> RequestPlan:
    """The requests summarizing ``messages`` with ``config`` would send, worked out as the run
    does it (verbatim tail, masking, instructions, chunk plan) without calling a model: what
    ``check --explain`` shows and what the spend guard (:mod:`compactor.pipeline.limits`) reserves
    before a run's first request. A chunked input counts every chunk (a chunk's input depends
    on the summaries before it, so the cache cannot be asked ahead)."""
    mw: Middleware[M] = Middleware(config)
    to_summarize, _ = mw.split_tail(list(messages))
    masker = mw.make_masker()
    brevity = initial_brevity(config) if config.gen_model_input is None else 0
    system_instruction, user_instruction, model_input = await build_model_input(
        config, to_summarize, brevity=brevity
    )
    if masker is not None:
        model_input = masker.mask_messages(model_input)
    summarizer_tokens = input_tokens(model_input)
    limit = config.summarizer_context_tokens
    chunks: list[JsonObject] = []
    calls = [summarizer_tokens]
    if limit and needs_chunks(config, model_input):
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
        running = running_allowance(config)
        calls = [c.tokens + fixed + (running if i else 0) for i, c in enumerate(plan.chunks)]
    cached = False
    if not chunks and config.cache is not None and model_input:
        # as the run keys it: on the form the model is sent (a transcript model: the rendering)
        transcript = getattr(config.model, "input_mode", "messages") == "transcript"
        key, _ = request_key(
            config.model,
            model_name(config.model),
            config.model_options,
            transcript_input(model_input) if transcript else model_input,
        )
        name = model_name(config.model)
        hit = config.cache.peek(key, message_kind(model_input), name)
        # a hit the run's reply checks would refuse is sent again
        cached = hit is not None and not (
            oversized_reply(config, hit, model_input, name) or weak_reply(config, hit, name)
        )
    embedded = is_embedded(config.model)
    return RequestPlan(
        calls=[] if cached or embedded else calls,
        uncached=[] if embedded else calls,
        summarizer_tokens=summarizer_tokens,
        chunks=chunks,
        cached=cached,
        embedded=embedded,
        masked=dict(masker.counts) if masker is not None else None,
    )


def _requests(plan: RequestPlan, limits: SpendLimits | None) -> JsonObject:
    """The ``requests`` object of ``--explain``: what a run would send, and whether the spend
    limits let it."""
    data: JsonObject = {
        "count": plan.requests,
        "input_tokens": plan.input_tokens,
        "cached": plan.cached,
        "embedded": plan.embedded,
        "limits": None if limits is None else limits.to_dict(),
        "within_limits": True,
    }
    if limits is not None:
        from compactor.pipeline.limits import SpendMeter

        try:
            SpendMeter(limits).reserve(plan.requests, plan.input_tokens)
        except SpendLimitError:
            data["within_limits"] = False
    return data


def model_label(d: Mapping[str, JsonValue]) -> str:
    """``PREFIX:NAME`` or ``local`` for a model mapping of the config (its provider's
    :meth:`~compactor.models.providers.Provider.label`)."""
    from compactor.models.registry import with_model_defaults

    full = with_model_defaults(d)
    provider = provider_named(full["provider"])
    return provider.label(full) if provider is not None else str(full["provider"])


def summarizer_chain(file_cfg: FileConfig) -> JsonObject:
    """The summarizers a run would try, in order: the primary's attempts, the failover models
    (attempt N uses ``models[(N-1) % len]``) and their attempts."""
    primary, failover = file_cfg.attempts()
    models = file_cfg.failover_models()
    return {
        "attempts": primary,
        "failover": [model_label(m) for m in models] if failover else [],
        "failover_attempts": failover if models else 0,
    }


class PlannedModel:
    """Stands in for the summarizer in ``check --explain``: named, never called, never built;
    with the endpoint (cache key) and ``embedded`` flag of the model it stands for."""

    def __init__(
        self, name: str, remote: bool, endpoint: str | None = None, embedded: bool = False
    ) -> None:
        self.name = name
        self.remote = remote
        self.endpoint = endpoint
        self.embedded = embedded

    async def generate(
        self, messages: list[Message] | list[AgenticMessage], **options: JsonValue
    ) -> NoReturn:
        raise AssertionError("--explain never calls a model")


class PlannedBodyModel(PlannedModel):
    """A planned remote model whose backend builds its request body once (the OpenAI one): it
    builds the body the run would send, so the cache key is the run's (the body's bytes), still
    without importing the client."""

    def __init__(self, name: str, provider: Provider, model: str) -> None:
        super().__init__(name, remote=True)
        self.provider = provider
        self.model = model

    def request_body(
        self, messages: list[Message] | list[AgenticMessage], **options: JsonValue
    ) -> object:
        return self.provider.request_body(self.model, messages, options)


def explain_config(file_cfg: FileConfig, model: str | None) -> tuple[str, Config[M]]:
    """(summarizer name, the Config a run would use) for ``check --explain``, built without
    importing or building any model backend."""
    import dataclasses

    from compactor.configfile import Overrides, build_config, model_settings, with_overrides
    from compactor.models.registry import with_model_defaults

    file_cfg = with_overrides(file_cfg, Overrides(model=model))
    primary = model_settings(file_cfg)
    name = model_label(primary)
    chain = [primary, *file_cfg.failover_models()]
    full = with_model_defaults(primary)
    provider = provider_named(full["provider"])
    local = provider is None or not provider.remote
    planned = (
        PlannedModel(name, remote=not local, embedded=local)
        if provider is None or local or not provider.body_module
        else PlannedBodyModel(name, provider, full["name"])
    )
    planned.endpoint = (
        None if provider is None or local else provider.endpoint(primary.get("base_url"))
    )
    cfg: Config[M] = build_config(
        # a dry run never calls the callback: its module is not imported (it runs code)
        dataclasses.replace(file_cfg, failover=None, callback=None),
        transcript_path_auto="/dev/null",
        model=planned,
        runtime={"mask_secrets": file_cfg.masking(chain)},
    )
    return name, cfg
