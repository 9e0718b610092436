"""``compact check``: would a transcript be compacted, and why? Never calls a model.

:func:`check_file` reads one transcript and decides its trigger. With the default counter, a
line-per-message file is streamed in bounded memory
(:func:`compactor.formats.streaming.stream_check`, same results); everything else is read whole.
Kept light: ``compact check`` imports neither the middleware nor the event types.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

from compactor._json import JsonObject
from compactor._util import Record
from compactor.counting.tokens import TokenCounter, default_token_counter
from compactor.counting.trigger import TriggerCondition, TriggerDecision, decide_sync, thresholds
from compactor.schema import AgenticMessage, M, Message, ToolInfo

if TYPE_CHECKING:
    from compactor.configfile import FileConfig
    from compactor.counting.config import Config
    from compactor.events import UnknownRecords
    from compactor.formats.base import Transcript
    from compactor.sizes import InputLimits

__all__ = [
    "CheckResult",
    "Explained",
    "Explainer",
    "check_file",
    "check_record",
    "error_record",
    "tool_pair_counts",
    "verdict_record",
]


class CheckResult(Record):
    """What ``check`` prints for one transcript. (A dataclass's behaviour, defined as a plain
    class: ``compact check`` defines it on every start-up.)"""

    __slots__ = (  # noqa: RUF023 - field order: repr and == follow it
        "path",
        "format",
        "decision",
        "file_tool_calls",
        "file_tool_results",
        "messages",
        "tool_calls",
        "tool_results",
    )
    path: str
    format: str
    decision: TriggerDecision
    file_tool_calls: int
    """Tool calls over every record of the file (also before an earlier compaction)."""
    file_tool_results: int
    messages: list[Message] | list[AgenticMessage] | None
    """The model-visible history (a full read only; None when the file was streamed)."""
    tool_calls: int | None
    """Streamed: tool calls of the history (a full read counts them from ``messages``)."""
    tool_results: int | None

    def __init__(
        self,
        path: str,
        format: str,
        decision: TriggerDecision,
        file_tool_calls: int,
        file_tool_results: int,
        messages: list[Message] | list[AgenticMessage] | None = None,
        tool_calls: int | None = None,
        tool_results: int | None = None,
    ) -> None:
        self.path = path
        self.format = format
        self.decision = decision
        self.file_tool_calls = file_tool_calls
        self.file_tool_results = file_tool_results
        self.messages = messages
        self.tool_calls = tool_calls
        self.tool_results = tool_results


def _notes(parsed: Transcript, on_note: Callable[[UnknownRecords], object] | None) -> None:
    """Give ``on_note`` the reader's warnings (the event types are imported only then)."""
    if on_note is not None and parsed.meta.unknown:
        from compactor.formats.registry import unknown_notes

        for note in unknown_notes(parsed):
            on_note(note)


def check_file(
    path: str,
    trigger: TriggerCondition | None,
    counter: TokenCounter,
    format: str | None = None,
    limits: InputLimits | None = None,
    on_note: Callable[[UnknownRecords], object] | None = None,
) -> CheckResult:
    """Read ``path`` (``-``: stdin) and decide; malformed input raises TranscriptError, and so
    does a line or an input past ``limits`` (default: :class:`~compactor.io.InputLimits`).
    ``on_note`` receives the reader's warnings (records of unknown types kept as metadata)."""
    from compactor.formats.streaming import stream_check

    remote = "://" in path  # an object-store URL: read whole (compactor.distributed.objects)
    streamed = (
        stream_check(path, trigger, format, limits)
        if counter is default_token_counter and not remote
        else None
    )
    if streamed is not None:
        # line-per-message formats: the whole file is the visible history
        return CheckResult(
            path,
            streamed.format,
            streamed.decision,
            streamed.tool_calls,
            streamed.tool_results,
            tool_calls=streamed.tool_calls,
            tool_results=streamed.tool_results,
        )
    from compactor.formats.registry import file_tool_pairs, read_transcript

    if remote:
        from compactor.distributed.objects import read_named

        display, raw = read_named(path, limits)
    else:
        from compactor.io import read_input

        display, raw = read_input(path, limits)
    parsed = read_transcript(display, raw, format=format)
    _notes(parsed, on_note)
    decision = decide_sync(parsed.messages, parsed.tools, trigger, counter, always_count=True)
    calls, results = file_tool_pairs(parsed)
    return CheckResult(display, parsed.format, decision, calls, results, messages=parsed.messages)


def tool_pair_counts(messages: Sequence[Message | AgenticMessage]) -> tuple[int, int]:
    """``(tool calls, tool results paired to one of those calls' ids)`` in ``messages``.

    A dangling call (no result yet) counts as a call only; a result whose id matches no call in
    ``messages`` is not counted.
    """
    from compactor.schema import AgenticMessage

    calls: list[str] = []
    results: list[str | None] = []
    for msg in messages:
        if isinstance(msg, AgenticMessage):
            for block in msg.blocks:
                if block.type == "function_tool_call":
                    calls.append(block.call_id or "")
                elif block.type == "function_tool_result":
                    results.append(block.call_id)
        else:
            calls.extend(call.id for call in msg.tool_calls)
            if msg.role == "tool":
                results.append(msg.tool_call_id)
    ids = set(calls)
    return len(calls), sum(1 for call_id in results if call_id is not None and call_id in ids)


def verdict_record(
    path: str,
    fmt: str,
    counter: str,
    decision: TriggerDecision,
    messages: Sequence[Message | AgenticMessage] | None = None,
) -> JsonObject:
    """The SPEC §9.3 fields of one ``check --json`` line, plus ``tool_calls``/``tool_results``
    when ``messages`` is given."""
    record: JsonObject = {
        "path": path,
        "format": fmt,
        "messages": decision.messages,
        "tokens": decision.tokens,
        "counter": counter,
        "threshold_tokens": decision.threshold_tokens,
        "threshold_messages": decision.threshold_messages,
        "triggered": decision.triggered,
        "reason": decision.reason,
        "error": None,
    }
    if messages is not None:
        record["tool_calls"], record["tool_results"] = tool_pair_counts(messages)
    return record


def check_record(result: CheckResult, counter: str) -> JsonObject:
    """The ``check --json`` line of ``result`` (``counter``: the counter's name)."""
    record = verdict_record(result.path, result.format, counter, result.decision, result.messages)
    if result.tool_calls is not None:
        record["tool_calls"] = result.tool_calls
        record["tool_results"] = result.tool_results
    # Over every record of the file, also before an earlier compaction boundary.
    record["file_tool_calls"] = result.file_tool_calls
    record["file_tool_results"] = result.file_tool_results
    return record


def error_record(
    path: str, counter: str, trigger: TriggerCondition | None, error: str, exit_code: int
) -> JsonObject:
    """The ``check --json`` line of a transcript that could not be checked: the same keys,
    null where nothing is known, the error (its one line) and its exit code."""
    threshold_tokens, threshold_messages = thresholds(trigger)
    return {
        "path": path,
        "format": None,
        "messages": None,
        "tokens": None,
        "counter": counter,
        "threshold_tokens": threshold_tokens,
        "threshold_messages": threshold_messages,
        "triggered": None,
        "reason": None,
        "error": error,
        "exit_code": exit_code,
    }


class Explained(Record):
    """``check --explain`` of one transcript: its verdict and the explanation (plain data).
    (A dataclass's behaviour, defined as a plain class: see :class:`CheckResult`.)"""

    __slots__ = ("path", "format", "decision", "messages", "data")  # noqa: RUF023 - field order
    path: str
    format: str
    decision: TriggerDecision
    messages: list[Message] | list[AgenticMessage]
    data: JsonObject
    """:func:`compactor.runs.explain.explain`'s dict, with ``strategies`` added."""

    def __init__(
        self,
        path: str,
        format: str,
        decision: TriggerDecision,
        messages: list[Message] | list[AgenticMessage],
        data: JsonObject,
    ) -> None:
        self.path = path
        self.format = format
        self.decision = decision
        self.messages = messages
        self.data = data

    def record(self, counter: str) -> JsonObject:
        """The ``check --explain --json`` line (``counter``: the counter's name)."""
        record = verdict_record(self.path, self.format, counter, self.decision, self.messages)
        record["explain"] = self.data
        return record


class Explainer:
    """Explains one transcript at a time; the config is resolved once (no model imported)."""

    def __init__(self, file_cfg: FileConfig, model: str | None = None) -> None:
        from compactor.configfile import Overrides, summarizer_window, with_overrides

        from .explain import explain_config, summarizer_chain

        file_cfg = with_overrides(file_cfg, Overrides(model=model))  # --model laid over once
        self.file_cfg = file_cfg
        # a Config built from a file holds no message-typed value: it serves either type
        self.cfg: Config[Message] | Config[AgenticMessage]
        self.name, self.cfg = explain_config(file_cfg, None)
        window, assumed = summarizer_window(file_cfg)
        self.chain = summarizer_chain(file_cfg)
        if assumed is not None and window == self.cfg.summarizer_context_tokens:
            self.chain["window_assumed"] = assumed
        self.limits = file_cfg.spend_limits()
        self.trigger = file_cfg.trigger_condition()
        self.counter = file_cfg.counter()

    def _explain(
        self,
        fmt: str,
        messages: list[M],
        tools: list[ToolInfo],
        decision: TriggerDecision,
        source: str | None = None,
    ) -> JsonObject:
        """The explanation of one history and what each strategy would free."""
        import asyncio

        from .explain import explain
        from .explain_reduce import explain_strategies

        cfg = cast("Config[M]", self.cfg)  # the config of either type, for this one
        data = asyncio.run(
            explain(
                cfg,
                messages,
                tools,
                decision,
                model=self.name,
                prices=self.file_cfg.prices,
                chain=self.chain,
                limits=self.limits,
            )
        )
        summarized = (data["plan"].get("summarized") or {}).get("tokens", 0)
        from .run_plan import default_output

        output = default_output(source) if source and os.path.isfile(source) else None
        data["strategies"] = asyncio.run(
            explain_strategies(self.file_cfg, fmt, messages, tools, summarized, output)
        )
        return data

    def __call__(
        self,
        path: str,
        format: str | None = None,
        limits: InputLimits | None = None,
        on_note: Callable[[UnknownRecords], object] | None = None,
    ) -> Explained:
        """Read ``path`` whole, decide as a run would, and explain (never calls a model)."""
        from compactor.distributed.objects import read_named
        from compactor.formats.registry import read_transcript
        from compactor.schema import is_agentic

        display, raw = read_named(path, limits)
        parsed = read_transcript(display, raw, format=format)
        _notes(parsed, on_note)
        decision = decide_sync(
            parsed.messages, parsed.tools, self.trigger, self.counter, always_count=True
        )
        messages = parsed.messages  # one type per history: explain() is called with it bound
        if is_agentic(messages):
            data = self._explain(parsed.format, messages, parsed.tools, decision, path)
        else:
            data = self._explain(parsed.format, messages, parsed.tools, decision, path)
        return Explained(display, parsed.format, decision, parsed.messages, data)
