"""Property-based tests (hypothesis) of the core: SPEC §3 (trigger), §5 (finalize), §6 (retry and
failover call counts) and §8 (event order).

Async code runs with ``asyncio.run`` inside each test body.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

import compactor as c
from compactor.errors import ModelError
from compactor.prompts import CLEARED_NOTE
from compactor.schema import CONTENT_TYPE_KEY, user_text

OPEN, CLOSE = "<all_user_messages>", "</all_user_messages>"
REPLY = f"<summary>\n{OPEN}\n    - model text\n{CLOSE}\n</summary>"

# Any text (unicode, newlines, tags included) for content that is never parsed back.
any_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)
# Single-line text without "<" (so never a tag), optionally long, for user messages.
line_char = st.characters(exclude_categories=("Cs", "Zl", "Zp", "Cc"), exclude_characters="<")
short_line = st.text(line_char, min_size=1, max_size=30)
long_line = st.builds(lambda s, n: (s * n)[:5000], short_line, st.integers(60, 400))
user_line = st.one_of(short_line, short_line, long_line)

ids = st.text("abcdef0123456789", min_size=1, max_size=6)


@st.composite
def chat_history(draw: st.DrawFn) -> list[c.Message]:
    messages: list[c.Message] = [
        c.Message("system", draw(any_text)) for _ in range(draw(st.integers(0, 2)))
    ]
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["user", "user", "assistant", "tool", "system", "parts"]))
        if kind == "user":
            messages.append(c.Message("user", draw(user_line)))
        elif kind == "parts":
            messages.append(
                c.Message(
                    "user",
                    parts=[c.Part("text", draw(user_line)), c.Part("image_url", url="http://x")],
                )
            )
        elif kind == "assistant":
            calls = [
                c.ToolCall(draw(ids), draw(st.sampled_from(["read", "skill"])), json.dumps({}))
                for _ in range(draw(st.integers(0, 2)))
            ]
            total = draw(st.integers(0, 500))
            messages.append(
                c.Message(
                    "assistant",
                    draw(any_text),
                    tool_calls=calls,
                    usage=c.Usage(total_tokens=total) if total else None,
                )
            )
        elif kind == "tool":
            messages.append(c.Message("tool", draw(any_text), tool_call_id=draw(ids)))
        else:
            messages.append(c.Message("system", draw(any_text)))
    return messages


@st.composite
def agentic_history(draw: st.DrawFn) -> list[c.AgenticMessage]:
    messages: list[c.AgenticMessage] = [
        c.AgenticMessage("system", [c.Block("user_input_text", draw(any_text))])
        for _ in range(draw(st.integers(0, 2)))
    ]
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["user", "user", "assistant", "tool_result"]))
        if kind == "user":
            messages.append(c.AgenticMessage("user", [c.Block("user_input_text", draw(user_line))]))
        elif kind == "assistant":
            blocks = [c.Block("assistant_gen_text", draw(any_text))]
            if draw(st.booleans()):
                blocks.append(
                    c.Block("function_tool_call", call_id=draw(ids), name="read", arguments="{}")
                )
            messages.append(c.AgenticMessage("assistant", blocks))
        else:
            result = c.Block(
                "function_tool_result",
                call_id=draw(ids),
                name="read",
                content=[c.Block("user_input_text", draw(any_text))],
            )
            messages.append(c.AgenticMessage("user", [result]))
    return messages


histories = st.one_of(chat_history(), agentic_history())


def leading_system(messages: list[Any]) -> list[Any]:
    out = []
    for m in messages:
        if m.role != "system":
            break
        out.append(m)
    return out


def summarizer(**config: Any) -> tuple[c.Middleware[Any], c.ScriptedModel]:
    model = c.ScriptedModel([REPLY])
    return c.new(c.Config(model=model, **config)), model


# ---------------------------------------------------------------------------------------------
# (a) SPEC §3.4: not triggered → the same state object comes back, unchanged


@settings(max_examples=50, deadline=None, database=None)
@given(history=histories, extra=st.integers(0, 5), by_tokens=st.booleans())
def test_spec_3_not_triggered_returns_the_same_state(
    history: list[Any], extra: int, by_tokens: bool
) -> None:
    if by_tokens:
        trigger = c.TriggerCondition(context_tokens=10**9)
    else:
        trigger = c.TriggerCondition(context_messages=max(1, len(history) + extra))
    model = c.ScriptedModel([])  # any call would raise UnexpectedModelCall
    state = c.AgentState(history, tools=[c.ToolInfo("read", "reads")])
    before = copy.deepcopy(state)
    result = asyncio.run(c.new(c.Config(model=model, trigger=trigger)).before_model(state))
    assert result is state
    assert result.messages is history
    assert result.messages == before.messages
    assert result.tools == before.tools
    assert model.calls == []


# ---------------------------------------------------------------------------------------------
# (b) SPEC §8: summarize never changes its input


@settings(max_examples=50, deadline=None, database=None)
@given(history=histories, max_tokens=st.one_of(st.none(), st.integers(0, 3000)))
def test_spec_8_summarize_never_mutates_its_input(
    history: list[Any], max_tokens: int | None
) -> None:
    mw, model = summarizer(
        preserve_user_messages=c.PreserveUserMessages(max_tokens=max_tokens),
        transcript_file_path="/tmp/t.jsonl",
    )
    state = c.AgentState(history, tools=[c.ToolInfo("read", "reads", {"type": "object"})])
    before = copy.deepcopy(state)
    ids_before = [id(m) for m in history]
    out = asyncio.run(mw.summarize(state))
    model.assert_complete()
    assert state.messages is history
    assert [id(m) for m in history] == ids_before
    assert state.messages == before.messages
    assert state.tools == before.tools
    assert all(o is not m for o in out for m in history)


def _fingerprint(value: Any) -> Any:
    """Every value, and the identity of every object, reachable from a history."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = tuple(
            (f.name, _fingerprint(getattr(value, f.name))) for f in dataclasses.fields(value)
        )
        return (type(value).__name__, id(value), fields)
    if isinstance(value, list):
        return ("list", id(value), tuple(_fingerprint(v) for v in value))
    if isinstance(value, dict):
        return ("dict", id(value), tuple((k, _fingerprint(v)) for k, v in value.items()))
    return value


def _scribble(messages: Any) -> None:
    """What careless user code does to the messages it is handed: edit every one."""
    for m in messages:
        if isinstance(m, c.Message):
            m.content = "scribbled"
            m.parts.clear()
            m.tool_calls.clear()
        else:
            for b in m.blocks:
                b.text = "scribbled"
                b.content.clear()
        m.extra["scribbled"] = True


class _ScribblingModel:
    """A model that edits its input (it does not promise ``readonly_input``)."""

    name = "scribbling"

    async def generate(self, messages: list[Any], **options: Any) -> Any:
        kind = c.AgenticMessage if isinstance(messages[0], c.AgenticMessage) else c.Message
        _scribble(messages)
        messages.append(messages[0])
        return c.make_assistant(kind, REPLY)


def _scribbling_sink(event: Any) -> None:
    if event.type in ("before_summarize", "after_summarize"):
        _scribble(event.messages)  # a view: copies; or the new history's own copy
        _scribble(list(event.messages))
        if isinstance(event.messages, list):
            event.messages.clear()


@settings(max_examples=60, deadline=None, database=None)
@given(
    history=histories,
    model=st.sampled_from(["scripted", "local", "scribbling"]),
    mask=st.booleans(),
    retention=st.booleans(),
    keep=st.sampled_from([None, 2]),
    chunked=st.booleans(),
    hooks=st.booleans(),
)
def test_spec_8_no_step_and_no_hook_changes_the_callers_history(
    history: list[Any],
    model: str,
    mask: bool,
    retention: bool,
    keep: int | None,
    chunked: bool,
    hooks: bool,
) -> None:
    """The pipeline reads the caller's messages without copying them (issue 21): no step may
    change one, and every hook that could (event sinks, a model that does not promise to only
    read, finalize, callback, filters) gets copies. Checked on every value and every object's
    identity, with masking, retention, a kept tail, chunks, and hooks that edit all they see."""
    from compactor.models.local import LocalSummarizer

    chosen: Any = {
        "scripted": c.ScriptedModel([REPLY] * 20),
        "local": LocalSummarizer(),
        "scribbling": _ScribblingModel(),
    }[model]
    config: dict[str, Any] = {
        "model": chosen,
        "mask_secrets": mask,
        "retention": c.RetentionConfig() if retention else None,
        "keep": c.KeepTail(messages=keep) if keep else None,
        "emit_internal_events": True,
        "on_event": _scribbling_sink,
    }
    if chunked:
        config.update(summarizer_context_tokens=1_200, reply_reserve_tokens=100)
    if hooks:

        def finalize(original: list[Any], summary: Any) -> list[Any]:
            _scribble(original)
            return [summary]

        def callback(before: Any, after: Any) -> None:
            _scribble(before.messages)
            _scribble(after.messages)

        config.update(finalize=finalize, callback=callback)
    else:

        def keep_all(msg: Any) -> bool:
            _scribble([msg])
            return True

        config.update(preserve_user_messages=c.PreserveUserMessages(filter=keep_all))
    state = c.AgentState(history, tools=[c.ToolInfo("read", "reads", {"type": "object"})])
    before = _fingerprint(state)
    try:
        out = asyncio.run(c.new(c.Config(**config)).summarize(state))
    except c.CompactorError:
        out = []  # a failure must leave the history as it was too
    assert _fingerprint(state) == before
    assert all(o is not m for o in out for m in history)


# ---------------------------------------------------------------------------------------------
# (c) SPEC §5.2.5: default output = [leading system messages..., summary]


@settings(max_examples=50, deadline=None, database=None)
@given(history=histories)
def test_spec_5_2_5_default_output_shape(history: list[Any]) -> None:
    mw, model = summarizer()
    out = asyncio.run(mw.summarize(c.AgentState(history)))
    model.assert_complete()
    systems = leading_system(history)
    assert out[:-1] == systems
    summary = out[-1]
    kind = type(history[0]) if history else c.Message
    assert type(summary) is kind
    assert summary.role == "user"
    assert summary.extra.get(CONTENT_TYPE_KEY) == "summary"
    assert len(out) == len(systems) + 1


# ---------------------------------------------------------------------------------------------
# (d) SPEC §5.2.2: preserved user messages are an in-order subsequence, at most one cut


def _is_subsequence_with_one_cut(lines: list[str], originals: list[str]) -> bool:
    it = iter(originals)
    cuts = 0
    for line in lines:
        for text in it:
            if line == text:
                break
            if (
                len(text) > 2000
                and line == f"{text[:1000]}…{len(text) - 2000} characters truncated…{text[-1000:]}"
            ):
                cuts += 1
                break
        else:
            return False
    return cuts <= 1


@settings(max_examples=50, deadline=None, database=None)
@given(history=histories, max_tokens=st.one_of(st.none(), st.integers(0, 3000)))
# a rare draw (2026-12-06): a blank request of 100 spaces was "quoted verbatim above"
@example(history=[c.Message(role="user", content=" " * 100)], max_tokens=None)
def test_spec_5_2_2_preserved_messages_are_ordered_subsequence(
    history: list[Any], max_tokens: int | None
) -> None:
    mw, model = summarizer(preserve_user_messages=c.PreserveUserMessages(max_tokens=max_tokens))
    out = asyncio.run(mw.summarize(c.AgentState(history)))
    model.assert_complete()
    text = user_text(out[-1])
    context = history[len(leading_system(history)) :]
    candidates = [
        user_text(m)
        for m in context
        if m.role == "user" and not m.extra.get(CONTENT_TYPE_KEY) and user_text(m)
    ]
    if not context:
        assert "    - model text" in text
        return
    start, end = text.index(OPEN), text.index(CLOSE)
    inner = text[start + len(OPEN) : end].strip("\n").split("\n")
    inner = [line for line in inner if line]
    note = bool(inner) and inner[0] == CLEARED_NOTE
    lines = inner[1:] if note else inner
    assert all(line.startswith("    - ") for line in lines)
    quoted = [line[len("    - ") :] for line in lines]
    assert _is_subsequence_with_one_cut(quoted, candidates)
    assert sum("characters truncated" in q for q in quoted) <= 1
    # The note says some were dropped: present exactly when not every candidate is quoted.
    assert note == (len(quoted) < len(candidates))
    if len(candidates) == 1 and max_tokens != 0:
        assert quoted == candidates
    if max_tokens == 0:
        assert quoted == []
    # The newest candidate is always kept (whole or cut) when there is a budget.
    if candidates and max_tokens != 0:
        assert quoted[-1] == candidates[-1] or "characters truncated" in quoted[-1]


# ---------------------------------------------------------------------------------------------
# (e) SPEC §6: number of model calls when every call fails


class AlwaysFails:
    def __init__(self, name: str) -> None:
        self.name = name
        self.calls = 0

    async def generate(self, messages: list[Any], **options: Any) -> Any:
        self.calls += 1
        raise ModelError("x", transient=True)


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


max_retries = st.one_of(st.none(), st.integers(0, 3))


@settings(max_examples=50, deadline=None, database=None)
@given(
    use_retry=st.booleans(),
    retries=max_retries,
    use_failover=st.booleans(),
    failovers=max_retries,
    history=chat_history(),
)
def test_spec_6_call_count_when_every_call_fails(
    use_retry: bool,
    retries: int | None,
    use_failover: bool,
    failovers: int | None,
    history: list[c.Message],
) -> None:
    primary, second = AlwaysFails("primary"), AlwaysFails("second")
    sleeps = Sleeps()
    events: list[Any] = []
    retry = c.RetryConfig(max_retries=retries) if use_retry else None
    failover = (
        c.FailoverConfig(max_retries=failovers, get_failover_model=lambda ctx: (second, None))
        if use_failover
        else None
    )
    cfg = c.Config(
        model=primary,
        retry=retry,
        failover=failover,
        sleep=sleeps,
        emit_internal_events=True,
        on_event=events.append,
    )
    state = c.AgentState(history)
    before = copy.deepcopy(state)
    try:
        asyncio.run(c.new(cfg).summarize(state))
    except c.SummarizationError as err:
        message = str(err)
    else:
        raise AssertionError("every call fails, summarize must raise")
    n_retries = 3 if retries is None else retries
    n_failover = 3 if failovers is None else failovers
    expected_primary = n_retries + 1 if use_retry else 1
    expected_failover = n_failover if use_failover else 0
    assert primary.calls == expected_primary
    assert second.calls == expected_failover
    assert state.messages == before.messages
    if expected_failover:
        assert message.startswith("exceeds max failover attempts: ")
    elif use_retry and n_retries > 0:
        assert message.startswith("failed to generate summary: exceeds max retries: ")
    else:
        assert message.startswith("failed to generate summary: ")
    waits = [e for e in events if e.type == "retry_wait"]
    assert len(waits) == len(sleeps.delays)
    assert [w.delay for w in waits] == sleeps.delays
    primary_waits = [w for w in waits if w.phase == "primary"]
    assert len(primary_waits) == expected_primary - 1
    generated = [e for e in events if e.type == "generate_summary"]
    assert len(generated) == expected_primary + expected_failover


# ---------------------------------------------------------------------------------------------
# (f) SPEC §8: event order


@settings(max_examples=50, deadline=None, database=None)
@given(
    outcomes=st.lists(st.booleans(), max_size=10),
    use_retry=st.booleans(),
    retries=max_retries,
    use_failover=st.booleans(),
    failovers=max_retries,
    history=histories,
)
def test_spec_8_event_order(
    outcomes: list[bool],
    use_retry: bool,
    retries: int | None,
    use_failover: bool,
    failovers: int | None,
    history: list[Any],
) -> None:
    steps: list[Any] = [REPLY if ok else ModelError("x", transient=True) for ok in outcomes]
    model = c.ScriptedModel(steps)  # runs out → UnexpectedModelCall, also an error
    events: list[Any] = []
    cfg = c.Config(
        model=model,
        retry=c.RetryConfig(max_retries=retries) if use_retry else None,
        failover=c.FailoverConfig(max_retries=failovers) if use_failover else None,
        sleep=Sleeps(),
        emit_internal_events=True,
        on_event=events.append,
    )
    try:
        asyncio.run(c.new(cfg).summarize(c.AgentState(history)))
        ok = True
    except c.SummarizationError:
        ok = False
    kinds = {"before_summarize", "generate_summary", "after_summarize", "retry_wait"}
    seq = [e for e in events if e.type in kinds]
    types = [e.type for e in seq]
    assert types[0] == "before_summarize"
    assert types.count("before_summarize") == 1
    assert types.count("after_summarize") == (1 if ok else 0)
    if ok:
        assert types[-1] == "after_summarize"
    middle = types[1:-1] if ok else types[1:]
    assert set(middle) <= {"generate_summary", "retry_wait"}
    assert middle and middle[0] == "generate_summary" and middle[-1] == "generate_summary"
    for i, t in enumerate(middle):
        if t == "retry_wait":
            assert middle[i - 1] == "generate_summary" and middle[i + 1] == "generate_summary"
    # One generate_summary per model call; attempts count from 1 within each phase.
    generated = [e for e in seq if e.type == "generate_summary"]
    assert len(generated) == len(model.calls)
    for phase in ("primary", "failover"):
        attempts = [e.attempt for e in generated if e.phase == phase]
        assert attempts == list(range(1, len(attempts) + 1))
    assert [e.phase for e in generated] == sorted(
        (e.phase for e in generated), key=lambda p: p == "failover"
    )
    # The run succeeded exactly when the last call succeeded.
    assert ok == (generated[-1].error is None)
