"""Compact counts a Codex history at least as high as Codex does when it resumes it (issue 30:
counting after a reduction, "ours and the real clients'", sees the smaller history).

Blind check 13, vo-inflight (Codex 0.77 rollout, Japanese): after reduce, compact said 94,865
tokens; Codex 0.171 resumed the output and compacted at once under a limit of 119,573. Codex adds
its own estimate of every encrypted ``reasoning`` item before the last user turn to the last
``token_count`` (``context_manager/history.rs``: ``get_total_token_usage``,
``estimate_reasoning_length``), and compact counted those items as nothing: 159 items, ~30,600
tokens. The texts were not the cause (their o200k count is within 4 % of bytes / 4, which is
also Codex's estimate of text). The rollout here is built (:func:`rollout_with_reasoning`), and
:func:`codex_measure` is Codex's own formula, written out again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactor.formats.registry import read_transcript

from .codex_rollout import rec
from .test_codex_instructions_kept import _message, _run

ENCRYPTED = "gAAAAB" + "Zm9vYmFy" * 1_500  # 12,006 base64 characters: ~2,088 tokens to Codex


def rollout_with_reasoning(turns: int = 4, calls: int = 4) -> bytes:
    """``turns`` user requests (Japanese); each runs ``calls`` shell calls, every call after an
    encrypted reasoning item, with outputs longer than a placeholder, a token count after each
    call (as the server reports it: no past reasoning), and an answer."""
    meta = {"id": "1a2b3c4d-0000-4000-8000-000000000002", "timestamp": "t", "cwd": "/work/app"}
    records: list[dict[str, Any]] = [rec("session_meta", meta)]
    total = 3_000
    for t in range(turns):
        records.append(_message("user", f"設定ファイル {t} を読んで、テストを実行してください。"))
        for c in range(calls):
            n = t * calls + c
            out = "".join(f"{n}: 設定 {i} 行目 value={i * 7}\n" for i in range(60))
            call = {"type": "function_call", "name": "shell", "call_id": f"call_{n}"}
            call["arguments"] = json.dumps({"command": ["cat", f"conf_{n}.toml"]})
            reasoning = {"type": "reasoning", "summary": [], "encrypted_content": ENCRYPTED}
            total += len(out.encode()) // 4 + 40
            usage = {"input_tokens": total, "output_tokens": 20, "total_tokens": total + 20}
            records += [
                rec("response_item", reasoning),
                rec("response_item", call),
                rec(
                    "response_item",
                    {"type": "function_call_output", "call_id": f"call_{n}", "output": out},
                ),
                rec("event_msg", {"type": "token_count", "info": {"last_token_usage": usage}}),
            ]
        records.append(_message("assistant", f"設定 {t} を確認しました。テストは成功です。"))
    return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in records)


def codex_measure(raw: bytes) -> int:
    """What Codex compares with its auto-compact limit right after resuming ``raw``: the last
    ``token_count``, plus its estimate of the encrypted reasoning before the last user turn
    (``server_reasoning_included`` is false until a response says otherwise)."""
    records = [json.loads(line) for line in raw.split(b"\n") if line.strip()]
    history: list[dict[str, Any]] = []
    last = 0
    for line in records:
        payload = line.get("payload") or {}
        if line["type"] == "compacted":
            history = list(payload["replacement_history"])
        elif line["type"] == "response_item":
            history.append(payload)
        elif payload.get("type") == "token_count":
            last = payload["info"]["last_token_usage"]["total_tokens"]
    users = [
        i
        for i, item in enumerate(history)
        if item.get("type") == "message"
        and item.get("role") == "user"
        and not item["content"][0]["text"].startswith("<")
    ]
    reasoning = sum(
        (max(0, len(item["encrypted_content"]) * 3 // 4 - 650) + 3) // 4
        for item in history[: users[-1] if users else 0]
        if item.get("type") == "reasoning" and item.get("encrypted_content")
    )
    return int(last) + reasoning


@pytest.fixture
def src(tmp_path: Path) -> Path:
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(rollout_with_reasoning())
    return path


@pytest.mark.parametrize("args", [("--strategy", "reduce", "--force"), ("--force",)])
def test_compacts_count_of_a_codex_output_is_codexs_own(
    tmp_path: Path, src: Path, args: tuple[str, ...]
) -> None:
    """After reduce (or a summary with a kept tail), the size compact reports and ``check``
    counts is what Codex counts when it resumes the output: a hybrid that ends under its trigger
    by compact's count ends under it by Codex's too."""
    raw = _run(tmp_path, src, *args, "--report", str(tmp_path / "report.json"))
    after = int(json.loads((tmp_path / "report.json").read_text("utf-8"))["tokens_after"])
    measured = codex_measure(raw)
    assert measured <= after, (measured, after)
    assert after - measured < 200  # not far above it either: the same items, the same estimate
    # and reading the output back counts the same (compact check)
    parsed = read_transcript(str(tmp_path / "out.jsonl"), raw)
    assert parsed.messages


def test_compacts_count_of_a_codex_input_is_codexs_own(tmp_path: Path, src: Path) -> None:
    """Before compaction too: the last token count plus the reasoning Codex adds (12 of the 16
    reasoning items are before the last user turn). A reduction's report shows that count as
    ``tokens_before_usage`` (its ``tokens_before`` is the text's estimate, counted as
    ``tokens_after`` is: blind check 19)."""
    raw = _run(
        tmp_path, src, "--strategy", "reduce", "--force", "--report", str(tmp_path / "r.json")
    )
    assert raw
    rep = json.loads((tmp_path / "r.json").read_text("utf-8"))
    before = int(rep["reduction"]["tokens_before_usage"])
    assert codex_measure(src.read_bytes()) <= before < codex_measure(src.read_bytes()) + 2_000
    assert rep["tokens_before"] == rep["reduction"]["tokens_before"]


def test_the_exact_counter_counts_the_reasoning_too(src: Path) -> None:
    """``token_counter: tiktoken:o200k_base`` adds the same estimate of the encrypted reasoning
    (its texts are counted exactly; the reasoning has no text to count)."""
    import dataclasses

    from compactor.counting.tiktoken_counter import tiktoken_counter
    from compactor.counting.tokens import OPAQUE_TOKENS_KEY, TokenCounterInput

    parsed = read_transcript(str(src), src.read_bytes())
    bare = [
        dataclasses.replace(m, extra={k: v for k, v in m.extra.items() if k != OPAQUE_TOKENS_KEY})
        for m in parsed.messages
    ]
    count = tiktoken_counter("o200k_base")
    each = (len(ENCRYPTED) * 3 // 4 - 650 + 3) // 4
    with_reasoning = count(TokenCounterInput(parsed.messages))
    assert with_reasoning - count(TokenCounterInput(bare)) == 16 * each
