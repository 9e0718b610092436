"""Helpers for running ``compact`` against a fake OpenAI server, in-process or as a subprocess.

Shared by ``test_cli_fake_server.py`` (one scenario per test) and ``test_cli_run_faults.py``
(the fault matrix): write a config YAML that points the primary (and optionally a failover) model
at the fake, run ``compact run -c CFG INPUT -o OUT --events EV --report REP --force`` and collect
what a test checks: exit code, the events file, the report, stderr, the output and the input.
Every run also asserts that the planted API key appears nowhere.

Runs are in-process by default (:func:`invoke`: typer's CliRunner, with the environment and
working directory a subprocess would get); ``console_script=True`` starts the installed
console script instead, which each CLI mode does once (a fresh interpreter costs ~1 s of start-up).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.testing.fake_openai import FakeOpenAI, RecordedRequest

__all__ = [
    "BACKUP",
    "CODING",
    "PLANTED_KEY",
    "PRIMARY",
    "SUMMARY",
    "Finished",
    "Run",
    "assert_no_secret",
    "compact_exe",
    "invoke",
    "models_of",
    "run_compact",
    "write_config",
]

REPO = Path(__file__).resolve().parents[1]
CODING = REPO / "sample_transcripts" / "coding-session.jsonl"
PLANTED_KEY = "sk-test-PLANTED-123456"
SUMMARY = "<summary>\nThe fake summary of the coding session.\n</summary>"
PRIMARY = "openai:primary-model"
RUN_EVENTS = ("transcript_read", "trigger_checked", "window_assumed", "run_finished")
BACKUP = "openai:backup-model"


def default_sigint() -> None:
    """``preexec_fn`` for a child the test interrupts: SIGINT back to its default action.

    A shell that starts the test run in the background (``make test &``, ``nohup … &``) makes it
    ignore SIGINT, and an ignored signal stays ignored across fork and exec: ``compact`` would
    then never see the test's Ctrl-C and the test would wait for it in vain.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def compact_exe() -> str:
    """The installed ``compact`` console script (skips the test when there is none)."""
    exe = Path(sys.executable).parent / "compact"
    if exe.exists():
        return str(exe)
    found = shutil.which("compact")
    if found is None:
        pytest.skip("the compact console script is not installed")
    return found


def invoke(
    args: Sequence[str],
    *,
    env: Mapping[str, str | None] | None = None,
    cwd: Path | None = None,
    stdin: bytes = b"",
) -> subprocess.CompletedProcess[bytes]:
    """``compact ARGS`` in this process (typer's CliRunner), as a subprocess would see it.

    ``env`` entries are set (None: removed) for the call only; ``cwd``: the working directory
    during the call. stdout and stderr are separate pipes that are not terminals. An exception
    that escapes the command is raised here (a subprocess would print a traceback), so a test
    never mistakes a crash for an exit code.
    """
    runner = CliRunner()
    with contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext():
        result = runner.invoke(app, list(args), env=env, input=stdin, catch_exceptions=False)
    return subprocess.CompletedProcess(
        ["compact", *args], result.exit_code, result.stdout_bytes, result.stderr_bytes
    )


@dataclass
class Finished:
    """A finished ``compact`` subprocess and where it wrote its events and report."""

    proc: subprocess.CompletedProcess[bytes]
    events_path: Path
    report_path: Path

    @property
    def code(self) -> int:
        return self.proc.returncode

    @property
    def stdout(self) -> str:
        return self.proc.stdout.decode("utf-8", "replace")

    @property
    def stderr(self) -> str:
        return self.proc.stderr.decode("utf-8", "replace")

    @property
    def all_events(self) -> list[dict[str, Any]]:
        """Every line of the events file, the run's own events included."""
        text = self.events_path.read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    @property
    def events(self) -> list[dict[str, Any]]:
        """The summarization's events (without ``transcript_read``, ``trigger_checked`` and
        ``run_finished``, which every run writes around them)."""
        return [e for e in self.all_events if e["type"] not in RUN_EVENTS]

    @property
    def report(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.report_path.read_text(encoding="utf-8"))
        return data

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]

    def summaries(self) -> list[tuple[str, int, str, bool]]:
        """(phase, attempt, model, ok) of every generate_summary event, in order."""
        return [
            (e["phase"], e["attempt"], e["model"], e["ok"])
            for e in self.of_type("generate_summary")
        ]


@dataclass(kw_only=True)
class Run(Finished):
    """One finished ``compact run`` and the files it was pointed at."""

    elapsed: float
    src: Path
    src_bytes: bytes
    out: Path


def write_config(
    folder: Path,
    base_url: str,
    *,
    max_retries: int | None,
    failover_retries: int | None = None,
    timeout: float = 2,
    initial_delay: float = 0.01,
    max_delay: float = 0.05,
) -> Path:
    """``folder/compact.yaml``: primary-model (and backup-model when ``failover_retries`` is set)
    on ``base_url``; ``max_retries`` None leaves out the retry section (a single attempt)."""
    lines = [
        "model:",
        "  provider: openai",
        "  name: primary-model",
        f"  base_url: {base_url}",
        f"  timeout: {timeout}",
    ]
    if max_retries is not None:
        lines += [
            "retry:",
            f"  max_retries: {max_retries}",
            f"  initial_delay: {initial_delay}",
            f"  max_delay: {max_delay}",
        ]
    if failover_retries is not None:
        lines += [
            "failover:",
            f"  max_retries: {failover_retries}",
            "  models:",
            "    - provider: openai",
            "      name: backup-model",
            f"      base_url: {base_url}",
            f"      timeout: {timeout}",
        ]
    cfg = folder / "compact.yaml"
    cfg.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return cfg


def run_local(tmp: Path, src: Path, *args: str) -> bytes:
    """``compact run SRC --model local --no-cache ARGS -o TMP/out.jsonl`` (its data under ``tmp``);
    the bytes it wrote (the run must succeed)."""
    out = tmp / "out.jsonl"
    out.unlink(missing_ok=True)
    proc = invoke(
        ["run", str(src), "--model", "local", "--no-cache", *args, "-o", str(out)],
        env={"XDG_DATA_HOME": str(tmp / "data"), "NO_COLOR": "1"},
        cwd=tmp,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return out.read_bytes()


def run_compact(
    folder: Path,
    fake: FakeOpenAI,
    *,
    max_retries: int | None = 0,
    failover_retries: int | None = None,
    timeout: float = 2,
    initial_delay: float = 0.01,
    max_delay: float = 0.05,
    console_script: bool = False,
) -> Run:
    """Copy the coding sample into ``folder`` and compact it (``--force``) through ``fake``:
    in-process, or with the installed console script when ``console_script`` is true."""
    cfg = write_config(
        folder,
        fake.base_url,
        max_retries=max_retries,
        failover_retries=failover_retries,
        timeout=timeout,
        initial_delay=initial_delay,
        max_delay=max_delay,
    )
    src = folder / "session.jsonl"
    shutil.copy(CODING, src)
    src_bytes = src.read_bytes()
    out, events, report = folder / "out.jsonl", folder / "events.jsonl", folder / "rep.json"
    env: dict[str, str | None] = {
        "OPENAI_API_KEY": PLANTED_KEY,
        "OPENAI_BASE_URL": None,
        "COLUMNS": None,
    }
    # Each run its own summary cache: the fault matrix runs many cases in one test, and a fake
    # server's port may be reused by a later case (the same endpoint, the same request).
    env["XDG_CACHE_HOME"] = str(folder.with_name(folder.name + ".xdg-cache"))
    args = [
        "run",
        "-c",
        str(cfg),
        str(src),
        "-o",
        str(out),
        "--events",
        str(events),
        "--report",
        str(report),
        "--force",
    ]
    started = time.monotonic()
    if console_script:
        proc = _run_script(args, env, folder)
    else:
        proc = invoke(args, env=env, cwd=folder)
    elapsed = time.monotonic() - started
    result = Run(proc, events, report, elapsed=elapsed, src=src, src_bytes=src_bytes, out=out)
    assert_no_secret(result, fake.requests)
    return result


def _run_script(
    args: list[str], env_changes: Mapping[str, str | None], cwd: Path
) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ)
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return subprocess.run(
        [compact_exe(), *args],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
        timeout=60,
        check=False,
    )


def assert_no_secret(result: Run, requests: list[RecordedRequest]) -> None:
    """The planted key is in no output, file or recorded request."""
    assert PLANTED_KEY not in result.stdout
    assert PLANTED_KEY not in result.stderr
    for path in (result.events_path, result.report_path, result.out):
        if path.exists():
            assert PLANTED_KEY not in path.read_text(encoding="utf-8", errors="replace")
    for req in requests:
        assert "authorization" not in {k.lower() for k in req.headers}
        assert PLANTED_KEY not in json.dumps(req.headers)
        assert PLANTED_KEY not in json.dumps(req.json)


def models_of(requests: list[RecordedRequest]) -> Counter[str]:
    """How many requests named each model."""
    return Counter(str((r.json or {}).get("model")) for r in requests)
