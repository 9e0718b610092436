"""Hostile servers, configs and terminals (issue 16), end to end through the real CLI.

One test (or one parametrized family) per case of the issue, each against a real loopback server
(``compactor.testing.fake_openai``) or a real config file, each in a few seconds: short
timeouts, short ``max_delay``. The CLI runs in-process (CliRunner) except where the process
itself is measured: its peak RSS (a gzip bomb) and what reaches a real terminal (a pty).
"""

from __future__ import annotations

import json
import os
import pty
import secrets
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.testing.fake_openai import (
    FakeOpenAI,
    drip,
    echo_headers,
    escape_error,
    gzip_bomb,
    gzip_bomb_body,
    redirect,
    reply,
    reply_content,
    retry_after,
)

from .fake_server_cli import CODING, compact_exe
from .measure import run_measured

KEY = "sk-test-PLANTED-hostile-0123456789"
HEADER_SECRET = "azure-header-secret-0123456789"
URL_PASSWORD = "url-password-0123456789"
SUMMARY = "<summary>\nThe fake summary of the coding session.\n</summary>"
HOSTILE_SEQUENCES = ("\x1b]52;", "\x1b]0;", "\x1b]8;", "\x1b[2J", "\x07", "\x9b", "\u202e")


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def _config(folder: Path, fake: FakeOpenAI, body: str = "", *, timeout: float = 2) -> Path:
    cfg = folder / "compact.yaml"
    cfg.write_text(
        f"model:\n  provider: openai\n  name: primary-model\n  base_url: {fake.base_url}\n"
        f"  timeout: {timeout}\n{body}",
        encoding="utf-8",
    )
    return cfg


def _backup(fake: FakeOpenAI, max_retries: int = 1, extra: str = "") -> str:
    return (
        f"failover:\n  max_retries: {max_retries}\n{extra}  models:\n"
        f"    - {{provider: openai, name: backup-model, base_url: '{fake.base_url}'}}\n"
    )


class Ran:
    """One CliRunner run of ``compact run ... --force`` and the files it was pointed at."""

    def __init__(self, runner: CliRunner, folder: Path, cfg: Path, *extra: str) -> None:
        self.src = folder / "session.jsonl"
        if not self.src.exists():
            shutil.copy(CODING, self.src)
        self.src_bytes = self.src.read_bytes()
        self.out = folder / "out.jsonl"
        self.events_path = folder / "events.jsonl"
        self.report_path = folder / "report.json"
        args = ["run", "-c", str(cfg), str(self.src), "-o", str(self.out)]
        args += ["--events", str(self.events_path), "--report", str(self.report_path)]
        args += ["--force", *extra]
        start = time.monotonic()
        result = runner.invoke(app, args)
        self.elapsed = time.monotonic() - start
        self.code = result.exit_code
        self.output = result.output

    @property
    def events(self) -> list[dict[str, Any]]:
        text = self.events_path.read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]

    def everything(self) -> str:
        """Every text the run produced: its output, events, report and written file."""
        blobs = [self.output]
        for path in (self.events_path, self.report_path, self.out):
            if path.exists():
                blobs.append(path.read_text(encoding="utf-8", errors="replace"))
        return "\n".join(blobs)


# -- 1. Retry-After: every wait is capped --------------------------------------------------------


@pytest.mark.parametrize("value", ["1000000000", "inf", "Fri, 31 Dec 9999 23:59:59 GMT"])
def test_absurd_retry_after_waits_at_most_max_delay(
    runner: CliRunner, tmp_path: Path, env: None, value: str
) -> None:
    """429 with Retry-After of a billion seconds, inf or a date in 9999: each wait (retry and
    failover) is max_delay, and the run ends in well under a second of waiting."""
    with FakeOpenAI() as fake:
        fake.enqueue(*[retry_after(value) for _ in range(5)])
        body = "retry: {max_retries: 2, max_delay: 0.2}\n" + _backup(fake, 2, "  max_delay: 0.1\n")
        ran = Ran(runner, tmp_path, _config(tmp_path, fake, body))
        assert ran.code == 3, ran.output
        waits = [(e["phase"], e["delay"]) for e in ran.of("retry_wait")]
        assert waits == [("primary", 0.2), ("primary", 0.2), ("failover", 0.1)]
        assert len(fake.requests) == 5
        assert ran.elapsed < 30, ran.elapsed  # 0.5 s of waits (a Retry-After would be years)
        assert "waiting 0.2s before primary attempt 2" in ran.output


# -- 2. A dripping server: timeout is a deadline for the whole request -----------------------------


@pytest.mark.parametrize("where", ["headers", "body"])
def test_dripping_server_is_cut_off_at_the_timeout(
    runner: CliRunner, tmp_path: Path, env: None, where: str
) -> None:
    """One byte every 0.2 s (in the headers, or as a chunked body) never trips a per-read
    timeout; model.timeout 0.8 ends each attempt at 0.8 s, then the failover model answers."""
    with FakeOpenAI() as fake:
        fake.enqueue(drip(0.2, where), reply(SUMMARY))
        ran = Ran(runner, tmp_path, _config(tmp_path, fake, _backup(fake), timeout=0.8))
        assert ran.code == 0, ran.output
        first = ran.of("generate_summary")[0]
        assert first["error"]["kind"] == "timeout"
        assert "timed out after 0.8s" in first["error"]["message"]
        assert ran.elapsed < 30, ran.elapsed  # ~1 s here; the whole drip takes minutes
        assert "The fake summary" in ran.out.read_text()


# -- 3. Memory: response size and summary length are capped ------------------------------------


def test_gzip_bomb_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    """A 1 MB gzip body that inflates to 1 GiB pushed RSS to 2.9 GB; now decoding stops at
    model.max_response_bytes (16 MiB) and the process stays small (measured with wait4)."""
    gzip_bomb_body(1 << 30)
    with FakeOpenAI() as fake:
        fake.enqueue(gzip_bomb(1 << 30), gzip_bomb(1 << 30, code=500))
        cfg = _config(tmp_path, fake, "retry: {max_retries: 1, max_delay: 0.01}\n")
        env = {**os.environ, "OPENAI_API_KEY": KEY}
        args = [compact_exe(), "run", "-c", str(cfg), str(CODING), "-o", str(tmp_path / "o")]
        # measured from a small launcher: a child of the pytest worker would count the
        # worker's own pages in its peak (tests/measure.py)
        code, stderr, elapsed, peak_mb = run_measured([*args, "--force"], env=env)
    assert code == 3, stderr
    assert stderr.count("response larger than 16 MiB (model.max_response_bytes)") >= 2
    assert peak_mb < 400, f"peak RSS {peak_mb:.0f} MiB"
    assert elapsed < 30, elapsed  # ~1 s here; the peak RSS above is the sharp check
    assert not (tmp_path / "o").exists()


def test_oversized_reply_and_oversized_summary_are_failed_attempts(
    runner: CliRunner, tmp_path: Path, env: None
) -> None:
    """A reply past max_response_bytes, then one past the summary ceiling (here 2 MB of text for
    a 4 KB transcript): both failed attempts, retried, then the failover model's summary."""
    with FakeOpenAI() as fake:
        fake.enqueue(reply("x" * 3_000_000), reply("<summary>" + "y" * 2_000_000), reply(SUMMARY))
        body = (
            "  max_response_bytes: 2500000\n"
            "retry: {max_retries: 1, max_delay: 0.01}\n" + _backup(fake)
        )
        ran = Ran(runner, tmp_path, _config(tmp_path, fake, body))
        assert ran.code == 0, ran.output
        kinds = [(e["phase"], (e["error"] or {}).get("kind")) for e in ran.of("generate_summary")]
        assert kinds == [("primary", "too_large"), ("primary", "too_long"), ("failover", None)]
        assert ran.out.stat().st_size < 50_000


# -- 4. Reply shapes -------------------------------------------------------------------------------


def test_content_as_text_parts_is_accepted_other_shapes_fail_clearly(
    runner: CliRunner, tmp_path: Path, env: None
) -> None:
    with FakeOpenAI() as fake:
        parts = [{"type": "text", "text": "<summary>\nParts "}, {"type": "text", "text": "ok.\n"}]
        fake.enqueue(reply_content([*parts, {"type": "text", "text": "</summary>"}]))
        ran = Ran(runner, tmp_path, _config(tmp_path, fake))
        assert ran.code == 0, ran.output
        assert "Parts ok." in ran.out.read_text()
        fake.enqueue(reply_content([{"type": "image_url", "image_url": {"url": "x"}}]))
        # the same request again: --no-cache, or the first reply would come from the cache
        ran = Ran(runner, tmp_path, _config(tmp_path, fake), "--no-cache")
        assert ran.code == 3
        assert "unsupported reply: content part 0 is type 'image_url'" in ran.output
        assert "AttributeError" not in ran.output


# -- 5. Terminal escapes ---------------------------------------------------------------------------


def _read_pty(master: int, proc: subprocess.Popen[bytes]) -> bytes:
    chunks: list[bytes] = []
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed its end
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    return b"".join(chunks)


def test_escapes_in_a_server_error_never_reach_a_real_terminal(tmp_path: Path) -> None:
    """stderr is a pty, so the live view animates: an error body with OSC 52 / OSC 0 / OSC 8 /
    clear-screen / C1 CSI / RLO is shown as visible escapes in the attempt lines and the final
    error line, never sent raw."""
    with FakeOpenAI() as fake:
        fake.enqueue(escape_error(500), escape_error(502))
        cfg = _config(tmp_path, fake, "retry: {max_retries: 1, max_delay: 0.01}\n")
        master, slave = pty.openpty()
        env = {**os.environ, "OPENAI_API_KEY": KEY, "TERM": "xterm", "COLUMNS": "400"}
        args = [compact_exe(), "run", "-c", str(cfg), str(CODING), "-o", str(tmp_path / "o")]
        proc = subprocess.Popen(
            [*args, "--force"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=slave,
            env=env,
        )
        os.close(slave)
        try:
            screen = _read_pty(master, proc).decode("utf-8", "replace")
        finally:
            os.close(master)
        assert proc.wait(20) == 3
        assert proc.stdout is not None
        proc.stdout.close()
    for seq in HOSTILE_SEQUENCES:
        assert seq not in screen, repr(seq)
    assert "\\x1b]52;c;" in screen and "\\u202e" in screen
    assert "compact: failed to generate summary" in screen


# -- 6. Secrets: URL credentials and header values ---------------------------------------------


def test_a_server_echoing_request_headers_gets_no_secret_into_any_output(
    runner: CliRunner, tmp_path: Path, env: None
) -> None:
    with FakeOpenAI() as fake:
        fake.enqueue(echo_headers())
        url = fake.base_url.replace("http://", f"http://bob:{URL_PASSWORD}@")
        cfg = tmp_path / "compact.yaml"
        cfg.write_text(
            f"model:\n  provider: openai\n  name: m\n  base_url: {url}\n  timeout: 2\n"
            f"  options:\n    extra_headers: {{api-key: {HEADER_SECRET}}}\n",
            encoding="utf-8",
        )
        ran = Ran(runner, tmp_path, cfg)
        assert ran.code == 0, ran.output
        summary = "".join(json.loads(line)["content"] for line in ran.out.read_text().splitlines())
        assert "request headers:" in summary and '"api-key": "***"' in summary
        for secret in (KEY, HEADER_SECRET, URL_PASSWORD):
            assert secret not in ran.everything()
        shown = runner.invoke(app, ["config", "show", "-c", str(cfg)]).output
        shown += runner.invoke(app, ["config", "show", "-c", str(cfg), "--json"]).output
        assert "http://***@127.0.0.1" in shown and "api-key: '***'" in shown
        for secret in (KEY, HEADER_SECRET, URL_PASSWORD):
            assert secret not in shown


def test_secrets_in_a_server_error_are_masked_in_errors_events_reports_and_tracebacks(
    runner: CliRunner, tmp_path: Path, env: None
) -> None:
    from compactor.testing.fake_openai import status

    with FakeOpenAI() as fake:
        said = f"denied {HEADER_SECRET} for {KEY} at http://bob:{URL_PASSWORD}@proxy/v1"
        fake.enqueue(status(401, body={"error": {"message": said}}))
        cfg = tmp_path / "compact.yaml"
        cfg.write_text(
            f"model:\n  provider: openai\n  name: m\n  base_url: {fake.base_url}\n"
            f"  options:\n    extra_headers: {{api-key: {HEADER_SECRET}}}\n",
            encoding="utf-8",
        )
        ran = Ran(runner, tmp_path, cfg, "--debug")
        assert ran.code == 3
        assert "Traceback" in ran.output and "denied ***" in ran.output
        for secret in (KEY, HEADER_SECRET, URL_PASSWORD):
            assert secret not in ran.everything()


# -- 7. Config files ---------------------------------------------------------------------------


def _bomb(levels: int) -> str:
    lines = ["model:", "  provider: local", "  options:", '    a0: &a0 ["lol","lol","lol"]']
    for i in range(1, levels):
        lines.append(f"    a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


CONFIGS = {
    "alias_bomb_7": (_bomb(7), "expands to more than 10,000 values"),
    "alias_bomb_10": (_bomb(10), "expands to more than 10,000 values"),
    "recursive_alias": ("model:\n  options:\n    x: &x [*x]\n", "recursive alias *x"),
    "deep_list": (
        "model:\n  options:\n    x: " + "[" * 5000 + "]" * 5000 + "\n",
        "nested more than 32 levels deep",
    ),
    "python_name_tag": (
        "model:\n  options:\n    x: !!python/name:os.system\n",
        "unsupported YAML tag '!!python/name:os.system'",
    ),
    "unknown_tag": ("retry: !thing {max_retries: 1}\n", "unsupported YAML tag '!thing'"),
    "counter_raises": (
        "token_counter: zz_hostile_boom:count\n",
        "importing module 'zz_hostile_boom' failed: RuntimeError",
    ),
    "callback_exits": (
        "callback: zz_hostile_exit:cb\n",
        "module 'zz_hostile_exit' called sys.exit(0) while being imported",
    ),
}


@pytest.fixture
def hostile_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "mods"
    folder.mkdir()
    (folder / "zz_hostile_boom.py").write_text("raise RuntimeError('boom at import')\n")
    marker = tmp_path / "imported.txt"
    (folder / "zz_hostile_exit.py").write_text(
        f"open({str(marker)!r}, 'w').close()\nimport sys\nsys.exit(0)\n"
    )
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setenv("PYTHONPATH", str(folder))
    yield marker
    for name in ("zz_hostile_boom", "zz_hostile_exit"):
        sys.modules.pop(name, None)


@pytest.mark.parametrize("case", sorted(CONFIGS))
def test_hostile_config_is_exit_2_naming_file_line_and_key_fast(
    runner: CliRunner, tmp_path: Path, hostile_modules: Path, case: str
) -> None:
    text, says = CONFIGS[case]
    cfg = tmp_path / f"{case}.yaml"
    cfg.write_text(text, encoding="utf-8")
    shutil.copy(CODING, tmp_path / "session.jsonl")
    start = time.monotonic()
    result = runner.invoke(app, ["run", "-c", str(cfg), str(tmp_path / "session.jsonl")])
    elapsed = time.monotonic() - start
    assert result.exit_code == 2, result.output
    assert f"compact: config error: {cfg}:" in result.output  # file and line
    assert "key '" in result.output and says in result.output
    assert elapsed < 10, elapsed  # milliseconds here; expanding the YAML would never end
    assert not (tmp_path / "session.compact.jsonl").exists()


def test_check_does_not_import_the_callback_module(
    runner: CliRunner, tmp_path: Path, hostile_modules: Path
) -> None:
    """A callback module runs code when imported: check (plain and --explain) never needs it."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text("model: {provider: local}\ncallback: zz_hostile_exit:cb\n", encoding="utf-8")
    for extra in ([], ["--explain"]):
        result = runner.invoke(app, ["check", "-c", str(cfg), *extra, str(CODING)])
        assert result.exit_code == 0, result.output
    assert not hostile_modules.exists()  # the module (which writes this file) never ran
    result = runner.invoke(app, ["run", "-c", str(cfg), str(CODING), "-o", str(tmp_path / "o")])
    assert result.exit_code == 2 and hostile_modules.exists()  # run imports it, and says so
    assert f"compact: config error: {cfg}:2: key 'callback'" in result.stderr
    assert "module 'zz_hostile_exit' called sys.exit(0) while being imported" in result.stderr


# -- 8. Deep JSON ------------------------------------------------------------------------------


def test_deep_json_is_exit_2_at_read_never_a_recursion_error(
    runner: CliRunner, tmp_path: Path
) -> None:
    deep = b"{}"
    for _ in range(700):
        deep = b'{"x": ' + deep + b"}"
    path = tmp_path / "deep.jsonl"
    path.write_bytes(
        b'{"role": "user", "content": "hi"}\n'
        + b'{"role": "assistant", "content": "hello", "unknown": '
        + deep
        + b"}\n"
    )
    for args in (["run", str(path)], ["run", str(path), "--force", "--model", "local"]):
        result = runner.invoke(app, [*args, "-o", str(tmp_path / "out.jsonl")])
        assert result.exit_code == 2, result.output
        assert "deep.jsonl:2: field 'unknown': JSON nested more than 128 levels deep" in (
            result.output
        )
        assert "RecursionError" not in result.output
    assert runner.invoke(app, ["check", str(path)]).exit_code == 2  # the same verdict


def test_deeply_nested_tool_arguments_are_handled_as_text(
    runner: CliRunner, tmp_path: Path
) -> None:
    """JSON in a string (tool-call arguments) 100,000 deep: masked, summarized, retained."""
    args = "[" * 100_000 + "]" * 100_000
    records = [
        {"role": "user", "content": "run it with password=hunter2xyz please"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": args}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "user", "content": "thanks"},
    ]
    path = tmp_path / "args.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    cfg = tmp_path / "c.yaml"
    cfg.write_text("model: {provider: local}\nmask_secrets: true\nretention: true\n")
    result = runner.invoke(
        app, ["run", "-c", str(cfg), str(path), "--force", "-o", str(tmp_path / "o.jsonl")]
    )
    assert result.exit_code == 0, result.output
    assert "hunter2xyz" not in (tmp_path / "o.jsonl").read_text()


# -- 9. Masking is linear --------------------------------------------------------------------------


def test_forty_thousand_bearer_tokens_are_masked_in_a_second_or_two(
    runner: CliRunner, tmp_path: Path
) -> None:
    tokens = "\n".join(f"Authorization: Bearer {secrets.token_hex(20)}" for _ in range(40_000))
    records = [
        {"role": "user", "content": "show me the log"},
        {"role": "tool", "tool_call_id": "c1", "content": tokens},
        {"role": "user", "content": "thanks"},
    ]
    path = tmp_path / "tokens.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    cfg = tmp_path / "c.yaml"
    cfg.write_text("model: {provider: local}\nmask_secrets: true\n")
    start = time.process_time()  # CPU time: a loaded machine (CI beside other jobs) stalls
    result = runner.invoke(app, ["check", "--explain", "-c", str(cfg), str(path)])
    elapsed = time.process_time() - start  # the wall clock, not this work (22 s once at load 9)
    assert result.exit_code == 1, result.output  # it would compact (630,003 tokens)
    assert "secret masking:    would replace bearer_token 40,000" in result.output
    assert elapsed < 20, elapsed  # ~2 s of CPU here; 52 s when masking was quadratic


# -- 11. No API key ----------------------------------------------------------------------------


def test_openai_model_without_a_key_is_exit_2(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    out = tmp_path / "o.jsonl"
    for extra in ([], ["--force"]):
        result = runner.invoke(
            app, ["run", str(CODING), "--model", "openai:x", "-o", str(out), *extra]
        )
        assert result.exit_code == 2, result.output
        assert "no API key for openai model 'x'" in result.output
    assert not out.exists()


# -- issue 27 point 19: a counter that returns no count -------------------------------------------

BAD_COUNTS = {"negative": "-5", "nan": "float('nan')", "bool": "True", "text": "'12'"}


@pytest.mark.parametrize("case", sorted(BAD_COUNTS))
def test_a_counter_returning_no_count_is_a_counting_failure(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    """A custom ``token_counter`` returning -5 (or NaN, a bool, a string) is what SPEC §3 says
    of a counter that raises: exit 3, ``failed to count tokens``, input untouched, no output;
    ``check`` refuses it the same way. A negative count would make every history look small."""
    folder = tmp_path / "mods"
    folder.mkdir()
    name = f"zz_counter_{case}"
    (folder / f"{name}.py").write_text(f"def count(inp):\n    return {BAD_COUNTS[case]}\n")
    monkeypatch.syspath_prepend(str(folder))
    try:
        cfg = tmp_path / "c.yaml"
        cfg.write_text(f"model: {{provider: local}}\ntoken_counter: {name}:count\n", "utf-8")
        src = tmp_path / "session.jsonl"
        shutil.copy(CODING, src)
        before = src.read_bytes()
        out = tmp_path / "out.jsonl"
        result = runner.invoke(app, ["run", "-c", str(cfg), str(src), "-o", str(out)])
        assert result.exit_code == 3, result.output
        assert "failed to count tokens: counter returned" in result.output
        assert src.read_bytes() == before and not out.exists()
        checked = runner.invoke(app, ["check", "-c", str(cfg), str(src)])
        assert checked.exit_code == 3, checked.output
        assert "failed to count tokens" in checked.output
    finally:
        sys.modules.pop(name, None)


# -- issue 27 point 17: a redirect is a model error, never followed -------------------------------


def test_a_redirecting_server_sends_nothing_elsewhere_and_the_run_names_the_target(
    runner: CliRunner, tmp_path: Path, env: None
) -> None:
    """The server answers 307 to another loopback server: the run is exit 3 naming the
    target, with retries configured it is asked once (the breaker opens on a redirect), and
    the other server receives nothing, neither the transcript nor the ``api-key`` header."""
    with FakeOpenAI() as fake, FakeOpenAI() as elsewhere:
        target = f"{elsewhere.base_url}/chat/completions"
        fake.default = redirect(target)
        body = (
            f"  options:\n    extra_headers: {{api-key: {HEADER_SECRET}}}\n"
            "retry: {max_retries: 3, max_delay: 0.1}\n"
        )
        ran = Ran(runner, tmp_path, _config(tmp_path, fake, body))
        assert ran.code == 3, ran.output
        assert f"HTTP 307 redirect to {target!r} not followed" in ran.output
        assert elsewhere.requests == []
        assert len(fake.requests) == 1
        assert [e["model"] for e in ran.of("circuit_open")] == ["openai:primary-model"]
        assert HEADER_SECRET not in ran.everything()
        assert ran.src.read_bytes() == ran.src_bytes and not ran.out.exists()
