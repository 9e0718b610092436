"""A message of the other type in a format's own shape, for the writers.

A custom ``finalize`` may add messages the reader never saw, of either type: a chat
:class:`~compactor.schema.Message` in an Anthropic transcript, an
:class:`~compactor.schema.AgenticMessage` with tool calls in a Codex rollout, a ``role="tool"``
message where the format carries tool results in user turns. The writers turn each into what
their own reader reads back: nothing a message holds (text, parts, tool calls, tool results)
may be dropped on the way.
"""

from __future__ import annotations

from compactor.schema import AgenticMessage, Block, Message, Part, ToolCall

__all__ = ["as_agentic", "as_chat"]


def as_chat(msg: Message | AgenticMessage) -> list[Message]:
    """``msg`` as chat messages: itself, or an agentic message split into the text (with its
    tool calls) and one ``tool`` message per tool result it carries."""
    if isinstance(msg, Message):
        return [msg]
    head = Message(role=msg.role, extra=dict(msg.extra))
    results: list[Message] = []
    texts: list[Part] = []
    for block in msg.blocks:
        if block.type in ("user_input_text", "assistant_gen_text"):
            texts.append(Part("text", block.text or ""))
        elif block.type.endswith("_image"):
            texts.append(Part("image_url", url=block.url))
        elif block.type == "reasoning" and block.text:
            head.reasoning_content = (head.reasoning_content or "") + block.text
        elif block.type == "function_tool_call":
            call = ToolCall(block.call_id or "", block.name or "", block.arguments or "")
            head.tool_calls.append(call)
        elif block.type == "function_tool_result":
            results.append(
                Message(
                    role="tool",
                    content="\n".join(b.text or "" for b in block.content if b.text is not None),
                    tool_call_id=block.call_id,
                    tool_name=block.name,
                )
            )
    head.content = "\n".join(p.text or "" for p in texts if p.type == "text")
    if any(p.type != "text" for p in texts) or len(texts) > 1:
        head.parts = texts
    if head.role == "tool" or (results and not texts and not head.tool_calls):
        return results  # a message of tool results only
    return [head, *results]


def as_agentic(msg: Message | AgenticMessage) -> AgenticMessage:
    """``msg`` as an agentic message whose tool results travel in a user turn (the Anthropic
    shape: a ``role="tool"`` message becomes ``user``)."""
    if isinstance(msg, AgenticMessage):
        if msg.role != "tool":
            return msg
        return AgenticMessage(role="user", blocks=msg.blocks, usage=msg.usage, extra=msg.extra)
    if msg.role == "tool":
        result = Block(
            "function_tool_result",
            call_id=msg.tool_call_id or "",
            name=msg.tool_name,
            content=[Block("user_input_text", _chat_text(msg))],
        )
        return AgenticMessage(role="user", blocks=[result], extra=dict(msg.extra))
    text_type = "assistant_gen_text" if msg.role == "assistant" else "user_input_text"
    blocks: list[Block] = []
    if msg.reasoning_content:
        blocks.append(Block("reasoning", msg.reasoning_content))
    if msg.parts:
        for part in msg.parts:
            if part.type == "text":
                blocks.append(Block(text_type, part.text or ""))
            elif part.type == "image_url":
                blocks.append(Block("user_input_image", url=part.url))
    elif msg.content or not msg.tool_calls:
        blocks.append(Block(text_type, msg.content))
    blocks += [
        Block("function_tool_call", call_id=c.id, name=c.name, arguments=c.arguments)
        for c in msg.tool_calls
    ]
    return AgenticMessage(role=msg.role, blocks=blocks, usage=msg.usage, extra=dict(msg.extra))


def _chat_text(msg: Message) -> str:
    texts = [p.text or "" for p in msg.parts if p.type == "text"]
    return "\n".join(texts) if texts else msg.content
