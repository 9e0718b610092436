"""The summarize step of a file run (:class:`compactor.runs.runner.Run`): the run's one
:class:`~compactor.counting.config.Config` built from its plan, the spend it reserves, the
original archived before anything is sent, the summary written in the transcript's format.
"""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, cast

from compactor.events import CacheRefused, WindowAssumed
from compactor.io import archive_path
from compactor.pipeline.limits import SpendHold, SpendMeter

from .run_result import outcome_report

if TYPE_CHECKING:
    from compactor.configfile.build import RunFields
    from compactor.counting.config import Config
    from compactor.counting.trigger import TriggerDecision
    from compactor.formats.base import Transcript
    from compactor.schema import M

    from .runner import Run

__all__ = ["summarize_as"]


async def summarize_as(
    run: Run,
    parsed: Transcript,
    decision: TriggerDecision,
    history: list[M],
    retained_from: int,
    exact: bool,
) -> bytes:
    """:meth:`Run.summarize` of ``history``, of one message type, the messages from
    ``retained_from`` on kept verbatim (``exact``: those only); the transcript's bytes."""
    from compactor import new
    from compactor.configfile import build_config
    from compactor.counting.trigger import decide
    from compactor.formats.base import WriteMode
    from compactor.formats.records import dropped_records
    from compactor.formats.registry import get_format, write_transcript
    from compactor.schema import AgentState

    opts, file_cfg, r = run.plan.options, run.plan.file_config, run.result
    raw = b""  # the input's bytes, for its archive only (a streamed input is read again)
    if run.archive_entry is not None:
        auto_path: str | None = run.archive_entry
    elif run.plan.archive_dir is not None:
        raw = run.input_bytes()
        auto_path = archive_path(raw, run.plan.archive_dir)
    elif opts.input == "-":
        auto_path = "-"  # the note says it was read from stdin, and kept nowhere
    else:
        auto_path = os.path.abspath(opts.input)  # noqa: ASYNC240 - string work, no I/O
    # The run's one Config, built from the tree its plan checked (not checked again),
    # with the run's own event sink. --force on a transcript below its trigger: it cannot
    # loop, so no ratio guard; the growth guard (loop_guard.max_growth) still refuses a
    # result that blows it up.
    runtime: RunFields = {"emit_internal_events": True, "on_event": run.emit}
    if not decision.triggered:
        runtime["loop_guard"] = None
    cfg: Config[M] = build_config(
        file_cfg,
        transcript_path_auto=auto_path,
        model=run.model,
        runtime=runtime,
        checked=True,
        agent_session=get_format(parsed.format).spec.agent_session,
    )
    r.transcript_path = cfg.transcript_file_path
    if cfg.focus_instructions:
        r.extras["instructions"] = cfg.focus_instructions
    if cfg.cache is not None and cfg.cache.refused is not None:
        # A folder another user can write: its entries could be planted. Run without it.
        folder, reason = str(cfg.cache.directory), cfg.cache.refused
        r.extras["cache"] = {"dir": folder, "refused": reason}
        cfg = dataclasses.replace(cfg, cache=None)
        await run.emit(CacheRefused(folder, reason))
    await _say_assumed_window(run, cfg)
    if retained_from:
        from compactor.reduction.stack import keep_retained, originals_to_summarize

        cfg = keep_retained(cfg, history, retained_from, exact=exact)
        # the transcript's own messages: of its history's type (a transcript holds one)
        originals = cast("list[M]", list(parsed.messages))
        cfg, history = originals_to_summarize(cfg, history, originals)
    # Spend limits: the plan must fit before anything is sent or written (the archive too).
    hold = await _reserve(run, cfg, history)
    try:
        await run.archive_original()
        if hold is not None:
            cfg = dataclasses.replace(cfg, spend=hold)
        outcome = await new(cfg).summarize_detailed(
            AgentState(messages=history, tools=list(parsed.tools)),
            tokens_before=decision.tokens,  # the same counter and trigger as the config's
        )
    finally:
        if hold is not None:
            hold.release()
            r.extras["limits"] = hold.report()
    r.attempts = run.attempts.attempts
    r.extras = {**outcome_report(outcome, cfg), **r.extras, **run.attempts.report()}
    r.messages_after = len(outcome.messages)
    tokens_after = outcome.tokens_after  # counted by the loop guard, when it ran
    if tokens_after is None:
        counter, trigger = file_cfg.counter(), file_cfg.trigger_condition()
        after = await decide(outcome.messages, parsed.tools, trigger, counter, always_count=True)
        tokens_after = after.tokens
    r.tokens_after = tokens_after
    mode: WriteMode = "append" if opts.append else "shrink"
    info = run.compaction_info(decision, tokens_after)
    data = write_transcript(parsed, outcome.messages, mode=mode, info=info)
    r.dropped_records = dropped_records(parsed, outcome.messages, data, mode)
    return data


async def _say_assumed_window(run: Run, cfg: Config[M]) -> None:
    """An unknown model without ``model.context_tokens``: its window is assumed (issue 34),
    said once in the live view (an event) and in the report."""
    from compactor.configfile import summarizer_window

    if run.model is not None:
        return  # a model handed in (tests): the config's window is its own
    window, assumed = summarizer_window(run.plan.file_config)
    if assumed is not None and window is not None and window == cfg.summarizer_context_tokens:
        run.result.extras["assumed_window"] = {"model": assumed, "tokens": window}
        await run.emit(WindowAssumed(assumed, window))


async def _reserve(run: Run, cfg: Config[M], messages: list[M]) -> SpendHold | None:
    """Set aside the requests this run plans to send (:mod:`compactor.pipeline.limits`);
    :class:`~compactor.errors.SpendLimitError` when they do not fit what is left."""
    if run.meter is None:
        limits = run.plan.file_config.spend_limits()
        if limits is None:
            return None
        run.meter = SpendMeter(limits)
    from .explain import plan_requests

    planned = await plan_requests(cfg, messages)
    run.result.extras["limits"] = {
        **run.meter.limits.to_dict(),
        "planned_requests": planned.requests,
        "planned_input_tokens": planned.input_tokens,
        "requests": 0,
        "input_tokens": 0,
    }
    return run.meter.reserve(planned.requests, planned.input_tokens)
