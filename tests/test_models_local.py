"""The embedded local summarizer: nine sections, user messages, determinism and size bounds."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from compactor.counting.tokens import estimate_message, estimate_text
from compactor.models.local import LocalSummarizer, summarize_transcript
from compactor.schema import (
    AgenticMessage,
    Block,
    Message,
    ToolCall,
    make_system,
    make_user,
    with_content_type,
)

from .conftest import shared_transcript_files

pytestmark = pytest.mark.anyio

TRANSCRIPTS = [p for p in shared_transcript_files() if p.parent.name == "openai-chat"]
SECTIONS = [
    "1. Primary Request and Intent:",
    "2. Key Technical Concepts:",
    "3. Files and Code Sections:",
    "4. Errors and fixes:",
    "5. Problem Solving:",
    "6. All user messages:",
    "7. Pending Tasks:",
    "8. Current Work:",
    "9. Optional Next Step:",
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def load_chat(path: Path) -> list[Message]:
    """A minimal openai-chat JSONL reader (the formats package is tested on its own)."""
    out: list[Message] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        d = json.loads(line)
        calls = [
            ToolCall(c.get("id", ""), c["function"]["name"], c["function"].get("arguments") or "")
            for c in d.get("tool_calls") or []
        ]
        call_id = d.get("tool_call_id") or next(iter(d.get("tool_call_ids") or []), None)
        content = d.get("content")
        out.append(
            Message(
                role=d["role"],
                content=content if isinstance(content, str) else json.dumps(content or ""),
                tool_calls=calls,
                tool_call_id=call_id,
                tool_name=d.get("name") if d["role"] == "tool" else None,
            )
        )
    return out


def model_input(kind: type[Any], context: list[Any]) -> list[Any]:
    """The SPEC §4 summarizer input around ``context``."""
    return [
        make_system(kind, "Your only job is to summarize the conversation."),
        *context,
        make_user(kind, "Write the <analysis> and the nine-section <summary> now."),
    ]


def synthetic(turns: int = 3, big: int = 0) -> list[Message]:
    msgs: list[Message] = []
    for i in range(turns):
        msgs.append(
            Message(
                role="user",
                content=f"Please fix the failing test in src/app/module_{i}.py. "
                f"You must never touch the public API. TODO: update docs {i}.",
            )
        )
        msgs.append(
            Message(
                role="assistant",
                content=f"Let's run the tests for `parse_config_{i}` first.",
                tool_calls=[ToolCall(f"c{i}", "bash", json.dumps({"command": f"pytest -k t{i}"}))],
            )
        )
        body = (
            'Traceback (most recent call last):\n  File "src/app/module_0.py", line 3\n'
            f"ValueError: bad value {i}\n" + ("x = compute_total(items)\n" * big)
        )
        msgs.append(Message(role="tool", content=body, tool_call_id=f"c{i}", tool_name="bash"))
        msgs.append(
            Message(
                role="assistant",
                content=f"The root cause is a missing default in ParseConfig{i}; I will fix it.",
                tool_calls=[
                    ToolCall(
                        f"e{i}",
                        "edit",
                        json.dumps({"path": f"src/app/module_{i}.py", "new_str": "x = 1\ny = 2"}),
                    )
                ],
            )
        )
        msgs.append(Message(role="tool", content="edited", tool_call_id=f"e{i}", tool_name="edit"))
    msgs.append(Message(role="user", content="Now also update the changelog, next."))
    msgs.append(
        Message(
            role="assistant",
            content="Updating CHANGELOG.md next.",
            tool_calls=[ToolCall("last", "bash", '{"command": "cat CHANGELOG.md"}')],
        )
    )
    return msgs


def check_structure(text: str, user_texts: list[str]) -> None:
    assert text.startswith("<analysis>\n")
    assert "</analysis>\n\n<summary>\n" in text
    assert text.endswith("\n</summary>")
    positions = [text.index(s) for s in SECTIONS]
    assert positions == sorted(positions)
    block = re.search(r"<all_user_messages>\n(.*?)</all_user_messages>", text, re.DOTALL)
    assert block is not None
    lines = block.group(1).splitlines()
    assert all(line.startswith("    - ") for line in lines)
    for user in user_texts:
        flat = " ".join(user.split())
        assert any(flat[:80] in line for line in lines), flat[:80]


async def test_synthetic_transcript() -> None:
    context = synthetic()
    out = await LocalSummarizer().generate(model_input(Message, context))
    assert isinstance(out, Message)
    assert out.role == "assistant"
    text = out.content
    users = [m.content for m in context if m.role == "user"]
    check_structure(text, users)
    assert "Summarize" not in text and "only job" not in text  # instructions are not summarized
    assert "src/app/module_0.py" in text
    assert "ValueError: bad value 0" in text
    assert "`bash: pytest -k t0` failed: ValueError: bad value 0" in text
    assert "never touch the public API" in text
    pending = section(text, 7)
    assert "Tool calls in flight when the session was saved (1;" in pending
    assert "still needed):\n     - bash: cat CHANGELOG.md" in pending
    assert 'still in progress: "Now also update the changelog, next."' in pending
    assert "x = 1" in text  # the snippet written by the edit
    assert "The root cause is a missing default in ParseConfig0" in text
    assert out.usage is not None
    assert out.usage.completion_tokens == estimate_text(text)
    assert out.usage.prompt_tokens == sum(
        estimate_message(m) for m in model_input(Message, context)
    )
    assert out.usage.total_tokens == out.usage.prompt_tokens + out.usage.completion_tokens


def section(text: str, number: int) -> str:
    """Section ``number`` of a summary (title included)."""
    text = text.split("<summary>", 1)[1]
    start = text.index(f"\n{number}. ") + 1
    end = text.find(f"\n{number + 1}. ", start) if number < 9 else text.index("</summary>")
    return text[start:end]


async def test_internal_messages_are_not_user_messages() -> None:
    prior = with_content_type(
        Message(
            role="user",
            content="<summary>\n6. All user messages:\n<all_user_messages>\n"
            "    - an earlier request\n</all_user_messages>\n</summary>",
        ),
        "summary",
    )
    out = await LocalSummarizer().generate(model_input(Message, [prior, *synthetic(1)]))
    block = out.content.split("<all_user_messages>")[1]
    assert "    - an earlier request\n" in block
    assert "<summary>" not in block.split("</all_user_messages>")[0]


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.stem)
async def test_real_transcripts(path: Path) -> None:
    messages = load_chat(path)
    context = messages[1:] if messages and messages[0].role == "system" else messages
    summarizer = LocalSummarizer()
    first = await summarizer.generate(model_input(Message, context))
    second = await LocalSummarizer().generate(model_input(Message, context))
    assert first.content.encode() == second.content.encode()
    users = [m.content for m in context if m.role == "user"]
    check_structure(first.content, [u[:200] for u in users])
    assert estimate_text(first.content) < 6_000


async def test_agentic_messages() -> None:
    context = [
        AgenticMessage("user", [Block("user_input_text", "Please refactor lib/core.py")]),
        AgenticMessage(
            "assistant",
            [
                Block("assistant_gen_text", "Reading it."),
                Block(
                    "function_tool_call",
                    call_id="a",
                    name="read",
                    arguments='{"path":"lib/core.py"}',
                ),
            ],
        ),
        AgenticMessage(
            "user",
            [
                Block(
                    "function_tool_result",
                    call_id="a",
                    name="read",
                    content=[Block("user_input_text", "Error: permission denied")],
                )
            ],
        ),
    ]
    out = await LocalSummarizer().generate(model_input(AgenticMessage, context))
    assert isinstance(out, AgenticMessage)
    assert out.role == "assistant"
    [block] = out.blocks
    assert block.type == "assistant_gen_text"
    text = block.text or ""
    check_structure(text, ["Please refactor lib/core.py"])
    assert "lib/core.py" in text
    assert "permission denied" in text
    assert "Error: permission denied" not in text.split("<all_user_messages>")[1].split("</")[0]


async def test_large_input_is_bounded_and_deterministic() -> None:
    context = synthetic(turns=80, big=40)
    messages = model_input(Message, context)
    input_tokens = sum(estimate_message(m) for m in messages)
    assert input_tokens > 20_000
    first = await LocalSummarizer().generate(messages)
    second = await LocalSummarizer().generate(model_input(Message, synthetic(turns=80, big=40)))
    assert first.content == second.content
    out_tokens = estimate_text(first.content)
    assert out_tokens <= 0.3 * input_tokens
    assert out_tokens < 6_000
    check_structure(first.content, [])
    assert "messages omitted" in first.content or first.content.count("    - ") >= 81


async def test_many_long_user_messages_stay_bounded() -> None:
    context: list[Message] = []
    for i in range(400):
        context.append(Message(role="user", content=f"request {i}: " + "word " * 200))
        context.append(Message(role="assistant", content=f"done {i}"))
    messages = model_input(Message, context)
    input_tokens = sum(estimate_message(m) for m in messages)
    assert input_tokens > 20_000
    out = await LocalSummarizer().generate(messages)
    assert estimate_text(out.content) <= 0.3 * input_tokens
    check_structure(out.content, ["request 0:", "request 399:"])


async def test_empty_context() -> None:
    out = await LocalSummarizer().generate(model_input(Message, []))
    check_structure(out.content, [])
    assert LocalSummarizer().name == "local"


def test_the_session_is_read_once_whatever_the_number_of_limits_tried(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fitting loop retries smaller limits; the transcript is read on the first try only."""
    from compactor.models import local, local_judges, local_session

    built: list[int] = []
    real = local_session.build_session  # what local_judges.modelled calls

    def counted(entries: Any) -> Any:
        built.append(len(entries))
        return real(entries)

    monkeypatch.setattr(local_judges, "build_session", counted)
    tried: list[float] = []
    scaled = local.Limits.scaled

    def spy(self: Any, factor: float) -> Any:
        tried.append(factor)
        return scaled(self, factor)

    monkeypatch.setattr(local.Limits, "scaled", spy)
    monkeypatch.setattr(local, "MAX_SUMMARY_TOKENS", 300)  # no limit fits: every one is tried
    text = summarize_transcript(synthetic(turns=20))
    assert text and len(tried) > 1 and len(built) == 1
