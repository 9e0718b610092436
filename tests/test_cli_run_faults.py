"""The fault matrix: every way a model server fails × no retry / retry / retry + failover.

Each case runs ``compact run -c CFG session.jsonl -o OUT --events EV --report REP --force``
in-process (typer's CliRunner) against the module's fake OpenAI server
(``compactor.testing.fake_openai``, reset for each case) and checks the exit code, the exact
number of requests each model got, the ``generate_summary`` and ``retry_wait`` events (phase,
attempt, model, error kind), whether an output exists (and parses), that nothing else was left
behind and that the input is byte-identical.

The modes script the fake the same way for every fault:

* ``no_retry`` (no ``retry:`` section): ``[fault]`` → one call, exit 3, nothing written.
* ``retry`` (``max_retries: 2``): ``[fault, good reply]`` → a transient fault is retried and the
  run succeeds; a permanent one (content filter, wrong role, context length) is not retried:
  exit 3, the good reply is left unused.
* ``failover`` (``max_retries: 1``, one backup model, ``failover.max_retries: 2``): the primary
  fails every call it makes (twice when transient, once when not), then the backup succeeds.

The real console script runs one fault (HTTP 500) in each mode as a subprocess, with the same
checks (``test_fault_through_the_console_script``).

Fast by design: backoff delays are 0 (``initial_delay: 0``; ``max_delay: 1`` caps every wait), so
a ``retry-after`` header is the only non-zero wait and shows in the ``retry_wait`` event, the model
timeout is 0.5 s, and each run is in-process (a fresh interpreter per case cost ~1 s of start-up).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from compactor.formats.registry import read_transcript
from compactor.pipeline.ladder import MAX_CONTEXT_ADAPTATIONS
from compactor.schema import Message
from compactor.testing.fake_openai import (
    FakeOpenAI,
    Step,
    content_filter,
    context_length_error,
    empty_choices,
    hang,
    raw,
    reply,
    reset_connection,
    status,
    truncated,
)

from .fake_server_cli import BACKUP, PRIMARY, SUMMARY, Run, models_of, run_compact

TIMEOUT = 0.5


@dataclass(frozen=True)
class Fault:
    """One way a call fails, and how ``compact`` must classify it."""

    name: str
    step: Callable[[], Step]
    kind: str
    """``ModelError.kind`` expected in the event."""
    transient: bool
    """Worth retrying on the same model (else: straight to failover)."""
    says: str
    """A substring of the error message (event, report and the final stderr line)."""
    wait: float = 0.0
    """The retry wait after this fault (the server's retry-after; our backoff is 0)."""
    adapts: bool = False
    """A context-length refusal: after retry and failover, the input is re-planned for the
    window the error names and tried again, up to MAX_CONTEXT_ADAPTATIONS times."""


FAULTS = [
    Fault(
        "429_retry_after",
        lambda: status(429, headers={"retry-after": "0.05"}),
        "rate_limit",
        True,
        "HTTP 429",
        wait=0.05,
    ),
    Fault("429_no_retry_after", lambda: status(429), "rate_limit", True, "HTTP 429"),
    Fault("500", lambda: status(500), "server", True, "HTTP 500"),
    Fault("502", lambda: status(502), "server", True, "HTTP 502"),
    Fault("503", lambda: status(503), "server", True, "HTTP 503"),
    Fault("hang_timeout", hang, "timeout", True, f"timed out after {TIMEOUT}s"),
    Fault("connection_reset", reset_connection, "connection", True, "connection reset by peer"),
    Fault("truncated_body", truncated, "connection", True, "without sending complete message"),
    Fault("malformed_json", lambda: raw('{"choices": [ not json'), "malformed", True, "malformed"),
    Fault("empty_choices", empty_choices, "empty", True, "no choices"),
    Fault("empty_content", lambda: reply(""), "empty", True, "no text content"),
    Fault("content_filter", content_filter, "content_filter", False, "content filter"),
    Fault(
        "content_filter_with_text",
        lambda: content_filter("<summary>partial"),
        "content_filter",
        False,
        "content filter",
    ),
    Fault(
        "wrong_role_user",
        lambda: reply(SUMMARY, role="user"),
        "wrong_role",
        False,
        "role 'user'",
    ),
    Fault(
        "wrong_role_tool",
        lambda: reply(SUMMARY, role="tool"),
        "wrong_role",
        False,
        "role 'tool'",
    ),
    Fault(
        "context_length",
        context_length_error,
        "context_length",
        False,
        "maximum context length",
        adapts=True,
    ),
]
MODES = ["no_retry", "retry", "failover"]


ROUNDS = 1 + MAX_CONTEXT_ADAPTATIONS
"""Primary phases a context-length refusal gets: the first one and each re-plan."""


def _script(fault: Fault, mode: str) -> list[Step]:
    good = reply(SUMMARY)
    if mode == "no_retry":
        # a refusal that repeats after every re-plan fails the run; others fail at once
        return [fault.step() for _ in range(ROUNDS if fault.adapts else 1)]
    if mode == "retry":
        return [fault.step(), good]
    primary_calls = 2 if fault.transient else 1  # max_retries: 1 → at most two primary calls
    return [*(fault.step() for _ in range(primary_calls)), good]


def _go(fault: Fault, mode: str, folder: Path, fake: FakeOpenAI, *, console_script: bool) -> Run:
    """Run one case through ``fake`` (fresh: no steps, no requests) from ``folder``."""
    fake.default = reply(SUMMARY)  # the chunks of a re-plan get it too
    fake.enqueue(*_script(fault, mode))
    return run_compact(
        folder,
        fake,
        max_retries={"no_retry": 0, "retry": 2, "failover": 1}[mode],
        failover_retries=2 if mode == "failover" else None,
        timeout=TIMEOUT,
        initial_delay=0,
        # caps every wait, the server's retry-after too (issue 16): above the 0.05 s it says
        max_delay=1,
        console_script=console_script,
    )


def test_matrix_is_large_enough() -> None:
    assert len({f.name for f in FAULTS}) == len(FAULTS) >= 12
    assert {f.transient for f in FAULTS} == {True, False}


def _expected(
    fault: Fault, mode: str, chunks: int = 1
) -> tuple[int, dict[str, int], list[tuple[Any, ...]]]:
    """(exit code, requests per model, (phase, attempt, model, ok) of each call); ``chunks``:
    how many chunks a re-plan made (the server's count of the refused input sets the scale,
    so a refusal is never followed by one call of the same size)."""
    if mode == "no_retry":
        rounds = ROUNDS if fault.adapts else 1
        return 3, {"primary-model": rounds}, [("primary", 1, PRIMARY, False)] * rounds
    if mode == "retry":
        if fault.adapts:  # not retried; the re-plan's chunks (one call each) get good replies
            calls = [("primary", 1, PRIMARY, False)] + [("primary", 1, PRIMARY, True)] * chunks
            return 0, {"primary-model": 1 + chunks}, calls
        if fault.transient:
            calls = [("primary", 1, PRIMARY, False), ("primary", 2, PRIMARY, True)]
            return 0, {"primary-model": 2}, calls
        return 3, {"primary-model": 1}, [("primary", 1, PRIMARY, False)]
    primary = 2 if fault.transient else 1
    calls = [("primary", i, PRIMARY, False) for i in range(1, primary + 1)]
    calls.append(("failover", 1, BACKUP, True))
    return 0, {"primary-model": primary, "backup-model": 1}, calls


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fault", FAULTS, ids=[f.name for f in FAULTS])
def test_fault(fault: Fault, mode: str, tmp_path: Path, fake: FakeOpenAI) -> None:
    _check(fault, mode, _go(fault, mode, tmp_path, fake, console_script=False), fake)


@pytest.mark.parametrize("mode", MODES)
def test_fault_through_the_console_script(mode: str, tmp_path: Path, fake: FakeOpenAI) -> None:
    fault = next(f for f in FAULTS if f.name == "500")
    _check(fault, mode, _go(fault, mode, tmp_path, fake, console_script=True), fake)


def _check(fault: Fault, mode: str, run: Run, fake: FakeOpenAI) -> None:
    chunks = len(run.report.get("chunks") or [None])
    code, per_model, calls = _expected(fault, mode, chunks)
    if fault.adapts and mode == "retry":
        assert chunks >= 2, "a refused input is re-planned in chunks"

    assert run.code == code, run.stderr
    assert "Traceback" not in run.stderr
    assert run.src.read_bytes() == run.src_bytes, "the input changed"
    assert dict(models_of(fake.requests)) == per_model
    assert all(r.path == "/v1/chat/completions" for r in fake.requests)
    # a permanent fault in retry mode leaves the good reply unused; every other script is used up
    unused = mode == "retry" and not fault.transient and not fault.adapts
    assert len(fake.pending) == (1 if unused else 0)

    # events: one generate_summary per call, failed ones classified
    assert run.summaries() == calls
    failed = [e for e in run.of_type("generate_summary") if not e["ok"]]
    assert failed, "no failed call recorded"
    for event in failed:
        error = event["error"]
        assert (error["type"], error["kind"], error["transient"]) == (
            "ModelError",
            fault.kind,
            fault.transient,
        )
        assert fault.says in error["message"]
    starts = [(e["phase"], e["attempt"], e["model"]) for e in run.of_type("attempt_start")]
    assert starts == [c[:3] for c in calls]
    # a wait only between two primary calls (the switch to failover is immediate)
    retried = 0 if fault.adapts else sum(1 for c in calls if c[0] == "primary") - 1
    waits = [(w["phase"], w["attempt"], w["delay"]) for w in run.of_type("retry_wait")]
    assert waits == [("primary", i, fault.wait) for i in range(1, retried + 1)]
    types = [e["type"] for e in run.events]
    assert types[0] == "before_summarize"
    assert (types[-1] == "after_summarize") == (code == 0)
    finished = run.all_events[-1]
    assert finished["type"] == "run_finished" and finished["exit_code"] == code
    # the report is written for every outcome, and says what was (not) written
    assert run.report["exit_code"] == code
    attempts = [(a["phase"], a["attempt"], a["model"], a["ok"]) for a in run.report["attempts"]]
    assert attempts == calls

    leftovers = sorted(p.name for p in run.src.parent.iterdir())
    if code == 0:
        assert leftovers == sorted(
            ["compact.yaml", "session.jsonl", "out.jsonl", "events.jsonl", "rep.json"]
        )
        t = read_transcript(str(run.out), run.out.read_bytes())
        assert t.format == "openai"
        summary = t.messages[-1]
        assert isinstance(summary, Message)
        assert "The fake summary of the coding session." in summary.content
        assert run.report["written"] == {"output": str(run.out), "events": str(run.events_path)}
    else:
        # no output and no temp file; the events and the report say why
        assert leftovers == sorted(["compact.yaml", "session.jsonl", "events.jsonl", "rep.json"])
        assert run.report["written"] == {"events": str(run.events_path)}
        assert run.report["not_written"] == {}
        assert run.report["error"].startswith("failed to generate summary: ")
        last = run.stderr.strip().splitlines()[-1]
        assert last.startswith("compact: failed to generate summary: ")
        assert last.endswith("; nothing was written")
        assert fault.says in last
