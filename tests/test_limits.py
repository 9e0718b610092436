"""compactor.pipeline.limits: spend guards per run and per batch (issue 22 point 8).

A run that would pass ``limits: {max_requests, max_input_tokens}`` stops before it sends
anything (exit 3, a clear message, nothing written for that file); retries and failover are
charged as they go and stopped at the limit; ``check --explain`` shows what a run would send.
The CLI cases run in-process against the loopback fake.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import compactor as c
from compactor.cli.app import app
from compactor.errors import ModelError, SpendLimitError
from compactor.models.local import LocalSummarizer
from compactor.models.scripted import ScriptedModel
from compactor.pipeline.limits import SpendLimits, SpendMeter
from compactor.testing.fake_openai import FakeOpenAI, status

REPO = Path(__file__).resolve().parents[1]
CODING = REPO / "sample_transcripts" / "coding-session.jsonl"  # 998 tokens, one request
LONG = REPO / "sample_transcripts" / "coding-session-long.jsonl"
SUMMARY = "<summary>\nshort\n</summary>"


# -- the meter ------------------------------------------------------------------------------------


def test_a_plan_that_does_not_fit_is_refused_and_reserves_nothing() -> None:
    meter = SpendMeter(SpendLimits(max_requests=3, max_input_tokens=1_000))
    first = meter.reserve(2, 600)
    with pytest.raises(SpendLimitError) as caught:
        meter.reserve(2, 100)  # 2 + 2 > 3 requests
    assert str(caught.value) == (
        "spend limit: this run needs 2 requests with about 100 input tokens, more than is left "
        "under limits.max_requests 3 (0 sent, 2 reserved); limits.max_input_tokens 1,000 "
        "(0 sent, 600 reserved); nothing was sent"
    )
    with pytest.raises(SpendLimitError):
        meter.reserve(1, 401)  # 600 + 401 > 1,000 tokens
    assert (meter.held_requests, meter.held_tokens) == (2, 600)
    first.charge(300, "m")
    first.release()  # one planned request was not needed: back to the pool
    assert (meter.requests, meter.input_tokens, meter.held_requests, meter.held_tokens) == (
        1,
        300,
        0,
        0,
    )
    meter.reserve(2, 700).release()  # fits now


def test_charges_beyond_the_plan_draw_on_what_is_left() -> None:
    meter = SpendMeter(SpendLimits(max_requests=2))
    hold = meter.reserve(1, 100)
    hold.charge(100, "m")  # the plan
    hold.charge(100, "m")  # a retry: the last request left
    with pytest.raises(SpendLimitError, match="one more request to m .* it was not sent"):
        hold.charge(100, "m")
    assert hold.report() == {
        "max_requests": 2,
        "max_input_tokens": None,
        "planned_requests": 1,
        "planned_input_tokens": 100,
        "requests": 2,
        "input_tokens": 200,
    }


# -- the engine: a limit is a hard stop -----------------------------------------------------------


def _history() -> c.AgentState[c.Message]:
    return c.AgentState([c.Message("user", "fix it " * 100), c.Message("assistant", "done")])


@pytest.mark.parametrize("fallback", [None, LocalSummarizer()])
def test_a_retry_past_the_limit_is_not_sent_and_nothing_falls_back(fallback: Any) -> None:
    model = ScriptedModel([ModelError("HTTP 500", kind="server", transient=True), SUMMARY])
    meter = SpendMeter(SpendLimits(max_requests=1))
    events: list[Any] = []
    config = c.Config(
        model=model,
        retry=c.RetryConfig(max_retries=3, backoff=lambda *_: 0),
        failover=c.FailoverConfig(max_retries=2),
        fallback_model=fallback,
        spend=meter.reserve(1, 0),
        emit_internal_events=True,
        on_event=events.append,
    )
    with pytest.raises(SpendLimitError, match="^spend limit: one more request to scripted"):
        asyncio.run(c.new(config).summarize(_history()))
    assert len(model.calls) == 1  # the retry was refused before it was sent
    generated = [e for e in events if isinstance(e, c.GenerateSummary)]
    assert [type(e.error).__name__ for e in generated] == ["ModelError", "SpendLimitError"]


def test_cache_hits_and_the_embedded_summarizer_are_free(tmp_path: Path) -> None:
    from compactor.pipeline.cache import SummaryCache

    meter = SpendMeter(SpendLimits(max_requests=1))
    cache = SummaryCache(tmp_path)
    for _ in range(3):  # one request, then two cache hits
        config = c.Config(model=ScriptedModel([SUMMARY]), cache=cache, spend=meter.reserve(0, 0))
        asyncio.run(c.new(config).summarize(_history()))
    local = c.Config(model=LocalSummarizer(), spend=meter.reserve(0, 0))
    asyncio.run(c.new(local).summarize(_history()))
    assert (meter.requests, cache.hits) == (1, 2)


# -- the command line -----------------------------------------------------------------------------


@pytest.fixture
def remote(fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> FakeOpenAI:
    monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-limits")
    return fake


def _config(tmp_path: Path, limits: str, extra: str = "") -> Path:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        f"model: {{provider: openai, name: m}}\nlimits: {limits}\n{extra}", encoding="utf-8"
    )
    return cfg


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, ["run", *args, "--force", "-q"])


def test_a_run_over_its_request_limit_sends_and_writes_nothing(
    tmp_path: Path, remote: FakeOpenAI
) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    before = src.read_bytes()
    cfg = _config(tmp_path, "{max_requests: 0}", f"archive_dir: {tmp_path / 'archive'}\n")
    report = tmp_path / "r.json"
    result = _run(str(src), "-c", str(cfg), "--in-place", "--report", str(report))
    assert result.exit_code == 3, result.output
    assert "compact: spend limit: this run needs 1 request with about " in result.stderr
    assert "limits.max_requests 0 (0 sent, 0 reserved); nothing was sent" in result.stderr
    assert remote.requests == []
    assert src.read_bytes() == before and not (tmp_path / "archive").exists()
    data = json.loads(report.read_text())
    assert data["written"] == {}  # the report itself is written after it is made
    assert data["limits"]["planned_requests"] == 1 and data["limits"]["requests"] == 0


def test_a_run_over_its_token_limit_stops_before_sending(
    tmp_path: Path, remote: FakeOpenAI
) -> None:
    out = tmp_path / "o.jsonl"
    result = _run(
        str(CODING), "-c", str(_config(tmp_path, "{max_input_tokens: 500}")), "-o", str(out)
    )
    assert result.exit_code == 3
    assert "limits.max_input_tokens 500 (0 sent, 0 reserved)" in result.stderr
    assert remote.requests == [] and not out.exists()


def test_a_chunked_plan_counts_every_chunk(tmp_path: Path, remote: FakeOpenAI) -> None:
    extra = "model: {provider: openai, name: m, context_tokens: 60000}\n"
    cfg = tmp_path / "c.yaml"
    explain = CliRunner().invoke(
        app, ["check", "--explain", "--json", "-c", str(_write(cfg, extra)), str(LONG)]
    )
    chunks = len(json.loads(explain.stdout)["explain"]["plan"]["chunks"])
    assert chunks > 2
    _write(cfg, extra + f"limits: {{max_requests: {chunks - 1}}}\n")
    result = _run(str(LONG), "-c", str(cfg), "-o", str(tmp_path / "o.jsonl"))
    assert result.exit_code == 3
    assert f"this run needs {chunks} requests" in result.stderr
    assert remote.requests == []


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_retry_that_would_pass_the_limit_stops_the_run(
    tmp_path: Path, remote: FakeOpenAI
) -> None:
    remote.enqueue(status(500))
    cfg = _config(tmp_path, "{max_requests: 1}", "retry: {max_retries: 2, initial_delay: 0}\n")
    out = tmp_path / "o.jsonl"
    result = _run(str(CODING), "-c", str(cfg), "-o", str(out), "--fallback", "local")
    assert result.exit_code == 3
    assert "spend limit: one more request to openai:m" in result.stderr
    assert len(remote.requests) == 1 and not out.exists()


def test_only_requests_the_cache_cannot_answer_count(tmp_path: Path, remote: FakeOpenAI) -> None:
    first = _run(
        str(CODING),
        "-c",
        str(_config(tmp_path, "{max_requests: 1}")),
        "-o",
        str(tmp_path / "1.jsonl"),
    )
    assert first.exit_code == 0, first.output
    # max_requests 0: only a cached summary can get through, and this one is cached
    cfg = _config(tmp_path, "{max_requests: 0}")
    explain = CliRunner().invoke(app, ["check", "--explain", "-c", str(cfg), str(CODING)])
    assert (
        "requests:          none (the summary is in the cache); limits max_requests 0: within"
        in explain.stdout
    )
    second = _run(str(CODING), "-c", str(cfg), "-o", str(tmp_path / "2.jsonl"))
    assert second.exit_code == 0, second.output
    assert len(remote.requests) == 1
    assert (tmp_path / "2.jsonl").read_bytes() == (tmp_path / "1.jsonl").read_bytes()


def test_a_batch_shares_one_budget(tmp_path: Path, remote: FakeOpenAI) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(3):  # three different transcripts: three requests wanted
        extra = json.dumps({"role": "user", "content": f"file {i}"}) + "\n"
        (folder / f"t{i}.jsonl").write_bytes(CODING.read_bytes() + extra.encode())
    report = tmp_path / "r.json"
    cfg = _config(tmp_path, "{max_requests: 2}")
    result = _run(str(folder), "-c", str(cfg), "--jobs", "1", "--report", str(report))
    assert result.exit_code == 3, result.output
    files = json.loads(report.read_text())["files"]
    assert sorted(f["exit_code"] for f in files) == [0, 0, 3]
    refused = next(f for f in files if f["exit_code"] == 3)
    assert "spend limit: this run needs 1 request" in refused["error"]
    assert "limits.max_requests 2 (2 sent, 0 reserved)" in refused["error"]
    assert not Path(refused["input"]).with_suffix(".compact.jsonl").exists()
    assert len(remote.requests) == 2


def test_check_explain_shows_what_a_run_would_send(tmp_path: Path, remote: FakeOpenAI) -> None:
    cfg = _config(tmp_path, "{max_requests: 0, max_input_tokens: 100000}")
    text = CliRunner().invoke(app, ["check", "--explain", "-c", str(cfg), str(CODING)]).stdout
    line = next(x for x in text.splitlines() if x.strip().startswith("requests:"))
    assert line.strip().startswith("requests:          1 request with about ")
    assert line.endswith(
        "if every call succeeds; limits max_requests 0, max_input_tokens 100,000: OVER: the "
        "run would stop before sending"
    )
    data = json.loads(
        CliRunner()
        .invoke(app, ["check", "--explain", "--json", "-c", str(cfg), str(CODING)])
        .stdout
    )
    req = data["explain"]["plan"]["requests"]
    assert (req["count"], req["within_limits"], req["cached"]) == (1, False, False)
    assert req["input_tokens"] == data["explain"]["plan"]["summarizer_input_tokens"]
    assert remote.requests == []  # a dry run


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        ("{max_requests: -1}", "limits.max_requests must be non-negative"),
        ("{max_request: 3}", "unknown key 'max_request'; did you mean 'max_requests'?"),
        ("{max_input_tokens: lots}", "expected an integer or null, got 'lots'"),
    ],
)
def test_bad_limits_are_config_errors(tmp_path: Path, limits: str, message: str) -> None:
    result = _run(str(CODING), "-c", str(_config(tmp_path, limits)), "--model", "local")
    assert result.exit_code == 2
    assert message in result.stderr
