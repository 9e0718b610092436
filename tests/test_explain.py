"""``compactor/runs/explain.py`` (``check --explain``): rows that add up, the run's own chunks, the
failover chain (issue 23, point 7)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.models.scripted import ScriptedModel
from compactor.runs.runner import RunOptions, run_file

from .conftest import needs_shared, shared_transcript_files

REPO = Path(__file__).resolve().parents[1]
SAMPLES = sorted((REPO / "sample_transcripts").glob("*.jsonl"))
LONG = REPO / "sample_transcripts" / "coding-session-long.jsonl"
SUMMARY = "<summary>\n1. Primary Request and Intent:\n   the request\n</summary>"


def _explain(path: Path, *args: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["check", "--explain", "--json", str(path), *args])
    assert result.exit_code in (0, 1), result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _row_sum(explain: dict[str, Any]) -> int:
    total = sum(row["tokens"] for row in explain["by_role"].values())
    total += explain["overhead"]["tokens"]
    if explain["baseline"] is not None:
        total += explain["baseline"]["tokens"]
    return int(total)


def _row_messages(explain: dict[str, Any]) -> int:
    count = sum(row["messages"] for row in explain["by_role"].values())
    return int(count + (explain["baseline"]["messages"] if explain["baseline"] else 0))


FILES = [*SAMPLES, *(pytest.param(p, marks=needs_shared) for p in shared_transcript_files())]


@pytest.mark.parametrize("path", FILES, ids=lambda p: Path(p).name)
@pytest.mark.parametrize("counter", ["estimate", "tiktoken:o200k_base"])
def test_rows_by_role_add_up_to_the_count(path: Path, counter: str) -> None:
    data = _explain(path, "--token-counter", counter)
    explain = data["explain"]
    assert _row_sum(explain) == data["tokens"] == explain["tokens"]
    assert _row_messages(explain) == data["messages"]


def test_a_count_from_recorded_usage_has_its_baseline_row(tmp_path: Path) -> None:
    lines = [
        {"role": "user", "content": "x" * 400},
        {"role": "assistant", "content": "ok", "response_meta": {"usage": {"total_tokens": 5000}}},
        {"role": "user", "content": "y" * 40},
    ]
    path = tmp_path / "u.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    data = _explain(path)
    assert data["format"] == "eino"  # its response_meta.usage is the provider's count
    explain = data["explain"]
    assert explain["baseline"] == {"messages": 2, "tokens": 5000}
    assert explain["by_role"] == {"user": {"messages": 1, "tokens": 10}}
    assert data["tokens"] == 5010 == _row_sum(explain)
    text = CliRunner().invoke(app, ["check", "--explain", str(path)]).stdout
    assert "usage baseline     2 messages        5,000 tokens  (reported by the provider" in text
    assert "    user                1 message           10 tokens\n" in text
    assert "tokens by role (they add up to the 5,010 counted):" in text


@needs_shared
def test_a_claude_code_session_counts_from_its_usage() -> None:
    from .conftest import shared_file

    data = _explain(shared_file("claude-code/raze-grant-session.jsonl"))
    assert data["explain"]["baseline"] is not None
    assert _row_sum(data["explain"]) == data["tokens"]


CHUNKED = """\
model: {provider: openai, name: gpt-4o-mini, context_tokens: 64000}
trigger: {context_fraction: 0.8, agent_model: claude-sonnet-4}
keep: {messages: 6}
mask_secrets: true
loop_guard: false
"""


def test_chunk_figures_equal_the_runs(tmp_path: Path) -> None:
    """The chunks ``check --explain`` plans are the ones a run reports: same ranges, messages
    and tokens; the live view shows the same figures."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text(CHUNKED)
    planned = _explain(LONG, "-c", str(cfg))["explain"]["plan"]["chunks"]
    assert len(planned) == 6
    model = ScriptedModel.replying(*[SUMMARY] * len(planned))
    report = tmp_path / "r.json"
    events: list[Any] = []
    result = run_file(
        RunOptions(
            input=str(LONG), output=str(tmp_path / "o.jsonl"), config=str(cfg), report=str(report)
        ),
        model=model,
        sink=events.append,
    )
    assert result.exit_code == 0, result.error
    model.assert_complete()
    ran = json.loads(report.read_text())["chunks"]
    keys = ("start", "end", "messages", "tokens", "oversized")
    assert [{k: c[k] for k in keys} for c in ran] == [{k: c[k] for k in keys} for c in planned]
    starts = [e for e in events if getattr(e, "type", "") == "chunk_start"]
    assert [e.chunk_tokens for e in starts] == [c["tokens"] for c in planned]
    # chunk 1's request is instructions + messages: it is at least the chunk itself
    assert ran[0]["input_tokens"] > ran[0]["tokens"]

    import io

    from rich.console import Console

    from compactor.cli.live import LiveView

    out = io.StringIO()
    view = LiveView(Console(file=out, width=200, color_system=None), quiet=False)
    for event in starts:
        view(event)
    text_lines = CliRunner().invoke(app, ["check", "--explain", "-c", str(cfg), str(LONG)]).stdout
    for chunk, line in zip(planned, out.getvalue().splitlines(), strict=True):
        first, last = chunk["start"] + 1, chunk["end"]
        shared = (
            f"messages {first}-{last} ({chunk['messages']} messages, {chunk['tokens']:,} tokens"
        )
        assert shared in line
        assert f"chunk {chunk['index']}: {shared})" in text_lines


FAILOVER = """\
model: {provider: openai, name: gpt-4o-mini}
retry: {max_retries: 2}
failover:
  max_retries: 3
  models:
    - {provider: openai, name: gpt-4.1-mini}
    - {provider: local}
fallback: local
"""


def test_failover_models_are_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(FAILOVER)
    plan = _explain(LONG, "-c", str(cfg))["explain"]["plan"]
    assert plan["summarizer"] == "openai:gpt-4o-mini"
    assert plan["attempts"] == 3
    assert plan["failover"] == ["openai:gpt-4.1-mini", "local"]
    assert plan["failover_attempts"] == 3
    text = CliRunner().invoke(app, ["check", "--explain", "-c", str(cfg), str(LONG)]).stdout
    assert (
        "summarizer:        openai:gpt-4o-mini (3 attempts), then failover openai:gpt-4.1-mini, "
        "local (3 attempts), then fallback local"
    ) in text


def test_without_failover_one_model_and_its_attempts() -> None:
    # no retry section: the command line's default, two retries (issue 34)
    plan = _explain(LONG)["explain"]["plan"]
    assert (plan["summarizer"], plan["attempts"], plan["failover"]) == ("local", 3, [])
