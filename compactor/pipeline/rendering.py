"""The summarizer input as a transcript: the conversation rendered as text in one user message.

Structured chat messages (assistant turns with ``content: null`` and ``tool_calls``, ``tool``
messages, ``developer`` roles) are refused by chat servers that implement chat without tools:
llama.cpp's server answers HTTP 500 "validation errors … Input should be a valid string", others
422 ``literal_error``. Every chat server accepts a system message and a user message of plain
text, so :func:`transcript_input` turns the summarizer input ``[system, *conversation,
instruction]`` into ``[system, user(transcript + instruction)]``, tool calls and results
included as text. Which form a model gets is its ``input_mode`` (``model.input`` in a config
file): ``messages``, ``transcript``, or ``auto`` (messages until the server's schema refuses
them, then the transcript for the rest of the run; see :mod:`compactor.pipeline.summarize`).

Rendering (one block per message, blank line between blocks)::

    USER:
    text
    ASSISTANT:
    text
    [tool call read_file (call_1)] {"path": "a.py"}
    TOOL RESULT read_file (call_1):
    output

Reasoning is left out (the structured form does not send it either); media become
placeholders (``[image]``); a literal ``</transcript>`` inside a text is escaped so a message
cannot close the transcript early.
"""

from __future__ import annotations

from collections.abc import Sequence

from compactor.schema import (
    AgenticMessage,
    M,
    Message,
    blocks_text,
    content_type,
    is_tool_result,
    make_user,
    message_kind,
    parts_text,
    user_text,
)

__all__ = ["INPUT_FORMS", "TRANSCRIPT_INTRO", "render_transcript", "transcript_input"]

INPUT_FORMS = ("messages", "transcript")
"""The two forms a summarizer input is sent in."""

TRANSCRIPT_INTRO = (
    "The conversation to summarize follows as a transcript inside the transcript tags: each "
    "message starts with its role in capitals, and tool calls and their results are included."
)

_CLOSE = "</transcript>"
_CLOSE_ESCAPED = "<\\/transcript>"


def _clean(text: str) -> str:
    return text.replace(_CLOSE, _CLOSE_ESCAPED)


def _call_line(name: str | None, call_id: str | None, arguments: str | None) -> str:
    ident = f" ({call_id})" if call_id else ""
    args = f" {arguments}" if arguments else ""
    return f"[tool call {name or 'tool'}{ident}]{args}"


def _result_head(name: str | None, call_id: str | None, failed: bool = False) -> str:
    ident = ", ".join(x for x in (call_id, "failed" if failed else None) if x)
    return f"TOOL RESULT {name or 'tool'}{f' ({ident})' if ident else ''}:"


def _label(msg: Message | AgenticMessage) -> str:
    marker = content_type(msg)
    if marker == "summary":
        return "EARLIER SUMMARY:"
    if marker == "skills":
        return "SKILLS:"
    return f"{msg.role.upper()}:"


def _render_message(msg: Message) -> str:
    text = parts_text(msg)
    if msg.role == "tool":
        head = _result_head(msg.tool_name or msg.name, msg.tool_call_id)
        return f"{head}\n{text}" if text else head
    lines = [_label(msg)]
    if text:
        lines.append(text)
    lines.extend(_call_line(c.name, c.id, c.arguments) for c in msg.tool_calls)
    return "\n".join(lines)


def _render_agentic(msg: AgenticMessage) -> str:
    sections: list[str] = []
    pending: list[str] = []  # the current role's lines

    def flush() -> None:
        if pending:
            sections.append("\n".join([_label(msg), *pending]))
            pending.clear()

    for block in msg.blocks:
        if block.type == "function_tool_result":
            flush()
            text = blocks_text(block.content)
            head = _result_head(block.name, block.call_id, bool(block.is_error))
            sections.append(f"{head}\n{text}" if text else head)
        elif block.type == "function_tool_call":
            pending.append(_call_line(block.name, block.call_id, block.arguments))
        elif block.type == "reasoning":
            continue
        else:
            text = blocks_text([block])
            if text:
                pending.append(text)
    flush()
    if not sections:
        sections.append(_label(msg))
    return "\n\n".join(sections)


def render_transcript(messages: Sequence[Message | AgenticMessage]) -> str:
    """``messages`` as one text: a block per message (role, text, tool calls), tool results
    with their tool's name and call id, blocks separated by a blank line."""
    blocks: list[str] = []
    for msg in messages:
        if isinstance(msg, AgenticMessage):
            blocks.append(_render_agentic(msg))
        else:
            blocks.append(_render_message(msg))
    return _clean("\n\n".join(blocks))


def transcript_input(model_input: list[M]) -> list[M]:
    """``[*leading system messages, user(intro + transcript + instruction)]`` for a summarizer
    input ``[system…, *conversation, instruction]``.

    The last message is taken as the instruction when it is a plain user message (not a tool
    result, not a summary); otherwise everything after the system messages is rendered and the
    transcript ends the user message. An input with no conversation (only system messages and
    the instruction) is returned as it is.
    """
    i = 0
    while i < len(model_input) and model_input[i].role == "system" and i < len(model_input) - 1:
        i += 1
    systems: list[M] = model_input[:i]
    rest: list[M] = model_input[i:]
    instruction = ""
    last = rest[-1] if rest else None
    if (
        last is not None
        and last.role == "user"
        and content_type(last) is None
        and not is_tool_result(last)
    ):
        instruction = user_text(last)
        rest = rest[:-1]
    if not rest:
        return list(model_input)
    body = f"{TRANSCRIPT_INTRO}\n\n<transcript>\n{render_transcript(rest)}\n{_CLOSE}"
    if instruction:
        body += f"\n\n{instruction}"
    kind = message_kind(model_input)
    return [*systems, make_user(kind, body)]
