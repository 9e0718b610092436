"""A reduction's report counts the history before and after it the same way (blind check 19,
triage-cc: ``tokens_before 23635, tokens_after 38402, tokens_freed -14767``: before was the
provider's usage of the last turn, which Claude Code 2.1 keeps far below the text by clearing
old results server-side, and after an estimate of the text). Built Claude Code session: usage
of 100 tokens on each turn, about 24,000 tokens of text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.formats.registry import read_transcript

from .test_reduction_cli import compact, report

SESSION = "5f0c7d2e-9a41-4c55-8f0e-3b1d6a2c7e90"


def _rec(n: int, rtype: str, content: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "parentUuid": None if n == 1 else f"00000000-0000-4000-8000-{n - 1:012d}",
        "isSidechain": False, "userType": "external", "cwd": "/repo", "sessionId": SESSION,
        "version": "2.1.80", "type": rtype, "uuid": f"00000000-0000-4000-8000-{n:012d}",
        "timestamp": f"2026-03-19T06:{n // 60:02d}:{n % 60:02d}.000Z",
        "message": {"role": rtype, "content": content},
    }  # fmt: skip
    if rtype == "assistant":
        rec["message"] |= {
            "id": f"msg_{n}", "type": "message", "model": "claude-opus-4-6",
            "usage": {"input_tokens": 60, "cache_read_input_tokens": 0, "output_tokens": 40},
        }  # fmt: skip
    return rec


def _session(path: Path, rounds: int = 8) -> None:
    recs = [_rec(1, "user", "Find why the triage bot drops messages.")]
    for i in range(rounds):
        n = len(recs) + 1
        call = {"type": "tool_use", "id": f"toolu_{i:04d}", "name": "Bash",
                "input": {"command": f"cat logs/part{i}.log"}}  # fmt: skip
        recs.append(_rec(n, "assistant", [call]))
        body = f"log part {i}\n" + f"2026-03-19 line {i} of the bot log, nothing wrong\n" * 250
        result = {"type": "tool_result", "tool_use_id": f"toolu_{i:04d}", "content": body}
        recs.append(_rec(n + 1, "user", [result]))
    recs.append(_rec(len(recs) + 1, "assistant", [{"type": "text", "text": "Found it."}]))
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")


def _estimate(raw: bytes) -> int:
    """The history's estimate of the text (no usage baseline), as ``check`` counts an output."""
    from compactor.counting.tokens import estimate_message

    return sum(map(estimate_message, read_transcript("s", raw).messages))


def test_reduce_report_counts_before_and_after_the_same_way(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    _session(src)
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--force", "-o", "out.jsonl",
        "--report", "report.json", "--events", "events.jsonl",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rep = report(tmp_path)
    red = rep["reduction"]
    assert red["cleared"] == 7
    text_before = _estimate(src.read_bytes())
    assert text_before > 20_000  # the text is far above the usage the file records
    assert red["tokens_before_usage"] < 2_000  # the provider's usage of the last turn, shown
    assert red["tokens_before"] == text_before  # counted as after is: the text
    assert red["tokens_after"] == _estimate((tmp_path / "out.jsonl").read_bytes())
    assert red["tokens_freed"] == red["tokens_before"] - red["tokens_after"] > 15_000
    assert rep["tokens_before"] == text_before and rep["tokens_after"] == red["tokens_after"]
    events = [json.loads(x) for x in (tmp_path / "events.jsonl").read_text().splitlines()]
    after = next(e for e in events if e["type"] == "after_reduce")
    assert after["tokens_before"] == text_before
    assert after["tokens_freed"] == red["tokens_freed"]
    assert after["tokens_before_usage"] == red["tokens_before_usage"]
    live = proc.stderr.decode()
    assert (
        f"{text_before:,} -> {red['tokens_after']:,} tokens ({red['tokens_freed']:,} freed; "
        f"estimates of the text, the provider's usage before: {red['tokens_before_usage']:,})"
    ) in live
    assert f"compacted 18 → 18 messages, {text_before:,} → {red['tokens_after']:,} tokens" in live
    proc = compact(tmp_path, "check", "out.jsonl")
    assert f"{red['tokens_after']:,} tokens (estimate)" in proc.stdout.decode()


def test_check_explain_says_what_reduce_counts_from(tmp_path: Path) -> None:
    """Cleared or not, reduce counts the text and names the usage the count above read
    (blind check 71 N5; before, an unchanged history showed the usage, ``100 → 100``)."""
    _session(tmp_path / "s.jsonl")
    proc = compact(tmp_path, "check", "--explain", "s.jsonl")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    before = _estimate((tmp_path / "s.jsonl").read_bytes())
    said = f"{before:,} → {before:,} tokens (0 freed; counted from the text, the provider's usage: "
    assert said + "100)" in text, text


def test_a_history_without_usage_reports_no_usage_figure(tmp_path: Path) -> None:
    from .test_reduction_cli import write_session

    write_session(tmp_path / "s.jsonl", size=500)
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--force", "--report", "report.json"
    )
    assert proc.returncode == 0, proc.stderr
    red = report(tmp_path)["reduction"]
    assert red["tokens_before_usage"] is None and red["tokens_freed"] > 0
    assert "provider's usage" not in proc.stderr.decode()
