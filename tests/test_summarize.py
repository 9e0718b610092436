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
