"""The retry engine of ``compactor.summarize``: every wait capped, oversized replies refused.

The waits go through an injected sleep that records them (no wall time); the hostile-server
end-to-end runs (real sockets, the real CLI) are in ``test_reliability_hostile.py``.
"""

from __future__ import annotations

import math

import pytest

import compactor as c
from compactor.config import DEFAULT_MAX_DELAY
from compactor.errors import ModelError, SummarizationError
from compactor.summarize import capped_delay, oversized_reply

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
def test_max_delay_must_be_a_finite_non_negative_number(bad: object) -> None:
    model = c.ScriptedModel([])
    with pytest.raises(c.ConfigError, match=r"retry\.max_delay must be a non-negative"):
        c.new(c.Config(model=model, retry=c.RetryConfig(max_delay=bad)))  # type: ignore[arg-type]
    with pytest.raises(c.ConfigError, match=r"failover\.max_delay must be a non-negative"):
        c.new(c.Config(model=model, failover=c.FailoverConfig(max_delay=bad)))  # type: ignore[arg-type]


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
    partial = c.Message("assistant", "<summary>cut", finish_reason="length")
    cut = ModelError("cut off", kind="length", partial_response=partial)
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
