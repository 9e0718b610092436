"""Machine-readable output (SPEC §9.3): the ``--events`` JSON-lines sink, the ``--report`` JSON
and the ``check --json`` line."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import IO, Any

from compactor._util import maybe_await
from compactor.events import AttemptStart, Event, GenerateSummary
from compactor.schema import AgenticMessage, Message
from compactor.trigger import TriggerDecision

__all__ = [
    "AttemptLog",
    "JsonLinesSink",
    "Tee",
    "check_record",
    "run_report",
    "tool_pair_counts",
]


class JsonLinesSink:
    """Writes every event's ``to_dict()`` as one JSON line (flushed, so ``tail -f`` works)."""

    def __init__(self, fh: IO[str]) -> None:
        self.fh = fh

    def __call__(self, event: Event) -> None:
        self.fh.write(json.dumps(event.to_dict(), ensure_ascii=False, default=str) + "\n")
        self.fh.flush()


class AttemptLog:
    """Collects ``{"phase", "attempt", "model", "ok", "error"}`` for the run report."""

    def __init__(self) -> None:
        self.attempts: list[dict[str, Any]] = []
        self._models: dict[tuple[str, int], str] = {}

    def __call__(self, event: Event) -> None:
        if isinstance(event, AttemptStart):
            self._models[(event.phase, event.attempt)] = event.model
        elif isinstance(event, GenerateSummary):
            error = event.to_dict()["error"]
            self.attempts.append(
                {
                    "phase": event.phase,
                    "attempt": event.attempt,
                    "model": event.model or self._models.get((event.phase, event.attempt)),
                    "ok": event.error is None,
                    "error": None if error is None else f"{error['type']}: {error['message']}",
                }
            )


class Tee:
    """One sink feeding several (sync or async) sinks in order."""

    def __init__(self, *sinks: Callable[[Event], Any] | None) -> None:
        self.sinks = [s for s in sinks if s is not None]

    async def __call__(self, event: Event) -> None:
        for sink in self.sinks:
            await maybe_await(sink(event))


def tool_pair_counts(messages: Sequence[Message | AgenticMessage]) -> tuple[int, int]:
    """``(tool calls, tool results paired to one of those calls' ids)`` in ``messages``.

    A dangling call (no result yet) counts as a call only; a result whose id matches no call in
    ``messages`` is not counted.
    """
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


def check_record(
    path: str,
    fmt: str,
    counter: str,
    decision: TriggerDecision,
    messages: Sequence[Message | AgenticMessage] | None = None,
) -> dict[str, Any]:
    """One ``check --json`` line (SPEC §9.3 fields, plus ``tool_calls``/``tool_results`` when
    ``messages`` is given)."""
    record: dict[str, Any] = {
        "path": path,
        "format": fmt,
        "messages": decision.messages,
        "tokens": decision.tokens,
        "counter": counter,
        "threshold_tokens": decision.threshold_tokens,
        "threshold_messages": decision.threshold_messages,
        "triggered": decision.triggered,
        "reason": decision.reason,
    }
    if messages is not None:
        record["tool_calls"], record["tool_results"] = tool_pair_counts(messages)
    return record


def run_report(
    *,
    input: str,
    output: str | None,
    fmt: str,
    triggered: bool,
    messages_before: int,
    messages_after: int,
    tokens_before: int | None,
    tokens_after: int | None,
    attempts: list[dict[str, Any]],
    transcript_path: str | None,
    duration_s: float,
) -> dict[str, Any]:
    """The ``run --report`` object."""
    return {
        "input": input,
        "output": output,
        "format": fmt,
        "triggered": triggered,
        "messages_before": messages_before,
        "messages_after": messages_after,
        "tokens_before": tokens_before,
        "tokens_after": tokens_after,
        "attempts": attempts,
        "transcript_path": transcript_path,
        "duration_s": round(duration_s, 3),
    }
