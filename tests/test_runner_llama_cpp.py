"""Issue 18, a run of a file against llama.cpp's server as the loopback fake plays it.

``FakeOpenAI(flavor="llama-cpp")`` answers as llama-cpp-python 0.3.36's server does (the bodies
are compared with the real server's in ``test_real_llm.py``): its schema refuses ``content:
null`` with HTTP 500 "N validation errors", a prompt of the window or more with its 400, and a
reply longer than the room left is cut (``finish_reason: "length"``). Each of the issue's five
points has a test here; the runs are in-process (:func:`compactor.runs.runner.run_file`), the last
test runs the console script once.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.formats.registry import read_transcript
from compactor.prompts import CONCISE_INSTRUCTION
from compactor.runs.runner import RunOptions, RunResult, run_file
from compactor.schema import user_text
from compactor.testing.fake_openai import FakeOpenAI, estimate_tokens, reply

from .conftest import shared_file
from .fake_server_cli import compact_exe

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_transcripts"
CODING = SAMPLES / "coding-session.jsonl"  # openai, 23 messages, assistant turns of tool calls
CLAUDE = SAMPLES / "claude-code-session.jsonl"  # claude-code, 31 messages, 13 tool calls
WEAK = "Here is the summary of your conversation:"  # the 11-token reply of the issue
GOOD = (
    "<summary>\n1. Primary Request and Intent: fix the failing invoice test.\n"
    "8. Current Work: running the tests again.\n</summary>"
)


@dataclass
class Ran:
    result: RunResult
    folder: Path
    src: Path
    src_bytes: bytes

    @property
    def out(self) -> Path:
        return self.folder / "out.jsonl"

    @property
    def report(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.folder / "rep.json").read_text("utf-8"))
        return data

    @property
    def events(self) -> list[dict[str, Any]]:
        lines = (self.folder / "ev.jsonl").read_text("utf-8").splitlines()
        return [json.loads(line) for line in lines]

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]

    def output_messages(self) -> list[Any]:
        t = read_transcript(str(self.out), self.out.read_bytes())
        return t.messages


def model(base_url: str, **more: Any) -> dict[str, Any]:
    return {"provider": "openai", "name": "smollm2", "base_url": base_url, "timeout": 5, **more}


def compact(
    folder: Path, source: Path, config: dict[str, Any], *, fallback: str | None = None
) -> Ran:
    folder.mkdir(parents=True, exist_ok=True)
    src = folder / source.name
    shutil.copy(source, src)
    cfg = folder / "compact.yaml"
    cfg.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    options = RunOptions(
        input=str(src),
        output=str(folder / "out.jsonl"),
        report=str(folder / "rep.json"),
        events=str(folder / "ev.jsonl"),
        config=str(cfg),
        force=True,
        fallback=fallback,
        transcript_path="none",
    )
    return Ran(run_file(options), folder, src, src.read_bytes())


def roles(request: Any) -> list[str]:
    return [m["role"] for m in request.json["messages"]]


# -- 1. tool calls: the transcript form after the server's schema refused the messages ----------


@pytest.mark.parametrize("tools", [True, False], ids=["llama-cpp", "no-tools"])
def test_tool_calls_go_through_as_a_transcript_after_a_schema_refusal(
    tmp_path: Path, tools: bool
) -> None:
    with FakeOpenAI(flavor="llama-cpp", tools=tools) as fake:
        fake.enqueue(reply(GOOD))
        config = {"model": model(fake.base_url), "retry": {"max_retries": 3, "initial_delay": 0}}
        ran = compact(tmp_path, CODING, config)
        assert ran.result.exit_code == 0, ran.result.error
        first, second = fake.requests  # the refusal is not retried as transient
        assert "tool" in roles(first) and any(
            m.get("content") is None for m in first.json["messages"]
        )
        assert roles(second) == ["system", "user"]
        assert "[tool call " in second.json["messages"][1]["content"]
        fake.assert_complete()
    attempts = [(a["attempt"], a["ok"], a.get("input_form")) for a in ran.report["attempts"]]
    assert attempts == [(1, False, None), (1, True, "transcript")]
    assert "validation errors" in ran.report["attempts"][0]["error"]
    assert ran.report["input_forms"] == {"openai:smollm2": "transcript"}
    assert not ran.of_type("retry_wait")
    assert ran.output_messages()[-1].role == "user"
    assert ran.src.read_bytes() == ran.src_bytes


def test_the_shared_tau_bench_file_goes_through_the_llama_cpp_fake(tmp_path: Path) -> None:
    tau = shared_file("openai-chat/tau-bench-gpt4o-airline-task48-trial1-small.jsonl")
    with FakeOpenAI(flavor="llama-cpp") as fake:
        ran = compact(tmp_path, tau, {"model": model(fake.base_url)})
        assert [roles(r) for r in fake.requests][1] == ["system", "user"]
    assert ran.result.exit_code == 0, ran.result.error
    assert [a["ok"] for a in ran.report["attempts"]] == [False, True]


def test_a_model_set_to_messages_fails_once_and_its_breaker_opens(tmp_path: Path) -> None:
    with FakeOpenAI(flavor="llama-cpp") as fake:
        config = {
            "model": model(fake.base_url, input="messages"),
            "retry": {"max_retries": 3, "initial_delay": 0},
        }
        ran = compact(tmp_path, CODING, config)
        assert len(fake.requests) == 1  # before: the 500 was retried three times
    assert ran.result.exit_code == 3
    assert "HTTP 500: 42 validation errors" in (ran.result.error or "")
    [breaker] = ran.report["circuit_breakers"]
    assert (breaker["model"], breaker["kind"]) == ("openai:smollm2", "validation")
    assert not ran.out.exists()


# -- 2. chunk planning that learns the server's tokenization -----------------------------------


def test_the_servers_own_count_scales_the_plan_so_no_chunk_is_refused_again(
    tmp_path: Path,
) -> None:
    # 2.5 server tokens per estimated token: the file counted 127,587 for 51,947
    with FakeOpenAI(flavor="llama-cpp", max_context_tokens=2048, token_scale=2.5) as fake:
        fake.default = reply(GOOD)
        ran = compact(tmp_path, CLAUDE, {"model": model(fake.base_url)})
        counts = [estimate_tokens(r.json, 2.5) for r in fake.requests]
    assert ran.result.exit_code == 0, ran.result.error
    [adaptation] = ran.report["context_adaptations"]
    assert adaptation["reported"] == 2048
    assert adaptation["scale"] == pytest.approx(2.5, rel=0.05)
    # the structured form (refused by the schema), the transcript (refused as too long), then
    # the chunks planned with the server's count: none is refused again
    assert counts[1] >= 2048
    assert all(n < 2048 for n in counts[2:]), counts
    assert len(ran.report["chunks"]) >= 3
    assert ran.report["token_scale"] == pytest.approx(2.5, rel=0.05)
    assert ran.output_messages()


# -- 3. a reply cut at the token limit is asked again, shorter ----------------------------------


def test_a_reply_cut_at_the_limit_is_asked_again_for_a_shorter_summary(tmp_path: Path) -> None:
    rambling = "<summary>\n" + "and then the assistant ran the tests again, " * 400
    with FakeOpenAI(flavor="llama-cpp", max_context_tokens=2048) as fake:
        fake.enqueue(reply(rambling))
        fake.default = reply(GOOD)
        config = {
            "model": model(fake.base_url, context_tokens=2048, input="transcript"),
            # the retries of a refused reply are what is tested, not their waits (20 s)
            "retry": {"initial_delay": 0},
        }
        ran = compact(tmp_path, CLAUDE, config)
        texts = [r.json["messages"][-1]["content"] for r in fake.requests]
    assert ran.result.exit_code == 0, ran.result.error
    [shorter] = ran.of_type("shorter_summary")
    assert shorter["words"] == 153  # half the first budget (0.6 words per reserved token: 512)
    assert ran.report["shorter_summary_requests"] == 1
    failed = [a for a in ran.report["attempts"] if not a["ok"]]
    assert len(failed) == 1 and "finish_reason 'length'" in failed[0]["error"]
    # a 2,048-token window: the concise instruction from the start, then half its budget
    assert texts[0].endswith(CONCISE_INSTRUCTION.format(words=307))
    assert all(text.endswith(CONCISE_INSTRUCTION.format(words=153)) for text in texts[1:])
    assert ran.report["attempts"][1]["ok"]


def test_a_window_of_1000_tokens_is_no_longer_refused(tmp_path: Path) -> None:
    with FakeOpenAI(flavor="llama-cpp", max_context_tokens=1000) as fake:
        fake.default = reply(GOOD)
        config = {"model": model(fake.base_url, context_tokens=1000, input="transcript")}
        ran = compact(tmp_path, CODING, config)
        counts = [estimate_tokens(r.json) for r in fake.requests]
    assert ran.result.exit_code == 0, ran.result.error
    assert len(ran.report["chunks"]) == len(counts) >= 2
    assert max(counts) < 1000


# -- 4. a dead primary is asked once, not once per chunk ----------------------------------------


def test_a_dead_primary_with_the_local_fallback_is_not_retried_per_chunk(tmp_path: Path) -> None:
    with FakeOpenAI() as gone:
        dead = gone.base_url  # nothing listens there any more: connection refused
    config = {
        "model": model(dead, context_tokens=1200),
        "retry": {"max_retries": 3, "initial_delay": 1.0},
    }
    started = time.monotonic()
    ran = compact(tmp_path, CLAUDE, config, fallback="local")
    elapsed = time.monotonic() - started
    assert ran.result.exit_code == 0, ran.result.error
    chunks = len(ran.report["chunks"])
    assert chunks == 7  # as in the issue
    calls = [(a["phase"], a["model"], a["ok"]) for a in ran.report["attempts"]]
    assert calls.count(("primary", "openai:smollm2", False)) == 1
    assert calls.count(("fallback", "local", True)) == chunks
    [breaker] = ran.report["circuit_breakers"]
    assert (breaker["kind"], breaker["skipped_calls"]) == ("connection", chunks - 1)
    assert len(ran.of_type("circuit_open")) == 1
    assert len(ran.of_type("model_skipped")) == chunks - 1
    assert not ran.of_type("retry_wait")  # no 1 s, 2 s, 4 s backoff per chunk
    assert ran.report["degraded"] is True
    assert elapsed < 20  # the issue measured 112 s for 7 chunks


# -- 5. replies of weak models ------------------------------------------------------------------


def test_a_weak_reply_still_carries_the_users_messages(tmp_path: Path) -> None:
    with FakeOpenAI(flavor="llama-cpp") as fake:
        fake.default = reply(WEAK)
        ran = compact(tmp_path, CODING, {"model": model(fake.base_url)})
    assert ran.result.exit_code == 0, ran.result.error
    text = user_text(ran.output_messages()[-1])
    assert WEAK in text
    assert "<all_user_messages>\n    - " in text  # the default config: ensure_user_messages


def test_summary_check_turns_a_weak_reply_into_a_failed_attempt(tmp_path: Path) -> None:
    with FakeOpenAI(flavor="llama-cpp") as fake:
        fake.enqueue(reply(WEAK), reply(GOOD))
        config = {
            "model": model(fake.base_url, input="transcript"),
            "retry": {"max_retries": 1, "initial_delay": 0},
            "summary_check": {"min_tokens": 20, "require_sections": True},
        }
        ran = compact(tmp_path, CODING, config)
        fake.assert_complete()
    assert ran.result.exit_code == 0, ran.result.error
    first, second = ran.report["attempts"]
    assert not first["ok"] and "summary_check.min_tokens (20)" in first["error"]
    assert second["ok"] and second["attempt"] == 2
    assert "fix the failing invoice test" in user_text(ran.output_messages()[-1])


# -- the console script, once -------------------------------------------------------------------


def test_compact_run_through_the_llama_cpp_fake(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    with FakeOpenAI(flavor="llama-cpp") as fake:
        cfg = tmp_path / "c.yaml"
        cfg.write_text(yaml.safe_dump({"model": model(fake.base_url)}), encoding="utf-8")
        proc = subprocess.run(
            [
                compact_exe(),
                "run",
                "-c",
                str(cfg),
                str(src),
                "-o",
                str(tmp_path / "o.jsonl"),
                "--force",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
        )
    assert proc.returncode == 0, proc.stderr
    assert "refused structured messages" in proc.stderr
    assert "sending the conversation as a transcript from now on" in proc.stderr


# -- issue 27 point 20: a reply longer than its chunk --------------------------------------------

LONG_REPLY = "<summary>\n" + "the assistant read the file and ran the tests, " * 85 + "\n</summary>"


@pytest.mark.parametrize("flavor", ["openai", "llama-cpp"])
def test_a_chunk_no_reply_summarizes_shorter_is_kept_as_written(
    tmp_path: Path, flavor: str
) -> None:
    """A small server (``context_tokens: 2048``) that always answers ~1,000 tokens, longer
    than any chunk's whole prompt: every chunk request asks for at most the chunk's size
    (``max_tokens``, below the whole prompt); a server that ignores it (``openai``) has the
    reply refused as too long, one that honors it (``llama-cpp``) cuts the reply; either way
    the run exits 0 with each such chunk kept as its rendered text in the summary, and the
    report names those chunks (main: exit 3, "reply too long", every retry repeating it)."""
    with FakeOpenAI(flavor=flavor, max_context_tokens=2048) as fake:
        fake.default = reply(LONG_REPLY)
        config = {
            "model": model(fake.base_url, context_tokens=2048, input="transcript"),
            # the retries of a refused reply are what is tested, not their waits (20 s)
            "retry": {"initial_delay": 0},
        }
        ran = compact(tmp_path, CLAUDE, config)
        requests = list(fake.requests)
        args = ["run", "-c", str(tmp_path / "compact.yaml"), str(ran.src), "--force"]
        said = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "again.jsonl")])
    assert ran.result.exit_code == 0, ran.result.error
    assert said.exit_code == 0, said.output
    listed = ", ".join(str(i) for i in ran.report["verbatim_chunks"])
    assert f"{listed} kept as written: no summary of them was shorter" in said.output
    caps = [r.json.get("max_tokens") for r in requests]
    assert all(
        isinstance(cap, int) and 0 < cap < estimate_tokens(r.json)
        for cap, r in zip(caps, requests, strict=True)
    ), caps
    report = ran.report
    kept = report["verbatim_chunks"]
    assert kept and kept == [r["index"] for r in report["chunks"] if r.get("kept_verbatim")]
    assert kept[-1] == len(report["chunks"])  # the last chunk too (its reply is the summary)
    summary = user_text(ran.output_messages()[-1])
    for index in kept:
        assert f"Part {index} of the conversation, kept as written" in summary
    assert "The limit is per worker process (no Redis, as asked)." in summary  # the last part
    if flavor == "openai":
        refused = [a["error"] for a in report["attempts"] if not a["ok"]]
        assert refused and all("reply too long" in e for e in refused)
        assert "more than the part of the conversation it replaces" in refused[0]
