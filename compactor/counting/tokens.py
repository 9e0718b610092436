"""Token counting (SPEC §3): the usage-aware default estimate and the counter registry.

The default counter is cheap: it takes the provider-reported ``usage.total_tokens`` of the newest
assistant message as a baseline and estimates only what came after it (UTF-8 bytes / 4, plus
2,000 per media part). Exact tiktoken counters live in :mod:`compactor.counting.tiktoken_counter`
and are imported only when chosen.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import cast

from compactor._json import JsonObject
from compactor._util import MaybeAwaitable
from compactor.errors import ConfigError
from compactor.schema import (
    CONTENT_TYPE_KEY,
    MEDIA_BLOCK_TYPES,
    MEDIA_PART_TYPES,
    AgenticMessage,
    Block,
    Message,
    ToolInfo,
)

__all__ = [
    "MEDIA_TOKENS",
    "OPAQUE_TOKENS_KEY",
    "TokenCounter",
    "TokenCounterInput",
    "baseline_index",
    "default_token_counter",
    "estimate_message",
    "estimate_text",
    "estimate_tools",
    "resolve_token_counter",
    "usage_measures_context",
    "utf8_len",
]

MEDIA_TOKENS = 2_000
"""Estimated tokens for one image, audio, video or file part."""

OPAQUE_TOKENS_KEY = "_compactor_opaque_tokens"
"""``extra`` key: tokens a message carries in no field the estimate reads, as its client counts
them (a reader sets it: Codex's encrypted reasoning items, which travel with the next message,
estimated as Codex does, :mod:`compactor.formats._codex_tokens`). :func:`estimate_message` adds
it, so a count without a usage baseline (after a reduction) still holds them."""


@dataclass(slots=True)
class TokenCounterInput:
    """What a token counter is given: the history and the agent's tools."""

    messages: Sequence[Message | AgenticMessage]
    tools: Sequence[ToolInfo] = field(default_factory=list)


TokenCounter = Callable[[TokenCounterInput], MaybeAwaitable[int]]
"""``(TokenCounterInput) -> int`` (or an awaitable of it)."""


def utf8_len(text: str) -> int:
    """UTF-8 length of ``text``; an ASCII string (most of a transcript) needs no encoding."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def estimate_text(text: str) -> int:
    """floor(UTF-8 bytes / 4) of one string."""
    return utf8_len(text) // 4


def _message_bytes_and_media(msg: Message | AgenticMessage) -> tuple[int, int]:
    """(UTF-8 bytes of the counted fields, number of media parts) of one message."""
    nbytes = 0
    media = 0
    if isinstance(msg, Message):
        parts = msg.parts
        if not parts:  # most messages: no part lists to walk
            nbytes = utf8_len(msg.content)
        else:
            texts = [p.text or "" for p in parts if p.type == "text"]
            if texts:
                nbytes += sum(utf8_len(t) for t in texts)
            else:
                nbytes += utf8_len(msg.content)
            media += sum(1 for p in parts if p.type in MEDIA_PART_TYPES)
        if msg.role == "assistant":
            reasoning_parts = [p.text or "" for p in parts if p.type == "reasoning"]
            if reasoning_parts:
                nbytes += sum(utf8_len(t) for t in reasoning_parts)
            elif msg.reasoning_content:
                nbytes += utf8_len(msg.reasoning_content)
            for call in msg.tool_calls:
                nbytes += utf8_len(call.name) + utf8_len(call.arguments)
        return nbytes, media
    for block in msg.blocks:
        b, m = _block_bytes_and_media(block)
        nbytes += b
        media += m
    return nbytes, media


def _block_bytes_and_media(block: Block) -> tuple[int, int]:
    btype = block.type
    if btype in MEDIA_BLOCK_TYPES:
        return 0, 1
    if btype in ("user_input_text", "assistant_gen_text", "reasoning"):
        return utf8_len(block.text or ""), 0
    if btype == "function_tool_call":
        return utf8_len(block.name or "") + utf8_len(block.arguments or ""), 0
    if btype == "function_tool_result":
        nbytes = 0
        media = 0
        for sub in block.content:
            if sub.type in MEDIA_BLOCK_TYPES:
                media += 1
            elif sub.text:
                nbytes += utf8_len(sub.text)
        return nbytes, media
    # Unknown block types: count their text if any, never fail.
    return utf8_len(block.text or ""), 0


def estimate_message(msg: Message | AgenticMessage) -> int:
    """floor(B / 4) + 2,000 per media part, B = UTF-8 bytes of the counted fields (SPEC §3)."""
    opaque = _opaque_tokens(msg.extra) if msg.extra else 0  # (most messages: no extra)
    if type(msg) is Message and not msg.parts and not msg.tool_calls and not msg.reasoning_content:
        text = msg.content  # most messages: their content is all that counts (counted often)
        return (len(text) if text.isascii() else len(text.encode("utf-8"))) // 4 + opaque
    nbytes, media = _message_bytes_and_media(msg)
    return nbytes // 4 + MEDIA_TOKENS * media + opaque


def _opaque_tokens(extra: JsonObject) -> int:
    found = extra.get(OPAQUE_TOKENS_KEY)
    return found if isinstance(found, int) else 0


def estimate_tools(tools: Sequence[ToolInfo]) -> int:
    """floor(len(json.dumps({name, description, parameters})) / 4) per tool (characters)."""
    total = 0
    for tool in tools:
        payload = {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        }
        total += len(json.dumps(payload)) // 4
    return total


def usage_measures_context(prompt_tokens: int, completion_tokens: int, total_tokens: int) -> bool:
    """Whether a usage of these counts may stand for the size of the history it ends.

    It needs a total, and an input side unless it reports only a total: a usage whose input
    (input + cache read + cache creation) is 0 while it reports an output measured no context
    (Claude Code 2.0.10 writes ``{"input_tokens": 0, "output_tokens": 23}`` with no cache fields
    on every turn: blind check 73 N1 counted a 20 K-token history as 23 tokens, and the loop guard
    refused a forced run). Only-a-total usages (prompt and completion 0: a reader's compaction
    size, an old record) stay trusted."""
    return total_tokens > 0 and not (prompt_tokens <= 0 and completion_tokens > 0)


def baseline_index(messages: Sequence[Message | AgenticMessage]) -> int:
    """Index of the newest assistant message with ``usage.total_tokens > 0``, or -1.

    Beyond SPEC §3 (RELIABILITY.md, Decisions): a compaction's summary with usage counts as
    well. Only a reader puts usage there, when a file records the size of the history a
    compaction left and no assistant message follows the summary to carry it (Codex's
    ``token_count`` after ``compacted``: :func:`compactor.formats.codex`). A usage that measured
    no context (:func:`usage_measures_context`) is no baseline: an older one, or the text,
    counts instead."""
    for i in range(len(messages) - 1, -1, -1):
        msg = messages[i]
        usage = msg.usage
        if (
            usage is not None
            and usage_measures_context(
                usage.prompt_tokens, usage.completion_tokens, usage.total_tokens
            )
            and (msg.role == "assistant" or msg.extra.get(CONTENT_TYPE_KEY) == "summary")
        ):
            return i
    return -1


def default_token_counter(inp: TokenCounterInput) -> int:
    """Usage baseline + estimate of later messages + tool definitions (SPEC §3).

    >>> from compactor import Message, Usage
    >>> default_token_counter(TokenCounterInput([
    ...     Message("user", "earlier"), Message("assistant", usage=Usage(total_tokens=100)),
    ...     Message("user", "later context")]))
    103
    >>> default_token_counter(TokenCounterInput([Message("user", "x" * 400),
    ...     Message("assistant", usage=Usage(completion_tokens=23, total_tokens=23))]))
    100
    """
    messages = inp.messages
    start = baseline_index(messages)
    total = 0
    if start >= 0:
        usage = messages[start].usage
        assert usage is not None
        total = usage.total_tokens
    total += sum(map(estimate_message, islice(messages, start + 1, None)))  # no copy
    return total + estimate_tools(inp.tools)


def resolve_token_counter(spec: str | None) -> TokenCounter:
    """A counter from its config name.

    ``estimate`` (or None) → :func:`default_token_counter`; ``tiktoken:cl100k_base`` /
    ``tiktoken:o200k_base`` → exact offline counters; ``pkg.mod:func`` → that function.
    """
    if spec is None or spec == "estimate":
        return default_token_counter
    if spec.startswith("tiktoken:"):
        from .tiktoken_counter import tiktoken_counter  # lazy: tiktoken is costly to import

        return tiktoken_counter(spec.split(":", 1)[1])
    if ":" in spec:
        # a user's counter: what it returns is checked when it counts (checked_count)
        return cast(TokenCounter, load_callable(spec, what="token_counter"))
    raise ConfigError(
        f"unknown token counter {spec!r}; expected 'estimate', 'tiktoken:cl100k_base', "
        "'tiktoken:o200k_base' or 'pkg.mod:func'"
    )


def load_callable(ref: str, *, what: str) -> Callable[..., object]:
    """Import ``pkg.mod:func`` (dots allowed after the colon for attributes).

    This imports and so RUNS the module's code, with the rights of the process. A module that
    fails at import (any exception, or ``sys.exit()``) is a :class:`ConfigError`, never a crash
    or a silent exit.
    """
    module_name, _, attr_path = ref.partition(":")
    if not module_name or not attr_path:
        raise ConfigError(f"{what}: {ref!r} is not of the form 'pkg.mod:func'")
    try:
        obj: object = importlib.import_module(module_name)
    except ImportError as err:
        raise ConfigError(f"{what}: cannot import module {module_name!r}: {err}") from err
    except SystemExit as err:
        raise ConfigError(
            f"{what}: module {module_name!r} called sys.exit({err.code!r}) while being imported"
        ) from err
    except Exception as err:  # the module's own code failed at import: a config error
        raise ConfigError(
            f"{what}: importing module {module_name!r} failed: {type(err).__name__}: {err}"
        ) from err
    for part in attr_path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError as err:
            raise ConfigError(f"{what}: module {module_name!r} has no attribute {part!r}") from err
        except Exception as err:  # a module __getattr__ that fails
            raise ConfigError(
                f"{what}: reading {part!r} of module {module_name!r} failed: "
                f"{type(err).__name__}: {err}"
            ) from err
    if not callable(obj):
        raise ConfigError(f"{what}: {ref!r} is not callable")
    return obj
