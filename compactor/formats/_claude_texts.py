"""The texts of a Claude Code record's ``content``, read in one place (one owner for what the
readers of queued prompts, interruption notices, failed compactions and earlier jobs take).

``content`` is a string or a list of blocks. :func:`content_texts` returns the string, or the
blocks' ``text`` fields in order; ``text_blocks_only`` keeps ``type: text`` blocks only (a
record's prose, no tool result's text), ``tool_results`` also reads into ``tool_result`` blocks'
own content (a block with a ``text`` is read as that text). :func:`one_line` makes a text one
line of at most ``limit`` characters.
"""

from __future__ import annotations

from compactor._json import JsonValue

__all__ = ["content_texts", "one_line"]


def content_texts(
    content: JsonValue, *, text_blocks_only: bool = False, tool_results: bool = False
) -> list[str]:
    """The texts of ``content`` (module description): itself when a string, else its blocks'
    ``text`` fields (only ``type: text`` blocks when ``text_blocks_only``), and with
    ``tool_results`` the texts inside ``tool_result`` blocks."""
    if isinstance(content, str):
        return [content]
    found: list[str] = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        text = block.get("text")
        if isinstance(text, str) and (not text_blocks_only or block.get("type") == "text"):
            found.append(text)
        elif tool_results and block.get("type") == "tool_result":
            found.extend(
                content_texts(
                    block.get("content"), text_blocks_only=text_blocks_only, tool_results=True
                )
            )
    return found


def one_line(text: str, limit: int) -> str:
    """``text`` with its whitespace runs made one space, cut at ``limit`` characters (``…``)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
