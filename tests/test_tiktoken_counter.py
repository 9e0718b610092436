"""Exact counters: the optional toktok engine agrees with tiktoken, offline, with verified files."""

from __future__ import annotations

import importlib.util
import json
import socket
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from compactor.counting import tiktoken_counter as tc
from compactor.counting.tokens import TokenCounterInput, resolve_token_counter
from compactor.errors import ConfigError
from compactor.formats.registry import read_transcript
from compactor.schema import Message, ToolCall, ToolInfo

TRANSCRIPTS = Path(__file__).resolve().parents[1].parent / "shared" / "transcripts"

EXTRA_TEXTS = [
    "",
    "hello world",
    "hello <|endoftext|> world",
    "<|fim_prefix|><|fim_middle|><|fim_suffix|><|endofprompt|>",
    "e\u0301 caf\u00e9 \U0001f9e0 日本語のテキスト 한국어 العربية",
    " " * 257 + "\n\n\r\n\t x",
    "a" * 20_000,
    "def f(x):\n    return x ** 2  # comment\n" * 50,
]


def _jsonl_files() -> list[Path]:
    if not TRANSCRIPTS.is_dir():
        return []
    return sorted(TRANSCRIPTS.rglob("*.jsonl"))


def _strings(obj: Any) -> Iterator[str]:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for value in obj.values():
            yield from _strings(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from _strings(value)


def _file_texts(path: Path) -> list[str]:
    texts: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            texts.extend(_strings(json.loads(line)))
    return texts


def _fast_or_skip(name: str) -> tc.Engine:
    pytest.importorskip("toktok")
    engine = tc.load_fast_engine(name)
    assert engine is not None
    return engine


def _reference_total(name: str, inp: TokenCounterInput) -> int:
    """The chat-format count computed with tiktoken directly."""
    encoding = tc.load_encoding(name)
    total = tc.REPLY_PRIMING if inp.messages else 0
    total += sum(tc.count_message(encoding, m) for m in inp.messages)
    for tool in inp.tools:
        payload = {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        }
        total += len(encoding.encode_ordinary(json.dumps(payload)))
    return total


@pytest.fixture
def transcript_files() -> list[Path]:
    files = _jsonl_files()
    if not files:
        pytest.skip("../shared/transcripts is not beside the checkout")
    return files


@pytest.mark.parametrize("name", tc.ENCODINGS)
def test_fast_engine_counts_equal_encode_ordinary(name: str, transcript_files: list[Path]) -> None:
    fast = _fast_or_skip(name)
    encoding = tc.load_encoding(name)
    for path in transcript_files:
        texts = _file_texts(path)
        assert texts, path
        expected = [len(encoding.encode_ordinary(t)) for t in texts]
        got = [fast.count_texts([t]) for t in texts]
        mismatches = [
            (t[:80], g, e) for t, g, e in zip(texts, got, expected, strict=True) if g != e
        ]
        assert not mismatches, f"{path.name}: {mismatches[:3]}"
        assert fast.count_texts(texts) == sum(expected), path.name


@pytest.mark.parametrize("name", tc.ENCODINGS)
def test_fast_engine_special_tokens_are_ordinary_text(name: str) -> None:
    fast = _fast_or_skip(name)
    encoding = tc.load_encoding(name)
    for text in EXTRA_TEXTS:
        assert fast.count_texts([text]) == len(encoding.encode_ordinary(text)), text[:40]
    # "<|endoftext|>" as text is several tokens, not the single special token.
    assert fast.count_texts(["<|endoftext|>"]) > 1


@pytest.mark.parametrize("name", tc.ENCODINGS)
@pytest.mark.parametrize("engine", ["auto", "tiktoken", "toktok"])
def test_counter_totals_equal_tiktoken_reference(
    name: str, engine: tc.EngineChoice, transcript_files: list[Path]
) -> None:
    if engine == "toktok":
        pytest.importorskip("toktok")
    counter = tc.tiktoken_counter(name, engine)
    for path in transcript_files:
        transcript = read_transcript(str(path), path.read_bytes())
        inp = TokenCounterInput(transcript.messages, transcript.tools)
        assert counter(inp) == _reference_total(name, inp), path.name


@pytest.mark.parametrize("name", tc.ENCODINGS)
def test_counter_names_tools_and_specials(name: str) -> None:
    messages = [
        Message("system", "You are <|endoftext|> helpful."),
        Message("user", "run it", name="alice"),
        Message("assistant", "", tool_calls=[ToolCall("c1", "shell", '{"cmd": "ls -la"}')]),
        Message("tool", "total 0\n<|fim_prefix|>", tool_call_id="c1", name="shell"),
    ]
    tools = [ToolInfo("shell", "Run a command", {"type": "object", "properties": {}})]
    inp = TokenCounterInput(messages, tools)
    expected = _reference_total(name, inp)
    assert tc.tiktoken_counter(name, "tiktoken")(inp) == expected
    assert tc.tiktoken_counter(name)(inp) == expected
    assert resolve_token_counter(f"tiktoken:{name}")(inp) == expected
    assert tc.tiktoken_counter(name)(TokenCounterInput([])) == 0


def test_engine_name() -> None:
    expected = "toktok" if importlib.util.find_spec("toktok") else "tiktoken"
    for name in tc.ENCODINGS:
        assert tc.engine_name(name) == expected
    with pytest.raises(ConfigError):
        tc.engine_name("p50k_base")


def test_engine_falls_back_without_toktok(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, tc.FAST_ENGINE, None)  # import now raises ImportError
    tc.load_fast_engine.cache_clear()
    try:
        assert tc.engine_name("cl100k_base") == "tiktoken"
        with pytest.raises(ConfigError, match="not installed"):
            tc.tiktoken_counter("cl100k_base", "toktok")
        assert tc.tiktoken_counter("cl100k_base")(TokenCounterInput([Message("user", "hi")])) == 8
    finally:
        tc.load_fast_engine.cache_clear()


def test_wrong_sha256_raises_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    real = tc._offline_loader

    def wrong_hash(path: str, expected_hash: str | None = None) -> dict[bytes, int]:
        return real(path, "0" * 64)

    monkeypatch.setattr(tc, "_offline_loader", wrong_hash)
    tc.load_encoding.cache_clear()
    try:
        with pytest.raises(ConfigError, match="hash"):
            tc.load_encoding("cl100k_base")
        with pytest.raises(ConfigError, match="hash"):
            tc.tiktoken_counter("o200k_base", "tiktoken")
    finally:
        tc.load_encoding.cache_clear()


def test_fast_engine_wrong_vocab_hash_raises_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("toktok")
    monkeypatch.setattr(tc, "_expected_hash", lambda name: "0" * 64)
    tc.load_fast_engine.cache_clear()
    try:
        with pytest.raises(ConfigError, match="vocabulary hash"):
            tc.tiktoken_counter("cl100k_base")
    finally:
        tc.load_fast_engine.cache_clear()


def test_works_without_network(monkeypatch: pytest.MonkeyPatch) -> None:
    import requests
    import tiktoken.load

    def no_network(*args: object, **kwargs: object) -> Any:
        raise AssertionError("network access attempted")

    monkeypatch.setattr(tiktoken.load, "read_file_cached", no_network)
    monkeypatch.setattr(tiktoken.load, "read_file", no_network)
    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    monkeypatch.setattr(requests, "get", no_network)
    monkeypatch.setattr(requests.Session, "request", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    tc.load_encoding.cache_clear()
    tc.load_fast_engine.cache_clear()
    try:
        inp = TokenCounterInput([Message("user", "hello <|endoftext|> world")])
        for name in tc.ENCODINGS:
            engines: tuple[tc.EngineChoice, ...] = ("tiktoken", "auto")
            for engine in engines:
                assert tc.tiktoken_counter(name, engine)(inp) > 0
            assert tc.load_encoding(name).encode_ordinary("hello world")
    finally:
        tc.load_encoding.cache_clear()
        tc.load_fast_engine.cache_clear()


@pytest.mark.parametrize("name", tc.ENCODINGS)
def test_offline_specs_are_tiktokens_own(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pattern, special tokens and file hash load_encoding uses are what the installed
    tiktoken's own constructor declares (its download intercepted here, in the test only)."""
    from tiktoken_ext import openai_public

    hashes: list[str | None] = []

    def no_download(path: str, expected_hash: str | None = None) -> dict[bytes, int]:
        hashes.append(expected_hash)
        return {}

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", no_download)
    declared = getattr(openai_public, name)()
    spec = tc.SPECS[name]
    assert (declared["name"], declared["pat_str"]) == (name, spec.pat_str)
    assert declared["special_tokens"] == spec.special_tokens
    assert hashes == [spec.sha256]
    assert "unittest" not in tc.__dict__ and "mock" not in tc.__dict__
