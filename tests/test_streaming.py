"""Streaming ``compact check`` (compactor.streaming) equals the full read + decide."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from compactor.cli.report import tool_pair_counts
from compactor.config import TriggerCondition
from compactor.errors import TranscriptError
from compactor.formats.registry import read_transcript
from compactor.streaming import stream_check
from compactor.tokens import default_token_counter
from compactor.trigger import decide

REPO = Path(__file__).resolve().parent.parent
SMALL = REPO / "sample_transcripts" / "small-chat.jsonl"
SHARED = REPO.parent / "shared" / "transcripts" / "openai-chat"

TRIGGERS = [
    None,
    TriggerCondition(context_tokens=500),
    TriggerCondition(context_messages=10),
    TriggerCondition(context_tokens=10**9, context_messages=10**9),
]


def _full(path: Path, trigger: TriggerCondition | None, fmt: str | None = None) -> tuple:
    parsed = read_transcript(str(path), path.read_bytes(), format=fmt)
    d = asyncio.run(
        decide(parsed.messages, parsed.tools, trigger, default_token_counter, always_count=True)
    )
    return (parsed.format, d, tool_pair_counts(parsed.messages))


def _streamed(path: Path, trigger: TriggerCondition | None, fmt: str | None = None) -> tuple:
    r = stream_check(str(path), trigger, fmt)
    assert r is not None
    return (r.format, r.decision, (r.tool_calls, r.tool_results))


def _files() -> list[Path]:
    files = sorted((REPO / "sample_transcripts").glob("*.jsonl"))
    if SHARED.is_dir():
        files += sorted(SHARED.rglob("*.jsonl"))
    return files


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_stream_equals_full_read(path: Path) -> None:
    fmt = read_transcript(str(path), path.read_bytes()).format
    if fmt not in ("openai", "eino"):
        assert stream_check(str(path), None) is None
        return
    for trigger in TRIGGERS:
        assert _streamed(path, trigger) == _full(path, trigger)


def _write_generated(path: Path, *, eino: bool, crlf: bool = False, bom: bool = False) -> None:
    recs: list[dict] = [{"role": "system", "content": "be brief ✓"}]
    for i in range(60):
        recs.append({"role": "user", "content": f"question {i} " * (i % 7 + 1)})
        a: dict = {
            "role": "assistant",
            "content": None if i % 3 == 0 else f"answer {i} — ok",
            "tool_calls": [
                {"id": f"c{i}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        }
        if eino and i % 5 == 0:
            a["response_meta"] = {"usage": {"total_tokens": 1000 + i * 10}}
        if not eino and i % 5 == 0:
            a["usage"] = {"total_tokens": 1000 + i * 10}
        recs.append(a)
        recs.append({"role": "tool", "tool_call_id": f"c{i}", "content": "x" * (i * 13)})
        if i % 11 == 0:
            recs.append(
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "see"},
                        {"type": "image_url", "image_url": {"url": "u"}},
                    ],
                }
            )
    nl = b"\r\n" if crlf else b"\n"
    body = nl.join(json.dumps(r, ensure_ascii=False).encode() for r in recs) + nl + nl
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + body)


@pytest.mark.parametrize("eino", [False, True])
@pytest.mark.parametrize("crlf", [False, True])
def test_stream_equals_full_read_generated(tmp_path: Path, eino: bool, crlf: bool) -> None:
    path = tmp_path / "g.jsonl"
    _write_generated(path, eino=eino, crlf=crlf, bom=crlf)
    fmt = "eino" if eino else None
    for trigger in TRIGGERS:
        assert _streamed(path, trigger, fmt) == _full(path, trigger, fmt)
    if eino:  # the usage baseline is really used
        assert _streamed(path, None, fmt)[1].tokens < 10_000


@pytest.mark.parametrize(
    "content",
    [
        b'{"role": "user", "content": "a"}\n{"role": 5}\n{"role": "user"}\n',
        b'{"role": "user", "content": "a"}\n{"role": 5}\nnot json\n',
        b'{"role": "user", "content": "a"}\n' * 60 + b"[1]\n",
        b'{"role": "user", "content": "a"}\n' * 60 + b'{"role": "user", "content": 3}\n',
        b'{"role": "user", "content": "a"}\n\xff\xfe\n',
        b"not json\n",
        # a record of another format: reported before field errors, after JSON errors
        b'{"role": "user", "content": "a"}\n' * 60 + b'{"type": "user", "uuid": "u"}\n',
        b'{"role": "user", "content": "a"}\n{"role": 5}\n{"type": "user", "uuid": "u"}\n',
        b'{"role": "user", "content": "a"}\n{"type": "user", "uuid": "u"}\n{"role": 5}\n',
        b'{"role": "user", "content": "a"}\n{"type": "user", "uuid": "u"}\nnot json\n',
        b'{"role": "user", "content": "a"}\n' * 60
        + b'{"type": "event_msg", "payload": {}}\n{"type": "user", "uuid": "u"}\n',
    ],
)
def test_stream_reports_the_same_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(TranscriptError) as full:
        _full(path, None)
    with pytest.raises(TranscriptError) as streamed:
        _streamed(path, None)
    assert str(streamed.value) == str(full.value)


def test_stream_forced_format_empty(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"\n \r\n")
    with pytest.raises(TranscriptError) as full:
        _full(path, None, "openai")
    with pytest.raises(TranscriptError) as streamed:
        _streamed(path, None, "openai")
    assert str(streamed.value) == str(full.value)


def test_stream_falls_back(tmp_path: Path) -> None:
    assert stream_check("-", None) is None
    assert stream_check(str(tmp_path / "missing.jsonl"), None) is None
    assert stream_check(str(tmp_path), None) is None
    assert (
        stream_check(str(REPO / "sample_transcripts" / "small-chat.jsonl"), None, "codex") is None
    )


def test_check_cli_stays_light() -> None:
    code = (
        "import sys\n"
        "from compactor.cli.app import main\n"
        f"sys.argv = ['compact', 'check', {str(SMALL)!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "bad = [m for m in ('openai', 'tiktoken', 'httpx') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
