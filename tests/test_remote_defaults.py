"""What ``compact run --model openai:NAME`` does with no settings of its own (issue 34): it
retries transient failures as the openai SDK would, and it plans an unknown model's requests for
a 200,000-token window instead of sending the whole history at once. Real runs of the command
line against the loopback fake server; no config file unless a test says so."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import compactor as c
from compactor.configfile import ASSUMED_WINDOW, DEFAULT_RETRY
from compactor.errors import ModelError
from compactor.models.openai import OpenAIModel
from compactor.testing.fake_bodies import estimate_tokens
from compactor.testing.fake_openai import FakeOpenAI, reply, status

from .fake_server_cli import CODING, SUMMARY, invoke

KEY = "sk-test-defaults-0123456789"
REPO = Path(__file__).resolve().parent.parent


def _run(
    tmp_path: Path, fake: FakeOpenAI, model: str, src: Path, *extra: str
) -> tuple[subprocess.CompletedProcess[bytes], list[dict[str, Any]], dict[str, Any]]:
    """``compact run SRC --force --model MODEL`` with the built-in settings (no config)."""
    events, report = tmp_path / "events.jsonl", tmp_path / "report.json"
    env = {
        "OPENAI_BASE_URL": fake.base_url,
        "OPENAI_API_KEY": KEY,
        "XDG_CACHE_HOME": str(tmp_path / "cache"),  # a fresh summary cache
        "COMPACT_CONFIG": None,
    }
    args = ["run", str(src), "--force", "--model", model, "-o", str(tmp_path / "out.jsonl")]
    args += ["--events", str(events), "--report", str(report), *extra]
    proc = invoke(args, env=env, cwd=tmp_path)
    lines = events.read_text("utf-8").splitlines()
    return proc, [json.loads(line) for line in lines], json.loads(report.read_text("utf-8"))


def _coding(tmp_path: Path) -> Path:
    src = tmp_path / "session.jsonl"
    shutil.copy(CODING, src)
    return src


def _waits(events: list[dict[str, Any]]) -> list[float]:
    return [e["delay"] for e in events if e["type"] == "retry_wait"]


# -- point 3: the command line retries transient failures ----------------------------------------


def test_the_default_retry_is_two_more_tries_with_backoff() -> None:
    assert DEFAULT_RETRY == {"max_retries": 2, "initial_delay": 1.0, "max_delay": 10.0}


def test_a_429_with_retry_after_succeeds_on_the_third_request(
    tmp_path: Path, fake: FakeOpenAI
) -> None:
    fake.enqueue(*[status(429, headers={"retry-after": "0.5"})] * 2, reply(SUMMARY))
    proc, events, report = _run(tmp_path, fake, "openai:gpt-4o-mini", _coding(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert len(fake.requests) == 3
    assert _waits(events) == [0.5, 0.5]  # the server's Retry-After, not our 1 s, 2 s
    assert [a["ok"] for a in report["attempts"]] == [False, False, True]
    assert "The fake summary" in (tmp_path / "out.jsonl").read_text("utf-8")


def test_a_500_succeeds_on_the_third_request_after_exponential_waits(
    tmp_path: Path, fake: FakeOpenAI
) -> None:
    fake.enqueue(status(500), status(503), reply(SUMMARY))
    proc, events, report = _run(tmp_path, fake, "openai:gpt-4o-mini", _coding(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert len(fake.requests) == 3
    assert _waits(events) == [1.0, 2.0]
    assert [a["ok"] for a in report["attempts"]] == [False, False, True]


def test_three_transient_failures_are_exit_3_after_three_requests(
    tmp_path: Path, fake: FakeOpenAI
) -> None:
    fake.enqueue(*[status(429, headers={"retry-after": "0"})] * 3, reply(SUMMARY))
    proc, _, _ = _run(tmp_path, fake, "openai:gpt-4o-mini", _coding(tmp_path))
    assert proc.returncode == 3
    assert len(fake.requests) == 3
    assert "HTTP 429" in proc.stderr.decode()
    assert not (tmp_path / "out.jsonl").exists()


def test_a_refusal_that_would_recur_is_not_retried(tmp_path: Path, fake: FakeOpenAI) -> None:
    fake.enqueue(status(401), reply(SUMMARY))
    proc, _, _ = _run(tmp_path, fake, "openai:gpt-4o-mini", _coding(tmp_path))
    assert proc.returncode == 3 and len(fake.requests) == 1
    assert "HTTP 401" in proc.stderr.decode()


def test_a_retry_section_of_zero_is_a_single_call(tmp_path: Path, fake: FakeOpenAI) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("retry: {max_retries: 0}\n", encoding="utf-8")
    fake.enqueue(status(500), reply(SUMMARY))
    proc, _, _ = _run(tmp_path, fake, "openai:gpt-4o-mini", _coding(tmp_path), "-c", str(cfg))
    assert proc.returncode == 3 and len(fake.requests) == 1
    assert "HTTP 500" in proc.stderr.decode()
    assert "exceeds max retries" not in proc.stderr.decode()


@pytest.mark.parametrize(("code", "kind"), [(408, "timeout"), (409, "conflict")])
def test_408_and_409_are_transient(fake: FakeOpenAI, code: int, kind: str) -> None:
    fake.enqueue(status(code, headers={"retry-after": "3"}))
    model = OpenAIModel("gpt-4o-mini", base_url=fake.base_url, api_key=KEY)
    with pytest.raises(ModelError) as info:
        asyncio.run(model.generate([c.Message("user", "hi")]))
    assert (info.value.kind, info.value.transient, info.value.retry_after) == (kind, True, 3.0)


def test_the_library_config_keeps_a_single_call(fake: FakeOpenAI) -> None:
    """Eino's default: no Retry, one call (the command line's defaults are its own)."""
    fake.enqueue(status(500), reply(SUMMARY))
    model = OpenAIModel("gpt-4o-mini", base_url=fake.base_url, api_key=KEY)
    history = [c.Message("user", "hello " * 50), c.Message("assistant", "hi")]
    with pytest.raises(c.SummarizationError):
        asyncio.run(c.new(c.Config(model=model)).summarize(c.AgentState(history)))
    assert len(fake.requests) == 1


# -- point 4: an unknown model is planned for a 200,000-token window -----------------------------


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated transcript of about 390,000 tokens (1.5 MiB)."""
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    gen = REPO / "bench" / "gen_transcript.py"
    subprocess.run([sys.executable, str(gen), str(path), "--mb", "1.5"], check=True)
    return path


def test_an_unknown_models_first_request_fits_the_assumed_window(
    tmp_path: Path, fake: FakeOpenAI, big: Path
) -> None:
    fake.default = reply(SUMMARY)
    proc, events, report = _run(tmp_path, fake, "openai:mystery-model-7", big)
    assert proc.returncode == 0, proc.stderr
    assert len(fake.requests) >= 2  # chunked: the history is about 390,000 tokens
    assert all(estimate_tokens(r.json) <= ASSUMED_WINDOW for r in fake.requests)
    said = [e for e in events if e["type"] == "window_assumed"]
    assert said == [
        {"type": "window_assumed", "model": "openai:mystery-model-7", "tokens": 200_000}
    ]
    assert report["assumed_window"] == {"model": "openai:mystery-model-7", "tokens": 200_000}


def test_the_live_view_says_the_window_once(tmp_path: Path, fake: FakeOpenAI, big: Path) -> None:
    fake.default = reply(SUMMARY)
    proc, _, _ = _run(tmp_path, fake, "openai:mystery-model-7", big)
    assert proc.returncode == 0
    assert proc.stderr.decode().count("planning for a 200,000-token window") == 1


def test_check_explain_says_the_window_is_assumed(tmp_path: Path, big: Path) -> None:
    env = {"OPENAI_API_KEY": KEY, "COMPACT_CONFIG": None}
    proc = invoke(["check", str(big), "--explain", "--model", "openai:mystery-model-7"], env=env)
    text = proc.stdout.decode()
    assert "200,000 tokens, assumed: openai:mystery-model-7 is not a model compact knows" in text
    known = invoke(["check", str(big), "--explain", "--model", "openai:gpt-4o-mini"], env=env)
    assert "assumed" not in known.stdout.decode()
    assert "128,000-token context" in known.stdout.decode()
    # every remote provider of the table: an unknown anthropic model is assumed the same way
    env = {"ANTHROPIC_API_KEY": KEY, "COMPACT_CONFIG": None}
    proc = invoke(["check", str(big), "--explain", "--model", "anthropic:mystery-7"], env=env)
    text = proc.stdout.decode()
    assert "200,000 tokens, assumed: anthropic:mystery-7 is not a model compact knows" in text
    known = invoke(["check", str(big), "--explain", "--model", "anthropic:claude-opus-4"], env=env)
    assert "assumed" not in known.stdout.decode()
    assert "200,000-token context" in known.stdout.decode()


def test_a_known_or_configured_window_is_not_assumed(
    tmp_path: Path, fake: FakeOpenAI, big: Path
) -> None:
    fake.default = reply(SUMMARY)
    cfg = tmp_path / "c.yaml"
    cfg.write_text("model: {provider: openai, name: mystery-model-7, context_tokens: 150000}\n")
    proc, events, report = _run(tmp_path, fake, "openai:mystery-model-7", big, "-c", str(cfg))
    assert proc.returncode == 0, proc.stderr
    assert not [e for e in events if e["type"] == "window_assumed"]
    assert "assumed_window" not in report
    assert all(estimate_tokens(r.json) <= 150_000 for r in fake.requests)


def test_a_servers_context_error_still_replans_under_the_assumed_window(
    tmp_path: Path, fake: FakeOpenAI, big: Path
) -> None:
    fake.default = reply(SUMMARY)
    fake.max_context_tokens = 60_000  # the server's window is smaller than the one assumed
    proc, events, _ = _run(tmp_path, fake, "openai:mystery-model-7", big)
    assert proc.returncode == 0, proc.stderr
    assert [e for e in events if e["type"] == "context_limit"]
    first = fake.requests[0].json
    assert 60_000 < estimate_tokens(first) <= ASSUMED_WINDOW  # refused, then re-planned
