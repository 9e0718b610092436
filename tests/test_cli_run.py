"""Issue 7, through the real command line: chunking, the ladder and loop guard, the verbatim
tail, secret masking, ``check --explain``, the summary cache, the retention check, the fraction
trigger and ``strip_analysis``.

Every test runs ``compact`` in-process (typer's CliRunner, in the test's folder), with the fake
OpenAI server on 127.0.0.1 where a model is involved, and checks exit codes, the output, the
report, the events and what the server saw. The console script itself is exercised by the other
CLI modules' subprocess tests.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from compactor.formats.registry import read_transcript
from compactor.prompts import DEGRADED_NOTE, PREAMBLE
from compactor.schema import user_text
from compactor.testing.fake_openai import FakeOpenAI, reply, status

from .fake_server_cli import Finished, invoke

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_transcripts"
CODING = SAMPLES / "coding-session.jsonl"  # 23 messages, 998 tokens
LONG = SAMPLES / "coding-session-long.jsonl"  # 116 messages, 241,361 tokens
KEY = "sk-test-PLANTED-beyond-0001"


@dataclass
class Result(Finished):
    """A finished ``compact`` run in ``tmp`` (report.json, events.jsonl and out.jsonl there)."""

    tmp: Path = Path()

    @property
    def out(self) -> Path:
        return self.tmp / "out.jsonl"


def compact(
    tmp: Path, *args: str, config: dict[str, Any] | None = None, env: dict[str, str] | None = None
) -> Result:
    """Run ``compact ARGS`` in ``tmp`` (with ``-c tmp/compact.yaml`` when ``config`` is given)."""
    argv = list(args)
    if config is not None:
        cfg = tmp / "compact.yaml"
        cfg.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        argv[1:1] = ["-c", str(cfg)]
    full_env = {"COLUMNS": "100", "NO_COLOR": "1", "XDG_CACHE_HOME": str(tmp / "xdg")}
    full_env.update(env or {})
    proc = invoke(argv, env=full_env, cwd=tmp)
    return Result(proc, tmp / "events.jsonl", tmp / "report.json", tmp=tmp)


def run_args(src: Path, *extra: str) -> tuple[str, ...]:
    return ("run", str(src), "-o", "out.jsonl", "--report", "report.json", *extra)


def assistant_steps(pad: str, count: int = 10) -> list[dict[str, str]]:
    """``count`` long assistant messages (``Step i. PAD``): a history worth compacting."""
    return [{"role": "assistant", "content": f"Step {i}. {pad}"} for i in range(count)]


def local_chat_run(tmp: Path, messages: list[dict[str, str]]) -> Result:
    """``messages`` written as the chat ``tmp/chat.jsonl`` (UTF-8, non-ASCII as it is) and
    compacted by the embedded summarizer, forced and without the cache, into ``tmp/out.jsonl``:
    the finished run, checked to have succeeded."""
    src = tmp / "chat.jsonl"
    src.write_text("".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages), "utf-8")
    res = compact(tmp, *run_args(src, "--model", "local", "--force", "--no-cache"))
    assert res.proc.returncode == 0, res.proc.stderr
    return res


def first_content(out: Path) -> str:
    """The ``content`` of the first record of a chat output (its summary)."""
    return str(json.loads(out.read_text(encoding="utf-8").splitlines()[0])["content"])


def openai_model(fake: FakeOpenAI, name: str = "primary-model", **more: Any) -> dict[str, Any]:
    return {"provider": "openai", "name": name, "base_url": fake.base_url, "timeout": 5, **more}


@pytest.fixture
def key_env(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return {"OPENAI_API_KEY": KEY}


def _messages(path: Path) -> list[Any]:
    return read_transcript(str(path), path.read_bytes()).messages


def _request_text(fake: FakeOpenAI) -> str:
    return "\n".join(json.dumps(r.json) for r in fake.requests)


def _assert_no_key(res: Result, fake: FakeOpenAI | None = None) -> None:
    for path in res.tmp.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".jsonl"):
            assert KEY not in path.read_text("utf-8", "replace"), path
    assert KEY not in res.stdout + res.stderr
    if fake is not None:
        assert KEY not in _request_text(fake)


# -- 1. overflow-safe chunked summarization -----------------------------------------------------


def _tool_links(messages: list[Any]) -> list[tuple[int, int]]:
    calls = {c.id: i for i, m in enumerate(messages) for c in m.tool_calls}
    return [
        (calls[m.tool_call_id], i)
        for i, m in enumerate(messages)
        if m.role == "tool" and m.tool_call_id in calls
    ]


def test_a_context_length_error_re_plans_the_input_in_chunks(tmp_path, fake, key_env):
    fake.max_context_tokens = 40_000
    src = tmp_path / "long.jsonl"
    shutil.copy(LONG, src)
    res = compact(
        tmp_path,
        *run_args(src, "--events", "events.jsonl"),
        config={"model": openai_model(fake)},  # no context_tokens: the server's error tells
        env=key_env,
    )
    assert res.code == 0, res.stderr
    # 80 % of the window after the reply reserve (4,096); the fake counts as compact does
    [adaptation] = res.report["context_adaptations"]
    assert (adaptation["reported"], adaptation["planned_with"]) == (40_000, 28_723)
    assert 0.9 < adaptation["scale"] < 1.1
    assert "re-planning in chunks of at most 28,723 tokens" in res.stderr
    chunks = res.report["chunks"]
    assert len(fake.requests) == 1 + len(chunks)  # the refused request, then one per chunk
    assert all(c["input_tokens"] <= 28_723 for c in chunks)
    attempts = res.report["attempts"]
    assert attempts[0]["ok"] is False and "context" in attempts[0]["error"]
    assert all(a["ok"] for a in attempts[1:])
    assert [e["type"] for e in res.events].count("context_limit") == 1


def test_a_window_too_small_for_the_instructions_fails_cleanly(tmp_path, fake, key_env):
    fake.max_context_tokens = 600  # smaller than the built-in instructions
    src = tmp_path / "long.jsonl"
    shutil.copy(LONG, src)
    before = src.read_bytes()
    res = compact(tmp_path, *run_args(src), config={"model": openai_model(fake)}, env=key_env)
    assert res.code == 3, res.stderr
    assert "leaves no room for messages" in res.stderr
    assert not res.out.exists()
    assert src.read_bytes() == before


def test_chunked_summarization_fits_the_window_and_never_splits_a_tool_pair(
    tmp_path, fake, key_env
):
    fake.max_context_tokens = 40_000
    src = tmp_path / "long.jsonl"
    shutil.copy(LONG, src)
    config = {"model": openai_model(fake, context_tokens=40_000)}
    res = compact(tmp_path, *run_args(src, "--events", "events.jsonl"), config=config, env=key_env)
    assert res.code == 0, res.stderr
    chunks = res.report["chunks"]
    assert len(chunks) >= 6  # 241k tokens through a 40k window
    assert len(fake.requests) == len(chunks)  # one call per chunk, none refused
    messages = _messages(src)
    # contiguous, in order, covering everything after the system prompt
    assert chunks[0]["start"] == 1
    assert chunks[-1]["end"] == len(messages)
    for a, b in itertools.pairwise(chunks):
        assert a["end"] == b["start"]
    cuts = {c["start"] for c in chunks[1:]}
    for call, result in _tool_links(messages):
        assert not any(call < cut <= result for cut in cuts), (call, result, cuts)
    for chunk in chunks:
        assert messages[chunk["start"]].role != "tool"
        assert chunk["input_tokens"] <= 40_000
    # chunk 2 onwards gets the running summary
    second = json.dumps(fake.requests[1].json)
    assert "previous_summary" in second
    assert "previous_summary" not in json.dumps(fake.requests[0].json)
    starts = [e for e in res.events if e["type"] == "chunk_start"]
    assert [(e["start"], e["end"]) for e in starts] == [(c["start"], c["end"]) for c in chunks]
    assert {e.get("chunk") for e in res.events if e["type"] == "generate_summary"} == set(
        range(1, len(chunks) + 1)
    )
    out = _messages(res.out)
    assert [m.role for m in out] == ["system", "user"]
    assert user_text(out[-1]).startswith(PREAMBLE)
    _assert_no_key(res, fake)


# -- 2. degradation ladder and loop guard ---------------------------------------------------------


def test_ladder_ends_on_the_embedded_summarizer(tmp_path, fake, key_env):
    fake.default = status(500)
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    config = {
        "model": openai_model(fake),
        "retry": {"max_retries": 1, "initial_delay": 0, "max_delay": 0},
        "failover": {"max_retries": 1, "models": [openai_model(fake, "backup-model")]},
        "fallback": "local",
    }
    res = compact(tmp_path, *run_args(src, "--force"), config=config, env=key_env)
    assert res.code == 0, res.stderr
    assert len(fake.requests) == 3  # 2 primary + 1 failover, then the local fallback
    rep = res.report
    assert rep["degraded"] is True
    assert rep["summarizer_phase"] == "fallback"
    assert [(a["phase"], a["ok"]) for a in rep["attempts"]] == [
        ("primary", False),
        ("primary", False),
        ("failover", False),
        ("fallback", True),
    ]
    assert rep["attempts"][-1]["model"] == "local"
    assert "DEGRADED" in res.stderr
    summary = user_text(_messages(res.out)[-1])
    assert DEGRADED_NOTE in summary
    _assert_no_key(res, fake)


def test_a_failover_chain_ending_on_local_is_degraded_like_fallback_local(tmp_path, fake):
    """configs/failover.yaml falls to ``provider: local`` as its last failover model: the run
    is degraded exactly as with ``fallback: local`` (report, DEGRADED line, note in the summary)."""
    fake.default = status(400)  # permanent: no retry, straight to the failover chain
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": fake.base_url}
    res = compact(
        tmp_path, "run", "-c", str(REPO / "configs" / "failover.yaml"), str(src), "-o",
        "out.jsonl", "--report", "report.json", "--force", env=env,
    )  # fmt: skip
    assert res.code == 0, res.stderr
    rep = res.report
    assert [(a["phase"], a["model"], a["ok"]) for a in rep["attempts"]] == [
        ("primary", "openai:gpt-4o-mini", False),
        ("failover", "openai:gpt-4.1-mini", False),
        ("failover", "anthropic:claude-sonnet-4-5", False),  # no key: skipped at once
        ("failover", "local", True),
    ]
    assert (rep["summarizer_phase"], rep["degraded"]) == ("failover", True)
    assert "DEGRADED" in res.stderr
    assert DEGRADED_NOTE in user_text(_messages(res.out)[-1])
    # the same chain that ends on a remote model is not degraded
    fake.enqueue(status(400), reply("<summary>\nfrom the backup\n</summary>"))
    fake.default = status(400)
    again = compact(
        tmp_path, "run", "-c", str(REPO / "configs" / "failover.yaml"), str(src), "-o",
        "out.jsonl", "--report", "report.json", "--force", "--no-cache", env=env,
    )  # fmt: skip
    assert again.code == 0, again.stderr
    assert (again.report["summarizer_phase"], again.report["degraded"]) == ("failover", False)
    assert "DEGRADED" not in again.stderr


def test_without_the_ladder_the_same_failure_exits_3(tmp_path, fake, key_env):
    fake.default = status(500)
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    res = compact(
        tmp_path, *run_args(src, "--force"), config={"model": openai_model(fake)}, env=key_env
    )
    assert res.code == 3
    assert "failed to call openai model 'primary-model': HTTP 500" in res.stderr
    assert res.stderr.endswith("; nothing was written\n")
    assert not res.out.exists()


def test_loop_guard_refuses_a_result_that_would_trigger_again(tmp_path):
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    before = src.read_bytes()
    # 998 tokens > 500: triggered; the local summary of so small a session is not smaller.
    config = {"model": {"provider": "local"}, "trigger": {"context_tokens": 500}}
    res = compact(tmp_path, *run_args(src), config=config)
    assert res.code == 4, res.stderr
    assert "loop guard" in res.stderr
    assert "nothing was written" in res.stderr
    assert not res.out.exists()
    assert res.report["exit_code"] == 4 and res.report["written"] == {}
    assert src.read_bytes() == before
    # turned off, the same run writes its (bigger) result
    config["loop_guard"] = False
    res = compact(tmp_path, *run_args(src), config=config)
    assert res.code == 0, res.stderr
    assert res.report["tokens_after"] > res.report["tokens_before"] * 0.5
    assert "loop_guard" not in res.report


def test_loop_guard_passes_a_real_shrink_and_reports_it(tmp_path):
    src = tmp_path / "long.jsonl"
    shutil.copy(LONG, src)
    res = compact(tmp_path, *run_args(src), config={"model": {"provider": "local"}})
    assert res.code == 0, res.stderr
    guard = res.report["loop_guard"]
    assert guard["max_ratio"] == 0.5
    assert guard["tokens_after"] < 0.5 * guard["tokens_before"]


# -- 3. verbatim tail ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "keep", [{"messages": 1}, {"messages": 2}, {"messages": 5}, {"tokens": 300}]
)
def test_tail_is_kept_verbatim_and_never_starts_on_a_tool_result(tmp_path, keep):
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    config = {"model": {"provider": "local"}, "keep": keep, "loop_guard": False}
    res = compact(tmp_path, *run_args(src, "--force"), config=config)
    assert res.code == 0, res.stderr
    original = _messages(src)
    out = _messages(res.out)
    n_tail = res.report["tail_messages"]
    assert out[0].role == "system"
    assert user_text(out[1]).startswith(PREAMBLE)
    assert len(out) == 2 + n_tail
    if n_tail:
        assert out[2:] == original[-n_tail:]
        assert out[2].role != "tool"
        tail_calls = {c.id for m in out[2:] for c in m.tool_calls}
        for m in out[2:]:
            if m.role == "tool":
                assert m.tool_call_id in tail_calls
    if "messages" in keep:
        assert n_tail <= keep["messages"]
    # the raw lines of the tail are the input's own lines
    src_lines = src.read_text("utf-8").splitlines()
    out_lines = res.out.read_text("utf-8").splitlines()
    if n_tail:
        assert out_lines[-n_tail:] == src_lines[-n_tail:]


# -- 4. secret masking --------------------------------------------------------------------------

SECRETS = {
    "api_key": "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd",
    "aws": "AKIAIOSFODNN7EXAMPLE",
    "github": "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
    "bearer": "eyJfakebearertokenvalue0123456789abcdefXYZ",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
    "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "url_password": "hunter2-db-Pa55",
    "password": "CorrectHorseBattery9",
    "custom": "ACME-7f3a9c1e5b2d4f60",
}
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7V9QbQ1hJm0n2z3Yx0Zq8xXb2r1c4d5e6f7g8h9i0j\n"
    "kLmNoPqRsTuVwXyZaBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789abcdef\n-----END RSA PRIVATE KEY-----"
)


def _secret_transcript(path: Path) -> None:
    s = SECRETS
    records = [
        {"role": "system", "content": "You are a deploy agent."},
        {"role": "user", "content": f"Deploy with OPENAI_API_KEY={s['api_key']} please."},
        {
            "role": "assistant",
            "content": "Checking the config.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {
                        "name": "run",
                        "arguments": json.dumps(
                            {
                                "cmd": f"curl -H 'Authorization: Bearer {s['bearer']}' "
                                f"https://ci:{s['url_password']}@db.example.com/x"
                            }
                        ),
                    },
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": f"aws_access_key_id = {s['aws']}\ntoken: {s['jwt']}\n{PEM}\n"
            f"password={s['password']}\nGITHUB_TOKEN={s['github']}\nacme: {s['custom']}",
        },
        {"role": "assistant", "content": "Deployed."},
        {"role": "user", "content": f"Also rotate {s['github']} and the key {s['custom']}."},
        {"role": "assistant", "content": "Rotated."},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_masking_hides_every_secret_kind_from_the_summarizer(tmp_path, fake, key_env):
    src = tmp_path / "secrets.jsonl"
    _secret_transcript(src)
    config = {
        "model": openai_model(fake),
        "mask_secrets": {"patterns": [{"name": "acme_token", "regex": r"ACME-[0-9a-f]{16}"}]},
    }
    res = compact(tmp_path, *run_args(src, "--force"), config=config, env=key_env)
    assert res.code == 0, res.stderr
    sent = _request_text(fake)
    for name, value in SECRETS.items():
        assert value not in sent, name
    assert "PRIVATE KEY-----\\nMII" not in sent and "MIIEowIBAAKCAQEA" not in sent
    assert "[REDACTED:" in sent
    masked = res.report["masked_secrets"]
    for kind in (
        "api_key",
        "bearer_token",
        "private_key",
        "url_password",
        "jwt",
        "password",
        "acme_token",
    ):
        assert masked.get(kind, 0) >= 1, (kind, masked)
    report_text = json.dumps(res.report)
    for value in SECRETS.values():
        assert value not in report_text
    # the user's own words are re-inserted masked: the summary never carries a secret
    summary = user_text(_messages(res.out)[-1])
    for value in SECRETS.values():
        assert value not in summary
    _assert_no_key(res, fake)


def test_masking_is_off_by_default_for_the_local_model(tmp_path):
    src = tmp_path / "secrets.jsonl"
    _secret_transcript(src)
    # a transcript of a few lines: a forced compaction grows it (no loop_guard.max_growth here)
    local = {"model": {"provider": "local"}, "loop_guard": False}
    res = compact(tmp_path, *run_args(src, "--force"), config=local)
    assert res.code == 0, res.stderr
    assert "masked_secrets" not in res.report
    on = compact(tmp_path, *run_args(src, "--force"), config={**local, "mask_secrets": True})
    assert on.code == 0, on.stderr
    assert on.report["masked_secrets"]["api_key"] >= 1
    summary = user_text(_messages(on.out)[-1])
    assert SECRETS["api_key"] not in summary


# -- 6. content-addressed summary cache ---------------------------------------------------------


def test_cache_hit_makes_no_request_and_gives_the_same_bytes(tmp_path, fake, key_env):
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    config = {
        "model": openai_model(fake),
        "cache": {"dir": str(tmp_path / "cache")},
        "retry": {"max_retries": 0},  # one request per run, so the counts below say which ran
    }
    first = compact(tmp_path, *run_args(src, "--force"), config=config, env=key_env)
    assert first.code == 0, first.stderr
    assert len(fake.requests) == 1
    assert first.report["cache"]["misses"] == 1
    first_bytes = first.out.read_bytes()
    fake.default = status(500)  # a second request would fail the run
    second = compact(
        tmp_path, *run_args(src, "--force", "--events", "events.jsonl"), config=config, env=key_env
    )
    assert second.code == 0, second.stderr
    assert len(fake.requests) == 1
    assert second.out.read_bytes() == first_bytes
    assert second.report["cache"]["hits"] == 1
    assert second.report["attempts"][0]["ok"] is True
    assert [e.get("cached") for e in second.events if e["type"] == "generate_summary"] == [True]
    entries = list((tmp_path / "cache").rglob("*.json"))
    assert len(entries) == 1
    assert KEY not in entries[0].read_text("utf-8")
    # --no-cache asks the model again (and now fails, proving the request was made)
    third = compact(tmp_path, *run_args(src, "--force", "--no-cache"), config=config, env=key_env)
    assert third.code == 3
    assert "failed to call openai model 'primary-model': HTTP 500" in third.stderr
    assert len(fake.requests) == 2
    # a changed transcript is a different key
    fake.default = reply("<summary>\nother\n</summary>")
    src.write_text(src.read_text("utf-8") + json.dumps({"role": "user", "content": "more"}) + "\n")
    fourth = compact(tmp_path, *run_args(src, "--force"), config=config, env=key_env)
    assert fourth.code == 0, fourth.stderr
    assert len(fake.requests) == 3
    assert len(list((tmp_path / "cache").rglob("*.json"))) == 2


# -- 7. retention check -------------------------------------------------------------------------


def test_retention_repairs_what_the_summary_dropped(tmp_path, fake, key_env):
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    fake.default = reply("<summary>\n1. Primary Request and Intent:\n   Fix a bug.\n</summary>")
    config = {"model": openai_model(fake), "retention": True}
    res = compact(tmp_path, *run_args(src, "--force"), config=config, env=key_env)
    assert res.code == 0, res.stderr
    ret = res.report["retention"]
    assert ret["applied"] is True
    assert ret["score_before"] < 0.5
    assert ret["score_after"] > ret["score_before"]
    summary = user_text(_messages(res.out)[-1])
    assert "<preserved_facts>" in summary
    assert "src/durations/parser.py" in summary
    assert "Don't change the public signature" in summary
    assert summary.index("<preserved_facts>") < summary.index("</summary>")


# -- 8. fraction-of-window trigger --------------------------------------------------------------


def _check(tmp_path: Path, src: Path, trigger: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    res = compact(tmp_path, "check", "--json", str(src), config={"trigger": trigger})
    assert res.code in (0, 1), res.stderr
    return res.code, json.loads(res.stdout.splitlines()[0])


def test_fraction_trigger_fires_just_past_its_boundary(tmp_path):
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)  # 998 tokens
    code, rec = _check(tmp_path, src, {"context_fraction": 0.5, "window_tokens": 1996})
    assert (code, rec["triggered"], rec["threshold_tokens"]) == (0, False, 998)
    code, rec = _check(tmp_path, src, {"context_fraction": 0.5, "window_tokens": 1994})
    assert (code, rec["triggered"], rec["threshold_tokens"]) == (1, True, 997)
    assert "50% of the 1,994-token window" in rec["reason"]
    # combined with context_tokens: whichever is lower fires
    code, rec = _check(
        tmp_path, src, {"context_fraction": 0.5, "window_tokens": 100_000, "context_tokens": 900}
    )
    assert (code, rec["threshold_tokens"]) == (1, 900)


def test_fraction_trigger_uses_the_built_in_window_table(tmp_path):
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    _, rec = _check(tmp_path, src, {"context_fraction": 0.8, "agent_model": "gpt-4o-2024-08-06"})
    assert rec["threshold_tokens"] == int(0.8 * 128_000)
    res = compact(
        tmp_path,
        "check",
        str(src),
        config={"trigger": {"context_fraction": 0.8, "agent_model": "my-own-model"}},
    )
    assert res.code == 2
    assert "compact.yaml:3" in res.stderr and "unknown agent model" in res.stderr


# -- 9. leaner summaries ------------------------------------------------------------------------


def test_strip_analysis_drops_the_analysis_block(tmp_path, fake, key_env):
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    kept = compact(
        tmp_path, *run_args(src, "--force"), config={"model": openai_model(fake)}, env=key_env
    )
    assert kept.code == 0, kept.stderr
    with_analysis = user_text(_messages(kept.out)[-1])
    assert "<analysis>" in with_analysis
    kept_tokens = kept.report["tokens_after"]  # the next run rewrites the report
    config = {"model": openai_model(fake), "finalize": {"strip_analysis": True}}
    res = compact(tmp_path, *run_args(src, "--force"), config=config, env=key_env)
    assert res.code == 0, res.stderr
    stripped = user_text(_messages(res.out)[-1])
    assert "<analysis>" not in stripped and "</analysis>" not in stripped
    assert "<summary>" in stripped
    assert res.report["tokens_after"] < kept_tokens


def test_explain_never_imports_the_openai_client(tmp_path):
    code = (
        "import sys\n"
        "from compactor.cli.app import app\n"
        "try:\n"
        f"    app(['check', '--explain', '-c', {str(REPO / 'configs' / 'robust.yaml')!r}, "
        f"{str(LONG)!r}], standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('OPENAI' if 'openai' in sys.modules else 'CLEAN')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert "6 chunks" not in proc.stdout  # robust.yaml's 128k window: one pass
    assert "WOULD COMPACT" in proc.stdout, proc.stderr
    assert proc.stdout.strip().endswith("CLEAN"), proc.stdout[-300:]
