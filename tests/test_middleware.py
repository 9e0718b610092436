"""Issue 7 in the library core: the new Config fields, through ``Middleware`` with a scripted
model (no CLI, no server)."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import compactor as c
from compactor.counting.config import KeepTail, RetentionConfig
from compactor.counting.tokens import estimate_message
from compactor.counting.trigger import decide, thresholds
from compactor.counting.windows import window_for
from compactor.errors import LoopGuardError
from compactor.models.local import LocalSummarizer
from compactor.pipeline.cache import SummaryCache, cache_key
from compactor.pipeline.middleware import strip_analysis
from compactor.schema import content_type, user_text

pytestmark = pytest.mark.anyio

REPLY = "<analysis>\nthinking\n</analysis>\n\n<summary>\nS.\n</summary>"


def _history(n: int = 6) -> list[c.Message]:
    msgs = [c.Message("system", "sys")]
    for i in range(n):
        msgs.append(c.Message("user", f"question {i} " + "x" * 200))
        msgs.append(
            c.Message(
                "assistant",
                f"answer {i}",
                tool_calls=[c.ToolCall(f"id{i}", "run", json.dumps({"cmd": f"ls {i}"}))],
            )
        )
        msgs.append(c.Message("tool", "y" * 300, tool_call_id=f"id{i}"))
    return msgs


# -- validation -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"summarizer_context_tokens": 0}, "summarizer_context_tokens must be positive"),
        ({"summarizer_context_tokens": 100, "reply_reserve_tokens": 60}, "reply_reserve_tokens"),
        ({"loop_guard": 0}, "loop_guard must be a fraction"),
        ({"loop_guard": 1.5}, "loop_guard must be a fraction"),
        ({"loop_guard": True}, "loop_guard must be a fraction"),
        ({"keep": KeepTail(messages=-1)}, "keep.messages must be non-negative"),
        ({"retention": RetentionConfig(max_facts=-1)}, "retention.max_facts must be non-negative"),
        (
            {"trigger": c.TriggerCondition(context_fraction=0.8)},
            "trigger.context_fraction needs trigger.window_tokens",
        ),
        (
            {"trigger": c.TriggerCondition(context_fraction=1.2, window_tokens=10)},
            "trigger.context_fraction must be between 0 and 1",
        ),
    ],
)
def test_new_fields_are_validated(kwargs, message):
    with pytest.raises(c.ConfigError, match=message):
        c.new(c.Config(model=c.ScriptedModel.replying(REPLY), **kwargs))


def test_spec_order_still_wins_over_the_new_checks():
    with pytest.raises(c.ConfigError, match="trigger.context_tokens must be non-negative"):
        c.new(
            c.Config(
                model=c.ScriptedModel.replying(REPLY),
                trigger=c.TriggerCondition(context_tokens=-1, context_fraction=2.0),
            )
        )


# -- fraction trigger -----------------------------------------------------------------------------


async def test_fraction_trigger_boundary_is_strict():
    msgs = [c.Message("user", "a" * 400)]  # 100 tokens
    at = c.TriggerCondition(context_fraction=0.5, window_tokens=200)
    assert thresholds(at) == (100, None)
    assert not (await decide(msgs, [], at)).triggered
    below = c.TriggerCondition(context_fraction=0.5, window_tokens=198)
    assert (await decide(msgs, [], below)).triggered


async def test_fraction_combines_with_the_message_condition():
    msgs = [c.Message("user", "a")] * 5
    trig = c.TriggerCondition(context_messages=4, context_fraction=0.9, window_tokens=10_000)
    decision = await decide(msgs, [], trig)
    assert decision.triggered and "message threshold" in decision.reason


@pytest.mark.parametrize(
    ("name", "window"),
    [
        ("gpt-4o", 128_000),
        ("openai:gpt-4o-mini", 128_000),
        ("gpt-4.1-2025-04-14", 1_047_576),
        ("claude-sonnet-4-5-20250929", 200_000),
        ("openrouter/anthropic/claude-opus-4", 200_000),
        ("my-model", None),
        ("gpt-4", None),
    ],
)
def test_window_table(name, window):
    assert window_for(name) == window


# -- strip analysis, ladder, loop guard -----------------------------------------------------------


async def test_strip_analysis_through_the_middleware():
    mw = c.new(c.Config(model=c.ScriptedModel.replying(REPLY), strip_analysis=True))
    out = await mw.summarize(c.AgentState(_history(1)))
    text = user_text(out[-1])
    assert "<analysis>" not in text and "thinking" not in text and "<summary>" in text


def test_strip_analysis_keeps_a_reply_that_is_only_analysis():
    only = c.Message("assistant", "<analysis>all</analysis>")
    assert strip_analysis(only).content == only.content
    parts = c.Message("assistant", parts=[c.Part("text", REPLY)])
    assert strip_analysis(parts).parts[0].text == "<summary>\nS.\n</summary>"


async def test_fallback_model_is_the_last_rung():
    events: list[c.Event] = []
    mw = c.new(
        c.Config(
            model=c.ScriptedModel([RuntimeError("down"), RuntimeError("down")]),
            retry=c.RetryConfig(max_retries=1, backoff=lambda *a: 0),
            fallback_model=LocalSummarizer(),
            emit_internal_events=True,
            on_event=events.append,
        )
    )
    outcome = await mw.summarize_detailed(c.AgentState(_history(2)))
    assert outcome.degraded and outcome.phase == "fallback"
    assert [(a.phase, a.ok) for a in outcome.attempts] == [
        ("primary", False),
        ("primary", False),
        ("fallback", True),
    ]
    assert user_text(outcome.messages[-1]).count("Degraded summary") == 1
    phases = [e.phase for e in events if isinstance(e, c.GenerateSummary)]
    assert phases == ["primary", "primary", "fallback"]


async def test_fallback_failure_names_both_errors():
    class Broken:
        name = "broken"

        async def generate(self, messages, **options):
            raise RuntimeError("also down")

    mw = c.new(c.Config(model=c.ScriptedModel([RuntimeError("down")]), fallback_model=Broken()))
    with pytest.raises(c.SummarizationError, match="down; the fallback summarizer failed too"):
        await mw.summarize(c.AgentState(_history(1)))


async def test_loop_guard_raises_and_reports():
    # larger than the history, yet within the reply reserve (a longer reply is no summary at all)
    big_reply = "<summary>\n" + "z" * 12_000 + "\n</summary>"
    mw = c.new(c.Config(model=c.ScriptedModel.replying(big_reply), loop_guard=0.5))
    with pytest.raises(LoopGuardError) as info:
        await mw.summarize(c.AgentState(_history(3)))
    assert info.value.tokens_after >= 0.5 * info.value.tokens_before
    ok = c.new(c.Config(model=c.ScriptedModel.replying(REPLY), loop_guard=0.5))
    outcome = await ok.summarize_detailed(c.AgentState(_history(6)))
    assert outcome.tokens_after is not None and outcome.tokens_before is not None
    assert outcome.tokens_after < 0.5 * outcome.tokens_before


async def test_the_loop_guard_counts_the_history_once_when_the_trigger_has_counted_it():
    counted: list[int] = []

    def counter(inp):  # the default estimate, recording the size of each history counted
        counted.append(len(inp.messages))
        return c.default_token_counter(inp)

    trigger = c.TriggerCondition(context_tokens=10)
    history = _history(6)
    cfg = c.Config(model=c.ScriptedModel.replying(REPLY), trigger=trigger, loop_guard=0.5)
    cfg = dataclasses.replace(cfg, token_counter=counter)
    after = await c.new(cfg).before_model(c.AgentState(history))
    assert counted.count(len(history)) == 1  # the trigger's count, not the guard's again
    assert len(counted) == 2 and counted[1] == len(after.messages)  # and the result's
    counted.clear()
    await c.new(dataclasses.replace(cfg, model=c.ScriptedModel.replying(REPLY))).summarize(
        c.AgentState(history)
    )
    assert counted == [len(history), 2]  # no trigger count given: the guard counts both


# -- cache ----------------------------------------------------------------------------------------


async def test_cache_reuses_a_reply_and_keys_on_model_options_and_input(tmp_path):
    cache = SummaryCache(tmp_path)
    model = c.ScriptedModel.replying(REPLY)
    mw = c.new(c.Config(model=model, cache=cache))
    first = await mw.summarize(c.AgentState(_history(2)))
    again = await c.new(c.Config(model=c.ScriptedModel([]), cache=cache)).summarize(
        c.AgentState(_history(2))
    )  # a scripted model with no steps would raise if it were called
    assert again == first
    assert (cache.hits, cache.stores) == (1, 1)
    inp = [c.Message("user", "x")]
    assert cache_key("m", {}, inp) != cache_key("m2", {}, inp)
    assert cache_key("m", {}, inp) != cache_key("m", {"temperature": 0}, inp)
    assert cache_key("m", {}, inp) != cache_key("m", {}, [c.Message("user", "y")])
    assert cache_key("m", {}, inp) == cache_key("m", {}, [c.Message("user", "x")])


def test_damaged_cache_entry_is_a_miss(tmp_path):
    cache = SummaryCache(tmp_path)
    key = cache_key("m", {}, [])
    cache.put(key, "m", c.Message("assistant", "hello"))
    path = next(tmp_path.rglob("*.json"))
    path.write_text("{broken", encoding="utf-8")
    assert cache.get(key, c.Message) is None
    assert cache.misses == 1
    cache.put(key, "m", c.Message("assistant", ""))  # empty replies are never stored
    assert cache.get(key, c.Message) is None


# -- verbatim tail (hypothesis over generated histories) ------------------------------------------


@st.composite
def histories(draw: st.DrawFn) -> list[c.Message]:
    msgs = [c.Message("system", "s")]
    n = draw(st.integers(1, 12))
    next_id = 0
    for _ in range(n):
        kind = draw(st.sampled_from(["user", "assistant", "tools", "orphan"]))
        if kind == "user":
            msgs.append(c.Message("user", "u" * draw(st.integers(1, 400))))
        elif kind == "assistant":
            msgs.append(c.Message("assistant", "a" * draw(st.integers(1, 400))))
        elif kind == "tools":
            k = draw(st.integers(1, 3))
            ids = [f"t{next_id + i}" for i in range(k)]
            next_id += k
            msgs.append(
                c.Message("assistant", "", tool_calls=[c.ToolCall(i, "f", "{}") for i in ids])
            )
            for i in draw(st.permutations(ids)):
                msgs.append(c.Message("tool", "r" * draw(st.integers(1, 300)), tool_call_id=i))
        else:
            msgs.append(c.Message("tool", "orphan", tool_call_id="nope"))
    return msgs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    history=histories(),
    keep_messages=st.none() | st.integers(0, 8),
    keep_tokens=st.none() | st.integers(0, 300),
)
async def test_tail_never_orphans_a_tool_result(history, keep_messages, keep_tokens):
    mw = c.new(
        c.Config(
            model=c.ScriptedModel.replying(REPLY),
            keep=KeepTail(messages=keep_messages, tokens=keep_tokens),
        )
    )
    outcome = await mw.summarize_detailed(c.AgentState(history))
    out = outcome.messages
    assert out[0] == history[0]
    assert content_type(out[1]) == "summary"
    tail = out[2:]
    assert len(tail) == outcome.tail_messages
    if tail:
        assert tail == history[-len(tail) :]
        assert tail[0].role != "tool"
        assert len(history) - len(tail) >= 2  # something was summarized
    if keep_messages is not None:
        assert len(tail) <= keep_messages
    called_in_tail = {call.id for m in tail for call in m.tool_calls}
    called_anywhere = {call.id for m in history for call in m.tool_calls}
    for m in tail:
        if m.role == "tool" and m.tool_call_id in called_anywhere:
            assert m.tool_call_id in called_in_tail


async def test_kept_messages_lose_their_stale_usage_and_the_count_follows():
    """Issue 17: a kept assistant message's usage measured the whole history before it; as the
    counter's baseline after compaction it reported "66,698 → 66,698 tokens", tripped the loop
    guard and made the next trigger check compact again."""
    history = _history(6)
    history[-2].usage = c.Usage(prompt_tokens=66_000, completion_tokens=698, total_tokens=66_698)
    mw = c.new(
        c.Config(
            model=c.ScriptedModel.replying(REPLY),
            keep=KeepTail(messages=3),
            loop_guard=0.5,
            trigger=c.TriggerCondition(context_tokens=50_000),
        )
    )
    state = c.AgentState(history)
    assert (await mw.should_summarize(state)).triggered
    outcome = await mw.summarize_detailed(state)
    tail = outcome.messages[2:]
    assert [(m.role, m.content) for m in tail] == [(m.role, m.content) for m in history[-3:]]
    assert all(m.usage is None for m in tail)
    assert history[-2].usage is not None  # the caller's history is not changed
    assert outcome.tokens_before is not None and outcome.tokens_before > 66_000
    assert outcome.tokens_after == sum(estimate_message(m) for m in outcome.messages)
    assert not (await mw.should_summarize(c.AgentState(outcome.messages))).triggered


async def test_tail_with_a_custom_finalize_is_appended_after_its_output():
    history = _history(3)
    mw = c.new(
        c.Config(
            model=c.ScriptedModel.replying(REPLY),
            finalize=lambda original, summary: [c.Message("user", "mine")],
            keep=KeepTail(messages=4),
        )
    )
    out = await mw.summarize(c.AgentState(history))
    assert out[0].content == "mine"
    assert out[1:] == history[-3:]  # 4 would start on a tool result: 3 is the safe start


# -- chunking in the core -------------------------------------------------------------------------


async def test_chunks_each_fit_and_the_last_reply_is_the_summary():
    seen: list[int] = []

    class Counting:
        name = "counting"

        async def generate(self, messages, **options):
            seen.append(sum(estimate_message(m) for m in messages))
            return c.Message("assistant", f"<summary>\npart {len(seen)}\n</summary>")

    history = _history(30)
    mw = c.new(
        c.Config(model=Counting(), summarizer_context_tokens=2_500, reply_reserve_tokens=200)
    )
    outcome = await mw.summarize_detailed(c.AgentState(history))
    assert len(outcome.chunks) == len(seen) > 1
    assert all(tokens <= 2_500 for tokens in seen)
    assert f"part {len(seen)}" in user_text(outcome.messages[-1])
    assert outcome.chunks[0]["start"] == 1 and outcome.chunks[-1]["end"] == len(history)


async def test_a_context_too_small_for_the_instructions_is_a_clear_error():
    mw = c.new(
        c.Config(
            model=c.ScriptedModel.replying(REPLY),
            summarizer_context_tokens=300,  # even the concise instruction fills it
            reply_reserve_tokens=50,
        )
    )
    with pytest.raises(c.SummarizationError, match="leaves no room for messages"):
        await mw.summarize(c.AgentState(_history(30)))


async def test_the_history_is_masked_once_and_the_instructions_too(monkeypatch):
    from compactor.secrets.masking import SecretMasker

    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
    history = _history(6)
    history[2] = c.Message("user", f"the key is {key}")
    scanned: list[str] = []
    real = SecretMasker.mask_text

    def mask_text(self, text):
        scanned.append(text)
        return real(self, text)

    monkeypatch.setattr(SecretMasker, "mask_text", mask_text)
    model = c.ScriptedModel.replying(REPLY)
    cfg = c.Config(model=model, mask_secrets=True, user_instruction=f"Summarize. Key: {key}")
    outcome = await c.new(cfg).summarize_detailed(c.AgentState(history))
    sent = json.dumps([m.content for m in model.sent(c.Message)[0]])
    assert key not in sent and sent.count("[REDACTED:api_key#1]") == 2  # history + instruction
    assert outcome.masked == {"api_key": 2}
    assert sum("the key is" in t for t in scanned) == 1  # the history is scanned once, not again


async def test_masked_counts_are_per_secret_occurrence_even_with_chunks_and_failover():
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
    history = _history(30)
    history[1] = c.Message("user", f"use {key} for the deploy")
    seen: list[str] = []

    class Recording:
        name = "recording"
        remote = True

        async def generate(self, messages, **options):
            seen.append(json.dumps([m.content for m in messages]))
            if len(seen) == 2:
                raise RuntimeError("flaky")
            return c.Message(
                "assistant", "<summary>\n<all_user_messages>\n</all_user_messages>\n</summary>"
            )

    mw = c.new(
        c.Config(
            model=Recording(),
            summarizer_context_tokens=2_500,
            reply_reserve_tokens=200,
            failover=c.FailoverConfig(max_retries=1),
        )
    )
    outcome = await mw.summarize_detailed(c.AgentState(history))
    assert len(outcome.chunks) > 1
    assert outcome.masked == {"api_key": 1}
    assert all(key not in text for text in seen)
    assert any("[REDACTED:api_key#1]" in text for text in seen)
    assert key not in user_text(outcome.messages[-1])
    assert "[REDACTED:api_key#1]" in user_text(outcome.messages[-1])  # the re-inserted message
