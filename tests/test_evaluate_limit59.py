"""``compact eval`` after blind check 59: an original whose last assistant text is the agent CLI's
usage-limit notice ("You've hit your limit · resets 3pm") ended NOT answered — the work stopped;
the eval's "ended" row read the notice as an answer and scored a right summary as wrong (75.7)."""

from __future__ import annotations

from pathlib import Path

from compactor.runs.evaluate import evaluate_files

from .cc_session import Session
from .fake_server_cli import invoke

LONG = "collecting ... test session output line that says nothing in particular\n" * 120


def _stopped_at_the_limit(notice: str) -> Session:
    s = Session()
    s.user("Add the dashboard filters and make the five dashboard tests pass.")
    for n in range(6):
        s.bash(f"pytest -q tests/test_dashboard_{n}.py", LONG)
    s.assistant([{"type": "text", "text": notice}])
    return s


def test_a_session_stopped_by_the_usage_limit_ended_unanswered(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    src.write_bytes(
        b"\n".join(_stopped_at_the_limit("You've hit your limit · resets 3pm").lines()) + b"\n"
    )
    out = tmp_path / "out.jsonl"
    proc = invoke(["run", "--model", "local", "--force", "--no-cache", str(src), "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    result = evaluate_files(str(src), str(out))
    ended = [(i.score, i.how) for c in result.categories if c.name == "ended" for i in c.items]
    assert ended and all(score == 1.0 for score, _ in ended), ended
    assert any("usage limit" in how for _, how in ended), ended
    assert not [c for c in result.contradictions if c.kind == "ended"], result.contradictions


def test_a_long_answer_that_mentions_a_rate_limit_is_still_an_answer(tmp_path: Path) -> None:
    answer = (
        "Done: the dashboard filters are in and the five tests pass. I also documented the API's "
        "rate limit in README.md (100 requests per minute) and added a retry with backoff. "
    ) * 8
    src = tmp_path / "s.jsonl"
    src.write_bytes(b"\n".join(_stopped_at_the_limit(answer).lines()) + b"\n")
    out = tmp_path / "out.jsonl"
    proc = invoke(["run", "--model", "local", "--force", "--no-cache", str(src), "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    result = evaluate_files(str(src), str(out))
    ended = [(i.score, i.how) for c in result.categories if c.name == "ended" for i in c.items]
    assert ended and all("answered" in how and "limit" not in how for _, how in ended), ended
