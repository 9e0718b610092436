"""``compact run`` against the in-process fake OpenAI server.

Each test scripts the fake, writes a config YAML that points the primary (and, where needed, a
failover) model at it, runs ``compact run -c CFG INPUT -o OUT --events EV --report REP --force``
and checks the exit code, the exact requests the server saw, the events file, the report, the
plain live-view lines on stderr (a pipe, not a tty), the output and the input. The command runs
in-process (typer's CliRunner); the failure scenario also runs the installed console script,
once, as a real subprocess.
"""

from __future__ import annotations

import json

import pytest

from compactor.testing.fake_openai import (
    empty_choices,
    hang,
    raw,
    reply,
    status,
)

from .fake_server_cli import BACKUP, PRIMARY, SUMMARY, Run, models_of, run_compact


def _assert_success(result: Run) -> None:
    assert result.code == 0, result.stderr
    assert result.src.read_bytes() == result.src_bytes
    assert result.out.exists()
    lines = result.out.read_text(encoding="utf-8").splitlines()
    assert lines
    last = json.loads(lines[-1])
    assert last["role"] == "user"
    assert "The fake summary of the coding session." in json.dumps(last)
    assert f"compacted 23 → {len(lines)} messages" in result.stderr
    assert result.report["messages_after"] == len(lines)
    types = [e["type"] for e in result.events]
    assert types[0] == "before_summarize"
    assert types[-1] == "after_summarize"
    assert result.report["exit_code"] == 0
    assert result.all_events[-1]["type"] == "run_finished"


def _assert_failure(result: Run) -> None:
    assert result.code == 3, result.stderr
    assert result.src.read_bytes() == result.src_bytes
    assert not result.out.exists()
    # the report and the events say why, and that the output was not written
    assert result.report["exit_code"] == 3
    assert "output" not in result.report["written"]
    assert "after_summarize" not in [e["type"] for e in result.events]
    assert result.all_events[-1]["exit_code"] == 3


def _report_attempts(result: Run) -> list[tuple[str, int, str, bool]]:
    return [(a["phase"], a["attempt"], a["model"], a["ok"]) for a in result.report["attempts"]]


# -- cases ---------------------------------------------------------------------------------------


def test_success_first_try(tmp_path, fake):
    fake.enqueue(reply(SUMMARY))
    result = run_compact(tmp_path, fake, max_retries=2)
    _assert_success(result)
    assert len(fake.requests) == 1
    assert models_of(fake.requests) == {"primary-model": 1}
    assert fake.requests[0].path == "/v1/chat/completions"
    assert [e["type"] for e in result.events] == [
        "before_summarize",
        "attempt_start",
        "generate_summary",
        "after_summarize",
    ]
    assert result.summaries() == [("primary", 1, PRIMARY, True)]
    assert _report_attempts(result) == [("primary", 1, PRIMARY, True)]
    assert result.report["attempts"][0]["error"] is None
    assert "failed" not in result.stderr
    assert "waiting" not in result.stderr
    assert result.stdout == ""


def test_500_then_success(tmp_path, fake):
    fake.enqueue(status(500), reply(SUMMARY))
    result = run_compact(tmp_path, fake, max_retries=2)
    _assert_success(result)
    assert len(fake.requests) == 2
    assert models_of(fake.requests) == {"primary-model": 2}
    assert result.summaries() == [
        ("primary", 1, PRIMARY, False),
        ("primary", 2, PRIMARY, True),
    ]
    first = result.of_type("generate_summary")[0]
    assert "HTTP 500" in first["error"]["message"]
    waits = result.of_type("retry_wait")
    assert [(w["phase"], w["attempt"]) for w in waits] == [("primary", 1)]
    assert 0 < waits[0]["delay"] <= 0.05
    assert _report_attempts(result) == [
        ("primary", 1, PRIMARY, False),
        ("primary", 2, PRIMARY, True),
    ]
    assert "HTTP 500" in result.report["attempts"][0]["error"]
    assert "primary attempt 1/3" in result.stderr
    assert "HTTP 500" in result.stderr
    assert "before primary attempt 2" in result.stderr


def test_429_retry_after_is_honoured(tmp_path, fake):
    fake.enqueue(status(429, headers={"retry-after": "1"}), reply(SUMMARY))
    # honoured up to retry.max_delay (issue 16: a longer retry-after waits max_delay)
    result = run_compact(tmp_path, fake, max_retries=2, max_delay=2)
    _assert_success(result)
    assert len(fake.requests) == 2
    waits = result.of_type("retry_wait")
    assert len(waits) == 1
    assert waits[0]["delay"] == 1
    assert result.elapsed >= 1.0
    assert result.report["duration_s"] >= 1.0
    assert result.summaries() == [
        ("primary", 1, PRIMARY, False),
        ("primary", 2, PRIMARY, True),
    ]
    assert "HTTP 429" in result.stderr
    assert "waiting 1.0s before primary attempt 2" in result.stderr


def test_retries_exhausted_then_failover_succeeds(tmp_path, fake):
    n = 2
    fake.enqueue(*(status(503) for _ in range(n + 1)), reply(SUMMARY))
    result = run_compact(tmp_path, fake, max_retries=n, failover_retries=2)
    _assert_success(result)
    assert len(fake.requests) == n + 2
    assert models_of(fake.requests) == {"primary-model": n + 1, "backup-model": 1}
    assert [(r.json or {}).get("model") for r in fake.requests][-1] == "backup-model"
    expected = [("primary", i, PRIMARY, False) for i in range(1, n + 2)]
    expected.append(("failover", 1, BACKUP, True))
    assert result.summaries() == expected
    assert _report_attempts(result) == expected
    starts = result.of_type("attempt_start")
    assert [(s["phase"], s["attempt"], s["model"]) for s in starts] == [e[:3] for e in expected]
    # no retry wait after the last primary attempt: the switch is immediate
    assert [w["attempt"] for w in result.of_type("retry_wait")] == list(range(1, n + 1))
    assert f"primary attempt {n + 1}/{n + 1}" in result.stderr
    assert "failover -> openai:backup-model (attempt 1/2)" in result.stderr


@pytest.mark.parametrize("console_script", [False, True], ids=["in_process", "console_script"])
def test_everything_fails_exit_3_nothing_written(tmp_path, fake, console_script):
    fake.default = status(500)
    result = run_compact(
        tmp_path, fake, max_retries=1, failover_retries=2, console_script=console_script
    )
    _assert_failure(result)
    assert len(fake.requests) == 4
    assert models_of(fake.requests) == {"primary-model": 2, "backup-model": 2}
    assert result.summaries() == [
        ("primary", 1, PRIMARY, False),
        ("primary", 2, PRIMARY, False),
        ("failover", 1, BACKUP, False),
        ("failover", 2, BACKUP, False),
    ]
    waits = result.of_type("retry_wait")
    assert [(w["phase"], w["attempt"]) for w in waits] == [("primary", 1), ("failover", 1)]
    # the live view shows every attempt and the switch, then one error line, no traceback
    assert "Traceback" not in result.stderr
    assert "primary attempt 2/2 · openai:primary-model failed" in result.stderr
    assert "failover -> openai:backup-model (attempt 1/2)" in result.stderr
    assert "failover attempt 2/2 · openai:backup-model failed" in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("compact: summarization failed: exceeds max failover attempts:")
    assert "HTTP 500" in last


def test_hang_times_out_then_retry_succeeds(tmp_path, fake):
    fake.enqueue(hang(), reply(SUMMARY))
    result = run_compact(tmp_path, fake, max_retries=2)
    _assert_success(result)
    assert len(fake.requests) == 2
    assert result.elapsed >= 2.0
    assert result.summaries() == [
        ("primary", 1, PRIMARY, False),
        ("primary", 2, PRIMARY, True),
    ]
    error = result.of_type("generate_summary")[0]["error"]
    assert "timed out after 2.0s" in error["message"]
    assert "timed out after 2.0s" in result.report["attempts"][0]["error"]
    assert "primary attempt 1/3 · openai:primary-model failed" in result.stderr
    assert "timed out" in result.stderr


def test_malformed_body_then_success(tmp_path, fake):
    fake.enqueue(raw('{"choices": [ not json'), reply(SUMMARY))
    result = run_compact(tmp_path, fake, max_retries=2)
    _assert_success(result)
    assert len(fake.requests) == 2
    assert result.summaries() == [
        ("primary", 1, PRIMARY, False),
        ("primary", 2, PRIMARY, True),
    ]
    assert _report_attempts(result)[0] == ("primary", 1, PRIMARY, False)
    assert "malformed response" in result.of_type("generate_summary")[0]["error"]["message"]
    assert "primary attempt 1/3" in result.stderr
    assert "malformed response" in result.stderr


def test_empty_content_then_success(tmp_path, fake):
    fake.enqueue(reply(""), reply(SUMMARY))
    result = run_compact(tmp_path, fake, max_retries=2)
    _assert_success(result)
    assert len(fake.requests) == 2
    assert result.summaries() == [
        ("primary", 1, PRIMARY, False),
        ("primary", 2, PRIMARY, True),
    ]
    assert "empty response" in result.of_type("generate_summary")[0]["error"]["message"]
    assert "primary attempt 1/3" in result.stderr
    assert "empty response" in result.stderr


def test_empty_choices_then_success(tmp_path, fake):
    fake.enqueue(empty_choices(), reply(SUMMARY))
    result = run_compact(tmp_path, fake, max_retries=2)
    _assert_success(result)
    assert len(fake.requests) == 2
    assert result.summaries()[0] == ("primary", 1, PRIMARY, False)


def test_401_is_not_retried_exit_3(tmp_path, fake):
    fake.enqueue(status(401), reply(SUMMARY), reply(SUMMARY))
    result = run_compact(tmp_path, fake, max_retries=3)
    _assert_failure(result)
    assert len(fake.requests) == 1
    assert models_of(fake.requests) == {"primary-model": 1}
    assert result.summaries() == [("primary", 1, PRIMARY, False)]
    assert result.of_type("retry_wait") == []
    assert "Traceback" not in result.stderr
    assert "HTTP 401" in result.stderr
    assert "waiting" not in result.stderr
    assert len(fake.pending) == 2
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("compact: ")
    assert "HTTP 401" in last


def test_401_skips_primary_retries_but_fails_over(tmp_path, fake):
    # An auth error is not retried on the same model, but a failover model (which may use other
    # credentials or another server) is still tried.
    fake.enqueue(status(401), reply(SUMMARY))
    result = run_compact(tmp_path, fake, max_retries=3, failover_retries=2)
    _assert_success(result)
    assert models_of(fake.requests) == {"primary-model": 1, "backup-model": 1}
    assert result.summaries() == [
        ("primary", 1, PRIMARY, False),
        ("failover", 1, BACKUP, True),
    ]
    assert result.of_type("retry_wait") == []
    assert "failover -> openai:backup-model (attempt 1/2)" in result.stderr


def test_context_window_exceeded_is_not_retried_but_fails_over(tmp_path, fake):
    # The fake's context window (max_context_tokens) refuses the coding session like OpenAI
    # does: HTTP 400 context_length_exceeded. Retrying the same input cannot help; the backup
    # model (same window here) is tried once, then exit 3 with nothing written.
    fake.max_context_tokens = 100
    try:
        result = run_compact(tmp_path, fake, max_retries=2, failover_retries=1)
    finally:
        fake.max_context_tokens = None
    _assert_failure(result)
    assert models_of(fake.requests) == {"primary-model": 1, "backup-model": 1}
    assert result.summaries() == [
        ("primary", 1, PRIMARY, False),
        ("failover", 1, BACKUP, False),
    ]
    for event in result.of_type("generate_summary"):
        assert (event["error"]["kind"], event["error"]["transient"]) == ("context_length", False)
        assert "maximum context length is 100 tokens" in event["error"]["message"]
    assert result.of_type("retry_wait") == []
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("compact: summarization failed: exceeds max failover attempts: ")
    assert "context length" in last
