"""What ``compact check --explain`` prints: the human-readable block.

(The data, and the ``check --json`` line, are the library's:
:class:`compactor.runs.dryrun.Explainer`, :func:`compactor.runs.dryrun.check_record`; the
``run --report`` object and the ``--events`` lines too:
:meth:`compactor.runs.run_result.RunResult.report`, :meth:`compactor.runs.runner.Run.emit`.)"""

from __future__ import annotations

from collections.abc import Sequence

from compactor._json import JsonObject
from compactor.schema import AgenticMessage, Message

from .common import count, number
from .safe_text import visible

__all__ = ["render_explain"]


def _tokens(n: int) -> str:
    """``       1,234 tokens``: the number right-aligned in its column, the noun after it."""
    return f"{n:>12,} token" + ("" if n == 1 else "s")


def _range(span: JsonObject) -> str:
    """Half-open 0-based [start, end) as the 1-based line-of-history range a person reads."""
    if span["messages"] == 0:
        return "none"
    first, last = span["start"] + 1, span["end"]
    where = f"message {first}" if first == last else f"messages {first}-{last}"
    return f"{where} ({count(span['messages'], 'message')}, {count(span['tokens'], 'token')})"


def _requests_line(req: JsonObject) -> str:
    """What a run would send, and whether the config's spend limits let it."""
    if req["embedded"]:
        text = "none (the embedded summarizer runs here)"
    elif req["cached"]:
        text = "none (the summary is in the cache)"
    else:
        text = f"{count(req['count'], 'request')} with about {req['input_tokens']:,} input tokens"
        text += " if every call succeeds"
    limits = req["limits"]
    if limits is not None:
        shown = ", ".join(f"{k} {v:,}" for k, v in limits.items() if v is not None)
        verdict = "within" if req["within_limits"] else "OVER: the run would stop before sending"
        text += f"; limits {shown}: {verdict}"
    return text


def render_explain(data: JsonObject, messages: Sequence[Message | AgenticMessage]) -> str:
    """The human-readable ``check --explain`` block (after the one-line verdict)."""
    out: list[str] = []
    add = out.append
    add("  trigger:")
    for row in data["conditions"]:
        value = number(row["value"])
        if row["margin"] is None:
            verdict = "not counted"
        elif row["fired"]:
            verdict = f"FIRES ({-row['margin']:,} over)"
        else:
            verdict = f"{row['margin']:,} below"
        name = row["condition"]
        if name == "context_fraction":
            name = f"{row['fraction']:.0%} of {row['window_tokens']:,}"
        add(f"    {name:<22} {value:>12} / {row['threshold']:<12,} {verdict}")
    total = number(data["tokens"])
    add(f"  tokens by role (they add up to the {total} counted):")
    baseline = data["baseline"]
    if baseline is not None:
        add(
            f"    {'usage baseline':<16} {count(baseline['messages'], 'message'):>12} "
            f"{_tokens(baseline['tokens'])}  (reported by the provider at message "
            f"{baseline['messages']:,})"
        )
    for role, row in data["by_role"].items():
        add(f"    {role:<16} {count(row['messages'], 'message'):>12} {_tokens(row['tokens'])}")
    overhead = data["overhead"]
    if overhead["tokens"]:
        add(f"    {overhead['label']:<29} {_tokens(overhead['tokens'])}")
    if data["by_tool"]:
        add("  tokens by tool (estimate: call arguments + results):")
        for name, row in list(data["by_tool"].items())[:12]:
            add(
                f"    {name[:24]:<24} {count(row['calls'], 'call'):>11} {row['call_tokens']:>10,}"
                f" + {count(row['results'], 'result'):>13} {row['result_tokens']:>10,}"
            )
        if len(data["by_tool"]) > 12:
            add(f"    … {len(data['by_tool']) - 12} more tools (--json lists them all)")
    plan = data["plan"]
    add("  plan:" if data["triggered"] else "  plan (if compacted, e.g. with run --force):")
    add(f"    kept verbatim:     {count(plan['system_messages'], 'leading system message')}")
    add(f"    summarized:        {_range(plan['summarized'])}")
    if plan["tail"] is not None:
        add(f"    verbatim tail:     {_range(plan['tail'])}")
    elif plan["keep"] is not None:
        add("    verbatim tail:     none (no safe start within the keep budget)")
    um = plan["user_messages"]
    if um["applies"]:
        add(
            f"    user messages:     {um['kept_whole']:,} of {um['candidates']:,} re-inserted "
            f"whole, {um['cut']:,} cut, {um['dropped']:,} dropped "
            f"(budget {um['budget_tokens']:,} tokens)"
        )
    else:
        add(f"    user messages:     not re-inserted ({um['reason']})")
    limit = plan["summarizer_context_tokens"]
    size = f"{plan['summarizer_input_tokens']:,} tokens"
    if plan["chunks"]:
        add(
            f"    summarizer input:  {size}, over its {limit:,}-token context: "
            f"{len(plan['chunks'])} chunks"
        )
        for chunk in plan["chunks"]:
            span = {**chunk}
            flag = " (oversized: texts cut to fit)" if chunk["oversized"] else ""
            add(f"      chunk {chunk['index']}: {_range(span)}{flag}")
    elif limit:
        add(f"    summarizer input:  {size}, fits its {limit:,}-token context in one pass")
    else:
        add(f"    summarizer input:  {size} in one pass (no model.context_tokens set)")
    if plan.get("window_assumed"):
        add(
            f"    summarizer window: {limit:,} tokens, assumed: {plan['window_assumed']} is not "
            "a model compact knows (set model.context_tokens)"
        )
    masked = plan["masked_secrets"]
    if masked is None:
        add("    secret masking:    off")
    elif masked:
        kinds = ", ".join(f"{k} {v:,}" for k, v in sorted(masked.items()))
        add(f"    secret masking:    would replace {kinds}")
    else:
        add("    secret masking:    on, nothing to replace")
    chain = f"{plan['summarizer']} ({count(plan['attempts'], 'attempt')})"
    if plan["failover"]:
        chain += (
            f", then failover {', '.join(plan['failover'])} "
            f"({count(plan['failover_attempts'], 'attempt')})"
        )
    if plan["fallback"]:
        chain += f", then fallback {plan['fallback']}"
    add(f"    summarizer:        {chain}")
    add(f"    requests:          {_requests_line(plan['requests'])}")
    cost = plan["estimated_cost"]
    if cost is None:
        add("    estimated cost:    no price table (set prices: in the config)")
    elif cost.get("usd_max") is None:
        add(f"    estimated cost:    unknown ({cost['reason']})")
    else:
        add(
            f"    estimated cost:    ≤ ${cost['usd_max']:.4f} ({count(cost['calls'], 'call')}: "
            f"{cost['input_tokens']:,} input + ≤ {cost['output_tokens_max']:,} output tokens "
            f"at ${cost['input_per_mtok']:g}/${cost['output_per_mtok']:g} per 1M)"
        )
    options = []
    if plan["loop_guard"] is not None:
        options.append(f"loop guard < {plan['loop_guard']:.0%}")
    if plan.get("max_growth") is not None:
        options.append(f"growth ≤ {plan['max_growth']:g}×")
    if plan["retention"]:
        options.append("retention check")
    if plan["strip_analysis"]:
        options.append("strip <analysis>")
    if plan["cache"]:
        options.append(f"cache {plan['cache']}")
    if options:
        add(f"    also:              {', '.join(options)}")
    add("  (dry run: no model was called)")
    return visible("\n".join(out))  # tool names and the like come from the transcript
