"""The retry engine of ``compactor.pipeline.summarize``: every wait capped, oversized replies
refused; and what a run learns about its models (issue 18): the transcript form after a validation
error, the circuit breaker, shorter summaries after cut replies, the token scale, the summary
check.

The waits go through an injected sleep that records them (no wall time); the hostile-server
end-to-end runs (real sockets, the real CLI) are in ``test_cli_hostile.py``, issue 18's
in ``test_runner_llama_cpp.py``.
"""

from __future__ import annotations

import json
import math
from typing import Any, TypeVar

import pytest

import compactor as c
from compactor.counting.config import DEFAULT_MAX_DELAY
from compactor.counting.tokens import estimate_message
from compactor.errors import ModelError, SummarizationError
from compactor.pipeline.chunking import PLANNING_MARGIN, brevity_words
from compactor.pipeline.ladder import BREAKER_FAILURES, MAX_SHORTER_REPLANS
from compactor.pipeline.replies import oversized_reply, weak_reply
from compactor.pipeline.retry import capped_delay
from compactor.prompts import CONCISE_INSTRUCTION

pytestmark = pytest.mark.anyio

SUMMARY = "<summary>\nshort\n</summary>"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Clock:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def rate_limited(seconds: float) -> ModelError:
    return ModelError("HTTP 429", kind="rate_limit", transient=True, retry_after=seconds)


def history() -> c.AgentState[c.Message]:
    return c.AgentState([c.Message("user", "fix the bug " * 50), c.Message("assistant", "done")])


@pytest.mark.parametrize(
    ("asked", "wait"),
    [
        (0.2, 0.2),
        (1e9, 0.5),
        (math.inf, 0.5),
        (math.nan, 0.5),
        (-3, 0.0),
        ("soon", 0.5),
        (None, 0.5),
        (10**400, 0.5),
    ],
)
def test_capped_delay(asked: object, wait: float) -> None:
    assert capped_delay(asked, 0.5) == wait


@pytest.mark.parametrize("retry_after", [1e9, math.inf, 2.5e11])
async def test_every_wait_is_capped_by_max_delay(retry_after: float) -> None:
    """A server's retry-after of a billion seconds (or the year 9999) waits max_delay."""
    clock = Clock()
    model = c.ScriptedModel([rate_limited(retry_after), rate_limited(retry_after)])
    backup = c.ScriptedModel(
        [rate_limited(retry_after), rate_limited(retry_after), SUMMARY], name="backup"
    )
    config = c.Config(
        model=model,
        retry=c.RetryConfig(max_retries=1, max_delay=0.5),
        failover=c.FailoverConfig(
            max_retries=3, max_delay=0.25, get_failover_model=lambda ctx: (backup, None)
        ),
        sleep=clock,
    )
    await c.new(config).summarize(history())
    assert clock.waits == [0.5, 0.25, 0.25]  # primary 1→2, failover 1→2 and 2→3: each capped
    model.assert_complete()
    backup.assert_complete()


async def test_without_max_delay_the_default_cap_holds() -> None:
    clock = Clock()
    config = c.Config(
        model=c.ScriptedModel([rate_limited(1e9), SUMMARY]),
        retry=c.RetryConfig(max_retries=1, backoff=lambda *_: math.inf),
        sleep=clock,
    )
    await c.new(config).summarize(history())
    assert clock.waits == [DEFAULT_MAX_DELAY]


@pytest.mark.parametrize("bad", [-1, math.inf, math.nan, "1", True])
def test_max_delay_must_be_a_finite_non_negative_number(bad: Any) -> None:  # wrong on purpose
    model = c.ScriptedModel([])
    with pytest.raises(c.ConfigError, match=r"retry\.max_delay must be a non-negative"):
        c.new(c.Config(model=model, retry=c.RetryConfig(max_delay=bad)))
    with pytest.raises(c.ConfigError, match=r"failover\.max_delay must be a non-negative"):
        c.new(c.Config(model=model, failover=c.FailoverConfig(max_delay=bad)))


async def test_a_reply_longer_than_its_input_is_a_failed_attempt_then_retried() -> None:
    huge = "<summary>\n" + "blah " * 200_000 + "\n</summary>"  # ~250k tokens for a tiny input
    model = c.ScriptedModel([huge, SUMMARY])
    events: list[c.Event] = []
    config = c.Config(
        model=model,
        retry=c.RetryConfig(max_retries=1),
        sleep=Clock(),
        emit_internal_events=True,
        on_event=events.append,
    )
    out = await c.new(config).summarize(history())
    assert SUMMARY in out[-1].content or "short" in out[-1].content
    errors = [e.error for e in events if isinstance(e, c.GenerateSummary) and e.error]
    assert len(errors) == 1
    assert isinstance(errors[0], ModelError) and errors[0].kind == "too_long"
    assert "reply too long to be a summary" in str(errors[0])
    model.assert_complete()


async def test_max_summary_tokens_is_a_ceiling_and_failure_is_exit_3_material() -> None:
    reply = "<summary>\n" + "word " * 2000 + "\n</summary>"  # ~2.5k tokens: within the reserve
    ok = c.Config(model=c.ScriptedModel([reply]))
    await c.new(ok).summarize(history())
    capped = c.Config(model=c.ScriptedModel([reply]), max_summary_tokens=1000)
    with pytest.raises(SummarizationError, match=r"more than max_summary_tokens \(1,000 tokens\)"):
        await c.new(capped).summarize(history())
    with pytest.raises(c.ConfigError, match="max_summary_tokens must be positive"):
        c.new(c.Config(model=c.ScriptedModel([]), max_summary_tokens=0))


def test_oversized_reply_limit_is_the_input_or_the_reply_reserve() -> None:
    config: c.Config[c.Message] = c.Config(model=object(), reply_reserve_tokens=100)
    big_input = [c.Message("user", "x" * 4000)]  # 1,000 tokens
    assert oversized_reply(config, c.Message("assistant", "y" * 3996), big_input, "m") is None
    err = oversized_reply(config, c.Message("assistant", "y" * 4100), big_input, "m")
    assert err is not None and err.transient and err.model == "m"
    small_input = [c.Message("user", "x")]
    assert oversized_reply(config, c.Message("assistant", "y" * 400), small_input, "m") is None
    assert oversized_reply(config, c.Message("assistant", "y" * 404), small_input, "m")


# -- issue 22: Eino's error wrapping and partial responses --------------------------------------


def boom(text: str, **kwargs: object) -> ModelError:
    return ModelError(text, kind="server", transient=True, **kwargs)  # type: ignore[arg-type]


async def test_retries_exhausted_without_failover_wrap_as_eino_does() -> None:
    model = c.ScriptedModel([boom("e1"), boom("e2")])
    config = c.Config(model=model, retry=c.RetryConfig(max_retries=1), sleep=Clock())
    with pytest.raises(SummarizationError) as caught:
        await c.new(config).summarize(history())
    assert str(caught.value) == "failed to generate summary: exceeds max retries: e2"
    # the chain keeps the model's own error (Go's %w): exceeds max retries → e2
    middle = caught.value.__cause__
    assert isinstance(middle, SummarizationError) and str(middle) == "exceeds max retries: e2"
    assert isinstance(middle.__cause__, ModelError) and str(middle.__cause__) == "e2"


async def test_a_permanent_error_stops_retrying_and_is_not_wrapped_as_exhausted() -> None:
    model = c.ScriptedModel([ModelError("HTTP 401", kind="auth", transient=False)])
    config = c.Config(model=model, retry=c.RetryConfig(max_retries=3), sleep=Clock())
    with pytest.raises(SummarizationError) as caught:
        await c.new(config).summarize(history())
    assert str(caught.value) == "failed to generate summary: HTTP 401"


async def test_failover_is_told_the_primary_phases_error() -> None:
    primary = c.ScriptedModel([boom("p1"), boom("p2")], name="primary")
    backup = c.ScriptedModel([SUMMARY], name="backup")
    seen: list[tuple[object, BaseException | None]] = []
    contexts: list[c.FailoverContext[c.Message]] = []

    def should_failover(response: object, error: BaseException | None) -> bool:
        seen.append((response, error))
        return error is not None

    def pick(ctx: c.FailoverContext[c.Message]) -> tuple[object, None]:
        contexts.append(ctx)
        return backup, None

    config = c.Config(
        model=primary,
        retry=c.RetryConfig(max_retries=1),
        failover=c.FailoverConfig(
            max_retries=1, should_failover=should_failover, get_failover_model=pick
        ),
        sleep=Clock(),
    )
    await c.new(config).summarize(history())
    [ctx] = contexts
    assert isinstance(ctx.last_error, SummarizationError)
    assert str(ctx.last_error) == "exceeds max retries: p2"
    assert str(ctx.last_error.__cause__) == "p2"
    assert seen[0][1] is ctx.last_error  # should_failover judged the same error
    # without retry, the primary phase's error is the model's own
    contexts.clear()
    lone = c.ScriptedModel([boom("only")], name="primary")
    backup.extend([SUMMARY])
    config = c.Config(model=lone, failover=c.FailoverConfig(max_retries=1, get_failover_model=pick))
    await c.new(config).summarize(history())
    assert isinstance(contexts[0].last_error, ModelError)
    assert str(contexts[0].last_error) == "only"


async def test_a_partial_reply_reaches_policies_events_and_the_failover_context() -> None:
    partial = c.Message("assistant", "<summary>blocked halfway", finish_reason="content_filter")
    filtered = ModelError(
        "the reply was blocked by the content filter",
        kind="content_filter",
        partial_response=partial,
    )
    primary = c.ScriptedModel([filtered, filtered], name="primary")
    backup = c.ScriptedModel([SUMMARY], name="backup")
    retried: list[tuple[object, BaseException | None]] = []
    failed_over: list[tuple[object, BaseException | None]] = []
    contexts: list[c.FailoverContext[c.Message]] = []
    events: list[c.Event] = []

    def should_retry(response: object, error: BaseException | None) -> bool:
        retried.append((response, error))
        return error is not None

    def should_failover(response: object, error: BaseException | None) -> bool:
        failed_over.append((response, error))
        return error is not None

    def pick(ctx: c.FailoverContext[c.Message]) -> tuple[object, None]:
        contexts.append(ctx)
        return backup, None

    config = c.Config(
        model=primary,
        retry=c.RetryConfig(max_retries=1, should_retry=should_retry),
        failover=c.FailoverConfig(
            max_retries=1, should_failover=should_failover, get_failover_model=pick
        ),
        sleep=Clock(),
        emit_internal_events=True,
        on_event=events.append,
    )
    out = await c.new(config).summarize(history())
    assert "short" in out[-1].content and "blocked halfway" not in out[-1].content
    assert [r for r, _ in retried] == [partial, partial]
    assert failed_over[0][0] == partial
    assert contexts[0].last_model_response == partial
    generated = [e for e in events if isinstance(e, c.GenerateSummary)]
    assert [(e.phase, e.model_response == partial, e.error is not None) for e in generated] == [
        ("primary", True, True),
        ("primary", True, True),
        ("failover", False, False),
    ]


async def test_a_partial_reply_is_never_the_summary() -> None:
    # a reply stopped by the content filter (one cut at the token limit is asked again shorter
    # at once since issue 18, which would use more steps than this script has)
    partial = c.Message("assistant", "<summary>cut", finish_reason="content_filter")
    cut = ModelError("cut off", kind="content_filter", partial_response=partial)
    # a policy that accepts a failed failover reply does not make it a summary: its error is
    # raised as is (Eino returns it unwrapped)
    verdicts = [True, False]
    config = c.Config(
        model=c.ScriptedModel([cut, cut]),
        failover=c.FailoverConfig(max_retries=2, should_failover=lambda r, e: verdicts.pop(0)),
    )
    with pytest.raises(ModelError, match="^cut off$"):
        await c.new(config).summarize(history())
    lone = c.Config(model=c.ScriptedModel([cut]))
    with pytest.raises(SummarizationError, match="^failed to generate summary: cut off$"):
        await c.new(lone).summarize(history())


# -- issue 18: any server ----------------------------------------------------------------------


def tool_history(n: int = 6) -> list[c.Message]:
    """System, then n rounds of (user, assistant calling a tool, tool result): ~260 tokens each."""
    msgs = [c.Message("system", "sys")]
    for i in range(n):
        msgs.append(c.Message("user", f"question {i} " + "x" * 200))
        msgs.append(
            c.Message(
                "assistant",
                "",
                tool_calls=[c.ToolCall(f"id{i}", "run", json.dumps({"cmd": f"ls {i}"}))],
            )
        )
        msgs.append(c.Message("tool", "y" * 600, tool_call_id=f"id{i}"))
    return msgs


def validation() -> ModelError:
    return ModelError(
        "HTTP 500: 7 validation errors: ... Input should be a valid string",
        kind="validation",
        status=500,
    )


def refused() -> ModelError:
    return ModelError(
        "connection error (ConnectError)", kind="connection", transient=True, persistent=True
    )


def cut() -> ModelError:
    return ModelError("the reply was cut off at the token limit", kind="length")


def is_transcript(call: list[c.Message]) -> bool:
    return [m.role for m in call] == ["system", "user"] and "<transcript>" in call[1].content


async def summarize(
    n: int = 12, **config: Any
) -> tuple[c.SummarizeOutcome[c.Message], list[c.Event]]:
    events: list[c.Event] = []
    cfg = c.Config(emit_internal_events=True, on_event=events.append, sleep=Clock(), **config)
    outcome = await c.new(cfg).summarize_detailed(c.AgentState(tool_history(n)))
    return outcome, events


E = TypeVar("E")


def of(events: list[c.Event], kind: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, kind)]


async def test_an_auto_model_refusing_messages_gets_the_transcript_for_the_rest_of_the_run() -> (
    None
):
    model = c.ScriptedModel([validation(), SUMMARY, SUMMARY, SUMMARY, SUMMARY], input_mode="auto")
    outcome, events = await summarize(
        model=model,
        retry=c.RetryConfig(max_retries=3),
        summarizer_context_tokens=3_000,
        reply_reserve_tokens=200,
    )
    chunks = len(outcome.chunks)
    assert chunks >= 2
    assert len(model.calls) == 1 + chunks  # not retried: asked again at once, as a transcript
    assert not is_transcript(model.sent(c.Message)[0])
    assert any(m.tool_calls for m in model.sent(c.Message)[0])  # the structured form it refused
    assert all(is_transcript(call) for call in model.sent(c.Message)[1:])
    assert "[tool call run (id0)]" in model.sent(c.Message)[1][1].content
    [switch] = of(events, c.InputRendered)
    assert switch.model == "scripted"
    forms = [(e.attempt, e.input_form) for e in of(events, c.GenerateSummary)]
    assert forms == [(1, "messages")] + [(1, "transcript")] * chunks
    assert outcome.learned["input_forms"] == {"scripted": "transcript"}
    assert not of(events, c.CircuitOpen) and not of(events, c.RetryWait)


async def test_a_validation_error_in_messages_mode_opens_the_breaker_and_is_not_retried() -> None:
    model = c.ScriptedModel([validation()])  # input_mode "messages": no transcript to try
    with pytest.raises(SummarizationError, match="validation errors"):
        await summarize(model=model, retry=c.RetryConfig(max_retries=3))
    assert len(model.calls) == 1


async def test_a_validation_error_the_transcript_did_not_cure_opens_the_breaker() -> None:
    primary = c.ScriptedModel([validation(), validation()], input_mode="auto", name="primary")
    backup = c.ScriptedModel([SUMMARY] * 4, name="backup")
    outcome, events = await summarize(
        model=primary,
        retry=c.RetryConfig(max_retries=3),
        failover=c.FailoverConfig(max_retries=1, get_failover_model=lambda ctx: (backup, None)),
        summarizer_context_tokens=3_000,
        reply_reserve_tokens=200,
    )
    chunks = len(outcome.chunks)
    assert len(primary.sent(c.Message)) == 2 and is_transcript(
        primary.sent(c.Message)[1]
    )  # tried both forms, once
    assert len(backup.calls) == chunks
    [opened] = of(events, c.CircuitOpen)
    assert opened.model == "primary"
    skipped = of(events, c.ModelSkipped)
    assert [(s.phase, s.chunk) for s in skipped] == [("primary", i) for i in range(2, chunks + 1)]
    [breaker] = outcome.learned["circuit_breakers"]
    assert breaker["model"] == "primary" and breaker["kind"] == "validation"
    assert breaker["skipped_calls"] == chunks - 1


async def test_a_dead_primary_is_asked_once_then_the_fallback_serves_every_chunk() -> None:
    """Issue 18 point 4: 7 chunks, a refused connection, retry 3 and the embedded fallback."""
    dead = c.ScriptedModel([refused()], name="openai:dead")
    fallback = c.ScriptedModel([SUMMARY] * 10, name="local")
    sleep = Clock()
    events: list[c.Event] = []
    cfg = c.Config(
        model=dead,
        retry=c.RetryConfig(max_retries=3),
        fallback_model=fallback,
        summarizer_context_tokens=1_600,
        reply_reserve_tokens=200,
        sleep=sleep,
        emit_internal_events=True,
        on_event=events.append,
    )
    outcome = await c.new(cfg).summarize_detailed(c.AgentState(tool_history(21)))
    assert len(outcome.chunks) == 7
    assert len(dead.calls) == 1  # not retried, not asked again for the other chunks
    assert len(fallback.calls) == 7
    assert sleep.waits == []
    assert outcome.degraded
    assert len(of(events, c.ModelSkipped)) == 6
    assert [a.model for a in outcome.attempts].count("openai:dead") == 1
    assert outcome.learned["circuit_breakers"][0]["skipped_calls"] == 6


async def test_the_breaker_can_be_switched_off() -> None:
    dead = c.ScriptedModel([refused()] * 4, name="dead")
    with pytest.raises(SummarizationError, match="exceeds max retries"):
        await summarize(model=dead, retry=c.RetryConfig(max_retries=3), circuit_breaker=False)
    assert len(dead.calls) == 4


async def test_never_on_a_context_length_error_nor_a_single_server_error() -> None:
    server = ModelError("HTTP 500", kind="server", transient=True, status=500)
    limit = ModelError(
        "This model's maximum context length is 3000 tokens. However, your messages resulted "
        "in 3500 tokens.",
        kind="context_length",
        window=3000,
        prompt_tokens=3500,
    )
    model = c.ScriptedModel([server, limit, *([SUMMARY] * 6)])
    outcome, events = await summarize(model=model, retry=c.RetryConfig(max_retries=1))
    assert not of(events, c.CircuitOpen)
    assert outcome.adaptations and len(outcome.chunks) >= 2


async def test_three_failed_calls_in_a_row_open_the_breaker_from_the_next_chunk_on() -> None:
    server = ModelError("HTTP 503", kind="server", transient=True, status=503)
    primary = c.ScriptedModel([server] * BREAKER_FAILURES, name="primary")
    backup = c.ScriptedModel([SUMMARY] * 8, name="backup")
    outcome, events = await summarize(
        model=primary,
        retry=c.RetryConfig(max_retries=BREAKER_FAILURES - 1),  # every retry of chunk 1 is made
        failover=c.FailoverConfig(max_retries=1, get_failover_model=lambda ctx: (backup, None)),
        summarizer_context_tokens=3_000,
        reply_reserve_tokens=200,
    )
    assert len(primary.calls) == BREAKER_FAILURES
    assert len(backup.calls) == len(outcome.chunks)
    [opened] = of(events, c.CircuitOpen)
    assert isinstance(opened.error, ModelError) and opened.error.kind == "server"
    first_skip = events.index(of(events, c.ModelSkipped)[0])
    assert events.index(opened) < first_skip


async def test_a_cut_reply_is_asked_again_shorter_and_the_run_keeps_the_shorter_instruction() -> (
    None
):
    model = c.ScriptedModel([cut(), *([SUMMARY] * 8)])
    outcome, events = await summarize(
        model=model, summarizer_context_tokens=4_000, reply_reserve_tokens=500
    )
    [shorter] = of(events, c.ShorterSummary)
    words = brevity_words(c.Config(model=model, reply_reserve_tokens=500), 1)
    assert shorter.words == words == 300
    concise = CONCISE_INSTRUCTION.format(words=words)
    assert not model.sent(c.Message)[0][-1].content.endswith(concise)
    assert all(call[-1].content.endswith(concise) for call in model.sent(c.Message)[1:])
    assert len(model.calls) == len(outcome.chunks) + 1
    assert outcome.learned["shorter_summary_requests"] == 1


async def test_replies_that_stay_cut_shrink_the_chunks_then_keep_them_as_written() -> None:
    """Replies that stay cut shrink the chunks, twice; then (issue 27 point 20) the chunk no
    reply could summarize shorter is kept as written in the summary, instead of failing."""
    model = c.ScriptedModel([cut()] * 20)
    events: list[c.Event] = []
    cfg = c.Config(model=model, emit_internal_events=True, on_event=events.append)
    outcome = await c.new(cfg).summarize_detailed(c.AgentState(tool_history(6)))
    # 2 (ask, ask shorter) + 2 (smaller chunk, strictest) + 1 (half as small again), then one
    # call for each later chunk (the instruction is at its strictest already)
    assert len(model.calls) == 5 + len(outcome.chunks) - 1
    assert outcome.learned["verbatim_chunks"] == [r["index"] for r in outcome.chunks]
    assert all(r["kept_verbatim"] for r in outcome.chunks)
    assert outcome.summary is not None
    text = outcome.summary.content
    assert "Part 1 of the conversation, kept as written" in text
    assert all(f"question {i} " + "x" * 200 in text for i in range(6))  # nothing lost
    replans = [e for e in of(events, c.ContextLimit) if e.cause == "length"]
    assert len(replans) == MAX_SHORTER_REPLANS
    assert len(of(events, c.ShorterSummary)) == 2
    planned = [e.planned_with for e in replans]
    assert planned[1] * 2 == pytest.approx(planned[0], abs=1)


async def test_a_context_error_with_the_count_teaches_the_scale_and_every_chunk_then_fits() -> None:
    class Llama:
        """A window of 3,000 tokens counted at 2.5x compact's estimate."""

        name = "llama"

        def __init__(self) -> None:
            self.prompts: list[int] = []

        async def generate(self, messages: list[c.Message], **options: object) -> c.Message:
            tokens = int(sum(estimate_message(m) for m in messages) * 2.5)
            self.prompts.append(tokens)
            if tokens >= 3_000:
                raise ModelError(
                    f"This model's maximum context length is 3000 tokens. However, you "
                    f"requested {tokens} tokens ({tokens} in the messages, None in the "
                    "completion).",
                    kind="context_length",
                    window=3000,
                    prompt_tokens=tokens,
                )
            return c.Message("assistant", SUMMARY, usage=c.Usage(prompt_tokens=tokens))

    model = Llama()
    outcome, events = await summarize(model=model)
    [limit] = of(events, c.ContextLimit)
    assert limit.reported == 3_000
    assert limit.scale == pytest.approx(2.5, rel=0.01)
    assert model.prompts[0] >= 3_000
    assert all(p < 3_000 * PLANNING_MARGIN for p in model.prompts[1:])  # none refused again
    assert outcome.learned["token_scale"] == pytest.approx(2.5, rel=0.02)


async def test_usage_teaches_the_scale_between_chunks() -> None:
    class Counting:
        name = "counting"

        async def generate(self, messages: list[c.Message], **options: object) -> c.Message:
            tokens = 2 * sum(estimate_message(m) for m in messages)
            return c.Message("assistant", SUMMARY, usage=c.Usage(prompt_tokens=tokens))

    outcome, events = await summarize(
        model=Counting(), summarizer_context_tokens=3_000, reply_reserve_tokens=200
    )
    starts = of(events, c.ChunkStart)
    assert outcome.learned["token_scale"] == 2.0
    # chunk 1 was planned at 1x; the rest at 2x, so they hold about half as many messages
    first, *rest = [s.end - s.start for s in starts]
    assert rest and max(rest) < first


async def test_a_small_window_starts_with_the_concise_instruction() -> None:
    """``context_tokens: 1000`` was refused: the built-in instructions alone took ~600 tokens."""
    model = c.ScriptedModel([SUMMARY] * 40)
    outcome, _ = await summarize(
        n=6, model=model, summarizer_context_tokens=1_000, reply_reserve_tokens=250
    )
    assert len(outcome.chunks) == len(model.calls) >= 2
    concise = CONCISE_INSTRUCTION.format(words=150)
    assert all(call[-1].content.endswith(concise) for call in model.sent(c.Message))
    assert all(
        sum(estimate_message(m) for m in call) <= 750 * PLANNING_MARGIN for call in model.calls
    )


async def test_summary_check_turns_a_weak_reply_into_a_failed_attempt() -> None:
    weak = "Here is the summary of your conversation:"  # the 11-token reply of issue 18
    good = "<summary>\n1. Primary Request and Intent: fix the failing test in a.py\n</summary>"
    model = c.ScriptedModel([weak, good])
    outcome, events = await summarize(
        model=model,
        retry=c.RetryConfig(max_retries=1),
        summary_check=c.SummaryCheck(min_tokens=12, require_sections=True),
    )
    [failed] = [e.error for e in of(events, c.GenerateSummary) if e.error]
    assert isinstance(failed, ModelError)
    assert failed.kind == "weak_summary" and failed.transient
    assert "fewer than summary_check.min_tokens (12)" in str(failed)
    assert "fix the failing test" in outcome.messages[-1].content
    # off by default: any reply is a summary
    out, _ = await summarize(model=c.ScriptedModel([weak]))
    assert weak in out.messages[-1].content


def test_weak_reply_rules() -> None:
    check = c.SummaryCheck(min_tokens=0, require_sections=True)
    config = c.Config(model=object(), summary_check=check)
    assert (
        weak_reply(config, c.Message("assistant", "<summary>\n1. x"), "m") is None
    )  # stop ate </summary>
    err = weak_reply(config, c.Message("assistant", "1. Primary Request: x"), "m")
    assert err is not None and "no <summary> block" in str(err)
    assert weak_reply(c.Config(model=object()), c.Message("assistant", ""), "m") is None
    with pytest.raises(c.ConfigError, match="summary_check.min_tokens must be non-negative"):
        c.new(c.Config(model=object(), summary_check=c.SummaryCheck(min_tokens=-1)))


async def test_a_cut_running_summary_is_kept_but_the_summary_never_is() -> None:
    """A model that talks past its max_tokens on every call (SmolLM2 does): each intermediate
    chunk's cut reply is handed on as the running summary; the last one is not a summary, so
    the fallback writes it. Replies cut at the model's own cap do not shrink the chunks."""

    class Rambler:
        name = "rambler"

        def __init__(self) -> None:
            self.calls = 0

        async def generate(self, messages: list[c.Message], **options: Any) -> c.Message:
            self.calls += 1
            cap = options["max_tokens"]
            partial = c.Message(
                "assistant",
                "1. Primary Request and Intent\n" + "and so on " * 40,
                usage=c.Usage(prompt_tokens=500, completion_tokens=cap),
                finish_reason="length",
            )
            raise ModelError("cut off at the token limit", kind="length", partial_response=partial)

    model = Rambler()
    fallback = c.ScriptedModel([SUMMARY], name="local")
    outcome, events = await summarize(
        n=20,
        model=model,
        model_options={"max_tokens": 50},
        fallback_model=fallback,
        summarizer_context_tokens=3_000,
        reply_reserve_tokens=200,
    )
    chunks = len(outcome.chunks)
    assert chunks >= 3
    assert model.calls == chunks + 2  # chunks 1 and 2 are asked again, shorter; no shrinking
    assert len(fallback.calls) == 1  # the last chunk only
    assert outcome.learned["cut_running_summaries"] == chunks - 1
    assert not [e for e in of(events, c.ContextLimit) if e.cause == "length"]
    assert [r["phase"] for r in outcome.chunks] == ["primary"] * (chunks - 1) + ["fallback"]
    assert outcome.degraded
    assert "short" in outcome.messages[-1].content  # the fallback's, never the cut text
    assert "and so on" not in outcome.messages[-1].content
