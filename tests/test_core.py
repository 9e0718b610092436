"""SPEC §2–§4, §6, §8: validation, trigger and counting, model input, retry/failover, events.

Each test names the SPEC section whose rule it would catch breaking.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any, cast

import pytest

import compactor as c
from compactor.errors import ModelError
from compactor.pipeline.retry import default_should_retry
from compactor.prompts import SYSTEM_INSTRUCTION, USER_INSTRUCTION

SUMMARY = "<analysis>a</analysis>\n<summary>\n<all_user_messages>\n</all_user_messages>\n</summary>"


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def chat(*pairs: tuple[str, str]) -> list[c.Message]:
    return [c.Message(role, text) for role, text in pairs]


def state(*pairs: tuple[str, str]) -> c.AgentState[c.Message]:
    return c.AgentState(chat(*pairs))


class Sleeps:
    """An injected clock: records the delays, waits for nothing."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def fail(msg: str = "boom", transient: bool = True) -> ModelError:
    return ModelError(msg, kind="server" if transient else "bad_request", transient=transient)


# ---------------------------------------------------------------------------------------------
# §2 validation order and messages


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (None, "config is required"),
        (c.Config(), "model is required"),
        (
            c.Config(model=object(), trigger=c.TriggerCondition(context_tokens=-1)),
            "trigger.context_tokens must be non-negative",
        ),
        (
            c.Config(model=object(), trigger=c.TriggerCondition(context_messages=-1)),
            "trigger.context_messages must be non-negative",
        ),
        (
            c.Config(model=object(), trigger=c.TriggerCondition()),
            "at least one of context_tokens or context_messages must be positive",
        ),
        (
            c.Config(model=object(), retry=c.RetryConfig(max_retries=-1)),
            "retry.max_retries must be non-negative",
        ),
        (
            c.Config(model=object(), failover=c.FailoverConfig(max_retries=-1)),
            "failover.max_retries must be non-negative",
        ),
        (
            c.Config(model=object(), preserve_user_messages=c.PreserveUserMessages(max_tokens=-1)),
            "preserve_user_messages.max_tokens must be non-negative",
        ),
        (
            c.Config(model=object(), emit_internal_events=True),
            "on_event is required when emit_internal_events is set",
        ),
    ],
)
def test_spec_2_validation_messages(config: Any, message: str) -> None:
    with pytest.raises(c.ConfigError) as info:
        c.new(config)
    assert str(info.value) == message


def test_spec_2_first_failure_wins() -> None:
    cfg = c.Config(
        model=None,
        trigger=c.TriggerCondition(context_tokens=-1),
        retry=c.RetryConfig(max_retries=-1),
    )
    with pytest.raises(c.ConfigError, match="^model is required$"):
        c.new(cfg)
    cfg = c.Config(
        model=object(),
        trigger=c.TriggerCondition(context_tokens=-1, context_messages=-1),
        retry=c.RetryConfig(max_retries=-1),
    )
    with pytest.raises(c.ConfigError, match="^trigger.context_tokens must be non-negative$"):
        c.new(cfg)
    cfg = c.Config(model=object(), retry=c.RetryConfig(max_retries=-1), emit_internal_events=True)
    with pytest.raises(c.ConfigError, match="^retry.max_retries"):
        c.new(cfg)


def test_spec_2_zero_retries_is_valid() -> None:
    mw = c.new(
        c.Config(
            model=object(),
            retry=c.RetryConfig(max_retries=0),
            failover=c.FailoverConfig(max_retries=0),
            preserve_user_messages=c.PreserveUserMessages(max_tokens=0),
        )
    )
    assert isinstance(mw, c.Middleware)


def test_spec_2_bool_threshold_is_rejected_not_coerced() -> None:
    with pytest.raises(c.ConfigError, match="must be an integer"):
        c.new(c.Config(model=object(), trigger=c.TriggerCondition(context_tokens=True)))


# ---------------------------------------------------------------------------------------------
# §3 trigger and counting


def test_spec_3_worked_examples() -> None:
    count = c.default_token_counter
    msgs = [
        c.Message("user", "earlier"),
        c.Message("assistant", usage=c.Usage(total_tokens=100)),
        c.Message("user", "later context"),
    ]
    assert count(c.TokenCounterInput(msgs)) == 103
    assert count(c.TokenCounterInput(chat(("user", "a" * 100), ("assistant", "b" * 100)))) == 50
    three = chat(
        ("system", "You are a helpful assistant"), ("user", "a" * 100), ("assistant", "b" * 100)
    )
    assert count(c.TokenCounterInput(three)) == 56


def test_spec_3_baseline_is_newest_assistant_with_positive_total() -> None:
    msgs = [
        c.Message("assistant", "x" * 400, usage=c.Usage(total_tokens=500)),
        c.Message("user", "y" * 40),
        c.Message("assistant", "z" * 8, usage=c.Usage(total_tokens=0)),
        c.Message("user", "w" * 4),
    ]
    # Baseline 500 (the newer total is 0), then 10 + 2 + 1 for the later messages.
    assert c.default_token_counter(c.TokenCounterInput(msgs)) == 513


def test_spec_3_estimate_floors_once_per_message_and_counts_media() -> None:
    msg = c.Message(
        "user",
        parts=[
            c.Part("text", "abc"),
            c.Part("text", "de"),
            c.Part("image_url", url="http://x"),
            c.Part("audio_url", url="http://y"),
        ],
    )
    # text parts win over content; 5 bytes → 1; two media parts → 4,000.
    assert c.default_token_counter(c.TokenCounterInput([msg])) == 4001
    # UTF-8 bytes, not characters: "é" is 2 bytes.
    assert c.default_token_counter(c.TokenCounterInput([c.Message("user", "éé")])) == 1


def test_spec_3_assistant_counts_reasoning_once_and_tool_calls() -> None:
    call = c.ToolCall("id-not-counted", "read", '{"p": 1}')  # 4 + 8 bytes
    msg = c.Message(
        "assistant",
        "abcd",
        reasoning_content="r" * 100,
        parts=[c.Part("reasoning", "q" * 8)],
        tool_calls=[call],
        name="also-not-counted",
    )
    # content 4 + reasoning parts 8 (reasoning_content ignored) + 12 = 24 → 6.
    assert c.default_token_counter(c.TokenCounterInput([msg])) == 6


def test_spec_3_agentic_blocks() -> None:
    result = c.Block(
        "function_tool_result",
        call_id="1",
        name="n",
        content=[c.Block("user_input_text", text="x" * 8), c.Block("user_input_image", url="u")],
    )
    msgs = [
        c.AgenticMessage("user", [c.Block("user_input_text", text="a" * 8)]),
        c.AgenticMessage(
            "assistant",
            [
                c.Block("reasoning", text="b" * 4),
                c.Block("function_tool_call", call_id="1", name="read", arguments="{}"),
            ],
        ),
        c.AgenticMessage("user", [result]),
    ]
    assert c.default_token_counter(c.TokenCounterInput(msgs)) == 2 + 2 + 2002


def test_spec_3_tools_are_counted_from_json_characters() -> None:
    tool = c.ToolInfo("search", "find things", {"type": "object"})
    expected = (
        len(
            json.dumps(
                {"name": "search", "description": "find things", "parameters": {"type": "object"}}
            )
        )
        // 4
    )
    assert c.default_token_counter(c.TokenCounterInput([], [tool])) == expected


def test_spec_3_messages_condition_first_and_strict() -> None:
    calls: list[int] = []

    def counter(inp: c.TokenCounterInput) -> int:
        calls.append(len(inp.messages))
        return 0

    model = c.ScriptedModel([SUMMARY])
    mw = c.new(
        c.Config(
            model=model,
            token_counter=counter,
            trigger=c.TriggerCondition(context_messages=2, context_tokens=10),
        )
    )
    two = state(("user", "a"), ("assistant", "b"))
    assert run(mw.before_model(two)) is two  # 2 > 2 is false; tokens 0 <= 10
    assert calls == [2]
    three = state(("system", "s"), ("user", "a"), ("assistant", "b"))
    new_state = run(mw.before_model(three))
    assert calls == [2]  # message condition fired: no counting
    assert new_state is not three and len(model.calls) == 1


def test_spec_3_token_condition_is_strict() -> None:
    model = c.ScriptedModel([SUMMARY])
    mw = c.new(
        c.Config(
            model=model,
            token_counter=lambda inp: 100,
            trigger=c.TriggerCondition(context_tokens=100),
        )
    )
    st = state(("user", "a"))
    assert run(mw.before_model(st)) is st
    mw = c.new(
        c.Config(
            model=model,
            token_counter=lambda inp: 101,
            trigger=c.TriggerCondition(context_tokens=100),
        )
    )
    assert run(mw.before_model(st)).messages[-1].extra["_compactor_content_type"] == "summary"


def test_spec_3_default_threshold_is_160000() -> None:
    model = c.ScriptedModel([SUMMARY])
    st = state(("user", "a"))
    mw = c.new(c.Config(model=model, token_counter=lambda inp: 160_000))
    assert run(mw.before_model(st)) is st
    mw = c.new(c.Config(model=model, token_counter=lambda inp: 160_001))
    assert run(mw.before_model(st)) is not st


def test_spec_3_messages_only_trigger_has_no_token_condition() -> None:
    """Our fix of Eino's quirk: only context_messages set → the counter is never called."""

    def counter(inp: c.TokenCounterInput) -> int:
        raise AssertionError("counter must not be called")

    model = c.ScriptedModel([])
    mw = c.new(
        c.Config(model=model, token_counter=counter, trigger=c.TriggerCondition(context_messages=5))
    )
    st = state(("user", "x" * 10_000_000))
    assert run(mw.before_model(st)) is st


def test_spec_3_counter_error_is_wrapped_and_state_untouched() -> None:
    def counter(inp: c.TokenCounterInput) -> int:
        raise ValueError("bad")

    mw = c.new(c.Config(model=c.ScriptedModel([]), token_counter=counter))
    st = state(("user", "a"))
    with pytest.raises(c.SummarizationError, match="^failed to count tokens: bad$"):
        run(mw.before_model(st))
    assert st.messages == chat(("user", "a"))


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (-1, "counter returned -1, a negative count"),
        (float("nan"), "counter returned float, not int"),
        (True, "counter returned bool, not int"),
    ],
)
def test_spec_3_a_count_that_is_no_count_is_a_counting_failure(value: object, says: str) -> None:
    """Issue 27 point 19: a negative count (or NaN, a bool) fails like a counter that raises,
    in the middleware and in the loop guard's own count alike."""
    mw = c.new(c.Config(model=c.ScriptedModel([]), token_counter=lambda inp: cast(int, value)))
    st = state(("user", "a"))
    with pytest.raises(c.SummarizationError, match=f"^failed to count tokens: {says}$"):
        run(mw.before_model(st))
    assert st.messages == chat(("user", "a"))


def test_spec_3_async_counter_is_awaited_and_tools_kept() -> None:
    async def counter(inp: c.TokenCounterInput) -> int:
        return 10**9

    tools = [c.ToolInfo("t")]
    mw = c.new(c.Config(model=c.ScriptedModel([SUMMARY]), token_counter=counter))
    st = c.AgentState(chat(("user", "a")), tools)
    new_state = run(mw.before_model(st))
    assert new_state.tools == tools and new_state.messages != st.messages


def _sync_counter(inp: c.TokenCounterInput) -> int:
    return 7 * len(inp.messages)


async def _async_counter(inp: c.TokenCounterInput) -> int:
    return 300_000


def _bool_counter(inp: c.TokenCounterInput) -> Any:
    return True


def _failing_counter(inp: c.TokenCounterInput) -> int:
    raise ValueError("bad")


async def _failing_async_counter(inp: c.TokenCounterInput) -> int:
    raise ValueError("worse")


@pytest.mark.parametrize(
    "counter",
    [None, _sync_counter, _async_counter, _bool_counter, _failing_counter, _failing_async_counter],
)
@pytest.mark.parametrize("always_count", [False, True])
@pytest.mark.parametrize(
    "trigger",
    [
        None,
        c.TriggerCondition(context_tokens=20),
        c.TriggerCondition(context_messages=2),
        c.TriggerCondition(context_tokens=10**6, context_messages=10**6),
    ],
)
def test_spec_3_decide_sync_equals_decide(
    counter: Any, always_count: bool, trigger: c.TriggerCondition | None
) -> None:
    """`compact check` decides without an event loop: same decision, same errors."""
    from compactor.counting.trigger import decide, decide_sync

    messages = chat(("user", "a" * 40), ("assistant", "b"), ("user", "c"))

    def outcome(fn: Any) -> Any:
        try:
            return fn()
        except c.SummarizationError as err:
            return ("error", str(err))

    want = outcome(lambda: run(decide(messages, [], trigger, counter, always_count=always_count)))
    got = outcome(lambda: decide_sync(messages, [], trigger, counter, always_count=always_count))
    assert got == want
    if counter is _bool_counter and always_count:
        assert got == ("error", "failed to count tokens: counter returned bool, not int")


def test_spec_3_exact_counter_works_offline() -> None:
    import tiktoken  # noqa: F401 - tiktoken itself must be importable

    from compactor.counting.tokens import resolve_token_counter

    counter = resolve_token_counter("tiktoken:cl100k_base")
    n = counter(c.TokenCounterInput([c.Message("user", "hello world")]))
    # 3 framing + "user" (1) + "hello world" (2) + 3 reply priming
    assert n == 9


# ---------------------------------------------------------------------------------------------
# §4 summarizer input


def test_spec_4_default_input_layout() -> None:
    model = c.ScriptedModel([SUMMARY])
    history = chat(("system", "S1"), ("system", "S2"), ("user", "u"), ("assistant", "a"))
    history.insert(3, c.Message("system", "mid-system stays in context"))
    run(c.new(c.Config(model=model)).summarize(c.AgentState(history, [c.ToolInfo("t")])))
    sent = model.sent(c.Message)[0]
    assert [m.role for m in sent] == ["system", "user", "system", "assistant", "user"]
    assert sent[0].content == SYSTEM_INSTRUCTION
    assert sent[-1].content == USER_INSTRUCTION
    assert sent[1:-1] == history[2:]


def test_spec_4_builtin_prompt_asks_for_the_nine_sections() -> None:
    for needle in (
        "<analysis>",
        "<summary>",
        "<all_user_messages>",
        "    - text",
        "do not call any tool",
        "9. Optional Next Step",
        "further instructions about how to summarize",
    ):
        assert needle in USER_INSTRUCTION
    assert SYSTEM_INSTRUCTION.count(".") == 1


def test_spec_4_user_instruction_replaces_default() -> None:
    model = c.ScriptedModel([SUMMARY])
    run(c.new(c.Config(model=model, user_instruction="mine")).summarize(state(("user", "u"))))
    assert model.sent(c.Message)[0][-1].content == "mine"


def test_spec_4_gen_model_input_gets_full_list_and_its_result_is_used() -> None:
    seen: list[Any] = []

    async def gen(system: c.Message, user: c.Message, original: list[c.Message]) -> list[Any]:
        seen.append((system.content, user.content, [m.role for m in original]))
        return [c.Message("user", "custom input")]

    model = c.ScriptedModel([SUMMARY])
    run(
        c.new(c.Config(model=model, gen_model_input=gen)).summarize(
            state(("system", "s"), ("user", "u"))
        )
    )
    assert seen == [(SYSTEM_INSTRUCTION, USER_INSTRUCTION, ["system", "user"])]
    assert model.calls[0] == [c.Message("user", "custom input")]


def test_spec_4_gen_model_input_error() -> None:
    def gen(*args: Any) -> list[Any]:
        raise RuntimeError("nope")

    mw = c.new(c.Config(model=c.ScriptedModel([]), gen_model_input=gen))
    with pytest.raises(c.SummarizationError, match="^failed to generate model input: nope$"):
        run(mw.summarize(state(("user", "u"))))


def test_spec_4_agentic_input_uses_agentic_messages() -> None:
    model = c.ScriptedModel([SUMMARY])
    history = [
        c.AgenticMessage("system", [c.Block("user_input_text", text="s")]),
        c.AgenticMessage("user", [c.Block("user_input_text", text="hello")]),
    ]
    mw = c.new(c.Config[c.AgenticMessage](model=model))
    out = run(mw.summarize(c.AgentState(history)))
    assert all(isinstance(m, c.AgenticMessage) for m in model.calls[0])
    assert all(isinstance(m, c.AgenticMessage) for m in out)
    assert "    - hello" in out[-1].blocks[0].text


# ---------------------------------------------------------------------------------------------
# §6 retry and failover


def test_spec_6_no_retry_is_one_call() -> None:
    model = c.ScriptedModel([fail("down")])
    with pytest.raises(c.SummarizationError, match="^failed to generate summary: down$"):
        run(c.new(c.Config(model=model)).summarize(state(("user", "u"))))
    assert len(model.calls) == 1


def test_spec_6_retry_exhausted_message_and_backoff_attempt_numbers() -> None:
    sleeps = Sleeps()
    seen: list[tuple[int, Any, str]] = []

    def backoff(attempt: int, response: Any, error: BaseException | None) -> float:
        seen.append((attempt, response, str(error)))
        return attempt * 0.5

    model = c.ScriptedModel([fail("e1"), fail("e2"), fail("e3")])
    cfg = c.Config(model=model, retry=c.RetryConfig(max_retries=2, backoff=backoff), sleep=sleeps)
    with pytest.raises(
        c.SummarizationError, match="^failed to generate summary: exceeds max retries: e3$"
    ):
        run(c.new(cfg).summarize(state(("user", "u"))))
    assert seen == [(1, None, "e1"), (2, None, "e2")]
    assert sleeps.delays == [0.5, 1.0]
    model.assert_complete()


def test_spec_6_retry_default_max_is_three() -> None:
    model = c.ScriptedModel([fail()] * 4)
    cfg = c.Config(model=model, retry=c.RetryConfig(), sleep=Sleeps())
    with pytest.raises(
        c.SummarizationError, match="^failed to generate summary: exceeds max retries"
    ):
        run(c.new(cfg).summarize(state(("user", "u"))))
    model.assert_complete()


def test_spec_6_retry_zero_raises_plain_failure() -> None:
    model = c.ScriptedModel([fail("only")])
    cfg = c.Config(model=model, retry=c.RetryConfig(max_retries=0), sleep=Sleeps())
    with pytest.raises(c.SummarizationError, match="^failed to generate summary: only$"):
        run(c.new(cfg).summarize(state(("user", "u"))))


def test_spec_6_retry_then_success() -> None:
    model = c.ScriptedModel([fail(), SUMMARY])
    cfg = c.Config(model=model, retry=c.RetryConfig(max_retries=3), sleep=Sleeps())
    out = run(c.new(cfg).summarize(state(("user", "u"))))
    assert out[-1].role == "user"
    model.assert_complete()


def test_spec_6_default_backoff_formula() -> None:
    for attempt, base in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 10.0), (9, 10.0)]:
        for _ in range(20):
            delay = c.default_backoff(attempt, None, RuntimeError())
            assert base <= delay < base * 1.5
    assert c.default_backoff(0, None, None) == 1.0
    assert c.default_backoff(-3, None, None) == 1.0


def test_issue_4_default_backoff_honours_retry_after() -> None:
    err = ModelError("slow down", kind="rate_limit", transient=True, retry_after=7.0)
    assert c.default_backoff(1, None, err) == 7.0


def test_issue_4_default_should_retry_skips_permanent_errors() -> None:
    assert default_should_retry(None, fail(transient=True))
    assert not default_should_retry(None, fail(transient=False))
    assert default_should_retry(None, RuntimeError("unknown"))
    assert not default_should_retry(object(), None)
    model = c.ScriptedModel([fail("400 bad", transient=False)])
    cfg = c.Config(model=model, retry=c.RetryConfig(max_retries=3), sleep=Sleeps())
    with pytest.raises(c.SummarizationError, match="^failed to generate summary: 400 bad$"):
        run(c.new(cfg).summarize(state(("user", "u"))))
    assert len(model.calls) == 1


def test_spec_6_should_retry_on_success_hands_last_reply_on() -> None:
    model = c.ScriptedModel(["<summary>first</summary>", "<summary>second</summary>"])
    cfg = c.Config(
        model=model,
        retry=c.RetryConfig(max_retries=1, should_retry=lambda response, error: True),
        sleep=Sleeps(),
    )
    out = run(c.new(cfg).summarize(state(("user", "u"))))
    assert "second" in out[-1].content
    model.assert_complete()


def test_spec_6_failover_context_and_models() -> None:
    primary = c.ScriptedModel([fail("p1"), fail("p2")], name="primary")
    backup = c.ScriptedModel([fail("b1"), SUMMARY], name="backup")
    contexts: list[c.FailoverContext[Any]] = []

    async def pick(ctx: c.FailoverContext[Any]) -> tuple[Any, Any]:
        contexts.append(ctx)
        return backup, None

    cfg = c.Config(
        model=primary,
        retry=c.RetryConfig(max_retries=1),
        failover=c.FailoverConfig(max_retries=3, get_failover_model=pick),
        sleep=Sleeps(),
    )
    history = state(("system", "s"), ("user", "u"))
    out = run(c.new(cfg).summarize(history))
    assert out[-1].extra["_compactor_content_type"] == "summary"
    assert [ctx.attempt for ctx in contexts] == [1, 2]
    # attempt 1 is told the primary phase's error (Eino: retries wrap it), later ones the last
    assert str(contexts[0].last_error) == "exceeds max retries: p2"
    assert str(contexts[1].last_error) == "b1"
    assert contexts[0].original_messages == history.messages
    assert contexts[0].system_instruction.content == SYSTEM_INSTRUCTION
    # No input from the callback → the primary's input.
    assert backup.calls[0] == primary.calls[0]
    primary.assert_complete()
    backup.assert_complete()


def test_spec_6_failover_without_callback_uses_primary() -> None:
    model = c.ScriptedModel([fail("p"), SUMMARY])
    cfg = c.Config(model=model, failover=c.FailoverConfig(max_retries=1), sleep=Sleeps())
    out = run(c.new(cfg).summarize(state(("user", "u"))))
    model.assert_complete()
    # the failover attempt asked the primary again, with the primary's own input
    assert len(model.calls) == 2 and model.calls[1] == model.calls[0]
    assert out[-1].extra["_compactor_content_type"] == "summary"


def test_spec_6_failover_all_fail_message() -> None:
    primary = c.ScriptedModel([fail("p")])
    backup = c.ScriptedModel([fail("b1"), fail("b2")])
    cfg = c.Config(
        model=primary,
        failover=c.FailoverConfig(max_retries=2, get_failover_model=lambda ctx: (backup, [])),
        sleep=Sleeps(),
    )
    st = state(("user", "u"))
    with pytest.raises(c.SummarizationError, match="^exceeds max failover attempts: b2$"):
        run(c.new(cfg).summarize(st))
    assert st.messages == chat(("user", "u"))


def test_spec_6_failover_zero_raises_primary_error() -> None:
    primary = c.ScriptedModel([fail("p")])
    cfg = c.Config(model=primary, failover=c.FailoverConfig(max_retries=0))
    with pytest.raises(c.SummarizationError, match="^failed to generate summary: p$"):
        run(c.new(cfg).summarize(state(("user", "u"))))


def test_spec_6_failover_model_none_and_callback_error_fail_the_attempt() -> None:
    events: list[Any] = []
    answers: list[Any] = [None, RuntimeError("lookup")]
    good = c.ScriptedModel([SUMMARY])

    def pick(ctx: Any) -> Any:
        answer = answers.pop(0) if answers else good
        if isinstance(answer, Exception):
            raise answer
        return (answer, None)

    cfg = c.Config(
        model=c.ScriptedModel([fail("p")]),
        failover=c.FailoverConfig(max_retries=3, get_failover_model=pick),
        emit_internal_events=True,
        on_event=events.append,
        sleep=Sleeps(),
    )
    run(c.new(cfg).summarize(state(("user", "u"))))
    failover_events = [e for e in events if e.type == "generate_summary" and e.phase == "failover"]
    assert [str(e.error) for e in failover_events] == [
        "failover model is required",
        "failed to get failover model: lookup",
        "None",
    ]
    good.assert_complete()


def test_spec_6_failover_waits_use_failover_backoff() -> None:
    sleeps = Sleeps()
    cfg = c.Config(
        model=c.ScriptedModel([fail(), fail(), fail(), SUMMARY]),
        failover=c.FailoverConfig(max_retries=3, backoff=lambda a, r, e: 10.0 + a),
        sleep=sleeps,
    )
    run(c.new(cfg).summarize(state(("user", "u"))))
    assert sleeps.delays == [11.0, 12.0]


def test_spec_6_should_failover_false_on_error_raises_primary() -> None:
    cfg = c.Config(
        model=c.ScriptedModel([fail("p")]),
        failover=c.FailoverConfig(max_retries=2, should_failover=lambda r, e: False),
    )
    with pytest.raises(c.SummarizationError, match="^failed to generate summary: p$"):
        run(c.new(cfg).summarize(state(("user", "u"))))


def test_spec_6_model_options_go_to_every_call() -> None:
    model = c.ScriptedModel([fail(), SUMMARY])
    cfg = c.Config(
        model=model,
        model_options={"temperature": 0},
        failover=c.FailoverConfig(max_retries=1),
    )
    run(c.new(cfg).summarize(state(("user", "u"))))
    assert model.options == [{"temperature": 0}, {"temperature": 0}]


# ---------------------------------------------------------------------------------------------
# §8 events, callback, manual summarize


def test_spec_8_event_sequence_and_to_dict() -> None:
    events: list[Any] = []
    cfg = c.Config(
        model=c.ScriptedModel([fail("x"), SUMMARY], name="m"),
        retry=c.RetryConfig(max_retries=1, backoff=lambda a, r, e: 0.25),
        emit_internal_events=True,
        on_event=events.append,
        sleep=Sleeps(),
    )
    run(c.new(cfg).summarize(state(("user", "u"))))
    assert [e.type for e in events] == [
        "before_summarize",
        "attempt_start",
        "generate_summary",
        "retry_wait",
        "attempt_start",
        "generate_summary",
        "after_summarize",
    ]
    gen = [e for e in events if e.type == "generate_summary"]
    assert [(e.attempt, e.phase, e.error is None) for e in gen] == [
        (1, "primary", False),
        (2, "primary", True),
    ]
    wait = next(e for e in events if e.type == "retry_wait")
    assert (wait.phase, wait.attempt, wait.delay) == ("primary", 1, 0.25)
    data = [e.to_dict() for e in events]
    json.dumps(data)
    assert data[2]["error"] == {
        "type": "ModelError",
        "message": "x",
        "kind": "server",
        "transient": True,
    }
    assert data[2]["model"] == "m"


def test_spec_8_no_events_unless_enabled() -> None:
    events: list[Any] = []
    cfg = c.Config(model=c.ScriptedModel([SUMMARY]), on_event=events.append)
    run(c.new(cfg).summarize(state(("user", "u"))))
    assert events == []


def test_spec_8_async_sink_and_callback_order() -> None:
    order: list[str] = []

    async def sink(event: Any) -> None:
        order.append(event.type)

    async def callback(before: c.AgentState[Any], after: c.AgentState[Any]) -> None:
        order.append(f"callback {len(before.messages)}->{len(after.messages)}")
        before.messages.clear()  # a copy: must not reach the caller

    st = state(("system", "s"), ("user", "u"), ("assistant", "a"))
    cfg = c.Config(
        model=c.ScriptedModel([SUMMARY]),
        callback=callback,
        emit_internal_events=True,
        on_event=sink,
    )
    run(c.new(cfg).summarize(st))
    assert order[-2:] == ["callback 3->2", "after_summarize"]
    assert len(st.messages) == 3


def test_spec_8_callback_error_propagates_without_after_event() -> None:
    events: list[Any] = []

    class Mine(Exception):
        pass

    def callback(before: Any, after: Any) -> None:
        raise Mine("x")

    cfg = c.Config(
        model=c.ScriptedModel([SUMMARY]),
        callback=callback,
        emit_internal_events=True,
        on_event=events.append,
    )
    with pytest.raises(Mine):
        run(c.new(cfg).summarize(state(("user", "u"))))
    assert "after_summarize" not in [e.type for e in events]


def test_spec_8_custom_finalize_error_propagates_unchanged() -> None:
    class Mine(Exception):
        pass

    def finalize(original: Any, summary: Any) -> Any:
        raise Mine("y")

    cfg = c.Config(model=c.ScriptedModel([SUMMARY]), finalize=finalize)
    with pytest.raises(Mine):
        run(c.new(cfg).summarize(state(("user", "u"))))


def test_spec_8_summarize_does_not_change_state() -> None:
    st = state(("system", "s"), ("user", "u"), ("assistant", "a"))
    import copy

    snapshot = copy.deepcopy(st)
    out = run(c.new(c.Config(model=c.ScriptedModel([SUMMARY]))).summarize(st))
    assert st == snapshot and out != st.messages


# ---------------------------------------------------------------------------------------------
# Public surface


def test_public_api_names_are_sorted_and_exported() -> None:
    assert c.__all__ == sorted(c.__all__)
    for name in c.__all__:
        assert hasattr(c, name), name
    for name in (
        "Message",
        "Part",
        "ToolCall",
        "Usage",
        "AgenticMessage",
        "Block",
        "ToolInfo",
        "AgentState",
        "Config",
        "TriggerCondition",
        "RetryConfig",
        "FailoverConfig",
        "PreserveUserMessages",
        "new",
        "Middleware",
        "default_token_counter",
        "TokenCounterInput",
        "default_finalizer",
        "DefaultFinalizerConfig",
        "new_finalizer",
        "PreserveSkillsConfig",
        "FailoverContext",
        "BeforeSummarize",
        "GenerateSummary",
        "AfterSummarize",
        "RetryWait",
        "default_backoff",
        "CompactorError",
        "ConfigError",
        "SummarizationError",
        "TranscriptError",
        # beyond SPEC (issue 7)
        "KeepTail",
        "RetentionConfig",
        "LoopGuardError",
        "ChunkStart",
        "ContextLimit",
    ):
        assert name in c.__all__, name


def test_public_names_load_lazily_from_their_modules() -> None:
    """PEP 562: every public name comes from the module the lazy table names, and is cached."""
    import importlib

    assert sorted([*c._WHERE, "__version__"]) == c.__all__
    for name in c.__all__:
        assert name in dir(c), name
        if name == "__version__":
            continue
        module = importlib.import_module(c._WHERE[name], "compactor")
        assert getattr(c, name) is getattr(module, name), name
        assert c.__dict__[name] is getattr(module, name), name
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        c.nope  # noqa: B018
    code = (
        "from compactor import Middleware, Step, new, Event;"
        "import compactor.models.scripted as s; assert Step is s.Step"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_import_compactor_is_lazy() -> None:
    """`import compactor` loads none of the heavy modules until a name is used; the middleware
    itself imports neither asyncio nor tenacity (a first attempt that succeeds needs no
    tenacity, a run without a loop no asyncio: speed19)."""
    code = (
        "import sys, compactor;"
        "heavy = ['asyncio', 'tenacity', 'yaml', 'compactor.pipeline.middleware',"
        " 'compactor.pipeline.summarize'];"
        "print(','.join(m for m in heavy if m in sys.modules));"
        "compactor.new;"
        "print(','.join(m for m in heavy if m not in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines() == ["", "asyncio,tenacity,yaml"]


def test_import_compactor_pulls_in_no_ui_or_openai() -> None:
    code = (
        "import sys, compactor, compactor.counting.trigger, compactor.counting.tokens;"
        "bad = [m for m in ('rich', 'typer', 'openai', 'anthropic', 'tiktoken')"
        " if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == ""


def test_errors_tree() -> None:
    for cls in (c.ConfigError, c.SummarizationError, c.TranscriptError):
        assert issubclass(cls, c.CompactorError)
    assert issubclass(c.ModelError, c.SummarizationError)
    err = c.TranscriptError("t.jsonl", 3, "role", "must be a string")
    assert str(err) == "t.jsonl:3: field 'role': must be a string"


def test_message_deepcopy_is_deep_and_keeps_sharing() -> None:
    """The schema's own __deepcopy__ (fast path for the middleware's copies) is a real deep copy."""
    import copy

    part = c.Part("text", "shared")
    msgs = [
        c.Message(
            "assistant",
            "a",
            parts=[part, part],
            tool_calls=[c.ToolCall("c1", "read", "{}")],
            usage=c.Usage(1, 2, 3),
            extra={"k": [1, {"x": 2}]},
        ),
        c.AgenticMessage(
            "user",
            [c.Block("function_tool_result", call_id="c1", content=[c.Block("user_input_text")])],
            extra={"meta": {"n": 1}},
        ),
    ]
    out = copy.deepcopy(msgs)
    assert out == msgs
    chat, agentic = out
    assert isinstance(chat, c.Message) and isinstance(agentic, c.AgenticMessage)
    assert chat.parts[0] is chat.parts[1] and chat.parts[0] is not part
    chat.extra["k"][1]["x"] = 9
    chat.tool_calls[0].name = "write"
    agentic.blocks[0].content[0].text = "changed"
    old_chat, old_agentic = msgs
    assert isinstance(old_chat, c.Message) and isinstance(old_agentic, c.AgenticMessage)
    assert old_chat.extra == {"k": [1, {"x": 2}]} and old_chat.tool_calls[0].name == "read"
    assert old_agentic.blocks[0].content[0].text is None

    class Tagged(c.Message):
        note: dict[str, list[int]]  # no slots: kept in the instance's __dict__

    tagged = Tagged("user", "x")
    tagged.note = {"a": [1]}  # a subclass without slots has a __dict__
    dup = copy.deepcopy(tagged)
    assert type(dup) is Tagged and dup == tagged
    assert dup.note == {"a": [1]} and dup.note is not tagged.note
