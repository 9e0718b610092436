"""The reduction library (SPEC §10): Eino's options and defaults, offload, the caller's history
untouched, call/result pairs whole, events; stacked before summarization."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from compactor import reduction
from compactor.counting.config import Config
from compactor.errors import ConfigError
from compactor.events import AfterReduce, BeforeReduce
from compactor.models.scripted import ScriptedModel
from compactor.pipeline.middleware import new as new_middleware
from compactor.reduction import FileOffload, ReductionConfig
from compactor.schema import (
    AgenticMessage,
    AgentState,
    Block,
    Message,
    Part,
    ToolCall,
    Usage,
    content_type,
)

from .transcript_strategies import transcripts


def run(coro: Any) -> Any:
    return asyncio.run(coro)


PAD = " " + "p" * 400
"""Makes a result longer than its placeholder: a shorter one is kept as it is."""


def chat_rounds(n: int, size: int = 4_000, *, big: int | None = None) -> list[Message]:
    """user, then ``n`` tool rounds (assistant call + tool result), then a final reply."""
    msgs = [Message("system", "sys"), Message("user", "please fix the bug")]
    for i in range(n):
        msgs.append(
            Message(
                "assistant",
                f"step {i}",
                tool_calls=[ToolCall(f"call_{i}", "read_file", json.dumps({"path": f"f{i}"}))],
                reasoning_content=f"thinking {i}",
                usage=Usage(100 * i, 10, 100 * i + 10),
            )
        )
        body = f"result {i} " + "x" * (size if big is None or i != 0 else big)
        msgs.append(Message("tool", body, tool_call_id=f"call_{i}", tool_name="read_file"))
    msgs.append(Message("assistant", "all done"))
    return msgs


def test_defaults_are_einos() -> None:
    cfg = ReductionConfig()
    assert cfg.max_length_for_trunc == 50_000
    assert cfg.max_tokens_for_clear == 160_000
    assert cfg.clear_retention_suffix_limit == 1
    assert cfg.clear_at_least_tokens == 0
    assert cfg.trunc_exclude_tools == () and cfg.clear_exclude_tools == ()
    assert cfg.read_file_tool_name == "read_file"
    assert cfg.backend is None
    assert reduction.PROCESSED_KEY == "_reduction_mw_processed"
    assert reduction.CLEARED_TEXT == "[Old tool result content cleared]"


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("max_tokens_for_clear", 0),
        ("clear_retention_suffix_limit", -1),
        ("clear_at_least_tokens", -5),
    ],
)
def test_bad_option_is_a_config_error(key: str, value: int) -> None:
    with pytest.raises(ConfigError, match=f"reduction.{key} must be an integer"):
        reduction.new(dataclasses.replace(ReductionConfig(), **{key: value}))  # type: ignore[arg-type]


def test_under_the_threshold_nothing_changes_and_the_same_list_comes_back() -> None:
    msgs = chat_rounds(3)
    out = run(reduction.new().reduce(AgentState(messages=msgs)))
    assert not out.changed and out.messages == msgs
    assert out.clear_skipped is not None and "not over max_tokens_for_clear" in out.clear_skipped
    assert all(a is b for a, b in zip(out.messages, msgs, strict=True))


def test_clear_offloads_old_rounds_keeps_the_last_and_never_mutates(tmp_path: Path) -> None:
    msgs = chat_rounds(4)
    before = copy.deepcopy(msgs)
    root = tmp_path / "run.offload"
    red = reduction.new(ReductionConfig(backend=FileOffload(root), max_tokens_for_clear=1_000))
    out = run(red.reduce(AgentState(messages=msgs)))
    assert msgs == before  # the caller's history as it was
    assert out.cleared == ["call_0", "call_1", "call_2"]
    tools = [m for m in out.messages if m.role == "tool"]
    for i, msg in enumerate(tools[:3]):
        path = root / "clear" / f"call_{i}"
        assert msg.content == (
            f"<persisted-output>Tool result saved to: {path}\nUse read_file to view"
            "</persisted-output>"
        )
        assert path.read_text() == before[3 + 2 * i].content  # exactly the original result
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert tools[3].content == before[-2].content  # the retained round
    assert stat.S_IMODE((root / "clear").stat().st_mode) == 0o700
    # every call, every user and assistant text, every reasoning is where it was
    for old, new in zip(before, out.messages, strict=True):
        assert (old.role, old.tool_calls, old.reasoning_content) == (
            new.role,
            new.tool_calls,
            new.reasoning_content,
        )
        if old.role != "tool":
            assert old.content == new.content
        assert new.usage is None  # measured the pre-reduction history
    assert out.tokens_after < out.tokens_before


def test_truncation_keeps_previews_and_saves_the_whole_text(tmp_path: Path) -> None:
    msgs = chat_rounds(2, big=60_000)
    red = reduction.new(ReductionConfig(backend=FileOffload(tmp_path / "o")))
    out = run(red.reduce(AgentState(messages=msgs)))
    assert out.truncated == ["call_0"] and out.cleared == []
    text = out.messages[3].content
    path = tmp_path / "o" / "trunc" / "call_0"
    assert text.startswith("<persisted-output>\nOutput too large (60,009 characters). ")
    assert f"Full output saved to: {path}\n" in text
    assert "Preview (first 2,000 characters):\nresult 0 xxx" in text
    assert text.endswith("\n\nUse read_file to view\n</persisted-output>")
    assert path.read_text() == msgs[3].content


def test_excluded_tools_are_neither_truncated_nor_cleared(tmp_path: Path) -> None:
    msgs = chat_rounds(3, big=60_000)
    cfg = ReductionConfig(
        backend=FileOffload(tmp_path),
        trunc_exclude_tools=("read_file",),
        clear_exclude_tools=("read_file",),
        force=True,
    )
    out = run(reduction.new(cfg).reduce(AgentState(messages=msgs)))
    assert not out.changed and out.clear_skipped == (
        "no tool result outside the retained rounds to clear"
    )


def test_clear_at_least_tokens_leaves_everything_when_it_frees_too_little(tmp_path: Path) -> None:
    msgs = chat_rounds(3, size=400)
    cfg = ReductionConfig(backend=FileOffload(tmp_path), force=True, clear_at_least_tokens=10_000)
    out = run(reduction.new(cfg).reduce(AgentState(messages=msgs)))
    assert not out.changed
    assert out.clear_skipped is not None and "fewer than clear_at_least_tokens (10,000)" in (
        out.clear_skipped
    )
    assert not any(tmp_path.iterdir())  # nothing offloaded either


def test_retention_suffix_of_two_rounds(tmp_path: Path) -> None:
    cfg = ReductionConfig(backend=FileOffload(tmp_path), force=True, clear_retention_suffix_limit=2)
    out = run(reduction.new(cfg).reduce(AgentState(messages=chat_rounds(4))))
    assert out.cleared == ["call_0", "call_1"]
    assert out.retained_from == 2 + 2 * 2  # the assistant message of the third round


def test_without_offload_einos_text_plus_the_transcript_line() -> None:
    msgs = chat_rounds(3)

    def locate(index: int, call_id: str) -> tuple[str, int]:
        return ("/t/session.jsonl", index + 1)

    out = run(reduction.new(ReductionConfig(force=True, locate=locate)).reduce(AgentState(msgs)))
    assert out.messages[3].content == (
        "[Old tool result content cleared] (the full result is in the transcript "
        "/t/session.jsonl, line 4)"
    )
    bare = run(reduction.new(ReductionConfig(force=True)).reduce(AgentState(msgs)))
    assert bare.messages[3].content == "[Old tool result content cleared]"


def test_a_reduced_history_is_not_reduced_twice(tmp_path: Path) -> None:
    cfg = ReductionConfig(backend=FileOffload(tmp_path / "o"), force=True)
    first = run(reduction.new(cfg).reduce(AgentState(messages=chat_rounds(3, big=60_000))))
    # as re-read from a file: the in-memory marker is gone, the placeholder text is not
    for msg in first.messages:
        msg.extra.pop(reduction.PROCESSED_KEY, None)
    again = run(reduction.new(cfg).reduce(AgentState(messages=first.messages)))
    assert not again.changed and again.cleared == [] and again.truncated == []


def test_agentic_parallel_results_images_and_reasoning(tmp_path: Path) -> None:
    calls = [Block("function_tool_call", call_id=c, name="Read", arguments="{}") for c in "ab"]
    msgs = [
        AgenticMessage("user", [Block("user_input_text", "look at these")]),
        AgenticMessage("assistant", [Block("reasoning", "I should read"), *calls]),
        AgenticMessage(
            "user",
            [
                Block(
                    "function_tool_result",
                    call_id="a",
                    content=[Block("user_input_text", "A" * 900)],
                ),
                Block(
                    "function_tool_result",
                    call_id="b",
                    content=[
                        Block("user_input_text", "see"),
                        Block("user_input_image", url="x://i"),
                    ],
                ),
            ],
        ),
        AgenticMessage("assistant", [Block("function_tool_call", call_id="c", name="Bash")]),
        AgenticMessage(
            "user",
            [Block("function_tool_result", call_id="c", content=[Block("user_input_text", "ok")])],
        ),
    ]
    before = copy.deepcopy(msgs)
    cfg = ReductionConfig(backend=FileOffload(tmp_path), force=True, read_file_tool_name="Read")
    out = run(reduction.new(cfg).reduce(AgentState(messages=msgs)))
    assert msgs == before
    assert out.cleared == ["a", "b"]
    assert out.messages[1] == before[1]  # reasoning and calls with their message
    a, b = out.messages[2].blocks
    assert (tmp_path / "clear" / "a").read_text() == "A" * 900
    parts = json.loads((tmp_path / "clear" / "b").read_text())
    assert parts == [
        {"type": "user_input_text", "text": "see"},
        {"type": "user_input_image", "url": "x://i"},
    ]
    assert "Use Read to view" in (b.content[0].text or "")
    assert (a.call_id, b.call_id) == ("a", "b")
    assert out.messages[4] == before[4]


def test_orphan_result_and_reused_call_ids_never_collide(tmp_path: Path) -> None:
    msgs = [
        Message("user", "go"),
        Message("tool", "orphan output" + PAD, tool_call_id="ghost"),
        Message("assistant", tool_calls=[ToolCall("dup", "sh", "{}")]),
        Message("tool", "first output" + PAD, tool_call_id="dup"),
        Message("assistant", tool_calls=[ToolCall("dup", "sh", "{}")]),
        Message("tool", "second output" + PAD, tool_call_id="dup"),
        Message("assistant", tool_calls=[ToolCall("../../etc/passwd", "sh", "{}")]),
        Message("tool", "sneaky" + PAD, tool_call_id="../../etc/passwd"),
        Message("assistant", tool_calls=[ToolCall("last", "sh", "{}")]),
        Message("tool", "kept", tool_call_id="last"),
    ]
    root = tmp_path / "o"
    cfg = ReductionConfig(backend=FileOffload(root), force=True)
    out = run(reduction.new(cfg).reduce(AgentState(messages=msgs)))
    assert out.cleared == ["ghost", "dup", "dup", "../../etc/passwd"]
    paths = [Path(p) for p in out.offloaded]
    assert len(set(paths)) == 4
    assert [p.read_text() for p in paths] == [
        "orphan output" + PAD,
        "first output" + PAD,
        "second output" + PAD,
        "sneaky" + PAD,
    ]
    assert all(p.parent == root / "clear" for p in paths)
    assert paths[2].name.startswith("dup-")  # a short content hash added
    assert out.messages[-1].content == "kept"


def test_a_name_saved_again_is_compared_with_its_file(tmp_path: Path) -> None:
    """The backend remembers the paths it saved, not their bytes: the same result saved twice
    is one file; other bytes under the same call id get a hashed name; a file changed under
    the run is never named for bytes it no longer holds."""
    backend = FileOffload(tmp_path / "o")
    first = backend.save("clear", "dup", "same result")
    assert backend.save("clear", "dup", "same result") == first
    assert backend.written == [first]
    other = backend.save("clear", "dup", "another result")
    assert other != first and Path(other).name.startswith("dup-")
    Path(first).write_text("changed under the run")
    again = backend.save("clear", "dup", "same result")
    assert again not in (first, other) and Path(again).read_text() == "same result"
    assert Path(first).read_text() == "changed under the run"


def test_an_earlier_runs_file_is_never_overwritten(tmp_path: Path) -> None:
    root = tmp_path / "o"
    (root / "clear").mkdir(parents=True)
    (root / "clear" / "call_0").write_text("another transcript's result")
    cfg = ReductionConfig(backend=FileOffload(root), force=True)
    out = run(reduction.new(cfg).reduce(AgentState(messages=chat_rounds(2))))
    assert (root / "clear" / "call_0").read_text() == "another transcript's result"
    assert Path(out.offloaded[0]).name.startswith("call_0-")


def test_discard_removes_what_the_backend_wrote(tmp_path: Path) -> None:
    backend = FileOffload(tmp_path / "o")
    run(
        reduction.new(ReductionConfig(backend=backend, force=True)).reduce(
            AgentState(chat_rounds(3))
        )
    )
    assert len(backend.written) == 2
    backend.discard()
    assert not (tmp_path / "o").exists()


def test_events_before_and_after() -> None:
    seen: list[Any] = []
    cfg = ReductionConfig(force=True, on_event=seen.append)
    out = run(reduction.new(cfg).reduce(AgentState(messages=chat_rounds(3))))
    assert [type(e) for e in seen] == [BeforeReduce, AfterReduce]
    assert seen[0].to_dict() == {
        "type": "before_reduce",
        "messages": 9,
        "tool_results": 3,
        "tokens": out.tokens_before_usage,  # the trigger's count: from the usage
    }
    after = seen[1].to_dict()
    assert after["tokens_before_usage"] == out.tokens_before_usage is not None
    assert after["cleared"] == 2 and after["truncated"] == 0
    assert after["tokens_freed"] == out.tokens_before - out.tokens_after > 0


def test_before_model_returns_the_state_itself_when_nothing_to_do() -> None:
    state = AgentState(messages=chat_rounds(2))
    assert run(reduction.new().before_model(state)) is state


def test_stacked_before_summarization_keeps_the_retained_round_verbatim(tmp_path: Path) -> None:
    msgs = chat_rounds(4, size=8_000)
    model = ScriptedModel(["<summary>the work so far</summary>"])
    mw = new_middleware(Config(model=model, trigger=None))
    red = reduction.new(ReductionConfig(backend=FileOffload(tmp_path), force=True))
    out = run(reduction.reduce_then_summarize(AgentState(msgs), red, mw, summarize=True))
    assert out.summarize is not None
    assert any(content_type(m) == "summary" for m in out.messages)
    tail = out.messages[-3:]
    assert [m.role for m in tail] == ["assistant", "tool", "assistant"]
    assert tail[1].content == msgs[-2].content  # the retained round, whole


def test_stacked_summarizer_reads_the_original_results(tmp_path: Path) -> None:
    """The model is asked about the rounds it summarizes as they were (an error line, not
    "Tool result saved to: …"); the kept round stays as reduction left it."""
    msgs = chat_rounds(4, size=8_000)
    msgs[3] = Message("tool", "error: rustup not installed\n" + "x" * 8_000, tool_call_id="call_0")
    model = ScriptedModel(["<summary>the work so far</summary>"])
    mw = new_middleware(Config(model=model, trigger=None))
    red = reduction.new(ReductionConfig(backend=FileOffload(tmp_path), force=True))
    out = run(reduction.reduce_then_summarize(AgentState(msgs), red, mw, summarize=True))
    assert out.reduce.cleared == ["call_0", "call_1", "call_2"]
    sent = json.dumps([str(m) for m in model.calls[0]])
    assert "error: rustup not installed" in sent and "<persisted-output>" not in sent
    assert out.messages[-2].content == msgs[-2].content  # the retained round, whole


def test_stacked_does_not_summarize_when_reduction_was_enough(tmp_path: Path) -> None:
    msgs = chat_rounds(4, size=8_000)
    for msg in msgs:
        msg.usage = None  # counted by the estimate alone
    model = ScriptedModel([])
    from compactor.counting.config import TriggerCondition

    mw = new_middleware(Config(model=model, trigger=TriggerCondition(context_tokens=5_000)))
    red = reduction.new(ReductionConfig(backend=FileOffload(tmp_path), max_tokens_for_clear=5_000))
    out = run(reduction.reduce_then_summarize(AgentState(msgs), red, mw))
    assert out.summarize is None and out.reduce.cleared == ["call_0", "call_1", "call_2"]
    assert out.reduce.tokens_after < 5_000


def test_media_parts_in_a_chat_tool_result(tmp_path: Path) -> None:
    msgs = [
        Message("assistant", tool_calls=[ToolCall("s", "screenshot", "{}")]),
        Message(
            "tool", parts=[Part("image_url", url="data:image/png;base64,AAAA")], tool_call_id="s"
        ),
        Message("assistant", tool_calls=[ToolCall("t", "ls", "{}")]),
        Message("tool", "ok", tool_call_id="t"),
    ]
    out = run(
        reduction.new(ReductionConfig(backend=FileOffload(tmp_path), force=True)).reduce(
            AgentState(messages=msgs)
        )
    )
    assert out.cleared == ["s"] and out.messages[1].parts == []
    assert json.loads((tmp_path / "clear" / "s").read_text()) == [
        {"type": "image_url", "url": "data:image/png;base64,AAAA"}
    ]
    assert os.path.isabs(out.offloaded[0])


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(transcripts())
def test_property_reduce_any_transcript_changes_only_tool_results(case: tuple[str, bytes]) -> None:
    """Any valid transcript of any format, forced to clear everything: the same number of
    messages, every non-result field as it was (usage aside), every reduced result naming an
    offload file that holds exactly the original; the caller's history unchanged."""
    import tempfile

    from compactor.formats.registry import read_transcript
    from compactor.reduction.results import find_results, result_payload

    _, raw = case
    parsed = read_transcript("t.jsonl", raw)
    before: list[Any] = copy.deepcopy(list(parsed.messages))
    with tempfile.TemporaryDirectory() as tmp:
        cfg = ReductionConfig(backend=FileOffload(tmp), force=True, clear_retention_suffix_limit=0)
        history: list[Any] = list(parsed.messages)
        out = run(reduction.new(cfg).reduce(AgentState(messages=history)))
        assert parsed.messages == before
        assert len(out.messages) == len(before)
        refs = find_results(before)
        reduced = {(r.index, r.block) for r in refs}
        for i, (old, new) in enumerate(zip(before, out.messages, strict=True)):
            if not any(k[0] == i for k in reduced):
                assert dataclasses.replace(old, usage=None) == dataclasses.replace(new, usage=None)
        for ref in refs:
            text = result_payload(out.messages[ref.index], ref)
            if text.startswith("<persisted-output>Tool result saved to: "):
                path = Path(text.split("saved to: ", 1)[1].split("\n", 1)[0])
                data = path.read_bytes().decode("utf-8", "surrogatepass")
                assert data == result_payload(before[ref.index], ref)
        for i in {k[0] for k in reduced}:
            old, new = before[i], out.messages[i]
            assert old.role == new.role
            if isinstance(old, AgenticMessage) and isinstance(new, AgenticMessage):
                kept = [b for b in old.blocks if b.type != "function_tool_result"]
                assert kept == [b for b in new.blocks if b.type != "function_tool_result"]
