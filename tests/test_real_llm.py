"""``compact run`` against a REAL OpenAI-compatible server (opt-in: ``make test-real-llm``).

``scripts/real_llm.sh`` builds llama-cpp-python, serves SmolLM2-135M-Instruct with ``--n_ctx 2048``
and runs this file with ``REAL_LLM_BASE_URL`` set; without it every test here is skipped. The model
is tiny, so only the structure of the result is checked, never its wording.

Issue 18's three cases use the shared transcripts (``../shared/transcripts``; skipped when they
are not beside the checkout): the tau-bench file (tool calls, which this server's schema refuses
as structured messages), and a Claude Code session with tool calls summarized in chunks, once
with ``context_tokens: 2048`` and once without it (the server's own context-length error is
re-planned). Replies are capped at 256 tokens so the whole run stays short on two cores.

SmolLM2-135M often never closes its reply: it writes the nine sections on and on until the cap
(``finish_reason: "length"``), whatever it is asked, for some inputs and not for others (the
same chunk, rendered a little differently by a newer reader, flips). compact asks again for a
shorter summary, hands a cut reply on as the running summary of an intermediate chunk, and never
takes one as the summary: so the configs end the ladder with ``fallback: local``, and the tests
check that the server was asked for every part and that any failure besides the expected
refusals is such a cut. ``loop_guard: false``: a forced compaction of the 5-message sample grows
it (the preamble and the user block), which is not what these tests are about.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from compactor.prompts import PREAMBLE
from compactor.testing.fake_openai import FakeOpenAI

from .conftest import shared_file
from .fake_server_cli import compact_exe

pytestmark = [
    pytest.mark.real_llm,
    # a 135M model on two CPU cores: one run may take minutes (the run's own limit is 900 s)
    pytest.mark.timeout(1200),
    pytest.mark.skipif(
        not os.environ.get("REAL_LLM_BASE_URL"),
        reason="REAL_LLM_BASE_URL is not set (run: bash scripts/real_llm.sh)",
    ),
]

REPO = Path(__file__).resolve().parents[1]
SMALL = REPO / "sample_transcripts" / "small-chat.jsonl"
TAU = "openai-chat/tau-bench-gpt4o-airline-task48-trial1-small.jsonl"
CLAUDE = "claude-code/raze-grant-session.jsonl"  # 7 messages, 3 tool calls, ~3,000 real tokens
KEY = "sk-real-llm-local"


@pytest.fixture
def base_url() -> str:
    return os.environ["REAL_LLM_BASE_URL"].rstrip("/")


def _config(tmp_path: Path, base_url: str, context_tokens: int | None = None) -> Path:
    cfg = tmp_path / "real.yaml"
    window = f"  context_tokens: {context_tokens}\n" if context_tokens else ""
    cfg.write_text(
        "model:\n"
        "  provider: openai\n"
        "  name: smollm2-135m-instruct\n"
        f"  base_url: {base_url}\n"
        "  timeout: 300\n"
        f"{window}"
        # a 135M model rambles: stop at the closing tag, damp repetition, keep replies short
        "  options:\n"
        "    temperature: 0\n"
        "    max_tokens: 256\n"
        '    stop: ["</summary>"]\n'
        "    extra_body: {repeat_penalty: 1.3}\n"
        "fallback: local\n"
        "loop_guard: false\n",
        encoding="utf-8",
    )
    return cfg


class Ran:
    """One ``compact run --force`` of a copy of ``source`` and what it left."""

    def __init__(self, tmp_path: Path, base_url: str, source: Path, context: int | None) -> None:
        self.src = tmp_path / source.name
        shutil.copy(source, self.src)
        self.before = self.src.read_bytes()
        self.out = tmp_path / "out.jsonl"
        self.rep = tmp_path / "rep.json"
        env = dict(os.environ)
        env["OPENAI_API_KEY"] = KEY
        env.pop("OPENAI_BASE_URL", None)
        self.proc = subprocess.run(
            [
                compact_exe(),
                "run",
                "-c",
                str(_config(tmp_path, base_url, context)),
                str(self.src),
                "-o",
                str(self.out),
                "--report",
                str(self.rep),
                "--force",
            ],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            env=env,
            timeout=900,
            check=False,
        )

    @property
    def report(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.rep.read_text(encoding="utf-8"))
        return data

    def check_output(self) -> dict[str, Any]:
        """Exit 0, input untouched, no key anywhere, and an output that reads back as a
        transcript in the input's format (``compact check --json``)."""
        assert self.proc.returncode == 0, self.proc.stderr
        assert self.src.read_bytes() == self.before
        assert KEY not in self.proc.stdout + self.proc.stderr + self.rep.read_text("utf-8")
        check = subprocess.run(
            [compact_exe(), "check", "--json", str(self.src), str(self.out)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert check.returncode in (0, 1), check.stderr
        source, output = (json.loads(line) for line in check.stdout.splitlines())
        assert isinstance(output, dict)
        assert output["format"] == source["format"]
        assert 0 < output["messages"] <= source["messages"]
        assert PREAMBLE in self.out.read_text(encoding="utf-8")
        return output


def _only_cut_replies(failed: list[str], report: dict[str, Any]) -> None:
    """Any failed call (after the expected refusals) is a reply cut at the token limit, and a
    summary written by the fallback means a reply the server never closed."""
    assert all("finish_reason 'length'" in error for error in failed), failed
    if failed:
        assert report.get("shorter_summary_requests", 0) >= 1
    if report["degraded"]:
        assert failed


def test_real_server_summarizes_a_small_transcript(tmp_path, base_url):
    ran = Ran(tmp_path, base_url, SMALL, None)
    ran.check_output()
    lines = [json.loads(line) for line in ran.out.read_text(encoding="utf-8").splitlines()]
    assert lines[-1]["role"] == "user"
    attempts = ran.report["attempts"]
    assert attempts[0]["phase"] == "primary"  # the server was asked
    _only_cut_replies([a["error"] for a in attempts if not a["ok"]], ran.report)


def _post(base_url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        f"{base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as err:
        return err.code, json.load(err)


CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
REFUSED = [
    # an assistant turn of tool calls only (content: null), as compact sent them before issue 18
    [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "c1", "content": "r"},
    ],
    [{"role": "developer", "content": "x"}, {"role": "tool", "content": "r"}],
    [{"role": "user", "content": 5}],
    # malformed tool calls: each item is validated too
    [{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function"}]}],
    [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [5, {"id": 7, "type": "x", "function": {"name": "f"}}],
        }
    ],
    [{"role": "assistant", "content": "", "tool_calls": "x"}],
]


def test_the_fake_refuses_messages_exactly_as_the_real_server_does(base_url):
    """The llama-cpp flavor of the fake answers what llama-cpp-python's server answers: same
    status, same body (its trace's file path aside), for every refusal and a context overflow."""
    with FakeOpenAI(flavor="llama-cpp", max_context_tokens=2048) as fake:
        cases = [{"model": "m", "messages": m, "max_tokens": 5} for m in REFUSED]
        for body in cases:
            real_status, real = _post(base_url, body)
            fake_status, fake_body = _post(fake.base_url, body)
            assert (real_status, fake_status) == (500, 500)
            assert (
                real["error"]["message"].split("\n\n  File")[0]
                == (fake_body["error"]["message"].split("\n\n  File")[0])
            )
            assert {k: v for k, v in real["error"].items() if k != "message"} == {
                k: v for k, v in fake_body["error"].items() if k != "message"
            }
        long = {"model": "m", "messages": [{"role": "user", "content": "word " * 3000}]}
        real_status, real = _post(base_url, long)
        fake_status, fake_body = _post(fake.base_url, long)
    assert (real_status, fake_status) == (400, 400)
    assert real["error"]["code"] == fake_body["error"]["code"] == "context_length_exceeded"
    assert real["error"]["message"].startswith("This model's maximum context length is 2048 tokens")
    assert re.search(r"\(\d+ in the messages, None in the completion\)", real["error"]["message"])


def test_tau_bench_tool_calls_go_through_as_a_transcript(tmp_path, base_url):
    ran = Ran(tmp_path, base_url, shared_file(TAU), None)
    ran.check_output()
    attempts = ran.report["attempts"]
    # the server's schema refused the structured tool calls (HTTP 500), once, not retried ...
    assert (attempts[0]["ok"], attempts[0].get("input_form")) == (False, None)
    assert "validation error" in attempts[0]["error"]
    # ... and the same call went at once as a transcript
    assert (attempts[1]["phase"], attempts[1]["attempt"]) == ("primary", 1)
    assert attempts[1]["input_form"] == "transcript"
    assert ran.report["input_forms"] == {"openai:smollm2-135m-instruct": "transcript"}
    _only_cut_replies([a["error"] for a in attempts[1:] if not a["ok"]], ran.report)


def test_claude_code_with_context_tokens_2048_is_summarized_in_chunks(tmp_path, base_url):
    ran = Ran(tmp_path, base_url, shared_file(CLAUDE), 2048)
    ran.check_output()
    report = ran.report
    chunks = len(report["chunks"])
    assert chunks >= 2
    _every_chunk_asked_the_server(report, chunks)
    failed = [a["error"] for a in report["attempts"] if not a["ok"]]
    assert "validation error" in failed[0]  # the structured form, once
    _only_cut_replies(failed[1:], report)  # no chunk was refused as too long


def test_claude_code_without_a_window_is_re_planned_from_the_servers_error(tmp_path, base_url):
    ran = Ran(tmp_path, base_url, shared_file(CLAUDE), None)
    ran.check_output()
    report = ran.report
    [adaptation] = report["context_adaptations"]
    assert adaptation["reported"] == 2048
    assert adaptation["scale"] > 1  # SmolLM2 counts more tokens than bytes/4
    assert len(report["chunks"]) >= 2
    _every_chunk_asked_the_server(report, len(report["chunks"]))
    failed = [a["error"] for a in report["attempts"] if not a["ok"]]
    assert "validation error" in failed[0]  # the structured form, once
    assert "maximum context length is 2048 tokens" in failed[1]  # the whole file, once
    _only_cut_replies(failed[2:], report)  # no chunk was refused again


def _every_chunk_asked_the_server(report: dict[str, Any], chunks: int) -> None:
    asked = {
        a.get("chunk")
        for a in report["attempts"]
        if a["phase"] == "primary" and a.get("input_form") == "transcript"
    }
    assert set(range(1, chunks + 1)) <= asked
