"""SPEC §5: finalize — which finalizer (§5.1), default post-processing (§5.2), builder (§5.3).

Each test names the SPEC rule whose breaking it would catch.
"""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest

import compactor as c
from compactor.counting.tokens import estimate_text
from compactor.errors import ModelError
from compactor.prompts import (
    CLEARED_NOTE,
    CONTINUE_INSTRUCTION,
    PREAMBLE,
    SKILL_TRUNCATED_MARKER,
    SKILLS_PREAMBLE,
    TRANSCRIPT_NOTE,
)
from compactor.schema import CONTENT_TYPE_KEY, SKILL_BODY_KEY, assistant_text, user_text

OPEN, CLOSE = "<all_user_messages>", "</all_user_messages>"
REPLY = f"<summary>\n6. All user messages:\n{OPEN}\n    - written by the model\n{CLOSE}\n</summary>"


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def U(text: str, **extra: Any) -> c.Message:
    return c.Message("user", text, extra=dict(extra))


def A(text: str = "ok", calls: list[c.ToolCall] | None = None) -> c.Message:
    return c.Message("assistant", text, tool_calls=list(calls or []))


def S(text: str) -> c.Message:
    return c.Message("system", text)


def summarize(
    messages: list[Any], reply: Any = REPLY, **config: Any
) -> tuple[list[Any], c.ScriptedModel]:
    model = c.ScriptedModel([reply])
    out = run(c.new(c.Config(model=model, **config)).summarize(c.AgentState(messages)))
    model.assert_complete()
    return out, model


def body(out: list[Any]) -> str:
    """The summary text between the preamble and the continue instruction."""
    text = user_text(out[-1])
    head, tail = f"{PREAMBLE}\n\n", f"\n\n{CONTINUE_INSTRUCTION}"
    assert text.startswith(head), text[:200]
    assert text.endswith(tail), text[-200:]
    return text[len(head) : -len(tail)]


def block_lines(out: list[Any]) -> list[str]:
    """Lines of the (single) user-message block of the summary, tags excluded."""
    text = body(out)
    assert text.count(OPEN) == 1 and text.count(CLOSE) == 1
    inner = text[text.index(OPEN) + len(OPEN) : text.index(CLOSE)]
    assert inner.startswith("\n") and inner.endswith("\n")
    return inner[1:-1].split("\n") if inner != "\n" else []


def quoted(*texts: str) -> list[str]:
    return [f"    - {t}" for t in texts]


def cut(text: str) -> str:
    return f"{text[:1000]}…{len(text) - 2000} characters truncated…{text[-1000:]}"


def direct(messages: list[Any], reply: Any, **cfg: Any) -> list[Any]:
    fin = c.default_finalizer(c.DefaultFinalizerConfig(**cfg))
    return run(fin(messages, reply))  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------------------
# §5.2 step 1: empty or non-assistant reply


@pytest.mark.parametrize(
    "reply",
    [
        "",
        c.Step(message=c.Message("assistant", "", reasoning_content="thinking only")),
        c.Step(message=c.Message("assistant", "", parts=[c.Part("reasoning", "r")])),
        c.Step(message=c.Message("user", "a user message is not a reply")),
        c.Step(message=c.Message("tool", "tool output", tool_call_id="x")),
        c.Step(message=c.AgenticMessage("assistant", [c.Block("reasoning", "only reasoning")])),
    ],
)
def test_spec_5_2_1_empty_or_non_assistant_reply_is_summary_content_empty(reply: Any) -> None:
    with pytest.raises(c.SummarizationError, match=r"^summary content is empty$"):
        summarize([U("hello"), A()], reply)


@pytest.mark.parametrize(
    "reply",
    [
        c.Message("assistant", ""),
        c.Message("user", "text"),
        c.Message("system", "text"),
        c.AgenticMessage("assistant", []),
        c.AgenticMessage("user", [c.Block("user_input_text", "text")]),
        None,
    ],
)
def test_spec_5_2_1_default_finalizer_direct_rejects_empty_reply(reply: Any) -> None:
    with pytest.raises(c.SummarizationError, match=r"^summary content is empty$"):
        direct([U("hello")], reply)


# ---------------------------------------------------------------------------------------------
# §5.2 step 2: user-message block


def test_spec_5_2_2_block_replaced_from_first_open_to_last_close_tag() -> None:
    reply = f"before {OPEN}x{CLOSE} middle {OPEN}y{CLOSE} after"
    out, _ = summarize([U("first"), A(), U("second"), A()], reply)
    assert body(out) == f"before {OPEN}\n    - first\n    - second\n{CLOSE} after"


def test_spec_5_2_2_no_tag_leaves_text_unchanged() -> None:
    reply = "<summary>no user block here</summary>"
    out, _ = summarize([U("first"), A()], reply)
    assert body(out) == reply
    only_open = f"<summary>{OPEN} but never closed</summary>"
    out, _ = summarize([U("first"), A()], only_open)
    assert body(out) == only_open


ENSURE = c.PreserveUserMessages(ensure_block=True)


def test_override_5_2_2_ensure_block_adds_the_users_messages_inside_the_summary() -> None:
    # issue 18: a weak model's reply without the block still gets the user's own words
    from compactor.pipeline.finalize import USER_MESSAGES_HEADING

    reply = "<summary>\n1. Primary Request: fix it\n</summary>"
    out, _ = summarize([U("first"), A(), U("second"), A()], reply, preserve_user_messages=ENSURE)
    assert body(out) == (
        f"<summary>\n1. Primary Request: fix it\n\n{USER_MESSAGES_HEADING}\n"
        f"{OPEN}\n    - first\n    - second\n{CLOSE}\n</summary>"
    )
    assert block_lines(out) == quoted("first", "second")


def test_override_5_2_2_ensure_block_appends_when_there_is_no_summary_block() -> None:
    reply = "Here is the summary of your conversation:"  # the 11-token reply of issue 18
    second = "second " * 10  # 17 tokens: the whole budget
    pum = c.PreserveUserMessages(ensure_block=True, max_tokens=17)
    out, _ = summarize([U("first " * 10), A(), U(second), A()], reply, preserve_user_messages=pum)
    text = body(out)
    assert text.startswith(reply + "\n\n")
    assert block_lines(out) == [CLEARED_NOTE, *quoted(second)]


def test_override_5_2_2_ensure_block_leaves_an_existing_block_and_an_empty_context() -> None:
    out, _ = summarize([U("first"), A()], preserve_user_messages=ENSURE)
    assert body(out) == REPLY.replace("written by the model", "first")
    bare = "<summary>nothing</summary>"
    out, _ = summarize([A("only an assistant")], bare, preserve_user_messages=ENSURE)
    assert body(out) == bare  # no user message: nothing to add
    out, _ = summarize([U("first"), A()], bare)  # the library default stays SPEC's
    assert body(out) == bare


def test_spec_5_2_2_cleared_note_absent_when_nothing_dropped() -> None:
    out, _ = summarize([U("one"), A(), U("two"), A()])
    assert block_lines(out) == quoted("one", "two")
    assert CLEARED_NOTE not in body(out)


def test_spec_5_2_2_cleared_note_present_when_candidates_dropped() -> None:
    pum = c.PreserveUserMessages(max_tokens=2)
    out, _ = summarize([U("a" * 400), A(), U("b" * 8)], preserve_user_messages=pum)
    # "b"*8 costs 2 tokens and uses up the budget; the older message is dropped.
    assert block_lines(out) == [CLEARED_NOTE, *quoted("b" * 8)]


def _walk_history() -> tuple[list[Any], str]:
    big = "head-" + "é" * 2990 + "-tail"  # 3000 characters, 6000 bytes → 1500 tokens
    history = [
        U("dropped, older than the cut one"),
        A(),
        U(big),
        A(),
        U("b" * 400),  # 100 tokens
        A(),
        U("c" * 400),  # 100 tokens
        A(),
    ]
    return history, big


def test_spec_5_2_2_budget_cuts_first_non_fitting_message_and_stops() -> None:
    history, big = _walk_history()
    pum = c.PreserveUserMessages(max_tokens=250)
    out, _ = summarize(history, preserve_user_messages=pum)
    expected_cut = big[:1000] + "…1000 characters truncated…" + big[-1000:]
    assert cut(big) == expected_cut
    assert block_lines(out) == [CLEARED_NOTE, *quoted(expected_cut, "b" * 400, "c" * 400)]


def test_spec_5_2_2_non_fitting_message_of_2000_chars_is_kept_whole() -> None:
    history, _ = _walk_history()
    history[2] = U("é" * 2000)  # 1000 tokens, does not fit, but short enough to keep whole
    out, _ = summarize(history, preserve_user_messages=c.PreserveUserMessages(max_tokens=250))
    assert block_lines(out) == [CLEARED_NOTE, *quoted("é" * 2000, "b" * 400, "c" * 400)]
    history[2] = U("é" * 2001)
    out, _ = summarize(history, preserve_user_messages=c.PreserveUserMessages(max_tokens=250))
    lines = block_lines(out)
    assert lines[1] == "    - " + "é" * 1000 + "…1 characters truncated…" + "é" * 1000


def test_spec_5_2_2_budget_used_up_keeps_nothing_more() -> None:
    history, _ = _walk_history()
    out, _ = summarize(history, preserve_user_messages=c.PreserveUserMessages(max_tokens=200))
    assert block_lines(out) == [CLEARED_NOTE, *quoted("b" * 400, "c" * 400)]


@pytest.mark.parametrize("max_tokens", [None, 1, 10, 30_000])
def test_spec_5_2_2_exactly_one_candidate_is_kept_whole(max_tokens: int | None) -> None:
    huge = "z" * 10_000 + "END"
    history = [S("sys"), U(huge), A(), c.Message("tool", "t" * 9000, tool_call_id="1")]
    pum = c.PreserveUserMessages(max_tokens=max_tokens)
    out, _ = summarize(history, preserve_user_messages=pum)
    assert block_lines(out) == quoted(huge)
    out2 = direct(history, A(REPLY), preserve_user_messages=pum)
    assert block_lines(out2) == quoted(huge)


def test_spec_5_2_2_max_tokens_zero_keeps_no_user_message() -> None:
    history = [U("one"), A(), U("two"), A()]
    out, _ = summarize(history, preserve_user_messages=c.PreserveUserMessages(max_tokens=0))
    lines = block_lines(out)
    assert not any(line.startswith("    - ") for line in lines)
    assert lines == [CLEARED_NOTE]


def test_spec_5_2_2_disabled_leaves_the_model_block_as_written() -> None:
    pum = c.PreserveUserMessages(enabled=False)
    out, _ = summarize([U("one"), A()], preserve_user_messages=pum)
    assert body(out) == REPLY


def test_spec_5_2_2_no_context_leaves_text_unchanged() -> None:
    out = direct([S("only a system prompt")], A(REPLY))
    assert body(out) == REPLY


@pytest.mark.parametrize("is_async", [False, True])
def test_spec_5_2_2_filter_selects_candidates(is_async: bool) -> None:
    seen: list[str] = []

    def keep(msg: c.Message) -> bool:
        seen.append(user_text(msg))
        return "keep" in user_text(msg)

    async def akeep(msg: c.Message) -> bool:
        return keep(msg)

    history = [U("keep 1"), A(), U("drop 2"), A(), U("keep 3")]
    pum = c.PreserveUserMessages(filter=akeep if is_async else keep)
    out, _ = summarize(history, preserve_user_messages=pum)
    assert block_lines(out) == quoted("keep 1", "keep 3")
    assert seen == ["keep 1", "drop 2", "keep 3"]


def test_spec_5_2_2_filter_error_is_wrapped() -> None:
    def bad(msg: c.Message) -> bool:
        raise ValueError("bad filter")

    pum = c.PreserveUserMessages(filter=bad)
    with pytest.raises(c.SummarizationError, match=r"^failed to filter user message: bad filter$"):
        summarize([U("one"), A()], preserve_user_messages=pum)
    with pytest.raises(c.SummarizationError, match=r"^failed to filter user message: bad filter$"):
        direct([U("one"), A()], A(REPLY), preserve_user_messages=pum)


def test_spec_5_2_2_internal_messages_are_never_quoted() -> None:
    history = [
        U("old summary text", **{CONTENT_TYPE_KEY: "summary"}),
        U("skills text", **{CONTENT_TYPE_KEY: "skills"}),
        U("real user"),
        A(),
    ]
    out, _ = summarize(history)
    assert block_lines(out) == quoted("real user")


def test_spec_5_2_2_injected_and_tool_messages_are_not_candidates() -> None:
    history = [
        U("skill body", injected=True),
        U("real user"),
        A("x", [c.ToolCall("1", "read", "{}")]),
        c.Message("tool", "tool output", tool_call_id="1"),
        U(""),  # no user text: not a candidate
    ]
    out, _ = summarize(history)
    assert block_lines(out) == quoted("real user")


def _budget_probe(budget: int) -> tuple[list[Any], list[str]]:
    """A history whose preserved block is exactly [B, C] only when the budget is ``budget``.

    C costs budget − 600 tokens and B 600 tokens (2,400 characters, so it would show a cut if
    the budget were smaller); the oldest message is dropped (it would be kept if the budget were
    larger).
    """
    b_text, c_text = "b" * 2400, "c" * ((budget - 600) * 4)
    history = [U("aaaa"), A(), U(b_text), A(), U(c_text), A()]
    return history, [CLEARED_NOTE, *quoted(b_text, c_text)]


@pytest.mark.parametrize(
    ("trigger", "budget"),
    [
        (c.TriggerCondition(context_tokens=6000), 2000),
        (c.TriggerCondition(context_tokens=6002), 2000),
        (c.TriggerCondition(context_tokens=6000, context_messages=3), 2000),
        (c.TriggerCondition(context_messages=3), 160_000 // 3),
        (None, 160_000 // 3),
        # issue 22: a third of the threshold a fraction resolves to (80 % of 7,500 = 6,000)
        (c.TriggerCondition(context_fraction=0.8, window_tokens=7500), 2000),
        (c.TriggerCondition(context_tokens=9000, context_fraction=0.8, window_tokens=7500), 2000),
    ],
)
def test_spec_5_2_2_config_default_budget_is_context_tokens_div_3(
    trigger: c.TriggerCondition | None, budget: int
) -> None:
    history, expected = _budget_probe(budget)
    out, _ = summarize(history, trigger=trigger)
    assert block_lines(out) == expected
    out, _ = summarize(history, trigger=trigger, preserve_user_messages=c.PreserveUserMessages())
    assert block_lines(out) == expected


@pytest.mark.parametrize("pum", [None, c.PreserveUserMessages()])
def test_spec_5_2_2_default_finalizer_budget_is_30000(pum: Any) -> None:
    history, expected = _budget_probe(30_000)
    out = direct(history, A(REPLY), preserve_user_messages=pum)
    assert block_lines(out) == expected
    out = run(c.default_finalizer()(history, A(REPLY)))
    assert block_lines(out) == expected


@pytest.mark.parametrize(
    ("max_tokens", "message"),
    [
        (-1, "preserve_user_messages.max_tokens must be non-negative"),
        (True, "preserve_user_messages.max_tokens must be an integer, got True"),
        (2.5, "preserve_user_messages.max_tokens must be an integer, got 2.5"),
    ],
)
def test_issue_22_default_finalizer_rejects_a_bad_budget_as_config_does(
    max_tokens: Any, message: str
) -> None:
    pum = c.PreserveUserMessages(max_tokens=max_tokens)
    with pytest.raises(c.ConfigError) as direct_error:
        c.default_finalizer(c.DefaultFinalizerConfig(preserve_user_messages=pum))
    with pytest.raises(c.ConfigError) as config_error:
        c.new(c.Config(model=c.ScriptedModel([]), preserve_user_messages=pum))
    assert str(direct_error.value) == str(config_error.value) == message
    c.default_finalizer(  # zero is a budget: keep no user message
        c.DefaultFinalizerConfig(preserve_user_messages=c.PreserveUserMessages(max_tokens=0))
    )


# ---------------------------------------------------------------------------------------------
# §5.2 steps 3–5: transcript note, preamble, continue instruction, result shape


def test_spec_5_2_3_transcript_note_only_when_path_set() -> None:
    reply = "<summary>plain</summary>"
    out, _ = summarize([U("x"), A()], reply, transcript_file_path="/tmp/full.jsonl")
    note = TRANSCRIPT_NOTE.format(path="/tmp/full.jsonl")
    assert body(out) == f"{reply}\n\n{note}"
    assert "/tmp/full.jsonl" in note
    out, _ = summarize([U("x"), A()], reply)
    assert body(out) == reply
    out = direct([U("x"), A()], A(reply), transcript_file_path="/var/t.jsonl")
    assert body(out) == f"{reply}\n\n{TRANSCRIPT_NOTE.format(path='/var/t.jsonl')}"
    assert body(direct([U("x"), A()], A(reply))) == reply


def test_spec_5_2_4_preamble_and_continue_instruction_surround_the_summary() -> None:
    reply = "<summary>plain</summary>"
    out, _ = summarize([U("x"), A()], reply)
    assert user_text(out[-1]) == f"{PREAMBLE}\n\n{reply}\n\n{CONTINUE_INSTRUCTION}"


def test_spec_5_2_5_result_is_leading_system_messages_then_new_summary_message() -> None:
    history = [
        S("sys 1"),
        S("sys 2"),
        U("question"),
        A(),
        S("a system message in the middle"),
        U("more"),
        A("x", [c.ToolCall("1", "t", "{}")]),
        c.Message("tool", "r", tool_call_id="1"),
    ]
    before = copy.deepcopy(history)
    out, _ = summarize(history)
    assert len(out) == 3
    assert out[:2] == [S("sys 1"), S("sys 2")]
    summary = out[2]
    assert isinstance(summary, c.Message)
    assert summary.role == "user"
    assert summary.extra == {CONTENT_TYPE_KEY: "summary"}
    assert all(summary is not m for m in history)
    assert out[0] is not history[0]
    assert history == before
    assert block_lines(out) == quoted("question", "more")


def test_spec_5_2_5_default_finalizer_direct_result_shape() -> None:
    history = [S("sys"), U("q"), A()]
    out = direct(history, A(REPLY))
    assert [m.role for m in out] == ["system", "user"]
    assert out[0] == S("sys")
    assert out[1].extra[CONTENT_TYPE_KEY] == "summary"


def test_spec_5_2_agentic_messages() -> None:
    tool_result = c.AgenticMessage(
        "user",
        [
            c.Block(
                "function_tool_result",
                call_id="1",
                name="read",
                content=[c.Block("user_input_text", "tool output text")],
            )
        ],
    )
    history = [
        c.AgenticMessage("system", [c.Block("user_input_text", "sys")]),
        c.AgenticMessage(
            "user", [c.Block("user_input_text", "line one"), c.Block("user_input_text", "two")]
        ),
        c.AgenticMessage(
            "assistant", [c.Block("function_tool_call", call_id="1", name="read", arguments="{}")]
        ),
        tool_result,
        c.AgenticMessage("user", [c.Block("user_input_text", "last request")]),
    ]
    out, model = summarize(history, transcript_file_path="/t")
    assert isinstance(model.calls[0][0], c.AgenticMessage)
    assert len(out) == 2
    assert out[0] == history[0]
    summary = out[1]
    assert isinstance(summary, c.AgenticMessage)
    assert summary.role == "user"
    assert [b.type for b in summary.blocks] == ["user_input_text"]
    assert summary.extra[CONTENT_TYPE_KEY] == "summary"
    text = body(out)
    assert text.endswith("\n\n" + TRANSCRIPT_NOTE.format(path="/t"))
    # The first message's two text blocks are joined with "\n" (SPEC §1).
    assert block_lines(out) == ["    - line one", "two", "    - last request"]
    with pytest.raises(c.SummarizationError, match="summary content is empty"):
        summarize(history, c.Step(message=c.AgenticMessage("assistant", [])))


# ---------------------------------------------------------------------------------------------
# §5.1 custom finalize


def test_spec_5_1_custom_finalize_output_is_used_verbatim() -> None:
    received: list[Any] = []
    sentinel = [c.Message("user", "custom only", extra={"k": 1}), c.Message("assistant", "z")]

    def finalize(original: list[Any], summary: Any) -> list[Any]:
        received.append((original, summary))
        return sentinel

    history = [S("sys"), U("question"), A()]
    out, _ = summarize(
        history,
        finalize=finalize,
        transcript_file_path="/never/used",
        preserve_user_messages=c.PreserveUserMessages(max_tokens=0),
    )
    assert out == sentinel
    ((original, summary),) = received
    assert original == history
    assert isinstance(summary, c.Message)
    assert summary.role == "assistant"
    assert summary.content == REPLY  # raw: no block replacement, no note, no preamble
    assert summary.extra == {}


def test_spec_5_1_custom_async_finalize_gets_raw_reply_even_when_empty() -> None:
    async def finalize(original: list[Any], summary: Any) -> list[Any]:
        return [c.Message("user", f"got {summary.content!r}")]

    out, _ = summarize([U("q"), A()], "", finalize=finalize)
    assert out == [c.Message("user", "got ''")]


# ---------------------------------------------------------------------------------------------
# §5.3 builder errors and handler order


def test_spec_5_3_build_without_handler_or_custom_fails() -> None:
    with pytest.raises(c.ConfigError, match=r"^at least one handler is required$"):
        c.new_finalizer().build()


def test_spec_5_3_build_collects_config_problems() -> None:
    with pytest.raises(c.ConfigError) as info:
        (
            c.new_finalizer()
            .preserve_skills(None)
            .preserve_skills(
                c.PreserveSkillsConfig(
                    max_skills=-1, max_tokens_per_skill=-2, skills_token_budget=-3
                )
            )
            .custom(lambda o, s: [s])
            .build()
        )
    assert str(info.value) == (
        "failed to build finalizer:\n"
        "PreserveSkills: PreserveSkillsConfig is required\n"
        "PreserveSkills: max_skills must be non-negative\n"
        "PreserveSkills: max_tokens_per_skill must be non-negative\n"
        "PreserveSkills: skills_token_budget must be non-negative"
    )


@pytest.mark.parametrize(
    ("cfg", "line"),
    [
        (None, "PreserveSkills: PreserveSkillsConfig is required"),
        (c.PreserveSkillsConfig(max_skills=-1), "PreserveSkills: max_skills must be non-negative"),
        (
            c.PreserveSkillsConfig(max_tokens_per_skill=-1),
            "PreserveSkills: max_tokens_per_skill must be non-negative",
        ),
        (
            c.PreserveSkillsConfig(skills_token_budget=-1),
            "PreserveSkills: skills_token_budget must be non-negative",
        ),
    ],
)
def test_spec_5_3_build_single_problem(cfg: Any, line: str) -> None:
    with pytest.raises(c.ConfigError) as info:
        c.new_finalizer().preserve_skills(cfg).build()
    assert str(info.value) == f"failed to build finalizer:\n{line}"


def test_spec_5_3_zero_values_are_valid() -> None:
    fin = (
        c.new_finalizer()
        .preserve_skills(
            c.PreserveSkillsConfig(max_skills=0, max_tokens_per_skill=0, skills_token_budget=0)
        )
        .build()
    )
    reply = A("summary")
    assert run(fin([U("q")], reply)) == [reply]


def skill_call(call_id: str, name: str, tool: str = "skill") -> c.Message:
    return A("", [c.ToolCall(call_id, tool, json.dumps({"skill": name}))])


def skill_result(call_id: str, content: str) -> c.Message:
    return c.Message("tool", content, tool_call_id=call_id, tool_name="skill")


def reminder(*sections: tuple[str, str]) -> str:
    inner = "\n\n---\n\n".join(f"### Skill: {n}\n\n{t}" for n, t in sections)
    return f"<system-reminder>\n{SKILLS_PREAMBLE}\n\n{inner}\n</system-reminder>"


def finalize_with(cfg: c.PreserveSkillsConfig, history: list[Any], text: str = "SUM") -> str:
    fin = c.new_finalizer().preserve_skills(cfg).build()
    out = run(fin(history, A(text)))
    assert len(out) == 1
    assert out[0].role == "assistant"
    return assistant_text(out[0])


def test_spec_5_3_handlers_run_in_order_then_last_custom_decides() -> None:
    history = [
        skill_call("1", "alpha", tool="load_a"),
        skill_result("1", "A body"),
        skill_call("2", "beta", tool="load_b"),
        skill_result("2", "B body"),
    ]
    calls: list[str] = []

    def first(original: list[Any], summary: Any) -> list[Any]:
        calls.append("first")
        return [c.Message("user", "first")]

    def last(original: list[Any], summary: Any) -> list[Any]:
        calls.append("last")
        return [c.Message("user", "last:" + assistant_text(summary)), *original[:1]]

    fin = (
        c.new_finalizer()
        .preserve_skills(c.PreserveSkillsConfig(skill_tool_name="load_a"))
        .custom(first)
        .preserve_skills(c.PreserveSkillsConfig(skill_tool_name="load_b"))
        .custom(last)
        .build()
    )
    out = run(fin(history, A("SUM")))
    assert calls == ["last"]
    expected_text = f"{reminder(('beta', 'B body'))}\n\n{reminder(('alpha', 'A body'))}\n\nSUM"
    assert out == [c.Message("user", "last:" + expected_text), history[0]]


def test_spec_5_3_without_custom_result_is_the_transformed_summary() -> None:
    history = [skill_call("1", "pdf"), skill_result("1", "PDF body")]
    fin = c.new_finalizer().preserve_skills(c.PreserveSkillsConfig()).build()
    out = run(fin(history, A("SUM")))
    assert out == [A(f"{reminder(('pdf', 'PDF body'))}\n\nSUM")]


def test_spec_5_3_custom_only_builder() -> None:
    fin = c.new_finalizer().custom(lambda original, summary: [summary, *original]).build()
    reply = A("SUM")
    assert run(fin([U("q")], reply)) == [reply, U("q")]


# ---------------------------------------------------------------------------------------------
# §5.3 PreserveSkills


def test_spec_5_3_skills_paired_by_id_newest_result_per_name_chronological() -> None:
    history = [
        U("go"),
        skill_call("c1", "pdf"),
        skill_result("c1", "PDF v1"),
        skill_call("c2", "xlsx"),
        skill_result("c2", "XLSX body"),
        A("", [c.ToolCall("c3", "skill", '{"skill": "pdf"}'), c.ToolCall("o", "read", "{}")]),
        c.Message("tool", "read output", tool_call_id="o"),
        skill_result("c3", "PDF v2"),
        skill_call("c4", "unanswered"),  # no result: not kept
        skill_result("zzz", "result without a call"),
    ]
    text = finalize_with(c.PreserveSkillsConfig(), history)
    assert text == f"{reminder(('xlsx', 'XLSX body'), ('pdf', 'PDF v2'))}\n\nSUM"


def test_skill_body_named_by_its_call_replaces_the_launch_notice() -> None:
    """Issue 17: Claude Code answers its skill tool with "Launching skill: NAME" and sends the
    skill itself as a separate message naming the call; that body is what must survive."""
    history = [
        U("go"),
        skill_call("c1", "pdf"),
        skill_result("c1", "Launching skill: pdf"),
        U("Base directory for this skill: /s/pdf\n\nPDF body", **{SKILL_BODY_KEY: "c1"}),
        skill_call("c2", "xlsx"),
        U("XLSX body, sent before the result", **{SKILL_BODY_KEY: "c2"}),
        skill_result("c2", "Launching skill: xlsx"),
        U("a body for a call that is not a skill", **{SKILL_BODY_KEY: "other"}),
    ]
    text = finalize_with(c.PreserveSkillsConfig(), history)
    expected = reminder(
        ("pdf", "Base directory for this skill: /s/pdf\n\nPDF body"),
        ("xlsx", "XLSX body, sent before the result"),
    )
    assert text == f"{expected}\n\nSUM"


def test_spec_5_3_newest_max_skills_only() -> None:
    history: list[Any] = []
    for i, name in enumerate(["s1", "s2", "s3", "s4"]):
        history += [skill_call(str(i), name), skill_result(str(i), f"body {name}")]
    text = finalize_with(c.PreserveSkillsConfig(max_skills=2), history)
    assert text == f"{reminder(('s3', 'body s3'), ('s4', 'body s4'))}\n\nSUM"


def test_spec_5_3_max_skills_zero_is_off() -> None:
    history = [skill_call("1", "pdf"), skill_result("1", "PDF body")]
    assert finalize_with(c.PreserveSkillsConfig(max_skills=0), history) == "SUM"


def test_spec_5_3_no_skill_leaves_summary_unchanged() -> None:
    history = [U("q"), A("", [c.ToolCall("1", "read", "not json at all")])]
    assert finalize_with(c.PreserveSkillsConfig(), history) == "SUM"


def test_spec_5_3_over_long_skill_is_cut_with_marker() -> None:
    name = "big"
    marker = SKILL_TRUNCATED_MARKER.format(name=name)
    limit = 100 * 4 - len(marker.encode("utf-8"))
    content = "é" * 1000  # 2,000 bytes → 500 tokens
    history = [skill_call("1", name), skill_result("1", content)]
    text = finalize_with(
        c.PreserveSkillsConfig(max_tokens_per_skill=100, skills_token_budget=100), history
    )
    kept = "é" * (limit // 2)  # longest whole-character prefix within the byte limit
    assert text == f"{reminder((name, kept + marker))}\n\nSUM"
    assert len((kept + marker).encode("utf-8")) <= 400


@pytest.mark.parametrize(("budget", "kept"), [(200, ["cut", "small"]), (199, ["small"])])
def test_spec_5_3_cut_skill_costs_max_tokens_per_skill(budget: int, kept: list[str]) -> None:
    # Choose a name so that the estimate of the cut text is below the limit: the rule still
    # charges exactly max_tokens_per_skill for it.
    name = next(
        n
        for n in ("cut", "cutx", "cutxx", "cutxxx")
        if (400 - len(SKILL_TRUNCATED_MARKER.format(name=n).encode("utf-8"))) % 2 == 1
    )
    marker = SKILL_TRUNCATED_MARKER.format(name=name)
    cut_content = "é" * ((400 - len(marker.encode("utf-8"))) // 2) + marker
    assert estimate_text(cut_content) == 99
    history = [
        skill_call("1", name),
        skill_result("1", "é" * 1000),
        skill_call("2", "small"),
        skill_result("2", "s" * 400),  # 100 tokens
    ]
    cfg = c.PreserveSkillsConfig(max_tokens_per_skill=100, skills_token_budget=budget)
    text = finalize_with(cfg, history)
    sections = {"cut": (name, cut_content), "small": ("small", "s" * 400)}
    assert text == f"{reminder(*(sections[k] for k in kept))}\n\nSUM"


def test_spec_5_3_budget_walk_stops_at_first_skill_over_budget() -> None:
    history = [
        skill_call("1", "tiny"),
        skill_result("1", "t" * 4),  # 1 token: would fit, but the walk has stopped
        skill_call("2", "large"),
        skill_result("2", "l" * 800),  # 200 tokens
        skill_call("3", "newest"),
        skill_result("3", "n" * 400),  # 100 tokens
    ]
    cfg = c.PreserveSkillsConfig(skills_token_budget=250)
    assert finalize_with(cfg, history) == f"{reminder(('newest', 'n' * 400))}\n\nSUM"
    cfg = c.PreserveSkillsConfig(skills_token_budget=301)
    expected = reminder(("tiny", "tttt"), ("large", "l" * 800), ("newest", "n" * 400))
    assert finalize_with(cfg, history) == f"{expected}\n\nSUM"
    cfg = c.PreserveSkillsConfig(skills_token_budget=99)
    assert finalize_with(cfg, history) == "SUM"


@pytest.mark.parametrize("arguments", ["not json", '{"other": 1}', "[]", '{"skill": 3}'])
def test_spec_5_3_unparseable_skill_arguments(arguments: str) -> None:
    history = [A("", [c.ToolCall("call-9", "skill", arguments)]), skill_result("call-9", "x")]
    with pytest.raises(
        c.SummarizationError, match=r"^failed to parse skill arguments from tool call ID: call-9"
    ):
        finalize_with(c.PreserveSkillsConfig(), history)


def test_spec_5_3_scans_the_default_summarizer_input_via_middleware() -> None:
    history = [S("sys"), U("go"), skill_call("1", "pdf"), skill_result("1", "PDF body")]
    fin = c.new_finalizer().preserve_skills(c.PreserveSkillsConfig()).build()
    out, _ = summarize(history, "SUM", finalize=fin)
    assert out == [A(f"{reminder(('pdf', 'PDF body'))}\n\nSUM")]


def test_spec_5_3_scans_the_input_built_by_gen_model_input() -> None:
    history = [U("go"), skill_call("1", "pdf"), skill_result("1", "PDF body")]

    def gen(system: Any, user: Any, original: list[Any]) -> list[Any]:
        return [system, U("go"), skill_call("7", "other"), skill_result("7", "OTHER"), user]

    fin = c.new_finalizer().preserve_skills(c.PreserveSkillsConfig()).build()
    out, _ = summarize(history, "SUM", finalize=fin, gen_model_input=gen)
    assert out == [A(f"{reminder(('other', 'OTHER'))}\n\nSUM")]


def test_spec_5_3_scans_the_successful_failover_input() -> None:
    history = [U("go"), skill_call("1", "original"), skill_result("1", "ORIGINAL")]
    failover_input = [U("go"), skill_call("2", "failover"), skill_result("2", "FAILOVER")]
    primary = c.ScriptedModel([ModelError("down", transient=True)], name="primary")
    model2 = c.ScriptedModel(["SUM"], name="second")
    contexts: list[Any] = []

    def pick(ctx: c.FailoverContext[Any]) -> tuple[Any, list[Any]]:
        contexts.append(ctx)
        return model2, failover_input

    fin = c.new_finalizer().preserve_skills(c.PreserveSkillsConfig()).build()
    cfg = c.Config(
        model=primary,
        finalize=fin,
        failover=c.FailoverConfig(max_retries=1, get_failover_model=pick),
    )
    out = run(c.new(cfg).summarize(c.AgentState(history)))
    primary.assert_complete()
    model2.assert_complete()
    assert len(contexts) == 1
    assert model2.calls == [failover_input]
    assert out == [A(f"{reminder(('failover', 'FAILOVER'))}\n\nSUM")]


def test_spec_5_3_agentic_skills() -> None:
    def call(call_id: str, name: str) -> c.AgenticMessage:
        return c.AgenticMessage(
            "assistant",
            [
                c.Block(
                    "function_tool_call",
                    call_id=call_id,
                    name="skill",
                    arguments=json.dumps({"skill": name}),
                ),
            ],
        )

    def result(call_id: str, text: str) -> c.AgenticMessage:
        return c.AgenticMessage(
            "user",
            [
                c.Block(
                    "function_tool_result",
                    call_id=call_id,
                    name="skill",
                    content=[c.Block("user_input_text", text)],
                )
            ],
        )

    history = [
        c.AgenticMessage("user", [c.Block("user_input_text", "go")]),
        call("1", "pdf"),
        result("1", "PDF body"),
    ]
    fin = c.new_finalizer().preserve_skills(c.PreserveSkillsConfig()).build()
    out, _ = summarize(history, "SUM", finalize=fin)
    assert len(out) == 1
    assert isinstance(out[0], c.AgenticMessage)
    assert assistant_text(out[0]) == f"{reminder(('pdf', 'PDF body'))}\n\nSUM"
