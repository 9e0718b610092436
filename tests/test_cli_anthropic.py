"""``compact run`` with ``anthropic:`` models, end to end against the fake Messages API.

The real CLI (in-process, and once as the installed console script) against
:class:`~compactor.testing.fake_anthropic.FakeAnthropic` and, for mixed failover chains,
:class:`~compactor.testing.fake_openai.FakeOpenAI`: retry (with ``retry-after``), failover to
and from ``openai:``, the circuit breaker, re-planning after ``prompt is too long``, the summary
cache and the spend limits behave as they do for OpenAI. The planted key appears nowhere.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from compactor.testing.fake_anthropic import FakeAnthropic, overloaded
from compactor.testing.fake_bodies import estimate_tokens
from compactor.testing.fake_openai import FakeOpenAI
from compactor.testing.fake_steps import reply, retry_after, status

from .fake_server_cli import CODING, PLANTED_KEY, SUMMARY, _run_script, invoke

CLAUDE = "anthropic:claude-test"
GPT = "openai:gpt-test"


@pytest.fixture(scope="module")
def claude_server() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as fake:
        yield fake


@pytest.fixture
def claude(claude_server: FakeAnthropic) -> Iterator[FakeAnthropic]:
    claude_server.reset()
    claude_server.default = reply(SUMMARY)
    yield claude_server
    claude_server.reset()
    claude_server.default = reply(SUMMARY)
    claude_server.max_context_tokens = None


@pytest.fixture(scope="module")
def gpt_server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def gpt(gpt_server: FakeOpenAI) -> Iterator[FakeOpenAI]:
    gpt_server.reset()
    gpt_server.default = reply(SUMMARY)
    yield gpt_server
    gpt_server.reset()
    gpt_server.default = reply(SUMMARY)


def _model(spec: str, fake: FakeOpenAI) -> list[str]:
    provider, _, name = spec.partition(":")
    return [f"provider: {provider}", f"name: {name}", f"base_url: {fake.base_url}", "timeout: 5"]


def _config(
    folder: Path,
    primary: tuple[str, FakeOpenAI],
    failover: tuple[str, FakeOpenAI] | None = None,
    *,
    max_retries: int = 0,
    extra: str = "",
) -> Path:
    lines = ["model:", *(f"  {line}" for line in _model(*primary))]
    lines += ["retry:", f"  max_retries: {max_retries}", "  initial_delay: 0.01", "  max_delay: 2"]
    if failover is not None:
        first, *rest = _model(*failover)
        lines += ["failover:", "  max_retries: 1", "  models:", f"    - {first}"]
        lines += [f"      {line}" for line in rest]
    cfg = folder / "compact.yaml"
    cfg.write_text("\n".join(lines) + "\n" + extra, encoding="utf-8")
    return cfg


class Result:
    def __init__(self, folder: Path, code: int, stderr: str) -> None:
        self.code, self.stderr = code, stderr
        self.out = folder / "out.jsonl"
        report = folder / "rep.json"
        self.report: dict[str, Any] = json.loads(report.read_text("utf-8"))
        self.text = "\n".join(
            p.read_text("utf-8", errors="replace")
            for p in (report, folder / "ev.jsonl", self.out)
            if p.exists()
        )

    @property
    def attempts(self) -> list[tuple[str, str, bool]]:
        return [(a["phase"], a["model"], a["ok"]) for a in self.report["attempts"]]


def _run(
    folder: Path, *args: str, claude: FakeAnthropic, script: bool = False, cache: bool = False
) -> Result:
    src = folder / "session.jsonl"
    if not src.exists():
        shutil.copy(CODING, src)
    argv = ["run", str(src), "-o", str(folder / "out.jsonl"), "--force", *args]
    argv += ["--report", str(folder / "rep.json"), "--events", str(folder / "ev.jsonl")]
    if not cache:
        argv.append("--no-cache")
    env: dict[str, str | None] = {
        "ANTHROPIC_API_KEY": PLANTED_KEY,
        "OPENAI_API_KEY": PLANTED_KEY,
        "ANTHROPIC_BASE_URL": claude.base_url,
    }
    proc = _run_script(argv, env, folder) if script else invoke(argv, env=env, cwd=folder)
    result = Result(folder, proc.returncode, proc.stderr.decode("utf-8", "replace"))
    assert PLANTED_KEY not in result.text + result.stderr + proc.stdout.decode()
    assert src.read_bytes() == CODING.read_bytes()  # the input is never modified
    return result


def _assert_summary(result: Result) -> None:
    assert result.code == 0, result.stderr
    last = json.loads(result.out.read_text("utf-8").splitlines()[-1])
    assert "The fake summary of the coding session." in json.dumps(last)


def test_model_flag_anthropic_end_to_end(tmp_path: Path, claude: FakeAnthropic) -> None:
    claude.enqueue(reply(SUMMARY))
    result = _run(tmp_path, "--model", CLAUDE, claude=claude)
    _assert_summary(result)
    assert result.attempts == [("primary", CLAUDE, True)]
    (req,) = claude.requests
    assert req.path == "/v1/messages"
    assert req.json["model"] == "claude-test"
    assert isinstance(req.json["max_tokens"], int) and req.json["max_tokens"] > 0
    assert req.json["messages"][0]["role"] == "user"
    assert req.json["messages"][-1]["role"] == "user"
    assert PLANTED_KEY not in json.dumps(req.headers) + json.dumps(req.json)


def test_console_script_retries_an_overloaded_anthropic(
    tmp_path: Path, claude: FakeAnthropic
) -> None:
    claude.enqueue(overloaded(), reply(SUMMARY))
    cfg = _config(tmp_path, (CLAUDE, claude), max_retries=1)
    result = _run(tmp_path, "-c", str(cfg), claude=claude, script=True)
    _assert_summary(result)
    assert result.attempts == [("primary", CLAUDE, False), ("primary", CLAUDE, True)]
    assert "HTTP 529" in result.report["attempts"][0]["error"]
    assert len(claude.requests) == 2


def test_retry_after_from_anthropic_is_honoured(tmp_path: Path, claude: FakeAnthropic) -> None:
    claude.enqueue(retry_after("1"), reply(SUMMARY))
    cfg = _config(tmp_path, (CLAUDE, claude), max_retries=1)
    start = time.monotonic()
    result = _run(tmp_path, "-c", str(cfg), claude=claude)
    _assert_summary(result)
    assert time.monotonic() - start >= 1.0  # initial_delay is 0.01: the server's 1 s won
    assert [r.path for r in claude.requests] == ["/v1/messages"] * 2


def test_openai_primary_fails_over_to_anthropic(
    tmp_path: Path, claude: FakeAnthropic, gpt: FakeOpenAI
) -> None:
    gpt.default = status(500)
    claude.enqueue(reply(SUMMARY))
    cfg = _config(tmp_path, (GPT, gpt), (CLAUDE, claude), max_retries=1)
    result = _run(tmp_path, "-c", str(cfg), claude=claude)
    _assert_summary(result)
    assert result.attempts == [
        ("primary", GPT, False),
        ("primary", GPT, False),
        ("failover", CLAUDE, True),
    ]
    assert len(gpt.requests) == 2 and len(claude.requests) == 1


def test_anthropic_primary_fails_over_to_openai(
    tmp_path: Path, claude: FakeAnthropic, gpt: FakeOpenAI
) -> None:
    claude.default = overloaded()
    gpt.enqueue(reply(SUMMARY))
    cfg = _config(tmp_path, (CLAUDE, claude), (GPT, gpt), max_retries=1)
    result = _run(tmp_path, "-c", str(cfg), claude=claude)
    _assert_summary(result)
    assert result.attempts == [
        ("primary", CLAUDE, False),
        ("primary", CLAUDE, False),
        ("failover", GPT, True),
    ]
    assert gpt.requests[0].path == "/v1/chat/completions"


def test_a_refused_anthropic_key_opens_the_breaker(
    tmp_path: Path, claude: FakeAnthropic, gpt: FakeOpenAI
) -> None:
    """401 is persistent: no retry of the primary despite ``max_retries: 3``, straight to
    the failover model."""
    claude.default = status(401)
    gpt.enqueue(reply(SUMMARY))
    cfg = _config(tmp_path, (CLAUDE, claude), (GPT, gpt), max_retries=3)
    result = _run(tmp_path, "-c", str(cfg), claude=claude)
    _assert_summary(result)
    assert result.attempts == [("primary", CLAUDE, False), ("failover", GPT, True)]
    assert len(claude.requests) == 1


def test_prompt_too_long_re_plans_in_smaller_chunks(tmp_path: Path, claude: FakeAnthropic) -> None:
    """Anthropic's 400 ``prompt is too long: N tokens > M maximum`` carries the window and
    the count as typed fields: the input is re-planned to fit and the run succeeds."""
    first = _run(tmp_path, "--model", CLAUDE, claude=claude)
    _assert_summary(first)
    (whole,) = claude.requests
    system = whole.json.get("system", "")
    tokens = estimate_tokens(whole.json) + len(system.encode()) // 4  # the fake's own count
    claude.reset()
    claude.max_context_tokens = tokens * 3 // 4
    again = _run(tmp_path, "--model", CLAUDE, claude=claude)
    _assert_summary(again)
    errors = [a["error"] or "" for a in again.report["attempts"]]
    assert any("prompt is too long" in e for e in errors), errors
    assert again.attempts[-1] == ("primary", CLAUDE, True)
    sent = [r for r in claude.requests if r.json and "messages" in r.json]
    assert len(sent) >= 3  # the refused request, then at least two chunks


def test_the_summary_cache_answers_an_anthropic_run(tmp_path: Path, claude: FakeAnthropic) -> None:
    first = _run(tmp_path, "--model", CLAUDE, claude=claude, cache=True)
    _assert_summary(first)
    assert len(claude.requests) == 1
    second = _run(tmp_path, "--model", CLAUDE, claude=claude, cache=True)
    _assert_summary(second)
    assert len(claude.requests) == 1  # answered from the cache: nothing sent


def test_spend_limits_stop_anthropic_retries(tmp_path: Path, claude: FakeAnthropic) -> None:
    claude.default = status(500)
    cfg = _config(tmp_path, (CLAUDE, claude), max_retries=5, extra="limits: {max_requests: 2}\n")
    result = _run(tmp_path, "-c", str(cfg), claude=claude)
    assert result.code == 3, result.stderr
    assert "limits.max_requests" in result.stderr
    assert len(claude.requests) == 2
    assert not result.out.exists()


def test_check_explain_finds_the_anthropic_runs_cache_entry(
    tmp_path: Path, claude: FakeAnthropic
) -> None:
    """``check --explain`` keys the cache on the provider's endpoint as the run does, without
    building the model: after a run, it plans no request for the same input."""
    first = _run(tmp_path, "--model", CLAUDE, claude=claude, cache=True)
    _assert_summary(first)
    env: dict[str, str | None] = {
        "ANTHROPIC_API_KEY": PLANTED_KEY,
        "ANTHROPIC_BASE_URL": claude.base_url,
    }
    src = str(tmp_path / "session.jsonl")
    argv = ["check", "--explain", "--json", "--model", CLAUDE, src]
    proc = invoke(argv, env=env, cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr.decode()
    (record,) = [json.loads(line) for line in proc.stdout.decode().splitlines() if line.strip()]
    text = json.dumps(record)
    assert CLAUDE in text and PLANTED_KEY not in text
    assert '"cached": true' in text, text[:2000]
    assert len(claude.requests) == 1


def test_a_max_tokens_stop_goes_up_the_ladder(tmp_path: Path, claude: FakeAnthropic) -> None:
    """``stop_reason: max_tokens`` is a cut reply (``kind=length``), handled as OpenAI's
    ``finish_reason: length``: not retried as is, the ladder asks again and the run succeeds."""
    claude.enqueue(reply("<summary>\nhalf of a summ", finish_reason="length"))
    result = _run(tmp_path, "--model", CLAUDE, claude=claude)
    _assert_summary(result)
    errors = [a["error"] or "" for a in result.report["attempts"]]
    assert "stop_reason 'max_tokens'" in errors[0], errors
    assert result.attempts[-1][2] is True
    assert len(claude.requests) >= 2
