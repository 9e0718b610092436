"""A watch a harness started for the agent is a running job (blind check 51, W2; issue 28).

A Claude-Code-shaped session (records written to ``tmp_path``) starts a ``Monitor`` whose result
says "Monitor started (task ID, timeout N ms)" and ends with the agent waiting on it: the id
names no job by the old words ("task id", "running in background"), so the summary said
"Nothing is running and no call is in flight". The job runs until a ``<task-notification>``
naming its id says it ended ("stream ended", "[Monitor timed out …]", a closed ``<status>``);
an event of the watch (the command's output, "0 failed", "done") never ends it. Other start
shapes that name the id before or after the words ("Task 7f3a9c2 started", "Shell started with
id sh_42") are jobs too. ``compact eval`` and reduction read the same recogniser."""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.facts import background_jobs, entry_of
from compactor.facts.jobs import job_starts
from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.reduction.jobs import running_starts, started_ids
from compactor.reduction.results import find_results, result_text
from compactor.runs.evaluate import evaluate_files
from compactor.schema import AgenticMessage

from .cc_session import Session
from .test_evaluate import _compacted
from .test_models_local_session import section

_ID = "kq7zt2m4p"
_WATCH = 'until [ "$(gh pr checks 6 --json state | jq length)" -ge 5 ]; do sleep 15; done'
_STARTED = f"Monitor started (task {_ID}, timeout 1800000ms). You will be notified on each event."


def _notice(body: str) -> str:
    return f"<task-notification>\n<task-id>{_ID}</task-id>\n{body}\n</task-notification>"


def _ci_session(tmp_path: Path, *, ending: str = "", notices: tuple[str, ...] = ()) -> Path:
    s = Session()
    s.user("Open the PR for the build fix and wait until CI is green.")
    s.bash("gh pr create --fill", "https://github.com/acme/widget/pull/6")
    s.call(
        "Monitor",
        {"command": _WATCH, "description": "CI of PR 6", "timeout_ms": 1800000},
        _STARTED,
    )
    s.bash("gh pr checks 6", "web\tpass\t1m2s\nrust-lint\tpending\t0\nrust-test\tpending\t0")
    for body in notices:
        s.user(_notice(body))
    if ending:
        s.say(ending)
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"\n".join(s.lines()) + b"\n")
    return src


def _summary(src: Path) -> str:
    return summarize_transcript(read_transcript(str(src), src.read_bytes()).messages)


def _jobs(src: Path) -> dict[str, str]:
    messages = read_transcript(str(src), src.read_bytes()).messages
    entries = [entry_of(i, m) for i, m in enumerate(messages) if isinstance(m, AgenticMessage)]
    return {j.id: j.finished for j in background_jobs(entries)}


@pytest.mark.parametrize(
    "ending", ["", "Web passes. Rust matrix still running; will wait for the monitor notification."]
)
def test_a_monitor_start_is_a_running_job_the_summary_names(tmp_path: Path, ending: str) -> None:
    src = _ci_session(tmp_path, ending=ending)
    assert _jobs(src) == {_ID: ""}
    text = _summary(src)
    pending, step = section(text, 7), section(text, 9)
    assert "Nothing is running" not in text, pending
    assert "nothing is pending" not in pending, pending
    assert f"(id {_ID})" in pending and "gh pr checks 6 --json state" in pending, pending
    assert "timeout 1800000ms" in pending, pending  # what it waits for, as it said
    assert _ID in step, step


def test_eval_expects_the_monitor_job_among_the_running_jobs(tmp_path: Path) -> None:
    src = _ci_session(tmp_path)
    out = _compacted(tmp_path / "out.jsonl", _summary(src).split("<summary>", 1)[1])
    jobs = next(
        c for c in evaluate_files(str(src), str(out)).categories if c.name == "running jobs"
    )
    assert [i.text for i in jobs.items] == [_ID], jobs.items
    assert all(i.kept for i in jobs.items), jobs.items


def test_an_event_of_the_watch_does_not_end_it(tmp_path: Path) -> None:
    event = (
        '<summary>Monitor event: "CI of PR 6"</summary>\n'
        "<event>rust-lint pass; 0 failed; done</event>"
    )
    src = _ci_session(tmp_path, notices=(event,))
    assert _jobs(src) == {_ID: ""}
    assert "Nothing is running" not in _summary(src)


@pytest.mark.parametrize(
    "end",
    [
        '<summary>Monitor "CI of PR 6" stream ended</summary>',
        "<event>[Monitor timed out — re-arm if needed.]</event>",
        "<status>completed</status>\n<summary>Monitor finished</summary>",
        "<status>killed</status>",
    ],
)
def test_a_notification_that_the_watch_ended_ends_it(tmp_path: Path, end: str) -> None:
    event = "<event>rust-lint pending</event>"
    src = _ci_session(tmp_path, notices=(event, end))
    assert _jobs(src)[_ID], _jobs(src)
    assert f"(id {_ID})" not in section(_summary(src), 7)


@pytest.mark.parametrize(
    ("said", "key"),
    [
        (_STARTED, _ID),
        ("Watcher started (job w81x2k). Events arrive as notifications.", "w81x2k"),
        ("Task 7f3a9c2 started.", "7f3a9c2"),
        ("Shell started with id sh_42; output goes to /tmp/sh_42.log", "sh_42"),
        ("Job j-8841 is running in the background.", "j-8841"),
    ],
)
def test_a_result_naming_the_id_it_started_is_a_job(said: str, key: str) -> None:
    assert job_starts(said) == [key]
    assert started_ids(said) == [key]  # reduction keeps the only place that names it (N5)


def test_words_without_an_id_start_nothing() -> None:
    for said in (
        "the task is running fine",
        "job done, started over",
        "Build started (3 steps)",
        "Shell script started at 10:00",
    ):
        assert job_starts(said) == [], said


def test_reduction_keeps_the_monitor_start_while_it_runs(tmp_path: Path) -> None:
    src = _ci_session(tmp_path)
    messages = read_transcript(str(src), src.read_bytes()).messages
    refs = find_results(messages)
    kept = [
        result_text(messages[refs[i].index], refs[i])[0] for i in running_starts(messages, refs)
    ]
    assert kept == [_STARTED], kept
