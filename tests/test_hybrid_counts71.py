"""A hybrid run that leaves the history as it is reports the same kind of figure as reduce on
the same file (blind check 71 N5: hb_nos under ``configs/agent-resume.yaml`` reported
``tokens_before = tokens_after = 41,580``, the session's last provider usage, while ``--strategy
reduce`` on it reported 12,146 → 9,754, the text counted before and after). Issue 30: a reduction
counts before and after the same way, the text, and shows the usage as its own figure; the
trigger still reads the usage the written records carry. Built Claude Code session: a usage of
about 40,000 tokens on each turn (the system prompt and tools), about 24,000 tokens of text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .test_reduction_cli import compact, report
from .test_reduction_like_for_like import _estimate, _session

NOTHING_TO_CLEAR = {"clear_at_least_tokens": 1_000_000, "clear_retention_suffix_limit": 2}


def _big_usage(path: Path) -> None:
    _session(path)
    recs = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    for rec in recs:
        if rec["type"] == "assistant":
            rec["message"]["usage"]["input_tokens"] = 40_000
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text("utf-8").splitlines()]


def test_an_unchanged_hybrid_reports_the_text_counted_as_reduce_does(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    _big_usage(src)
    text = _estimate(src.read_bytes())
    proc = compact(tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--force", "-o", "r.jsonl",
                   "--report", "report.json")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    reduced = report(tmp_path)
    usage = reduced["reduction"]["tokens_before_usage"]
    assert usage > 40_000 > text > 20_000
    assert reduced["tokens_before"] == reduced["reduction"]["tokens_before"] == text
    config = {"strategy": "hybrid", "reduction": NOTHING_TO_CLEAR}
    proc = compact(tmp_path, "run", "s.jsonl", "--force", "-o", "h.jsonl", "--report",
                   "report.json", "--events", "events.jsonl", config=config)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "h.jsonl").read_bytes() == src.read_bytes()  # nothing cleared, no summary
    hybrid = report(tmp_path)
    red = hybrid["reduction"]
    assert red["cleared"] == 0 and red["summarized"] is False
    assert hybrid["tokens_before"] == hybrid["tokens_after"] == text  # as reduce counts: the text
    assert red["tokens_before"] == red["tokens_after"] == text
    assert red["tokens_before_usage"] == usage  # the usage, as its own figure
    assert hybrid["tokens_counted"] == reduced["tokens_counted"] == "text"
    after = next(e for e in _events(tmp_path / "events.jsonl") if e["type"] == "after_reduce")
    assert (after["tokens_before"], after["tokens_after"]) == (text, text)
    assert after["tokens_before_usage"] == usage
    live = proc.stderr.decode()
    assert (
        f"{text:,} → {text:,} tokens (counted from the text; the provider's usage before: "
        f"{usage:,})"
    ) in live, live


def test_the_trigger_still_reads_the_usage_an_unchanged_history_keeps(tmp_path: Path) -> None:
    """Over a trigger by its usage (which the written records keep), under it by its text:
    nothing to clear, so hybrid summarizes, as ``check`` on the unchanged file would fire."""
    src = tmp_path / "s.jsonl"
    _big_usage(src)
    config = {
        "strategy": "hybrid",
        "reduction": NOTHING_TO_CLEAR,
        "trigger": {"context_tokens": 30_000},
        "model": {"provider": "local"},
    }
    proc = compact(tmp_path, "run", "s.jsonl", "-o", "h.jsonl", "--report", "report.json",
                   config=config)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    red = report(tmp_path)["reduction"]
    assert red["tokens_after"] < 30_000 < red["tokens_before_usage"]
    assert red["summarized"] is True, red
