"""Hypothesis strategies for valid transcripts in every format (``compactor.formats``).

Each ``<format>_records()`` strategy draws the records of one valid file in that format, shaped like
the real files of ``../shared/transcripts`` (FORMATS.md): tool calls with and without results,
unknown fields and record types, usage, injected text, an earlier compaction. :func:`transcripts`
draws ``(format name, file bytes)`` for any format, with LF or CRLF and with or without a final
newline. Every file holds at least one real user message, so a compaction has something to keep.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

__all__ = [
    "FORMAT_NAMES",
    "RECORDS",
    "anthropic_records",
    "claude_code_records",
    "codex_records",
    "eino_records",
    "encode",
    "openai_message",
    "openai_records",
    "transcripts",
]

FORMAT_NAMES = ("openai", "eino", "anthropic", "claude-code", "codex")

text = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)
words = st.text("abcdefghij klmnop", min_size=1, max_size=30)
call_ids = st.integers(0, 99).map(lambda i: f"call_{i}")
names = st.from_regex(r"[a-z_]{1,8}", fullmatch=True)
extra_values = st.none() | st.booleans() | st.integers(-5, 5) | text
extra_fields = st.dictionaries(st.sampled_from(["x_trace", "agent", "thought"]), extra_values)
usage = st.builds(
    lambda p, c: {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c},
    st.integers(0, 5000),
    st.integers(0, 500),
)


def encode(records: list[dict[str, Any]], newline: bytes = b"\n", final: bool = True) -> bytes:
    """JSON lines as tools write them (non-ASCII kept)."""
    raw = newline.join(json.dumps(r, ensure_ascii=False).encode() for r in records)
    return raw + newline if final else raw


# -- openai chat completions -------------------------------------------------------------------

tool_call = st.builds(
    lambda i, name, args: {
        "id": i,
        "type": "function",
        "function": {"name": name, "arguments": args},
    },
    call_ids,
    names,
    st.just("{}") | st.builds(lambda v: json.dumps({"v": v}), text),
)
unknown_part = st.one_of(
    st.builds(lambda t: {"type": "input_text", "text": t}, text),
    st.builds(lambda t: {"type": "refusal", "refusal": t}, text),
    st.just({"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}),
)
"""A part the readers do not model (issue 27.3): kept, text and all."""
openai_message = st.one_of(
    st.builds(lambda c: {"role": "user", "content": c}, text),
    st.builds(lambda c: {"role": "system", "content": c}, text),
    st.builds(lambda c: {"role": "assistant", "content": c}, text),
    st.builds(
        lambda c, calls: {"role": "assistant", "content": c, "tool_calls": calls},
        st.none() | text,
        st.lists(tool_call, min_size=1, max_size=2),
    ),
    st.builds(lambda i, c: {"role": "tool", "tool_call_id": i, "content": c}, call_ids, text),
    st.builds(
        lambda c, extra: {"role": "user", "content": c, **extra},
        st.lists(
            st.builds(lambda t: {"type": "text", "text": t}, text)
            | st.just({"type": "image_url", "image_url": {"url": "http://x/i.png"}})
            | unknown_part,
            min_size=1,
            max_size=2,
        ),
        extra_fields,
    ),
)
"""One chat-completions message (string or part-list content, tool calls, unknown keys)."""


@st.composite
def openai_records(draw: st.DrawFn) -> list[dict[str, Any]]:
    first = {"role": "user", "content": draw(words)}
    return [first, *draw(st.lists(openai_message, max_size=8))]


# -- eino ------------------------------------------------------------------------------------------


@st.composite
def eino_records(draw: st.DrawFn) -> list[dict[str, Any]]:
    records = draw(openai_records())
    out: list[dict[str, Any]] = []
    for rec in records:
        rec = {
            k: v for k, v in rec.items() if k in ("role", "content", "tool_calls", "tool_call_id")
        }
        if isinstance(rec.get("content"), list):
            rec["user_input_multi_content"] = rec.pop("content")
            rec["content"] = ""
        if rec["role"] == "assistant" and draw(st.booleans()):
            rec["response_meta"] = {"finish_reason": "stop", "usage": draw(usage)}
        if rec["role"] == "tool" and draw(st.booleans()):
            rec["tool_name"] = draw(names)
        if draw(st.booleans()):
            rec["extra"] = draw(extra_fields)
        out.append(rec)
    # at least one Eino-only key, so detection tells it from plain chat
    out.append(
        {"role": "assistant", "content": draw(text), "response_meta": {"usage": draw(usage)}}
    )
    return out


# -- anthropic messages ---------------------------------------------------------------------

text_block = st.builds(lambda t: {"type": "text", "text": t}, text)
tool_use = st.builds(
    lambda i, name, v: {"type": "tool_use", "id": i, "name": name, "input": {"v": v}},
    call_ids,
    names,
    text,
)
tool_result = st.builds(
    lambda i, c: {"type": "tool_result", "tool_use_id": i, "content": c},
    call_ids,
    text | st.lists(text_block, max_size=2),
)
thinking = st.builds(lambda t: {"type": "thinking", "thinking": t, "signature": "sig"}, text)
other_block = st.one_of(
    st.builds(
        lambda t: {"type": "document", "source": {"type": "text", "data": t}, "title": "d"}, text
    ),
    st.builds(
        lambda i, t: {"type": "server_tool_use", "id": i, "name": "web_search", "input": {"q": t}},
        call_ids,
        text,
    ),
    st.builds(lambda t: {"type": "mystery_block", "payload": {"note": t}}, text),
)
"""A block the readers do not model (issue 27.3): kept, text and all."""


@st.composite
def anthropic_records(draw: st.DrawFn) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if draw(st.booleans()):
        out.append({"role": "system", "content": draw(text)})
    out.append({"role": "user", "content": draw(words)})
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            blocks = draw(
                st.lists(thinking | text_block | tool_use | other_block, min_size=1, max_size=3)
            )
            rec: dict[str, Any] = {"role": "assistant", "content": blocks}
            if draw(st.booleans()):
                rec["usage"] = {"input_tokens": draw(st.integers(0, 9)), "output_tokens": 5}
            out.append(rec)
        else:
            content = draw(text | st.lists(text_block | tool_result, min_size=1, max_size=2))
            out.append({"role": "user", "content": content})
    # at least one Anthropic-only block, so detection tells it from plain chat
    out.append({"role": "assistant", "content": [draw(tool_use)]})
    return out


# -- claude code ----------------------------------------------------------------------------------


@st.composite
def claude_code_records(draw: st.DrawFn) -> list[dict[str, Any]]:
    session = "sess-1"
    envelope = {"isSidechain": False, "userType": "external", "cwd": "/w", "sessionId": session}
    out: list[dict[str, Any]] = [
        {"type": "permission-mode", "permissionMode": "default", "sessionId": session}
    ]
    parent: str | None = None
    n = 0

    def add(kind: str, message: dict[str, Any], **more: Any) -> None:
        nonlocal parent, n
        n += 1
        uid = f"u{n}"
        out.append(
            {
                "parentUuid": parent,
                **envelope,
                "type": kind,
                "message": message,
                "uuid": uid,
                **more,
            }
        )
        parent = uid

    if draw(st.booleans()):  # an earlier compaction: boundary + summary
        out.append(
            {
                "parentUuid": None,
                "logicalParentUuid": "old",
                **envelope,
                "type": "system",
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                "uuid": "b0",
                "compactMetadata": {"trigger": "manual", "preTokens": 100},
            }
        )
        parent = "b0"
        summary = "This session is being continued from a previous conversation. " + draw(text)
        add("user", {"role": "user", "content": summary}, isCompactSummary=True)
    add("user", {"role": "user", "content": draw(words)})
    for i in range(draw(st.integers(0, 6))):
        choice = draw(st.sampled_from(["assistant", "user", "tool_result", "meta", "other"]))
        if choice == "assistant":
            blocks = draw(st.lists(thinking | text_block | tool_use, min_size=1, max_size=2))
            for j, block in enumerate(blocks):  # one block per line, sharing message.id
                body = {
                    "model": "claude-x",
                    "id": f"msg_{i}",
                    "type": "message",
                    "role": "assistant",
                    "content": [block],
                    "usage": {"input_tokens": 3, "cache_read_input_tokens": 100 + j},
                }
                add("assistant", body, requestId=f"req_{i}")
        elif choice == "user":
            add("user", {"role": "user", "content": draw(text)})
        elif choice == "tool_result":
            add("user", {"role": "user", "content": [draw(tool_result)]}, toolUseResult="ok")
        elif choice == "meta":
            add("user", {"role": "user", "content": "<local-command-stdout>x"}, isMeta=True)
        else:  # records that are not messages pass through
            out.append(
                draw(
                    st.sampled_from(
                        [
                            {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
                            {"type": "ai-title", "aiTitle": "t", "sessionId": session},
                            {"type": "queue-operation", "sessionId": session, "operation": "x"},
                        ]
                    )
                )
            )
    return out


# -- codex ---------------------------------------------------------------------------------


@st.composite
def codex_records(draw: st.DrawFn) -> list[dict[str, Any]]:
    def rec(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": "2026-01-01T00:00:00.000Z", "type": kind, "payload": payload}

    def message(role: str, value: str) -> dict[str, Any]:
        part = "output_text" if role == "assistant" else "input_text"
        return rec(
            "response_item",
            {"type": "message", "role": role, "content": [{"type": part, "text": value}]},
        )

    out = [
        rec("session_meta", {"id": "s", "cwd": "/w", "originator": "codex_cli_rs"}),
        rec("turn_context", {"turn_id": "t1", "model": "gpt-x"}),
        message("developer", draw(text)),
        message("user", "<environment_context>cwd /w</environment_context>"),
        message("user", draw(words)),
    ]
    for _ in range(draw(st.integers(0, 6))):
        choice = draw(st.sampled_from(["assistant", "user", "call", "reasoning", "event"]))
        if choice in ("assistant", "user"):
            out.append(message(choice, draw(text)))
        elif choice == "call":
            call_id, name = draw(call_ids), draw(names)
            args = json.dumps({"cmd": draw(text)})
            out.append(
                rec(
                    "response_item",
                    {"type": "function_call", "name": name, "arguments": args, "call_id": call_id},
                )
            )
            if draw(st.booleans()):  # some calls are still dangling
                out.append(
                    rec(
                        "response_item",
                        {"type": "function_call_output", "call_id": call_id, "output": draw(text)},
                    )
                )
        elif choice == "reasoning":
            item = {"type": "reasoning", "summary": [], "encrypted_content": "gAAAA"}
            out.append(rec("response_item", item))
        else:
            last = {"input_tokens": draw(st.integers(0, 9000)), "output_tokens": 10}
            last["total_tokens"] = last["input_tokens"] + 10
            out.append(
                rec("event_msg", {"type": "token_count", "info": {"last_token_usage": last}})
            )
    return out


RECORDS = {
    "openai": openai_records(),
    "eino": eino_records(),
    "anthropic": anthropic_records(),
    "claude-code": claude_code_records(),
    "codex": codex_records(),
}


@st.composite
def transcripts(draw: st.DrawFn, formats: tuple[str, ...] = FORMAT_NAMES) -> tuple[str, bytes]:
    """``(format name, the bytes of a valid file in it)``."""
    name = draw(st.sampled_from(formats))
    records = draw(RECORDS[name])
    return name, encode(records, draw(st.sampled_from([b"\n", b"\r\n"])), draw(st.booleans()))
