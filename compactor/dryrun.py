"""``compact check``: would a transcript be compacted, and why? Never calls a model.

:func:`check_file` reads one transcript and decides its trigger. With the default counter, a
line-per-message file is streamed in bounded memory
(:func:`compactor.formats.streaming.stream_check`, same results); everything else is read whole.
Kept light: ``compact check`` imports neither the middleware nor the event types.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .tokens import TokenCounter, default_token_counter
from .trigger import TriggerCondition, TriggerDecision, decide_sync

if TYPE_CHECKING:
    from .sizes import InputLimits

__all__ = ["CheckResult", "check_file"]


@dataclass
class CheckResult:
    """What ``check`` prints for one transcript."""

    path: str
    format: str
    decision: TriggerDecision
    file_tool_calls: int
    """Tool calls over every record of the file (also before an earlier compaction)."""
    file_tool_results: int
    messages: list[Any] | None = None
    """The model-visible history (a full read only; None when the file was streamed)."""
    tool_calls: int | None = None
    """Streamed: tool calls of the history (a full read counts them from ``messages``)."""
    tool_results: int | None = None


def check_file(
    path: str,
    trigger: TriggerCondition | None,
    counter: TokenCounter,
    format: str | None = None,
    limits: InputLimits | None = None,
) -> CheckResult:
    """Read ``path`` (``-``: stdin) and decide; malformed input raises TranscriptError, and so
    does a line or an input past ``limits`` (default: :class:`~compactor.io.InputLimits`)."""
    from .formats.streaming import stream_check

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
    from .formats.registry import file_tool_pairs, read_transcript

    if remote:
        from .distributed.objects import read_named

        display, raw = read_named(path, limits)
    else:
        from .io import read_input

        display, raw = read_input(path, limits)
    parsed = read_transcript(display, raw, format=format)
    decision = decide_sync(parsed.messages, parsed.tools, trigger, counter, always_count=True)
    calls, results = file_tool_pairs(parsed)
    return CheckResult(display, parsed.format, decision, calls, results, messages=parsed.messages)
